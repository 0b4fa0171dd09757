"""Batch norm's training forward and fused backward with the channels split across the
intra-op threads (``_intraop``).

Batch norm pools every dim but the channel dim, so each channel's statistics, normalised
values and gradients depend on that channel alone: a part of the channels is a whole
problem, and the threads need no second phase to combine partial sums (NumPy releases the
GIL inside each ufunc and einsum, so the parts run at the same time). Each part runs the
operations of ``NormalizeAffine``'s general per-group path in the same order, over a view
``(N, channels of the part, rest)`` of the input.

"""

import numpy as np

from ..backend import is_device_array
from . import _intraop

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_PASSES = 3  # the forward and backward each make ~5 passes: split from a third of the size
# Values per (sample, channel) plane, at least: a part's view has planes as its contiguous
# runs, and short runs make every pass slower. Training forward + backward, float32, batch
# 16, calling thread's CPU time one thread -> two: 64x56x56 10.6 -> 6.5 ms, 64x28x28 2.06 ->
# 1.54, 128x14x14 1.03 -> 0.80, 256x7x7 0.70 -> 0.58 (process CPU 0.70 -> 0.90), 512x4x4
# 0.69 -> 0.84 (process CPU doubled)
_MIN_PLANE = 100


def applies(op, x, w, b):
    """Whether ``op`` (a NormalizeAffine over ``dims``) is batch norm over a large contiguous
    CPU array of 3+ dims with per-channel (or no) affine parameters, and two cores are free."""
    nd = x.ndim
    if nd < 3 or op.dims != (0,) + tuple(range(2, nd)) or x.shape[1] < 2:
        return False
    if x.dtype not in _BLAS_FLOATS or not x.flags.c_contiguous or is_device_array(x):
        return False
    if x.size * _PASSES < 2 * _intraop._MIN_PART or op.n < 2 or \
            x.size // (x.shape[0] * x.shape[1]) < _MIN_PLANE:
        return False
    for p in (w, b):
        if p is not None and (p.ndim != nd or p.size != x.shape[1] or p.dtype != x.dtype
                              or p.shape[1] != x.shape[1]):
            return False
    return _intraop.parts(x.shape[1], x.size // x.shape[1] * _PASSES) > 1 and \
        not _intraop._cores_taken()


def _plane(a, c):
    """``a`` (N, C, *) as (N, C, rest), or a per-channel parameter as (1, C, 1)."""
    return None if a is None else a.reshape(a.shape[0], c, -1)


def forward(op, x, w, b, sum_keepdim):
    """y = (x - mean) * (invstd * w) + b with batch statistics, channels split across the
    threads; fills ``op.stats`` and returns ``(y, x - mean, invstd)`` in ``x``'s shape."""
    xp, c = op.xp, x.shape[1]
    x3 = _plane(x, c)
    w3, b3 = _plane(w, c), _plane(b, c)
    xc = xp.empty_like(x3)
    y = xp.empty_like(x3)
    mean = xp.empty((1, c, 1), dtype=x.dtype)
    var = xp.empty_like(mean)
    invstd = xp.empty_like(mean)
    count = x.dtype.type(op.n)
    eps = x.dtype.type(op.eps)
    dims = (0, 2)

    def part(lo, hi):
        xs, xcs, ys = x3[:, lo:hi], xc[:, lo:hi], y[:, lo:hi]
        m = mean[:, lo:hi]
        xp.divide(sum_keepdim(xp, xs, dims), count, out=m)
        xp.subtract(xs, m, out=xcs)
        v = var[:, lo:hi]
        xp.divide(sum_keepdim(xp, xcs, dims, xcs), count, out=v)
        inv = invstd[:, lo:hi]
        xp.divide(1, xp.sqrt(v + eps), out=inv)
        xp.multiply(xcs, inv if w3 is None else inv * w3[:, lo:hi], out=ys)
        if b3 is not None:
            ys += b3[:, lo:hi]

    with np.errstate(invalid="ignore", divide="ignore"):
        _intraop.run_split(part, c, x.size // c * _PASSES)
    kept = tuple(c if i == 1 else 1 for i in range(x.ndim))
    if op.stats is not None:
        op.stats["mean"] = mean.reshape(kept)
        op.stats["var"] = var.reshape(kept)
    return y.reshape(x.shape), xc.reshape(x.shape), invstd.reshape(kept)


def backward(op, gy, w, data, invstd, outs, sum_keepdim):
    """NormalizeAffineBackward's per-channel (folded) gradients with the channels split:
    gx = (gy - mean(gy) - xhat * mean(gy * xhat)) * invstd * w, gw = sum(gy * xhat),
    gb = sum(gy); ``data`` is x - mean. Returns the requested arrays by name."""
    xp, c = op.xp, gy.shape[1]
    g3, d3 = _plane(gy, c), _plane(data, c)
    inv3, w3 = invstd.reshape(1, c, 1), _plane(w, c)
    gx = xp.empty_like(g3) if "x" in outs else None
    sum_h = xp.empty((1, c, 1), dtype=gy.dtype)
    sum_hx = xp.empty_like(sum_h)
    count = gy.dtype.type(op.n)
    dims = (0, 2)

    def part(lo, hi):
        gs, ds, inv = g3[:, lo:hi], d3[:, lo:hi], inv3[:, lo:hi]
        sh, shx = sum_h[:, lo:hi], sum_hx[:, lo:hi]
        sh[...] = sum_keepdim(xp, gs, dims)
        xp.multiply(sum_keepdim(xp, gs, dims, ds), inv, out=shx)
        if gx is not None:
            out = gx[:, lo:hi]
            xp.multiply(ds, shx / count * inv, out=out)
            xp.subtract(gs, out, out=out)
            out -= sh / count
            out *= inv if w3 is None else inv * w3[:, lo:hi]

    with np.errstate(invalid="ignore", divide="ignore"):
        _intraop.run_split(part, c, gy.size // c * _PASSES)
    results = {}
    if gx is not None:
        results["x"] = gx.reshape(gy.shape)
    if "w" in outs:
        results["w"] = sum_hx.reshape(op.w_shape)
    if "b" in outs:
        results["b"] = sum_h.reshape(op.b_shape)
    return results
