"""ASGD: averaged stochastic gradient descent (torch's ``eta``, ``mu`` and ``ax`` state)."""

from .. import backend
from ..backend._axpy import add_scaled
from ._checks import check_lr, check_nonneg
from .optimizer import Optimizer, _make

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-2.
        lambd (float): decay term. Default: 1e-4.
        alpha (float): power of the learning-rate decay. Default: 0.75.
        t0 (float): step at which averaging starts. Default: 1e6.
        weight_decay (float): L2 penalty added to the gradient. Default: 0.
        maximize (bool): ascend instead of descend. Default: False.

    The running average of the parameters is kept in ``state['ax']``.
    """

    _scalar_state_keys = ("step", "eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _capturable_error = ("If capturable=True, params, mus, etas, and state_steps must be on "
                         "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")

    def _init_state(self, state, param, group):
        xp = backend.xp_of(param._array)
        state["step"] = _make(xp.zeros((), dtype="float32"))
        state["eta"] = _make(xp.asarray(group["lr"], dtype="float32"))
        state["mu"] = _make(xp.ones((), dtype="float32"))
        state["ax"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        xp = backend.xp_of(p)
        g = -grad if group["maximize"] else grad
        step = self._step_tensor(state)
        lr, lambd = group["lr"], group["lambd"]
        if group["weight_decay"] != 0:
            g = add_scaled(g, p, group["weight_decay"])  # torch's one rounding
        eta_arr, mu_arr = state["eta"]._array, state["mu"]._array
        eta, mu = float(eta_arr), float(mu_arr)
        p *= 1 - lambd * eta
        if group["foreach"] and param.dtype.is_floating_point and param.dtype.itemsize == 2:
            # torch's multi-tensor step: eta rounded to the 16-bit dtype, the update computed
            # in float32 and rounded once
            f32 = p.dtype.type(eta).astype("float32")
            p[...] = p.astype("float32") - f32 * g.astype("float32")
        else:
            p[...] = add_scaled(p, g, -eta)
        ax = state["ax"]._array
        if mu != 1:
            ax += (p - ax) * mu
        else:
            ax[...] = p
        eta_arr[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        mu_arr[...] = 1 / max(1, step - group["t0"])
