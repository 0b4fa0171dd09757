"""Adagrad: step sizes shrink with the accumulated squared gradients."""

import numpy as np

from .. import backend
from ..backend._axpy import add_product, add_scaled
from . import _device_step, _sparse_grads
from ._checks import check_fused, check_lr, check_nonneg
from ._half_steps import half_grad
from .optimizer import Optimizer, _make

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-2.
        lr_decay (float): the learning rate at step ``t`` is ``lr / (1 + (t - 1) * lr_decay)``.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        initial_accumulator_value (float): starting value of the squared-gradient sum.
        eps (float): added to the denominator. Default: 1e-10.
        maximize (bool): ascend instead of descend. Default: False.

    As in torch, the state of the constructor's parameters exists before the first step.
    """

    _scalar_state_keys = ("step",)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        check_nonneg(lr_decay, "lr_decay value")
        check_nonneg(weight_decay, "weight_decay value")
        check_nonneg(initial_accumulator_value, "initial_accumulator_value value")
        check_nonneg(eps, "epsilon value")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p, group)

    _sparse_step = _sparse_grads.adagrad  # only the gradient's rows change

    def _fused_refusal(self, param):
        return RuntimeError("`fused` does not support sparse grad or complex param")

    def _step_group(self, group):
        if _device_step.on_device(group["params"]):  # a GPU: multi-tensor launches
            group = _device_step.step_group(self, group, _device_step.adagrad_step)
            if group is None:
                return None
        return super()._step_group(group)

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        s = xp.full_like(param._array, group["initial_accumulator_value"])
        state["sum"] = _make(s)

    def _update(self, param, grad, state, group):
        p = param._array
        if p.dtype.itemsize == 2 and type(p) is np.ndarray and p.dtype == grad.dtype and \
                not group.get("fused"):
            return self._update_half(param, grad, state, group)
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        step = self._step_tensor(state)
        if group["weight_decay"] != 0:
            g = add_scaled(g, p, group["weight_decay"])  # torch's one rounding
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = state["sum"]._array
        s[...] = add_product(s, g, g)
        p += (-clr * g) / (xp.sqrt(s) + group["eps"])  # torch's addcdiv: (value * g) / std

    def _update_half(self, param, grad, state, group):
        """A float16/bfloat16 parameter (host arrays): torch's rule op by op in tensor ops,
        each computing in float32 and rounding once to the 16-bit type as torch's kernels do."""
        g = half_grad(param, grad, group)
        step = self._step_tensor(state)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = state["sum"]
        s.addcmul_(g, g, value=1)
        if group.get("foreach"):
            # torch's multi-tensor step: the gradient scaled by -clr first (rounded to the
            # 16-bit dtype), then added over the root; with weight decay or maximize the factor
            # itself is rounded to that dtype too (measured, bit for bit)
            f = -clr if group["weight_decay"] == 0 and not group["maximize"] else \
                float(param.dtype.np.type(-clr))
            param.addcdiv_(g.mul(f), s.sqrt().add_(group["eps"]))
            return
        param.addcdiv_(g, s.sqrt().add_(group["eps"]), value=-clr)
