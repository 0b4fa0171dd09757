"""Batch norm's training forward and fused backward over (N, C, plane) views, with the
channels split across the intra-op threads (``_intraop``) when that pays.

Batch norm pools every dim but the channel dim, so each channel's statistics, normalised
values and gradients depend on that channel alone: a part of the channels is a whole
problem, and the threads need no second phase to combine partial sums (NumPy releases the
GIL inside each ufunc and einsum, so the parts run at the same time). Each part runs the
operations of ``NormalizeAffine``'s general per-group path in the same order. The per-channel
factors are repeated over each plane once, (C * plane,) values, so that every elementwise
pass broadcasts over the (N, C * plane) view along N only: NumPy's broadcasting of a
(1, C, 1) factor over short planes is 1.6-2x slower per value. One thread, float32, batch
16, forward / forward + backward: 64x56x56 5.17 -> 4.28 / 10.7 -> 9.6 ms, 512x4x4 0.345 ->
0.233 / 0.735 -> 0.487 ms (torch 0.276 / 0.412).
"""

import numpy as np

from ..backend import is_device_array
from . import _intraop

_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_PASSES = 3  # the forward and backward each make ~5 passes: split from a third of the size
# Values per (sample, channel) plane for a split, at least: small problems lose more to the
# hand-off than they gain. Training forward + backward, float32, batch 16, calling thread's
# CPU time one thread -> two (first version, (1, C, 1) broadcasts, load ~2): 64x56x56 10.6 ->
# 6.5 ms, 64x28x28 2.06 -> 1.54, 128x14x14 1.03 -> 0.80, 256x7x7 0.70 -> 0.58 (process CPU
# 0.70 -> 0.90), 512x4x4 0.69 -> 0.84 (process CPU doubled)
_MIN_PLANE = 100
_SHORT_PLANE = 16
# values in all for a split, at least, in intra-op parts (4 x 2^17): within a two-thread
# ResNet-18 step (batch 16, median of 50) 128x14x14 forward / backward 0.54 / 0.55 ms split,
# 0.48 / 0.44 not; 64x28x28 0.72 / 0.73 split, 0.79-0.90 / 0.76-0.80 not
_MIN_SIZE_PARTS = 4


def applies(op, x, w, b):
    """Whether ``op`` (a NormalizeAffine over ``dims``) is batch norm over a contiguous CPU
    array of 3+ dims with per-channel (or no) affine parameters."""
    nd = x.ndim
    if nd < 3 or op.dims != (0,) + tuple(range(2, nd)) or op.n < 2 or x.size == 0:
        return False
    if x.dtype not in _BLAS_FLOATS or not x.flags.c_contiguous or is_device_array(x):
        return False
    for p in (w, b):
        if p is not None and (p.ndim != nd or p.size != x.shape[1] or p.dtype != x.dtype
                              or p.shape[1] != x.shape[1]):
            return False
    return True


def _run(part, x):
    """``part(0, C)`` here, or the channels split across the threads when the array is large,
    its planes long enough and two cores free."""
    c = x.shape[1]
    unit = x.size // c * _PASSES
    if x.size // (x.shape[0] * c) >= _MIN_PLANE and \
            x.size >= _MIN_SIZE_PARTS * _intraop._MIN_PART and \
            _intraop.parts(c, unit) > 1 and not _intraop._cores_taken():
        _intraop.run_split(part, c, unit)
    else:
        part(0, c)


def _views(a, c):
    """``a`` (N, C, *) as (N, C, plane) and as (N, C * plane)."""
    return a.reshape(a.shape[0], c, -1), a.reshape(a.shape[0], -1)


def _channel_sums(xp, a3, a2, sum_keepdim, b3=None, b2=None):
    """sum(a) (or sum(a * b)) over N and the plane of each channel, shaped (1, c, 1). Planes
    of up to ``_SHORT_PLANE`` values: the rows of the (N, c * plane) view added (NumPy's
    vectorised reduction over N) and then each plane by a matrix-vector product; einsum's
    loop over such short runs measured 2x slower (512 channels of 4x4, batch 16: sum 76 ->
    29 us, sum of products 101 -> 58 us)."""
    plane = a3.shape[2]
    if plane > _SHORT_PLANE:
        return sum_keepdim(xp, a3, (0, 2), b3)
    rows = a2.sum(0) if b2 is None else xp.multiply(a2, b2).sum(0)
    return xp.matmul(rows.reshape(-1, plane), xp.ones(plane, a2.dtype)).reshape(1, -1, 1)


def _spread(xp, v, plane):
    """A per-channel (1, c, 1) array repeated over each channel's plane: (c * plane,), so
    that it broadcasts over the (N, c * plane) view along N only."""
    return xp.repeat(v.reshape(-1), plane)


