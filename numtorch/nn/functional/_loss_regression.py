"""Regression and distribution losses: l1, mse, smooth l1, huber, Poisson and Gaussian NLL, and
KL divergence (composed from ops)."""

import math
import warnings

from ... import _dtype
from ...autograd.grad_mode import no_grad
from ...ops.comparison import where
from ...ops.loss_ops import pointwise_loss
from ._loss_util import (
    broadcast_shape, check_reduction, get_reduction, reduce_loss, warn_target_size,
)

__all__ = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "kl_div"]


def _pointwise(kind, kernel, input, target, reduction, p=None, int_ok=False):
    """The fused elementwise loss ``kind`` of ``input - target`` with its reduction."""
    a, b = getattr(input, "_array", None), getattr(target, "_array", None)
    if a is not None and b is not None and a.shape == b.shape and a.dtype is b.dtype and \
            a.dtype.kind == "f":  # the usual call: nothing to broadcast or promote
        return pointwise_loss(input, target, kind, reduction, p)
    if broadcast_shape(tuple(input.shape), tuple(target.shape)) is None:
        input - target  # raises torch's broadcasting error
    dt = _dtype.result_type(input, target)
    if dt.is_complex and kind != "l1":  # torch's kernels take complex values only for L1
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    if dt._category < _dtype._FLOAT:
        if int_ok:  # torch computes integer L1 losses (their mean then raises)
            return reduce_loss((input - target).abs(), reduction)
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    return pointwise_loss(input, target, kind, reduction, p)


