"""Adadelta: per-coordinate step sizes from running averages of squared gradients and
squared updates."""

import numpy as np

from .. import backend
from ..backend._axpy import add_product, add_scaled
from ._checks import check_lr, check_nonneg
from ._half_steps import foreach_factor, half_grad
from .optimizer import Optimizer, _make

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): scale applied to the computed update. Default: 1.0.
        rho (float): decay of the running averages. Default: 0.9.
        eps (float): added inside the square roots. Default: 1e-6.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        maximize (bool): ascend instead of descend. Default: False.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonneg(eps, "epsilon value")
        check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, capturable=capturable, foreach=foreach,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _capturable_error = ("If capturable=True, params and state_steps must be on supported "
                         "devices: ['cuda', 'xpu', 'hpu', 'privateuseone'].")

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        state["square_avg"] = _make(xp.zeros_like(param._array))
        state["acc_delta"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and p.dtype == grad.dtype:
            return self._update_half(param, grad, state, group)
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        self._step_tensor(state)
        rho, eps = group["rho"], group["eps"]
        if group["weight_decay"] != 0:
            g = add_scaled(g, p, group["weight_decay"])  # torch's one rounding
        sq, acc = state["square_avg"]._array, state["acc_delta"]._array
        sq *= rho
        sq[...] = add_product(sq, (1 - rho) * g, g)
        delta = xp.sqrt(acc + eps) / xp.sqrt(sq + eps) * g
        acc *= rho
        acc[...] = add_product(acc, (1 - rho) * delta, delta)
        p[...] = add_scaled(p, delta, -group["lr"])

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type (NumPy's 16-bit
        arithmetic would round the Python-number factors to 16 bits first)."""
        g = half_grad(param, grad, group)
        self._step_tensor(state)
        rho, eps = group["rho"], group["eps"]
        sq, acc = state["square_avg"], state["acc_delta"]
        sq.mul_(foreach_factor(sq, group, rho)).addcmul_(g, g, value=1 - rho)
        std = sq.add(eps).sqrt_()
        delta = acc.add(eps).sqrt_().div_(std).mul_(g)
        acc.mul_(foreach_factor(acc, group, rho)).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group["lr"])
