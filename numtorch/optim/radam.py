"""RAdam: Adam with a rectified (variance-aware) adaptive learning rate."""

import math

import numpy as np

from ._checks import check_betas, check_lr, check_nonneg
from ._half_steps import half_grad, half_moments
from .adam import moments_init, update_moments
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-3.
        betas (Tuple[float, float]): decay rates of the moment estimates.
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): weight decay. Default: 0.
        decoupled_weight_decay (bool): shrink the weights directly (as AdamW). Default: False.
        maximize (bool): ascend instead of descend. Default: False.

    While the variance estimate is unreliable (rho_t <= 5) the update is plain momentum SGD.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_lr(lr)
        check_nonneg(eps, "epsilon value")
        check_betas(betas)
        check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, param, group):
        moments_init(state, param)

    def _update(self, param, grad, state, group):
        a = param._array
        if a.dtype.itemsize == 2 and type(a) is np.ndarray and a.dtype == grad.dtype:
            return self._update_half(param, grad, state, group)
        p, xp, m, v, step = update_moments(self, param, grad, state, group, exact=True)
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        bc1 = 1 - beta1 ** step
        bc2 = 1 - beta2 ** step
        corrected = m / bc1
        rect = _rectification(beta2, step, bc2)
        if rect is not None:
            adaptive = math.sqrt(bc2) / (xp.sqrt(v) + eps)
            p -= corrected * lr * adaptive * rect
        else:
            p -= corrected * lr

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type as torch's kernels do."""
        g = half_grad(param, grad, group)
        step = self._step_tensor(state)
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        m, v = half_moments(state, g, beta1, beta2, group)
        bc1 = 1 - beta1 ** step
        bc2 = 1 - beta2 ** step
        rect = _rectification(beta2, step, bc2)
        if group.get("foreach"):
            # torch's multi-tensor step (measured, bit for bit): the reciprocal of
            # (sqrt(v) + eps) / sqrt(bc2), times the rectification (0 while there is none:
            # an infinite reciprocal gives NaN, as in torch) plus 1 while there is none, times
            # -lr / bc1, added as m * that
            t = (v.sqrt().add_(eps) / math.sqrt(bc2)).reciprocal_()
            t.mul_(0.0 if rect is None else rect).add_(1.0 if rect is None else 0.0)
            t.mul_(-lr / bc1)
            param.addcmul_(m, t)
            return
        corrected = m / bc1
        if rect is not None:
            adaptive = math.sqrt(bc2) / v.sqrt().add_(eps)
            param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            param.add_(corrected * lr, alpha=-1.0)


def _rectification(beta2, step, bc2):
    """RAdam's variance rectification factor at ``step``, or None while the second moment's
    length ``rho_t`` is at most 5 (the step then uses the bias-corrected first moment alone)."""
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bc2
    if not rho_t > 5.0:
        return None
    return math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
