"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch's update rule)."""

from ._checks import check_fused, check_lr, number
from .optimizer import Optimizer, required, _make

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-3.
        momentum (float): momentum factor. Default: 0.
        dampening (float): dampening of the momentum. Default: 0.
        weight_decay (float): L2 penalty. Default: 0.
        nesterov (bool): Nesterov momentum. Default: False.
        maximize (bool): ascend instead of descend. Default: False.

    The momentum buffer starts as the first gradient, as in torch.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required:
            check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {number(momentum)}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {number(weight_decay)}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def _update(self, param, grad, state, group):
        p = param._array
        d_p = -grad if group["maximize"] else grad
        wd = group["weight_decay"]
        if wd != 0:
            d_p = d_p + wd * p
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = _make(d_p.copy())
            else:
                b = buf._array
                b *= momentum
                b += (1 - group["dampening"]) * d_p
            d_p = d_p + momentum * buf._array if group["nesterov"] else buf._array
        p -= group["lr"] * d_p

    def _update_graph(self, param, grad, state, group):
        """The same update in tensor ops, recorded by autograd (``differentiable=True`` with a
        parameter or gradient that has history); the first momentum buffer is a detached copy
        of the direction, as in torch."""
        d_p = -grad if group["maximize"] else grad
        wd = group["weight_decay"]
        if wd != 0:
            d_p = d_p + wd * param
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = d_p.detach().clone()
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - group["dampening"])
            d_p = d_p + momentum * buf if group["nesterov"] else buf
        param.add_(d_p, alpha=-group["lr"])


from ._functional import sgd  # noqa: E402,F401  (torch.optim.sgd.sgd)
