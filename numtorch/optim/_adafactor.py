"""Adafactor: Adam-like steps with a factored second moment and relative step sizes.

For a matrix (or a batch of them, over the last two dims) the second moment is kept as a row
statistic (``row_var``, shape ``(..., m, 1)``) and a column statistic (``col_var``,
``(..., 1, n)``): O(m + n) memory instead of O(mn). Vectors and scalars keep a full
``variance``. The decay ``beta2_t = 1 - t**beta2_decay`` rises towards 1, the step size is
``min(lr, 1/sqrt(t))`` scaled by the parameter's RMS (at least ``eps2``), and each update is
clipped to an RMS of at most ``d``.
"""

import math

import numpy as np

from .. import _dtype, backend
from .._tensor import Tensor
from .optimizer import Optimizer, _make

__all__ = ["Adafactor"]


def _rms(xp, a):
    return float(xp.sqrt(xp.mean(xp.square(a, dtype=a.dtype)))) if a.size else 0.0


class Adafactor(Optimizer):
    """Adafactor (Shazeer and Stern, 2018), as torch 2.x implements it.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float or Tensor): the largest relative step size. Default: 1e-2.
        beta2_decay (float): exponent of the second-moment decay ``1 - t**beta2_decay``
            (<= 0). Default: -0.8.
        eps (Tuple[float or None, float]): ``eps1`` guards divisions by the second moment
            (None: the dtype's machine epsilon); ``eps2`` is the smallest parameter RMS used
            to scale the step. Default: (None, 1e-3).
        d (float): clipping threshold of the update's RMS (>= 1). Default: 1.
        weight_decay (float): decoupled weight decay (the parameter shrinks by
            ``lr * weight_decay`` each step). Default: 0.
        foreach (bool, optional): accepted for torch compatibility.
        maximize (bool): ascend instead of descend. Default: False.

    Example:
        >>> w = torch.nn.Parameter(torch.ones(3, 2))
        >>> opt = torch.optim.Adafactor([w])
        >>> w.sum().backward(); opt.step()
    """

    _scalar_state_keys = ("step",)

    __module__ = "numtorch.optim"  # where torch reports its Adafactor

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, state, param, group):
        p = param._array
        xp = backend.xp_of(p)
        if p.dtype.kind == "c":
            raise RuntimeError("Adafactor does not support complex parameters")
        state["step"] = _make(xp.zeros((), dtype="float32"))
        if p.ndim > 1:
            state["row_var"] = _make(xp.zeros(p.shape[:-1] + (1,), dtype=p.dtype))
            state["col_var"] = _make(xp.zeros(p.shape[:-2] + (1, p.shape[-1]), dtype=p.dtype))
        else:
            state["variance"] = _make(xp.zeros_like(p))

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and p.dtype == grad.dtype:
            return self._update_half(param, grad, state, group)
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        step = self._step_tensor(state)
        lr = float(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(_dtype.finfo(param.dtype).eps)  # (NumPy's finfo has no bfloat16)
        one_minus_beta2 = step ** group["beta2_decay"]  # 1 - beta2_t
        rho = min(lr, 1.0 / math.sqrt(step))
        alpha = max(eps2, _rms(xp, p)) * rho
        if group["weight_decay"] != 0:
            p *= 1.0 - lr * group["weight_decay"]
        sq = xp.square(g)
        if p.ndim > 1:
            row, col = state["row_var"]._array, state["col_var"]._array
            row += (xp.mean(sq, axis=-1, keepdims=True) - row) * one_minus_beta2
            col += (xp.mean(sq, axis=-2, keepdims=True) - col) * one_minus_beta2
            # the rank-one estimate row * col, normalised by the mean of the row statistic
            var = (row * col) / xp.maximum(xp.mean(row, axis=-2, keepdims=True), eps1)
        else:
            var = state["variance"]._array
            var += (sq - var) * one_minus_beta2
        update = g / xp.sqrt(xp.maximum(var, eps1 * eps1))
        denom = max(1.0, _rms(xp, update) / group["d"])
        p -= (alpha / denom) * update


    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops
        (each computing in float32 and rounding once to the 16-bit type, its norms reduced in
        float32), where NumPy's 16-bit arithmetic rounds differently."""
        g = _make(grad)
        if group["maximize"]:
            g = -g
        step = self._step_tensor(state)
        lr = float(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(_dtype.finfo(param.dtype).eps)
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1.0 / step ** 0.5)
        alpha = max(eps2, param.detach().norm(2).item() / (param.numel() ** 0.5)) * rho
        if group["weight_decay"] != 0:
            param.mul_(1 - lr * group["weight_decay"])
        if g.dim() > 1:
            row, col = state["row_var"], state["col_var"]
            row.lerp_(g.norm(dim=-1, keepdim=True).square_().div_(g.shape[-1]),
                      one_minus_beta2)
            col.lerp_(g.norm(dim=-2, keepdim=True).square_().div_(g.shape[-2]),
                      one_minus_beta2)
            var = row @ col
            var.div_(row.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            var = state["variance"]
            var.lerp_(g * g, one_minus_beta2)
            var = var.clone()
        update = var.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(g)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
        param.add_(update, alpha=-alpha / denom)


from ._functional import adafactor  # noqa: E402,F401  (torch.optim._adafactor.adafactor)
