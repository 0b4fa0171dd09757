"""Classification losses: cross entropy, NLL, binary cross entropy (on probabilities and on
logits) and the margin / soft-margin family."""

import numpy as np

from ... import _dtype
from ..._tensor import _make
from ...autograd.grad_mode import no_grad
from ...autograd.graph import rename_node
from ...backend import is_device_array, xp_of
from ...ops.comparison import where
from ...ops._util import fmt_shape
from ...ops.loss_ops import (
    bce_with_logits_op, binary_cross_entropy_op, cross_entropy_index, nll_index,
    soft_margin_loss_op,
)
from ...ops.softmax import log_softmax
from ._loss_util import (
    broadcast_shape, check_not_requires_grad, check_same_dtype, check_tensor, get_reduction,
    is_float, reduce_loss, type_name,
)
from ...ops._util import no_dims_error

__all__ = ["nll_loss", "cross_entropy", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "multilabel_margin_loss"]


# -- class indices -----------------------------------------------------------------------------
def _check_index_target(input, target, weight, fn):
    """torch's checks of a class-index target and class weights for nll/cross entropy;
    returns the number of classes."""
    nd = input.dim()
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    tshape, ishape = tuple(target.shape), tuple(input.shape)
    index_dtype = target.dtype is _dtype.int64 or target.dtype is _dtype.uint8
    if nd == 1:
        if not index_dtype:  # torch looks at a 1-d input's target dtype first
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                               f"{type_name(target)}")
        if target.dim() > 1 or (target.dim() == 1 and tshape[0] != 1):
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{tshape[0] if target.dim() else 0}")
    elif ishape[0] != (tshape[0] if tshape else 0):
        raise ValueError(f"Expected input batch_size ({ishape[0]}) to match target batch_size "
                         f"({tshape[0] if tshape else 0}).")
    elif nd == 2 and target.dim() != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif nd == 4 and target.dim() != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {target.dim()}")
    elif nd > 2 and tshape != ishape[:1] + ishape[2:]:
        if nd == 4:
            raise RuntimeError(f"size mismatch (got input: {fmt_shape(ishape)} , target: "
                               f"{fmt_shape(tshape)}")
        raise RuntimeError(f"Expected target size {fmt_shape(ishape[:1] + ishape[2:])}, got "
                           f"{fmt_shape(tshape)}")
    # with a batch, torch looks at the target's shape before its dtype
    if not index_dtype:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{type_name(target)}")
    n_classes = ishape[0] if nd == 1 else ishape[1]
    if weight is not None:
        check_tensor(fn, "weight", weight, 3)
        if weight.numel() != n_classes or weight.dim() != 1:
            if nd == 4:
                raise RuntimeError("weight tensor should be defined either for all or no classes")
            raise RuntimeError(f"weight tensor should be defined either for all {n_classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{fmt_shape(tuple(weight.shape))}")
        check_same_dtype(input, weight)
        check_not_requires_grad("nll_loss2d_forward" if nd == 4 else "nll_loss_forward",
                                "weight", weight)
    return n_classes


def _check_target_range(target, n_classes, ignore_index):
    t = target._array
    if not t.size or is_device_array(t):  # torch's CUDA kernels assert on the device
        return  # instead of reading the targets back each step
    if int(t.min()) >= 0 and int(t.max()) < n_classes:  # the usual case: two reductions
        return
    bad = ((t < 0) | (t >= n_classes)) & (t != ignore_index)
    if bad.any():
        raise IndexError(f"Target {int(t.reshape(-1)[int(bad.reshape(-1).argmax())])} is out of "
                         f"bounds.")


