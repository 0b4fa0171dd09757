"""Rprop: resilient backpropagation, driven by the sign of the gradient only."""

from .. import backend
from ._checks import check_lr, check_nonneg
from .optimizer import Optimizer, _make

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): initial per-coordinate step size. Default: 1e-2.
        etas (Tuple[float, float]): (decrease, increase) factors of the step size.
        step_sizes (Tuple[float, float]): smallest and largest allowed step sizes.
        maximize (bool): ascend instead of descend. Default: False.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        state["prev"] = _make(xp.zeros_like(param._array))
        lr = group["lr"]
        if param._array.dtype.kind == "c":  # both parts of a complex value step from lr
            lr = complex(float(lr), float(lr))
        state["step_size"] = _make(xp.full_like(param._array, lr))

    def _update(self, param, grad, state, group):
        p = param._array
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        self._step_tensor(state)
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, size = state["prev"]._array, state["step_size"]._array
        s = _sign(xp, g * prev)
        factor = xp.where(s > 0, etaplus, xp.where(s < 0, etaminus, 1.0)).astype(size.dtype)
        size *= factor
        xp.clip(size, lo, hi, out=size)
        # after a sign change the coordinate rests for one step (and forgets its gradient)
        g = xp.where(s < 0, 0, g).astype(p.dtype)
        p -= _sign(xp, g) * size
        prev[...] = g


def _sign(xp, a):
    """torch's sign: 0 for NaN (NumPy's is NaN), so a NaN gradient leaves its entry unmoved."""
    s = xp.asarray(xp.sign(a))  # (a 0-d parameter gives a NumPy scalar)
    if s.dtype.kind == "f":
        xp.copyto(s, 0, where=s != s)
    return s
