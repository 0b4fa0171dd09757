"""Group norm's row form on the CPU: a contiguous (N, G, C/G, S) float32/float64 input with a
per-channel weight and bias ((1, G, C/G, 1) or absent), S >= ``_MIN_S``.

Each group's values are one contiguous row of C/G * S values, so its statistics are a BLAS
dot (sum of squares) and a matrix-vector product (sum) per row, and the affine part is one
scale and one shift per channel row (N * C rows of S): y = x A + B, where A = invstd w and
B = b - mean A. A and B are made full blocks by the rank-1 GEMM of ``backend._blas_gemm``
(NumPy's broadcast loops over (rows, 1) operands cost ~90 ns a row, 1.5-2x a pass), in
blocks of ``_BLOCK`` values so the passes after the first find the block in the cache.

The backward works from x itself and the group means (as ``norm_rows``): per channel row
P1 = sum(gy) and P2 = sum(gy x) (a matrix-vector product and a row dot), Q = P2 - mean P1;
gb = sum_n P1, gw = sum_n invstd Q, and gx = gy A + x Kx + K0 with Kx = -invstd^3 Sq / m,
K0 = -invstd Sh / m - mean Kx, Sh and Sq the group sums of w P1 and w Q (m values a group).

The one-pass variance and the raw-x backward lose bits when a group's mean is large against
its spread; groups with mean^2 > ``norm_rows._ONE_PASS`` var take the general path (the
forward returns None before anything is saved, the backward's ``applies`` refuses them).

Measured (bench/norm_gelu.py --set s41: one thread, CPU time, 5 alternating processes a
library; the general path formed x - mean, xhat and broadcast products): GroupNorm(8) on
(32, 64, 32, 32) forward 3.28 -> 2.20 ms (torch 1.0-1.2), forward + backward 8.4 -> 6.1 ms
(torch 2.8-3.1); GroupNorm(32) on (16, 128, 16, 16) forward 736 -> 333 us (torch 160),
forward + backward 2.10 -> 1.67 ms (torch 0.46-0.50).
"""

import numpy as np

from ..backend import _blas_gemm as norm_blas
from . import norm_rows

_BLOCK = 1 << 17  # values per block of channel rows: x, y (and the backward's two more
# blocks) stay in L2
_SUB = 128  # values per GEMM row at most (``_split_rows``)
_MIN_S = 16  # values per channel row: below, the rank-1 blocks cost more than they save
_FLOATS = norm_rows._FLOATS


def applies(op, x, w, b):
    """Whether the group row form computes ``op`` (a ``NormalizeAffine``): group norm's
    (N, G, C/G, S) view of a contiguous CPU float32/float64 input, normalised over dims
    (2, 3), with per-channel (1, G, C/G, 1) weight and bias (or none) of x's dtype."""
    if not (type(x) is np.ndarray and x.ndim == 4 and op.dims == (2, 3) and x.size and
            x.dtype in _FLOATS and x.flags.c_contiguous and x.shape[3] >= _MIN_S and
            op.n > 1 and getattr(op, "stats", None) is None):
        return False
    shape = (1, x.shape[1], x.shape[2], 1)
    return all(p is None or (type(p) is np.ndarray and p.shape == shape and p.dtype == x.dtype)
               for p in (w, b))


def _channel_vec(p, x, fill):
    """The per-channel parameter as a (G, C/G) array (``fill`` where absent)."""
    if p is None:
        return np.full(x.shape[1:3], fill, dtype=x.dtype)
    return p.reshape(x.shape[1:3])


def _split_rows(s):
    """Sub-rows per channel row: OpenBLAS's rank-1 GEMM runs 2-2.5x slower on rows of 1024
    than of 64-256 values ((64, 1024) 12.7 us against (256, 256) 5.3), so a channel row of
    S values is cut into k rows of S / k <= ``_SUB`` values, each taking its row's factor."""
    k = 1
    while s // k > _SUB and s % (2 * k) == 0:
        k *= 2
    return k


