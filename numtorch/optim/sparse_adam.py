"""SparseAdam: Adam that only touches the rows present in a sparse COO gradient (the step is
in ``_sparse_grads.py``); a dense CPU gradient is refused with torch's error."""

import math

import numpy as np

from .. import backend
from ._checks import check_betas, check_lr, number
from . import _sparse_grads
from .optimizer import Optimizer, _make

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Lazy Adam for sparse gradients (``nn.Embedding(sparse=True)``): moments and parameters
    change only at the gradient's entries.

    Args:
        params (iterable): parameters or parameter groups.
        lr (float): learning rate. Default: 1e-3.
        betas (Tuple[float, float]): decay rates of the moment estimates.
        eps (float): added to the denominator. Default: 1e-8.
        maximize (bool): ascend instead of descend. Default: False.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_lr(lr, strict=True)
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {number(eps)}")
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        sparse, complex_ = [], []
        for gi, group in enumerate(self.param_groups):
            for pi, param in enumerate(group["params"]):
                if param.is_sparse:
                    sparse.append([gi, pi])
                if param.is_complex():
                    complex_.append([gi, pi])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense "
                             "parameter tensors")
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not "
                             "support complex parameters")

    _sparse_step = _sparse_grads.sparse_adam

    def _init_state(self, state, param, group):
        if param.device.type == "cpu" and not _sparse_grads.sparse_grad(param.grad):
            self.state.pop(param, None)  # torch checks before making any state
            raise _dense_error()
        xp = backend.xp_of(param._array)
        state["step"] = 0
        state["exp_avg"] = _make(xp.zeros_like(param._array))
        state["exp_avg_sq"] = _make(xp.zeros_like(param._array))

    def _update(self, param, grad, state, group):
        # A device parameter's gradient is dense (numtorch's sparse tensors live on the CPU, so
        # Embedding(sparse=True) on a GPU gives a dense one): its nonzero entries are read as
        # the stored ones of a sparse gradient (torch's result for ``grad.to_sparse()``).
        p = param._array
        xp = backend.xp_of(p)
        if xp is np:
            raise _dense_error()
        g = -grad if group["maximize"] else grad
        state["step"] += 1
        step = state["step"]
        beta1, beta2 = group["betas"]
        present = g != 0
        m, v = state["exp_avg"]._array, state["exp_avg_sq"]._array
        m += xp.where(present, (g - m) * (1 - beta1), 0).astype(m.dtype)
        v += xp.where(present, (g * g - v) * (1 - beta2), 0).astype(v.dtype)
        step_size = group["lr"] * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        upd = m / (xp.sqrt(v) + group["eps"])
        p -= xp.where(present, step_size * upd, 0).astype(p.dtype)


def _dense_error():
    return RuntimeError("SparseAdam does not support dense gradients, please consider Adam "
                        "instead")
