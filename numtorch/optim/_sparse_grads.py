"""Optimizer steps on sparse COO gradients (``nn.Embedding(sparse=True)`` and co).

Torch lets SGD, Adagrad and SparseAdam step with a sparse gradient and every other optimizer
refuse it with its own message. Here the gradient is coalesced once (sorted, duplicate-free
row indices), so each update touches only the rows present with plain fancy indexing (no
``np.add.at``); the values are the ones torch's formulas give (up to the order in which
duplicate entries are summed).
"""

import math

from .._sparse import is_sparse
from .._tensor import Tensor

__all__ = []

# torch's own wording where it differs from "<Name> does not support sparse gradients"
_MESSAGES = {"Adam": "Adam does not support sparse gradients, please consider SparseAdam "
                     "instead",
             "AdamW": "Adam does not support sparse gradients, please consider SparseAdam "
                      "instead"}


def sparse_grad(g):
    """Whether gradient ``g`` is a sparse COO tensor (one type check for dense ones)."""
    return type(g) is not Tensor and is_sparse(g)


def any_sparse(params):
    """Whether any of ``params`` holds a sparse gradient."""
    for p in params:
        g = p.grad
        if type(g) is not Tensor and g is not None and is_sparse(g):
            return True
    return False


def refusal(opt):
    """torch's error for an optimizer that takes no sparse gradients (named after the
    numtorch optimizer class a user's subclass derives from, as torch's fixed messages are)."""
    name = next((c.__name__ for c in type(opt).__mro__
                 if c.__module__.startswith("numtorch.optim")), type(opt).__name__)
    return RuntimeError(_MESSAGES.get(name, f"{name} does not support sparse gradients"))


def _rows(g):
    """The coalesced gradient's index tuple (for fancy indexing) and values array."""
    c = g.coalesce()._array
    return tuple(c.indices), c.values._array


def _add_rows(param, g, alpha):
    """``param += alpha * g`` for a sparse ``g`` (only its rows are written)."""
    idx, vals = _rows(g)
    p = param._array
    p[idx] += (vals * alpha).astype(p.dtype, copy=False)


def sgd(opt, param, g, state, group):
    """SGD with a sparse gradient: plain, momentum, dampening, Nesterov and maximize as torch
    allows them; the momentum buffer is a sparse tensor, as torch keeps it. Weight decay adds
    the dense parameter to the sparse gradient, which torch refuses."""
    grad = g.detach()
    if group["maximize"]:
        grad = grad * -1
    if group["weight_decay"] != 0:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    momentum = group["momentum"]
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = grad.clone()
        else:
            buf = buf * momentum + grad * (1 - group["dampening"])
            if buf._nnz() > param.shape[0]:  # keep the buffer from growing step after step
                buf = buf.coalesce()
        state["momentum_buffer"] = buf
        grad = grad + buf * momentum if group["nesterov"] else buf
    _add_rows(param, grad, -group["lr"])


def adagrad(opt, param, g, state, group):
    """Adagrad with a sparse gradient: the squared-gradient sum and the parameter change only
    at the gradient's rows (torch's sparse branch; weight decay is refused as in torch)."""
    if group["weight_decay"] != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    step = opt._step_tensor(state)
    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
    idx, vals = _rows(g)
    if group["maximize"]:
        vals = -vals
    total = state["sum"]._array
    total[idx] += vals * vals
    std = _sqrt(total[idx]) + group["eps"]
    p = param._array
    p[idx] -= (clr * (vals / std)).astype(p.dtype, copy=False)


def sparse_adam(opt, param, g, state, group):
    """SparseAdam's step: the moments and parameter updated at the gradient's rows only."""
    state["step"] += 1
    step = state["step"]
    idx, vals = _rows(g)
    if group["maximize"]:
        vals = -vals
    beta1, beta2 = group["betas"]
    m, v = state["exp_avg"]._array, state["exp_avg_sq"]._array
    m_old, v_old = m[idx], v[idx]
    m_new = m_old + (vals - m_old) * (1 - beta1)
    v_new = v_old + (vals * vals - v_old) * (1 - beta2)
    m[idx], v[idx] = m_new, v_new
    step_size = group["lr"] * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
    p = param._array
    p[idx] -= (step_size * (m_new / (_sqrt(v_new) + group["eps"]))).astype(p.dtype, copy=False)


def _sqrt(a):
    from .. import backend

    return backend.xp_of(a).sqrt(a)
