"""RMSprop (optionally centered, with momentum), following torch's update."""

import numpy as np

from .. import backend
from ..backend._axpy import add_product, add_scaled
from . import _device_step
from ._checks import check_lr, check_nonneg
from ._half_steps import foreach_factor
from .adam import lerp_inplace
from .optimizer import Optimizer, _make

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-2.
        alpha (float): smoothing constant of the squared-gradient average. Default: 0.99.
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        momentum (float): momentum factor. Default: 0.
        centered (bool): normalise by an estimate of the gradient's variance. Default: False.
        maximize (bool): ascend instead of descend. Default: False.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        check_nonneg(eps, "epsilon value")
        check_nonneg(momentum, "momentum value")
        check_nonneg(weight_decay, "weight_decay value")
        check_nonneg(alpha, "alpha value")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _step_group(self, group):
        if _device_step.on_device(group["params"]):  # a GPU: multi-tensor launches
            group = _device_step.step_group(self, group, _device_step.rmsprop_step)
            if group is None:
                return None
        return super()._step_group(group)

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        state["square_avg"] = _make(xp.zeros_like(param._array))
        if group["momentum"] > 0:
            state["momentum_buffer"] = _make(xp.zeros_like(param._array))
        if group["centered"]:
            state["grad_avg"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and p.dtype == grad.dtype:
            return self._update_half(param, grad, state, group)
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        self._step_tensor(state)
        alpha = group["alpha"]
        if group["weight_decay"] != 0:
            g = add_scaled(g, p, group["weight_decay"])  # torch's one rounding
        sq = state["square_avg"]._array
        sq *= alpha
        sq[...] = add_product(sq, (1 - alpha) * g, g)
        if group["centered"]:
            ga = state["grad_avg"]._array
            lerp_inplace(xp, ga, g, 1 - alpha)
            avg = xp.sqrt(add_product(sq, -ga, ga))
        else:
            avg = xp.sqrt(sq)
        avg += group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._array
            buf *= group["momentum"]
            buf += g / avg
            p[...] = add_scaled(p, buf, -group["lr"])
        else:
            p += (-group["lr"] * g) / avg  # torch's addcdiv: (value * g) / avg

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type as torch's kernels do
        (NumPy's 16-bit arithmetic above rounds the scalars to 16 bits first)."""
        g = _make(grad)
        if group["maximize"]:
            g = -g
        self._step_tensor(state)
        alpha = group["alpha"]
        if group["weight_decay"] != 0:
            g = g.add(param, alpha=group["weight_decay"])
        sq = state["square_avg"]
        sq.mul_(foreach_factor(sq, group, alpha)).addcmul_(g, g, value=1 - alpha)
        if group["centered"]:
            ga = state["grad_avg"]
            ga.lerp_(g, 1 - alpha)
            avg = sq.addcmul(ga, ga, value=-1).sqrt_()
        else:
            avg = sq.sqrt()
        avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(foreach_factor(buf, group, group["momentum"])).addcdiv_(g, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            param.addcdiv_(g, avg, value=-group["lr"])