def _nll_like(fused, input, target, weight, ignore_index, reduction, *extra):
    """Run a fused class-index op, lifting an unbatched (C,) input to (1, C)."""
    w = None if weight is None else weight._array
    if input.dim() == 1:
        out = fused(input.unsqueeze(0), target.reshape(1), w, ignore_index, reduction, *extra)
        return out.reshape(()) if reduction == "none" else out
    return fused(input, target, w, ignore_index, reduction, *extra)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices: ``-weight[t] * input[n, t]`` per sample.

    Args:
        input (Tensor): log-probabilities, ``(N, C)``, ``(C,)`` or ``(N, C, d1, d2, ...)``.
        target (Tensor): int64 (or uint8) class indices, ``(N,)``, ``()`` or
            ``(N, d1, d2, ...)``.
        weight (Tensor, optional): per-class weights of size C.
        size_average (bool, optional): deprecated; see ``reduction``.
        ignore_index (int): target value that contributes nothing (nor to the mean's
            denominator). Default: -100.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``; 'mean' divides by the total
            weight of the counted targets. Default: ``'mean'``.

    Example:
        >>> logp = torch.tensor([[0., -1.], [-2., 0.]])
        >>> torch.nn.functional.nll_loss(logp, torch.tensor([1, 0]))
        tensor(1.5000)
    """
    check_tensor("nll_loss_nd", "input", input, 1)
    check_tensor("nll_loss_nd", "target", target, 2)
    red = get_reduction(size_average, reduce, reduction)
    n_classes = _check_index_target(input, target, weight, "nll_loss_nd")
    if not is_float(input):
        kernel = "nll_loss2d_forward_out_frame" if input.dim() == 4 else "nll_loss_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{type_name(input)}\'')
    _check_target_range(target, n_classes, ignore_index)
    return _nll_like(nll_index, input, target, weight, ignore_index, red)


def _class_view(t, nd):
    """Shape a (C,) per-class tensor to broadcast along dim 1 of an nd-dim input."""
    if nd <= 1:
        return t
    return t.reshape((1, -1) + (1,) * (nd - 2))


def _cross_entropy_probs(input, target, weight, ignore_index, red, label_smoothing):
    """Cross entropy against class probabilities (composed: torch differentiates the target
    and the weight here)."""
    if not is_float(target):
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {type_name(target)}")
    if input.dim() == 0:  # torch asks a 0-d input for its size along the class dim, 1
        raise no_dims_error(1)
    _check_smoothing(label_smoothing)
    if ignore_index >= 0:  # torch accepts any negative value here
        raise RuntimeError("ignore_index is not supported for floating point target")
    nd = input.dim()
    cdim = 0 if nd == 1 else 1
    n_classes = input.shape[cdim]
    if weight is not None and (weight.numel() != n_classes or weight.dim() != 1):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"{fmt_shape(tuple(weight.shape))}")
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = log_softmax(input, cdim) * target
    if weight is not None:
        prod = prod * _class_view(weight, nd)
    if red == "none":
        return -prod.sum(cdim)
    # torch sums all the products at once for 'sum' and 'mean' (row sums first differed in
    # the last bit on half the batches, float64 on all)
    loss = -prod.sum()
    if red == "mean":  # the mean over samples (every position of a K-dim input), not weights
        return loss / (input.numel() // n_classes if n_classes else 0)
    return loss


def _cross_entropy_half(input, target, weight, ignore_index, red, eps):
    """Cross entropy of 16-bit scores as torch composes it, each step rounded to the dtype:
    nll_loss of log_softmax, and with label smoothing ``(1 - eps) nll + eps / C * smooth``,
    smooth the (weighted) negative sum of the log-probabilities over the classes."""
    nd = input.dim()
    cdim = 1 if nd > 1 else 0
    logp = log_softmax(input, cdim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=red)
    if not eps:
        return nll
    smooth = -(logp if weight is None else logp * _class_view(weight, nd)).sum(cdim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0)
    if red == "mean":
        kept = ~ignored
        smooth = smooth.sum() / (kept.sum() if weight is None else
                                 weight.gather(0, target.masked_select(kept).flatten()).sum())
    elif red == "sum":
        smooth = smooth.sum()
    return nll * (1 - eps) + smooth * (eps / input.shape[cdim])


def _check_smoothing(label_smoothing):
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross entropy between softmax(input) over dim 1 and the target.

    The target holds class indices (int64/uint8, one dim fewer than ``input``) or class
    probabilities (a float tensor of ``input``'s shape). The class-index path runs as one
    fused op (log_softmax, pick, weights, reduction).

    Args:
        input (Tensor): unnormalised scores, ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): class indices or class probabilities (see above).
        weight (Tensor, optional): per-class weights of size C.
        size_average (bool, optional): deprecated; see ``reduction``.
        ignore_index (int): class-index target value to skip. Default: -100.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): mix this much of the uniform distribution into the target,
            in ``[0, 1]``. Default: 0.0.

    Example:
        >>> x = torch.tensor([[2., 0.], [0., 2.]])
        >>> torch.nn.functional.cross_entropy(x, torch.tensor([0, 1]))
        tensor(0.1269)
    """
    check_tensor("cross_entropy_loss", "input", input, 1)
    check_tensor("cross_entropy_loss", "target", target, 2)
    red = get_reduction(size_average, reduce, reduction)
    if tuple(target.shape) == tuple(input.shape):
        return _cross_entropy_probs(input, target, weight, ignore_index, red, label_smoothing)
    _check_smoothing(label_smoothing)
    if not label_smoothing > 0:  # torch smooths only above 0 (a negative amount is ignored)
        label_smoothing = 0.0
    if input.dim() == 0:  # torch's log_softmax over dim 1 of a 0-d input
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    n_classes = _check_index_target(input, target, weight, "cross_entropy_loss")
    if not is_float(input):
        raise NotImplementedError(f'"log_softmax_lastdim_kernel_impl" not implemented for '
                                  f"'{type_name(input)}'")
    _check_target_range(target, n_classes, ignore_index)
    if input.dtype in (_dtype.float16, _dtype.bfloat16):
        # torch's 16-bit cross entropy is nll_loss of the log_softmax rounded to the dtype
        # (the fused float32 form gave another last bit of the loss on ~half the batches)
        return _cross_entropy_half(input, target, weight, ignore_index, red, label_smoothing)
    return _nll_like(cross_entropy_index, input, target, weight, ignore_index, red,
                     label_smoothing)