def _weighted(loss, weight, input, reduction, mean_by_weight):
    """torch's weighted path: ``loss * weight`` reduced; 'mean' divides by ``sum(weight)``
    (l1, mse) or by the count (huber)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         f"'mean', 'sum'.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / weight.sum() if mean_by_weight else loss.mean()


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced.

    Args:
        input (Tensor): predictions of any shape.
        target (Tensor): same shape as ``input`` (broadcasting warns, as in torch).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): per-element weights of ``input``'s shape; ``'mean'``
            then divides by their sum.

    Returns:
        Tensor: a scalar, or the elementwise loss for ``reduction='none'``.

    Example:
        >>> torch.nn.functional.l1_loss(torch.tensor([1., 2.]), torch.tensor([0., 4.]))
        tensor(1.5000)
    """
    warn_target_size(input, target)
    red = get_reduction(size_average, reduce, reduction, validate=weight is None)
    if weight is not None:
        return _weighted(_pointwise("l1", "", input, target, "none", int_ok=True), weight,
                         input, red, True)
    return _pointwise("l1", "", input, target, red, int_ok=True)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)^2``, reduced.

    Args:
        input (Tensor): predictions of any shape.
        target (Tensor): same shape as ``input`` (broadcasting warns, as in torch).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): per-element weights of ``input``'s shape; ``'mean'``
            then divides by their sum.

    Example:
        >>> torch.nn.functional.mse_loss(torch.tensor([1., 2.]), torch.tensor([0., 4.]))
        tensor(2.5000)
    """
    warn_target_size(input, target)
    red = get_reduction(size_average, reduce, reduction, validate=weight is None)
    if weight is not None:
        return _weighted((input - target) ** 2, weight, input, red, True)
    return _pointwise("mse", "mse_cpu", input, target, red)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta`` and absolute error (shifted by ``beta/2``) above it.

    ``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``, with ``d = input -
    target``; ``beta = 0`` is the L1 loss.

    Args:
        input (Tensor): predictions.
        target (Tensor): same shape as ``input``.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        beta (float): where the quadratic part ends; must be >= 0. Default: 1.0.

    Example:
        >>> torch.nn.functional.smooth_l1_loss(torch.tensor([0.5, 3.]), torch.zeros(2))
        tensor(1.3125)
    """
    warn_target_size(input, target)
    red = get_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:  # the L1 loss: the quadratic zone is empty
        return _pointwise("l1", "smooth_l1_cpu", input, target, red)
    return _pointwise("smooth_l1", "smooth_l1_cpu", input, target, red, float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, ``delta``-scaled absolute error above.

    ``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)`` (``delta`` times the
    smooth L1 loss with ``beta = delta``).

    Args:
        input (Tensor): predictions.
        target (Tensor): same shape as ``input``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        delta (float): the switch point; must be positive. Default: 1.0.
        weight (Tensor, optional): per-element weights of ``input``'s shape ('mean' then
            averages the weighted losses).

    Example:
        >>> torch.nn.functional.huber_loss(torch.tensor([0.5, 3.]), torch.zeros(2))
        tensor(1.3125)
    """
    warn_target_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        loss = _pointwise("huber", "huber_cpu", input, target, "none", float(delta))
        return _weighted(loss, weight, input, reduction, False)
    return _pointwise("huber", "huber_cpu", input, target, check_reduction(reduction),
                      float(delta))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target`` under a Poisson distribution.

    ``exp(input) - target * input`` when ``log_input`` (the input is the log-rate), else
    ``input - target * log(input + eps)``; ``full`` adds Stirling's approximation of
    ``log(target!)`` where ``target > 1``.

    Args:
        input (Tensor): the (log-)rate.
        target (Tensor): observed counts.
        log_input (bool): whether ``input`` is the log of the rate. Default: True.
        full (bool): add the Stirling term. Default: False.
        size_average (bool, optional): deprecated; see ``reduction``.
        eps (float): keeps ``log`` finite when ``log_input=False``. Default: 1e-8.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> torch.nn.functional.poisson_nll_loss(torch.zeros(2), torch.tensor([1., 2.]))
        tensor(1.)
    """
    red = get_reduction(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + where(target > 1, stirling, 0.0)
    return reduce_loss(loss, red)


def _var_shape_ok(input, var):
    """torch's rule: var matches input, lacks input's last dim, or differs from it in one
    dim where it has size 1."""
    ishape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape == ishape:
        return var
    if ishape[:-1] == vshape:
        return var.unsqueeze(-1)
    if len(ishape) == len(vshape) and sum(v for i, v in zip(ishape, vshape) if i != v) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target`` under Gaussians of mean ``input`` and variance
    ``var``: ``0.5 (log(var) + (input - target)^2 / var)`` (+ ``0.5 log(2 pi)`` if ``full``).

    Args:
        input (Tensor): the means.
        target (Tensor): the samples.
        var (Tensor or float): the variances: input's shape, one dim short of it
            (homoscedastic over the last dim), or of size 1 in one dim; must be >= 0.
        full (bool): include the constant term. Default: False.
        eps (float): lower clamp of ``var`` (the gradient still flows as if unclamped, as in
            torch). Default: 1e-6.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> torch.nn.functional.gaussian_nll_loss(torch.zeros(2), torch.ones(2), torch.ones(2))
        tensor(0.5000)
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(tuple(input.shape))
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = _var_shape_ok(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # clamp a copy under no_grad: the value is floored, the gradient passes unchanged (torch)
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


def _xlogy_self(t):
    """``t * log(t)`` with 0 at ``t == 0`` (torch's xlogy(t, t))."""
    return where(t == 0, 0.0, t * t.log())


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence ``target * (log(target) - input)`` with ``input`` given as
    log-probabilities (and ``target`` too when ``log_target``).

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities if ``log_target``).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'batchmean'`` | ``'sum'`` | ``'mean'``; 'batchmean'
            divides the sum by the batch size (the true KL divergence per sample), while
            'mean' divides by the number of elements and warns, as in torch. Default: 'mean'.
        log_target (bool): ``target`` holds log-probabilities. Default: False.

    Example:
        >>> p = torch.tensor([0.5, 0.5])
        >>> torch.nn.functional.kl_div(p.log(), p, reduction="sum")
        tensor(0.)
    """
    batchmean = False
    if size_average is not None or reduce is not None:
        red = get_reduction(size_average, reduce, reduction)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          UserWarning, stacklevel=2)
        batchmean = reduction == "batchmean"
        red = "sum" if batchmean else check_reduction(reduction, stacklevel=3)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    out = reduce_loss(loss, red)
    if batchmean and input.dim() != 0:
        out = out / input.shape[0]
    return out