def _rows_pass(out, src, a, c, src2=None, a2=None):
    """out = src * (a per row) + (c per row) [+ src2 * (a2 per row)], block by block over
    the (R, S) rows while each block is in the cache: a rank-1 GEMM writes the scale block,
    a multiply, an accumulating rank-1 GEMM adds the shift (then the same scale-and-multiply
    into a scratch block and an add for the second term)."""
    k = _split_rows(out.shape[1])
    if k > 1:
        rows, s = out.shape[0] * k, out.shape[1] // k
        out, src = out.reshape(rows, s), src.reshape(rows, s)
        a, c = np.repeat(a, k), np.repeat(c, k)
        if src2 is not None:
            src2, a2 = src2.reshape(rows, s), np.repeat(a2, k)
    rows, s = out.shape
    dt = out.dtype
    size = dt.itemsize
    gemm = norm_blas.gemm_fn(dt)
    ones, pones = norm_blas.ones(s, dt)
    ones_row = ones.reshape(1, s)
    step = max(1, _BLOCK // s)
    pout, pa, pc = norm_blas.ptr(out), norm_blas.ptr(a), norm_blas.ptr(c)
    ua, uc = a.reshape(1, rows), c.reshape(1, rows)
    big = out.nbytes > norm_rows._SCRATCH_BYTES  # the scale block in scratch (see there)
    if src2 is not None or big:
        t = np.empty((min(step, rows), s), dtype=dt)
        pt = norm_blas.ptr(t)
    if src2 is not None:
        pa2, ua2 = norm_blas.ptr(a2), a2.reshape(1, rows)
    row_bytes = s * size
    for lo in range(0, rows, step):
        hi = min(rows, lo + step)
        blk = out[lo:hi]
        off, aoff = lo * row_bytes, lo * size
        if big:
            tb = t[:hi - lo]
            gemm(tb, ua[:, lo:hi], ones_row, 0, pt, pa + aoff, pones)
            np.multiply(src[lo:hi], tb, out=blk)
        else:
            gemm(blk, ua[:, lo:hi], ones_row, 0, pout + off, pa + aoff, pones)
            blk *= src[lo:hi]
        gemm(blk, uc[:, lo:hi], ones_row, 1, pout + off, pc + aoff, pones)
        if src2 is not None:
            tb = t[:hi - lo]
            gemm(tb, ua2[:, lo:hi], ones_row, 0, pt, pa2 + aoff, pones)
            tb *= src2[lo:hi]
            blk += tb


def _row_sums(a, b, dots=True):
    """(sum(a b), sum(a)) per row (the first None without ``dots``), block by block: the dot
    brings a block into the cache, the matrix-vector product finds it there (one sweep
    over memory, not two)."""
    rows, n = a.shape
    dt = a.dtype
    ones = norm_blas.ones(n, dt)[0]
    sums = np.empty(rows, dtype=dt)
    prods = np.empty(rows, dtype=dt) if dots else None
    step = max(1, _BLOCK // n)
    for lo in range(0, rows, step):
        hi = min(rows, lo + step)
        blk = a[lo:hi]
        if dots:
            prods[lo:hi] = _vecdot(blk, b[lo:hi])
        np.matmul(blk, ones, out=sums[lo:hi])
    return prods, sums


# Each row's dot: NumPy 2's vecdot is one BLAS dot per row (``norm_rows._row_dots``)
_vecdot = np.vecdot if hasattr(np, "vecdot") else (lambda a, b: np.einsum("ij,ij->i", a, b))


def forward(op, x, w, b):
    """NormalizeAffine.forward for group norm, or None (nothing saved) when a group needs the
    two-pass variance. Saves x, the group means and invstd as ``norm_rows`` does."""
    dt = x.dtype
    nb, g, cg, s = x.shape
    rows, n = nb * g, cg * s
    x2 = x.reshape(rows, n)
    count = dt.type(n)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        var, mean = _row_sums(x2, x2)
        mean /= count
        var /= count
        m2 = mean * mean
        var -= m2
        m2 *= dt.type(1 / norm_rows._ONE_PASS)
        if not np.greater(var, m2).all():  # also var <= 0 and NaN
            return None
        var += dt.type(op.eps)
        np.sqrt(var, out=var)
        inv = np.divide(1, var)
        wc = _channel_vec(w, x, 1)
        bc = _channel_vec(b, x, 0)
        a = inv.reshape(nb, g, 1) * wc  # (N, G, C/G): per channel row
        c = bc - mean.reshape(nb, g, 1) * a
        y = np.empty_like(x)
        _rows_pass(y.reshape(nb * g * cg, s), x.reshape(nb * g * cg, s),
                   np.ascontiguousarray(a.reshape(-1)), np.ascontiguousarray(c.reshape(-1)))
    means = mean if op._recording else None
    norm_rows._save(op, x, w, b, x if op._recording else None, inv, means)
    return y


def grads_apply(op, gy, w, data, mean, invstd):
    """Whether ``backward`` computes the gradients of ``op`` from x itself (``data``) and the
    group means saved by ``forward``."""
    if not (mean is not None and type(data) is np.ndarray and type(gy) is np.ndarray and
            data.dtype == gy.dtype and data.shape == gy.shape and applies(op, gy, w, None)):
        return False
    m2 = mean.reshape(-1) * invstd.reshape(-1)
    with np.errstate(invalid="ignore", over="ignore"):
        return bool((m2 * m2 <= norm_rows._ONE_PASS).all())


def backward(gy, w, data, mean, invstd, outs, w_shape, b_shape):
    """The gradients named in ``outs`` ("x", "w", "b") of group norm from x itself
    (``data``), the group means and invstd; a tuple when more than one."""
    dt = gy.dtype
    nb, g, cg, s = gy.shape
    rows = nb * g * cg
    g3 = gy.reshape(rows, s)
    x3 = data.reshape(rows, s)
    inv = invstd.reshape(nb, g, 1)
    mu = mean.reshape(nb, g, 1)
    want_x, want_w = "x" in outs, "w" in outs
    results = {}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        q, p1 = _row_sums(g3, x3, want_x or want_w)
        p1 = p1.reshape(nb, g, cg)  # sum(gy) per channel row
        if "b" in outs:
            results["b"] = p1.sum(0).reshape(b_shape)
        if want_x or want_w:
            q = q.reshape(nb, g, cg)  # sum(gy x)
            q -= mu * p1  # sum(gy (x - mean)) per channel row
            if want_w:
                results["w"] = (q * inv).sum(0).reshape(w_shape)
        if want_x:
            wc = _channel_vec(w, gy, 1)
            m = dt.type(-1.0 / (cg * s))
            sh = (p1 * wc).sum(2, keepdims=True)
            sq = (q * wc).sum(2, keepdims=True)
            kx = inv * inv * inv * sq * m  # (N, G, 1)
            k0 = inv * sh * m - mu * kx
            a = inv * wc  # (N, G, C/G)
            gx = np.empty_like(gy)
            out = gx.reshape(rows, s)
            # gx = (x kx + k0) + gy a, in one sweep over the blocks
            kxc = np.broadcast_to(kx, (nb, g, cg)).reshape(-1)
            k0c = np.broadcast_to(k0, (nb, g, cg)).reshape(-1)
            _rows_pass(out, x3, np.ascontiguousarray(kxc), np.ascontiguousarray(k0c),
                       g3, np.ascontiguousarray(a.reshape(-1)))
            results["x"] = gx
    res = tuple(results[k] for k in outs)
    return res if len(res) > 1 else res[0]
