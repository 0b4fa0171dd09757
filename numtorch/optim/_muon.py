"""Muon: momentum whose update is orthogonalised by a Newton-Schulz iteration (2-d weights).

torch runs the iteration in bfloat16. numtorch rounds each intermediate of the iteration to
bfloat16 (round to nearest even) while computing in float32, which reproduces torch's
results without needing a bfloat16 dtype (ml_dtypes) and runs on NumPy's float32 GEMMs.
"""

import math

import numpy as np

from .. import backend
from .optimizer import Optimizer, _make

__all__ = ["Muon"]

_ADJUST = (None, "original", "match_rms_adamw")


def _bf16(xp, a):
    """``a`` (float32) rounded to the nearest bfloat16 value, ties to even; kept as float32."""
    u = a.view(np.uint32)
    r = (u + (np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))) & \
        np.uint32(0xFFFF0000)
    r = r.view(np.float32)
    return xp.where(xp.isnan(a), a, r)


def _lerp(start, end, weight):
    """torch's lerp: from the nearer end, so weight 1 gives ``end`` exactly."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


def _orthogonalize(xp, g, coefficients, eps, steps):
    """The Newton-Schulz iterate of ``g`` (float32 result of bfloat16 arithmetic)."""
    a, b, c = coefficients
    x = _bf16(xp, xp.asarray(g, dtype=np.float32))
    flip = x.shape[0] > x.shape[1]
    if flip:  # iterate on the wide orientation: the Gram matrix is the smaller one
        x = xp.ascontiguousarray(x.T)
    norm = _bf16(xp, xp.sqrt(xp.sum(x * x, dtype=np.float32)).reshape(1))
    x = _bf16(xp, x / _bf16(xp, xp.maximum(norm, np.float32(eps))))  # torch clamps at eps
    a, b, c = np.float32(a), np.float32(b), np.float32(c)
    for _ in range(steps):
        gram = _bf16(xp, x @ x.T)
        poly = _bf16(xp, b * gram + c * (gram @ gram))
        x = _bf16(xp, a * x + poly @ x)
    return x.T if flip else x


class Muon(Optimizer):
    """Muon (MomentUm Orthogonalized by Newton-Schulz) for 2-d parameters.

    Each step keeps a momentum buffer (an exponential average of the gradients), takes the
    Nesterov look-ahead of it (or the buffer itself), replaces that matrix by a near-orthogonal
    one with ``ns_steps`` Newton-Schulz iterations, shrinks the weights by
    ``lr * weight_decay`` and subtracts the orthogonalised update scaled by the adjusted rate.

    Args:
        params (iterable): 2-d parameters or parameter groups.
        lr (float): learning rate. Default: 1e-3.
        weight_decay (float): decoupled weight decay. Default: 0.1.
        momentum (float): momentum factor. Default: 0.95.
        nesterov (bool): use the Nesterov look-ahead. Default: True.
        ns_coefficients (tuple): the iteration's polynomial ``(a, b, c)``.
        eps (float): the smallest norm the iteration starts by dividing with. Default: 1e-7.
        ns_steps (int): Newton-Schulz iterations. Default: 5.
        adjust_lr_fn (str, optional): ``"original"`` (the default, None) scales the rate by
            ``sqrt(max(1, rows / cols))``; ``"match_rms_adamw"`` by ``0.2 * sqrt(max(rows,
            cols))``, so rates tuned for AdamW carry over.

    Example:
        >>> w = torch.nn.Parameter(torch.randn(4, 6))
        >>> opt = torch.optim.Muon([w], lr=0.02)
        >>> (w ** 2).sum().backward(); opt.step()
    """

    __module__ = "numtorch.optim"  # where torch reports its Muon

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-07, ns_steps=5,
                 adjust_lr_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in _ADJUST:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_state(self, state, param, group):
        state["momentum_buffer"] = _make(backend.xp_of(param._array).zeros_like(param._array))

    def _update(self, param, grad, state, group):
        p = param._array
        xp = backend.xp_of(p)
        mu = group["momentum"]
        buf = state["momentum_buffer"]._array
        buf[...] = _lerp(buf, grad, 1 - mu)  # an exponential average of the gradients
        update = _lerp(grad, buf, mu) if group["nesterov"] else buf
        o = _orthogonalize(xp, update, group["ns_coefficients"], group["eps"],
                           group["ns_steps"])
        rows, cols = p.shape
        lr = group["lr"]
        if group["adjust_lr_fn"] == "match_rms_adamw":
            step = 0.2 * math.sqrt(max(rows, cols)) * lr
        else:
            step = math.sqrt(max(1.0, rows / cols)) * lr
        p *= 1 - lr * group["weight_decay"]
        p -= (step * o).astype(p.dtype, copy=False)
