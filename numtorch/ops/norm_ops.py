"""Fused normalisation primitive: subtract the mean, divide by the standard deviation.

Batch, layer, group and instance norm all reduce to "standardise over some dims". Composed
from ``mean``/``var``/``sub``/``div`` ops this costs about ten passes over the input and as many
saved temporaries, and the composed backward is longer still. ``Normalize`` computes the
statistics in one einsum pass each, saves only the normalised input and the inverse standard
deviation, and has a fused backward (``NormalizeBackward``) whose own backward is composed of
numtorch ops, so gradients of any order work (speed and memory).

The affine part (``* weight + bias``) stays a composition in ``nn.functional``: it is two
cheap elementwise ops whose gradients the engine already reduces correctly.
"""

import numpy as np

from ..autograd.graph import Op

__all__ = ["normalize_stats"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _sum_keepdim(xp, a, dims, b=None):
    """sum(a) or sum(a * b) over ``dims`` with those dims kept as size 1.

    ``einsum`` reduces any set of axes in one pass without the temporary ``a * b`` and is
    about twice as fast as ``ndarray.sum`` over non-trailing axes (measured for float32).
    """
    nd = a.ndim
    kept = tuple(1 if i in dims else s for i, s in enumerate(a.shape))
    if nd > len(_LETTERS):  # pragma: no cover - beyond einsum's letters; plain reductions
        r = a.sum(axis=dims, keepdims=True) if b is None else (a * b).sum(axis=dims,
                                                                          keepdims=True)
        return r
    sub = _LETTERS[:nd]
    out = "".join(c for i, c in enumerate(sub) if i not in dims)
    if b is None:
        r = xp.einsum(f"{sub}->{out}", a)
    else:
        r = xp.einsum(f"{sub},{sub}->{out}", a, b)
    return xp.asarray(r).reshape(kept)


class Normalize(Op):
    """xhat = (x - mean) * invstd, invstd = (var + eps)^(-1/2), biased var over ``dims``.

    Outputs ``(xhat, invstd)`` (invstd keeps the reduced dims as size 1).
    Derivative: dx = NormalizeBackward(g_xhat) - g_invstd * invstd^2 * xhat / n.
    ``stats`` (a dict or None) receives the batch ``mean`` and biased ``var`` arrays, which
    the running-statistics updates of batch and instance norm need.
    """

    def forward(self, x):
        xp, dims, n = self.xp, self.dims, self.n
        count = x.dtype.type(n)
        with np.errstate(invalid="ignore", divide="ignore"):  # n == 0 gives NaN, as torch
            mean = _sum_keepdim(xp, x, dims) / count
            xc = x - mean
            var = _sum_keepdim(xp, xc, dims, xc) / count
            invstd = 1 / xp.sqrt(var + x.dtype.type(self.eps))
        xc *= invstd
        if self.stats is not None:
            self.stats["mean"] = mean
            self.stats["var"] = var
        self.save_output(xc, 0)
        self.save_output(invstd, 1)
        return xc, invstd

    def backward(self, g_xhat, g_invstd):
        xhat = self.saved_output(0)
        invstd = self.saved_output(1)
        gx = NormalizeBackward.apply(g_xhat, xhat, invstd, dims=self.dims, n=self.n)
        # The engine hands zeros for an unused invstd; skip the term then (it is exact zero).
        if g_invstd.requires_grad or bool(self.xp.any(g_invstd._array)):
            gx = gx - g_invstd * invstd * invstd * xhat / self.n
        return gx


class NormalizeBackward(Op):
    """dx = invstd * (g - mean(g) - xhat * mean(g * xhat)), means over ``dims``.

    The map g -> dx is self-adjoint, so d/dg is this op again; d/dxhat and d/dinvstd are
    composed of numtorch ops (see ``backward``).
    """

    def forward(self, g, xhat, invstd):
        self.save_inputs(g, xhat, invstd)
        xp, dims = self.xp, self.dims
        n = g.dtype.type(self.n)
        mean_g = _sum_keepdim(xp, g, dims) / n
        mean_gx = _sum_keepdim(xp, g, dims, xhat) / n
        out = xhat * mean_gx
        xp.subtract(g, out, out=out)
        out -= mean_g
        out *= invstd
        return out

    def backward(self, gg):
        g, xhat, invstd = self.saved_inputs()
        dims, n = self.dims, self.n
        need_g, need_xhat, need_invstd = self.needs_input_grad
        dg = dxhat = dinv = None
        if need_g:
            dg = NormalizeBackward.apply(gg, xhat, invstd, dims=dims, n=n)
        if need_xhat or need_invstd:
            mean_gx = (g * xhat).mean(dims, keepdim=True)
            if need_xhat:
                a = gg * invstd
                dxhat = -(a * mean_gx + g * (a * xhat).mean(dims, keepdim=True))
            if need_invstd:
                core = g - g.mean(dims, keepdim=True) - xhat * mean_gx
                dinv = (gg * core).sum(dims, keepdim=True)
        return dg, dxhat, dinv


def normalize_stats(input, dims, eps, stats=None):
    """Standardise ``input`` over ``dims``: return ``(xhat, invstd)``.

    Args:
        input (Tensor): a floating point tensor.
        dims (tuple of int): the (non-negative, sorted) dims holding one group's values.
        eps (float): added to the biased variance before the square root.
        stats (dict, optional): receives the batch ``"mean"`` and biased ``"var"`` arrays
            (reduced dims kept as size 1), for running-statistics updates.

    Returns:
        tuple: ``xhat`` with ``input``'s shape and ``invstd`` with the reduced dims as 1.

    Example:
        >>> from numtorch.ops.norm_ops import normalize_stats
        >>> xhat, invstd = normalize_stats(torch.randn(4, 3), (0,), 1e-5)
        >>> xhat.shape, invstd.shape
        (torch.Size([4, 3]), torch.Size([1, 3]))
    """
    shape = input.shape
    n = 1
    for d in dims:
        n *= shape[d]
    return Normalize.apply(input, dims=tuple(dims), eps=float(eps), n=n, stats=stats)