# -- binary cross entropy ----------------------------------------------------------------------
def _check_weight_broadcast(weight, input):
    shape = tuple(input.shape)
    out = broadcast_shape(tuple(weight.shape), shape)
    if out is None:
        for i in range(1, min(weight.dim(), len(shape)) + 1):
            a, b = weight.shape[-i], shape[-i]
            if a != b and a != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {a} at -{i}! "
                                   f"Mismatching argument at index 1 had {weight.shape}; but "
                                   f"expected shape should be broadcastable to "
                                   f"{fmt_shape(shape)}")
    if out != shape:
        raise RuntimeError(f"output with shape {fmt_shape(shape)} doesn't match the broadcast "
                           f"shape {fmt_shape(out)}")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Binary cross entropy of probabilities: ``-w (t log(x) + (1 - t) log(1 - x))``.

    The logs are clamped at -100 as in torch, so a probability of exactly 0 or 1 gives a
    finite loss.

    Args:
        input (Tensor): probabilities in ``[0, 1]``.
        target (Tensor): targets in ``[0, 1]``, of ``input``'s shape and dtype.
        weight (Tensor, optional): weights broadcastable to ``input``'s shape.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> torch.nn.functional.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1.]))
        tensor(0.6931)
    """
    red = get_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         f"size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {type_name(target)} but expected {type_name(input)}")
    if weight is not None:
        check_not_requires_grad("binary_cross_entropy", "weight", weight)
        _check_weight_broadcast(weight, input)
        weight = weight._array.astype(input._array.dtype, copy=False)
    return binary_cross_entropy_op(input, target, weight, red)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)``, computed stably from the logits.

    ``(1 - t) x + (1 + (p - 1) t) log(1 + exp(-x))`` with ``p = pos_weight`` (1 if absent),
    times ``weight``; never overflows.

    Args:
        input (Tensor): logits.
        target (Tensor): targets of ``input``'s shape (the result takes its dtype, as torch).
        weight (Tensor, optional): weights broadcastable to ``input``'s shape.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): weight of the positive term, broadcast along the last
            dim (one per class).

    Example:
        >>> x = torch.tensor([0., 2.])
        >>> torch.nn.functional.binary_cross_entropy_with_logits(x, torch.tensor([1., 1.]))
        tensor(0.4100)
    """
    red = get_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    check_not_requires_grad("binary_cross_entropy_with_logits", "weight", weight)
    check_not_requires_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    out_dtype = target.dtype
    result = _dtype.result_type(input, target)
    if out_dtype._category < result._category:
        raise RuntimeError(f"result type {_dtype._TYPE_DISPLAY[result.name]} can't be cast to "
                           f"the desired output type {type_name(target)}")
    arrays = []
    for w in (weight, pos_weight):
        if w is not None:
            out = broadcast_shape(tuple(w.shape), tuple(input.shape))
            if out is None:
                input * w  # raises torch's broadcasting error
            if out != tuple(input.shape):
                raise RuntimeError(f"output with shape {fmt_shape(tuple(input.shape))} doesn't "
                                   f"match the broadcast shape {fmt_shape(out)}")
            w = w._array.astype(result.np, copy=False)  # keep the computation in one dtype
        arrays.append(w)
    loss = bce_with_logits_op(input, target, arrays[0], arrays[1], red)
    return loss if loss.dtype is out_dtype else loss.to(out_dtype)


