"""NAdam: Adam with Nesterov momentum and torch's momentum-decay schedule."""

import numpy as np

from .. import backend
from ..backend._axpy import add_scaled
from ._checks import check_betas, check_lr, check_nonneg
from ._half_steps import half_grad, half_moments
from .adam import moments_step
from .optimizer import Optimizer, _make

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 2e-3.
        betas (Tuple[float, float]): decay rates of the moment estimates.
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): weight decay. Default: 0.
        momentum_decay (float): speed of the momentum schedule. Default: 4e-3.
        decoupled_weight_decay (bool): shrink the weights directly (as AdamW). Default: False.
        maximize (bool): ascend instead of descend. Default: False.
    """

    _scalar_state_keys = ("step", "mu_product")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_nonneg(eps, "epsilon value")
        check_betas(betas)
        check_nonneg(weight_decay, "weight_decay value")
        check_nonneg(momentum_decay, "momentum_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    _capturable_error = ("If capturable=True, params, mu_products and state_steps must be on "
                         "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        state["mu_product"] = _make(xp.ones((), dtype="float32"))
        state["exp_avg"] = _make(xp.zeros_like(param._array))
        state["exp_avg_sq"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and p.dtype == grad.dtype:
            return self._update_half(param, grad, state, group)
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        step = self._step_tensor(state)
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        bc2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p *= 1 - lr * wd
            else:
                g = add_scaled(g, p, wd)  # torch's one rounding
        decay = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        prod = state["mu_product"]._array
        prod *= mu  # float32 product, as torch keeps it in a tensor
        m, v = state["exp_avg"]._array, state["exp_avg_sq"]._array
        moments_step(xp, m, v, g, beta1, beta2, exact=True)
        denom = xp.sqrt(v / bc2) + eps
        prod_now = float(prod)
        prod_next = prod_now * mu_next
        # torch's two addcdivs: (value * x) / denom, then the sum
        p += (-lr * (1.0 - mu) / (1.0 - prod_now)) * g / denom
        p += (-lr * mu_next / (1.0 - prod_next)) * m / denom

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type as torch's kernels do."""
        g = half_grad(param, grad, group)
        step = self._step_tensor(state)
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        bc2 = 1 - beta2 ** step
        decay = group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * decay))
        prod = state["mu_product"]._array
        prod *= mu  # float32 product, as torch keeps it in a tensor
        m, v = half_moments(state, g, beta1, beta2, group)
        if group.get("foreach"):  # torch's multi-tensor step: sqrt(v) / sqrt(bc2)
            denom = (v.sqrt() / bc2 ** 0.5).add_(eps)
        else:
            denom = v.div(bc2).sqrt().add_(eps)
        prod_now = float(prod)
        prod_next = prod_now * mu_next
        param.addcdiv_(g, denom, value=-lr * (1.0 - mu) / (1.0 - prod_now))
        param.addcdiv_(m, denom, value=-lr * mu_next / (1.0 - prod_next))
