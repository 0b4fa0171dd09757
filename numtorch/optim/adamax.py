"""Adamax: Adam with the infinity norm of past gradients as the second moment."""

import numpy as np

from .. import backend
from ..backend._axpy import add_scaled
from ._checks import check_betas, check_lr, check_nonneg
from ._half_steps import half_grad
from .adam import lerp_inplace
from .optimizer import Optimizer, _make

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (a variant of Adam based on the infinity norm).

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 2e-3.
        betas (Tuple[float, float]): decay of the first moment and of the infinity norm.
        eps (float): added to the infinity norm. Default: 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        maximize (bool): ascend instead of descend. Default: False.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonneg(eps, "epsilon value")
        check_betas(betas)
        check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        state["exp_avg"] = _make(xp.zeros_like(param._array))
        state["exp_inf"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and p.dtype == grad.dtype:
            return self._update_half(param, grad, state, group)
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        step = self._step_tensor(state)
        beta1, beta2 = group["betas"]
        if group["weight_decay"] != 0:
            g = add_scaled(g, p, group["weight_decay"])  # torch's one rounding
        m, u = state["exp_avg"]._array, state["exp_inf"]._array
        lerp_inplace(xp, m, g, 1 - beta1)
        u *= beta2
        xp.maximum(u, xp.abs(g) + group["eps"], out=u)
        clr = group["lr"] / (1 - beta1 ** step)
        p += (-clr * m) / u  # torch's addcdiv: (value * m) / u

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type as torch's kernels do."""
        g = half_grad(param, grad, group)
        step = self._step_tensor(state)
        beta1, beta2 = group["betas"]
        m, u = state["exp_avg"], state["exp_inf"]
        m.lerp_(g, 1 - beta1)
        u.mul_(beta2)
        np.maximum(u._array, g.abs().add_(group["eps"])._array, out=u._array)
        param.addcdiv_(m, u, value=-group["lr"] / (1 - beta1 ** step))