# -- soft margin family ------------------------------------------------------------------------
def _plain(t):
    """Whether ``t`` holds a host or device array outside forward AD and vmap (where the
    composed form carries tangents and batching rules)."""
    from ...autograd import forward_ad

    a = t._array
    return forward_ad._state["level"] is None and (type(a) is np.ndarray or
                                                    is_device_array(a))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Two-class logistic loss ``log(1 + exp(-target * input))`` for targets of +1 / -1.

    Args:
        input (Tensor): scores.
        target (Tensor): +1 / -1 labels (not differentiable, as in torch).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> torch.nn.functional.soft_margin_loss(torch.tensor([0.]), torch.tensor([1.]))
        tensor(0.6931)
    """
    red = get_reduction(size_average, reduce, reduction)
    check_not_requires_grad("soft_margin_loss", "target", target)
    # torch's kernel: log1p(exp(-y x)) as written, each op in the input's dtype, so a margin
    # past exp's range (88 in float32, 11 in float16) gives inf (and a nan gradient) there too
    if input.requires_grad and red in ("none", "mean", "sum") and \
            input.dtype.is_floating_point and target.dtype is input.dtype and \
            tuple(target.shape) == tuple(input.shape) and _plain(input) and _plain(target):
        with no_grad():
            value = reduce_loss((-target * input).exp().log1p(), red)
        return soft_margin_loss_op(input, target.detach(), value, red)
    return rename_node(reduce_loss((-target.detach() * input).exp().log1p(), red),
                       "SoftMarginLossBackward0")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """One-vs-all logistic loss averaged over the classes (the last dim).

    ``-(y log(sigmoid(x)) + (1 - y) log(sigmoid(-x)))``, times ``weight``, averaged over the
    last dim, then reduced over the batch.

    Args:
        input (Tensor): scores ``(N, C)`` (or any shape with the classes last).
        target (Tensor): 0 / 1 labels of ``input``'s shape.
        weight (Tensor, optional): weights broadcastable to ``input``.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> x = torch.tensor([[0., 0.]])
        >>> torch.nn.functional.multilabel_soft_margin_loss(x, torch.tensor([[1., 0.]]))
        tensor(0.6931)
    """
    if input.dim() == 0:  # torch asks a 0-d input for its size along dim -1
        raise no_dims_error(-1)
    if size_average is not None or reduce is not None:
        reduction = get_reduction(size_average, reduce, reduction)
    # torch's composition, op by op (its gradient rounds as torch's does)
    from .smooth_activation import logsigmoid

    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.dim() - 1
    loss = loss.sum(cdim) / input.shape[cdim] if input.dim() else loss
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return reduce_loss(loss, reduction)


# -- hinge margin family -----------------------------------------------------------------------
def _check_margin_input(input, fn):
    if input.dim() > 2 or (input.dim() >= 1 and input.shape[-1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {fmt_shape(tuple(input.shape))}")


def _no_half_kernel(input, kernel):
    """torch's CPU margin-loss kernels have no float16/bfloat16 version."""
    if input.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{type_name(input)}\'')


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_j max(0, w[y] (margin - x[y] + x[j]))^p / C`` over
    ``j != y``.

    Args:
        input (Tensor): scores ``(N, C)`` or ``(C,)``.
        target (Tensor): int64 class indices ``(N,)`` (``()`` for unbatched input).
        p (int): 1 or 2. Default: 1.
        margin (float): the margin. Default: 1.0.
        weight (Tensor, optional): per-class weights (1-D, size C).
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> torch.nn.functional.multi_margin_loss(x, torch.tensor([3]))
        tensor(0.3250)
    """
    red = get_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input, "multi_margin_loss")
    nd = input.dim()
    n = input.shape[0] if nd == 2 else 1
    n_classes = input.shape[-1] if nd else 1
    if target.numel() != n or target.dim() > 1:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {fmt_shape(tuple(target.shape))}. Input has shape "
                           f"{fmt_shape(tuple(input.shape))}.")
    if target.dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {type_name(target)}")
    if weight is not None:
        if weight.numel() != n_classes:
            raise RuntimeError(f"inconsistent weight size, expected {n_classes} but got "
                               f"{fmt_shape(tuple(weight.shape))}")
        check_same_dtype(input, weight)
        check_not_requires_grad("multi_margin_loss", "weight", weight)
    _no_half_kernel(input, "multi_margin_loss_cpu_kernel")
    t = target._array
    if t.size and (int(t.min()) < 0 or int(t.max()) >= n_classes):
        raise RuntimeError("target out of range")
    x = input.reshape(n, n_classes)
    t1 = target.reshape(n, 1)
    z = x - x.gather(1, t1) + margin
    h = z.relu()
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight[target.reshape(n)].unsqueeze(1)
    is_target = _make(t.reshape(n, 1) == xp_of(t).arange(n_classes)[None, :])
    loss = where(is_target, 0.0, h).sum(1) / n_classes
    loss = reduce_loss(loss.reshape(tuple(target.shape)), red)
    return rename_node(loss, "MultiMarginLossBackward0")  # torch's node, every reduction


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: ``sum_{j in targets} sum_{k not in targets} max(0, 1 - (x[j] -
    x[k])) / C``.

    Each row of ``target`` lists the sample's classes, ended by the first -1 (the rest of
    the row is ignored).

    Args:
        input (Tensor): scores ``(N, C)``, ``(C,)`` or ``()``.
        target (Tensor): int64 of ``input``'s shape, class indices padded with -1.
        size_average (bool, optional): deprecated; see ``reduction``.
        reduce (bool, optional): deprecated; see ``reduction``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Example:
        >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> torch.nn.functional.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    red = get_reduction(size_average, reduce, reduction)
    _check_margin_input(input, "multilabel_margin_loss")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {fmt_shape(tuple(target.shape))} for "
                           f"input of size: {fmt_shape(tuple(input.shape))}")
    if target.dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {type_name(target)}")
    _no_half_kernel(input, "multilabel_margin_loss_forward_out_frame")
    nd = input.dim()
    n_classes = input.shape[-1] if nd else 1
    n = input.shape[0] if nd == 2 else 1
    t = target._array.reshape(n, n_classes)
    xp = xp_of(t)
    listed = xp.cumprod(t != -1, axis=1).astype(bool)  # entries before the first -1
    if t.size and bool(((t < -1) | (t >= n_classes)).any()):  # even past the first -1
        raise RuntimeError("argument #2 'target' is out of range")
    t_safe = xp.where(listed, t, 0)
    is_target = xp.zeros((n, n_classes), dtype=bool)
    rows = xp.broadcast_to(xp.arange(n)[:, None], (n, n_classes))
    is_target[rows[listed], t_safe[listed]] = True
    x = input.reshape(n, n_classes)
    picked = x.gather(1, _make(t_safe))  # x[j] for each listed j: (n, C)
    # every (listed j, non-target k) pair: an (n, C, C) hinge
    h = (1 - picked.unsqueeze(2) + x.unsqueeze(1)).relu()
    pairs = _make(listed[:, :, None] & ~is_target[:, None, :])
    loss = where(pairs, h, 0.0).sum((1, 2)) / n_classes
    if nd < 2:
        loss = loss.reshape(())
    return rename_node(reduce_loss(loss, red), "MultilabelMarginLossBackward0")
