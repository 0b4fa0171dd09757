"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch's update rule)."""

from .. import backend
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
        if grad.shape != p.shape or grad.dtype != p.dtype:
            return self._update_unfused(p, grad, state, group)
        # One pass per step of the rule, every intermediate written into a reused buffer
        # (``out=``): no temporary is allocated per parameter. ``sign`` carries maximize while
        # the direction is still the raw gradient, so -grad is never materialised; every
        # rewrite below is exact in floating point (x + (-y) == x - y).
        xp = backend.xp_of(p)
        lr, wd, momentum = group["lr"], group["weight_decay"], group["momentum"]
        negate = group["maximize"]
        d_p = grad
        if wd != 0:
            d_p = self._scratch(p, 1)
            xp.multiply(p, wd, out=d_p)
            (xp.subtract if negate else xp.add)(d_p, grad, out=d_p)
            negate = False
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                first = xp.negative(d_p) if negate else d_p.copy()
                buf = state["momentum_buffer"] = _make(first)
                if negate:  # Nesterov below adds the direction itself: -grad, the new buffer
                    d_p, negate = first, False
            else:
                b = buf._array
                b *= momentum
                dampening = group["dampening"]
                if dampening != 0:
                    t = self._scratch(p, 0)
                    xp.multiply(d_p, 1 - dampening, out=t)
                    (xp.subtract if negate else xp.add)(b, t, out=b)
                else:
                    (xp.subtract if negate else xp.add)(b, d_p, out=b)
            if group["nesterov"]:
                t = self._scratch(p, 0)
                xp.multiply(buf._array, momentum, out=t)
                (xp.subtract if negate else xp.add)(t, d_p, out=t)
                # d_p + m * buf, summed in torch's order (addition commutes exactly)
                d_p, negate = t, False
            else:
                d_p, negate = buf._array, False
        t = self._scratch(p, 0)
        xp.multiply(d_p, lr, out=t)
        (xp.add if negate else xp.subtract)(p, t, out=p)

    def _update_unfused(self, p, grad, state, group):
        """The update with temporaries, for a gradient whose shape or dtype differs from the
        parameter's (broadcast or promoted as NumPy does)."""
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