def forward(op, x, w, b, sum_keepdim):
    """y = (x - mean) * (invstd * w) + b with batch statistics; fills ``op.stats`` and returns
    ``(y, x - mean, invstd)`` in ``x``'s shape."""
    xp, c = op.xp, x.shape[1]
    x3, x2 = _views(x, c)
    plane = x3.shape[2]
    w1 = None if w is None else w.reshape(1, c, 1)
    b1 = None if b is None else b.reshape(1, c, 1)
    # allocated in x's shape, computed through views: a returned view would be copied again
    # by whoever must not alias it (a leaf's gradient accumulator)
    xc_out, y_out = xp.empty_like(x), xp.empty_like(x)
    xc, y2 = xc_out.reshape(x3.shape), y_out.reshape(x2.shape)
    xc2 = xc_out.reshape(x2.shape)
    mean = xp.empty((1, c, 1), dtype=x.dtype)
    var = xp.empty_like(mean)
    invstd = xp.empty_like(mean)
    count = x.dtype.type(op.n)
    eps = x.dtype.type(op.eps)

    def part(lo, hi):
        cols = slice(lo * plane, hi * plane)
        m = mean[:, lo:hi]
        xp.divide(_channel_sums(xp, x3[:, lo:hi], x2[:, cols], sum_keepdim), count, out=m)
        xp.subtract(x2[:, cols], _spread(xp, m, plane), out=xc2[:, cols])
        xcs, xcs2 = xc[:, lo:hi], xc2[:, cols]
        v = var[:, lo:hi]
        xp.divide(_channel_sums(xp, xcs, xcs2, sum_keepdim, xcs, xcs2), count, out=v)
        inv = invstd[:, lo:hi]
        xp.divide(1, xp.sqrt(v + eps), out=inv)
        scale = inv if w1 is None else inv * w1[:, lo:hi]
        xp.multiply(xc2[:, cols], _spread(xp, scale, plane), out=y2[:, cols])
        if b1 is not None:
            y2[:, cols] += _spread(xp, b1[:, lo:hi], plane)

    with np.errstate(invalid="ignore", divide="ignore"):
        _run(part, x)
    kept = tuple(c if i == 1 else 1 for i in range(x.ndim))
    if op.stats is not None:
        op.stats["mean"] = mean.reshape(kept)
        op.stats["var"] = var.reshape(kept)
    return y_out, xc_out, invstd.reshape(kept)


def backward(op, gy, w, data, invstd, outs, sum_keepdim):
    """NormalizeAffineBackward's per-channel (folded) gradients:
    gx = (gy - mean(gy) - xhat * mean(gy * xhat)) * invstd * w, gw = sum(gy * xhat),
    gb = sum(gy); ``data`` is x - mean. Returns the requested arrays by name."""
    xp, c = op.xp, gy.shape[1]
    g3, g2 = _views(gy, c)
    d3, d2 = _views(data, c)
    plane = g3.shape[2]
    inv3 = invstd.reshape(1, c, 1)
    w1 = None if w is None else w.reshape(1, c, 1)
    gx_out = xp.empty(gy.shape, dtype=gy.dtype) if "x" in outs else None
    gx = None if gx_out is None else gx_out.reshape(g2.shape)
    sum_h = xp.empty((1, c, 1), dtype=gy.dtype)
    sum_hx = xp.empty_like(sum_h)
    count = gy.dtype.type(op.n)

    def part(lo, hi):
        gs, inv = g3[:, lo:hi], inv3[:, lo:hi]
        cols = slice(lo * plane, hi * plane)
        sh, shx = sum_h[:, lo:hi], sum_hx[:, lo:hi]
        sh[...] = _channel_sums(xp, gs, g2[:, cols], sum_keepdim)
        xp.multiply(_channel_sums(xp, gs, g2[:, cols], sum_keepdim, d3[:, lo:hi], d2[:, cols]),
                    inv, out=shx)
        if gx is not None:
            out = gx[:, cols]
            xp.multiply(d2[:, cols], _spread(xp, shx / count * inv, plane), out=out)
            xp.subtract(g2[:, cols], out, out=out)
            out -= _spread(xp, sh / count, plane)
            out *= _spread(xp, inv if w1 is None else inv * w1[:, lo:hi], plane)

    with np.errstate(invalid="ignore", divide="ignore"):
        _run(part, gy)
    results = {}
    if gx is not None:
        results["x"] = gx_out
    if "w" in outs:
        results["w"] = sum_hx.reshape(op.w_shape)
    if "b" in outs:
        results["b"] = sum_h.reshape(op.b_shape)
    return results
