"""float16 convolution gradients on the CPU, rounded where torch's CPU kernels round.

torch's CPU float16 convolution (the im2col path) computes its GEMMs in float32 but stores
every GEMM result as float16, and it adds float16 values into float16 buffers:

* the weight gradient is one GEMM per sample (``gy_n @ columns_n^T``), added into the float16
  gradient as ``round16(float(dw) + dot)``; each dot product over the output positions runs
  in 64 float32 lanes (4 registers x 16 lanes, position ``i`` into lane ``i % 64``),
  the registers summed by halves, further whole 16-lane vectors added into that, the lanes
  summed by halves and the leftover positions added one by one;
* the input gradient's columns (``w^T @ gy_n``) sum over the output channels in order in
  float32 and are rounded to float16; col2im then adds each kernel tap's columns into the
  float16 input gradient, tap after tap, rounding after each add (in reverse tap order for
  channels-last operands).

Measured against torch 2.13 (AVX-512 CPU): the input gradient is bit-exact, the weight
gradient differs from it in a few values per ten thousand by one unit in the last place of an
intermediate float16 sum. Rounding once after an exact sum (the float32 path) instead gave
differences on a third of the values, up to thousands of units where the sum cancels.

Why separate code: numerics (the float16 rounding points above); float32/float64 and the
device keep the fast paths in ``conv.py``.
"""

import itertools

import numpy as np

_LANES = 64  # float32 partial sums of one dot product (AVX-512: 4 registers of 16)
_VECTOR = 16


def applies(*arrays):
    """Whether the operands are NumPy float16 arrays (the emulated rounding points)."""
    return all(isinstance(a, np.ndarray) and a.dtype == np.float16 for a in arrays)


def _columns(x, kernel, stride, padding, dilation, out):
    """im2col of ``x`` (N, C, *S) as float32 ``(N, C, *kernel, L)``."""
    n, c = x.shape[:2]
    nd = len(kernel)
    xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0)) + tuple(tuple(p) for p in padding))
    cols = np.empty((n, c) + tuple(kernel) + tuple(out), np.float32)
    for tap in itertools.product(*(range(k) for k in kernel)):
        src = tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                    for t, d, s, o in zip(tap, dilation, stride, out))
        cols[(slice(None), slice(None)) + tap] = xp[(slice(None), slice(None)) + src]
    return cols.reshape((n, c) + tuple(kernel) + (int(np.prod(out)),)), nd


def _tree(parts):
    """Sum the last axis by halves (its length a power of two), float32."""
    while parts.shape[-1] > 1:
        half = parts.shape[-1] // 2
        parts = parts[..., :half] + parts[..., half:]
    return parts[..., 0]


def _dots(a, b):
    """``a @ b^T`` over the last axis (``a`` (G, M, L), ``b`` (G, P, L), float32), each dot
    product summed in torch's CPU lane order (module docstring); (G, M, P) float32."""
    g, m, length = a.shape
    p = b.shape[1]
    full = length // _LANES * _LANES
    res = np.empty((g, m, p), np.float32)
    rows = max(1, (1 << 22) // max(1, p * _LANES))  # ~16 MB of partial sums per block
    for r0 in range(0, m, rows):
        ab = a[:, r0:r0 + rows]
        mb = ab.shape[1]
        acc = np.zeros((g, mb, p, _LANES), np.float32)
        tmp = np.empty_like(acc)
        for i in range(0, full, _LANES):
            np.multiply(ab[:, :, None, i:i + _LANES], b[:, None, :, i:i + _LANES], out=tmp)
            acc += tmp
        vec = _tree(acc.reshape(g, mb, p, _LANES // _VECTOR, _VECTOR).swapaxes(-1, -2))
        i = full
        while i + _VECTOR <= length:
            vec = vec + ab[:, :, None, i:i + _VECTOR] * b[:, None, :, i:i + _VECTOR]
            i += _VECTOR
        s = _tree(vec)
        for j in range(i, length):
            s = s + ab[:, :, None, j] * b[:, None, :, j]
        res[:, r0:r0 + mb] = s
    return res


def weight_grad(x, gy, kernel, stride, padding, dilation, groups):
    """float16 ``dw`` of ``conv(x, w)`` for output gradient ``gy`` (both float16)."""
    n, c = x.shape[:2]
    o = gy.shape[1]
    out = tuple(gy.shape[2:])
    cols, _ = _columns(x, kernel, stride, padding, dilation, out)
    length = int(np.prod(out))
    cols = cols.reshape(n, groups, c // groups * int(np.prod(kernel)), length)
    g = gy.astype(np.float32).reshape(n, groups, o // groups, length)
    dw = np.zeros((groups, o // groups, cols.shape[2]), np.float16)
    for i in range(n):
        dw = (dw.astype(np.float32) + _dots(g[i], cols[i])).astype(np.float16)
    return dw.reshape((o, c // groups) + tuple(kernel))


def input_grad(gy, w, size, stride, padding, dilation, groups, channels_last=False):
    """float16 ``dx`` (spatial ``size``) of ``conv(x, w)`` for output gradient ``gy``.

    ``channels_last``: torch's channels-last kernel adds the columns output position by
    output position, so each input value receives its taps in reverse order."""
    n, o = gy.shape[:2]
    kernel = tuple(w.shape[2:])
    out = tuple(gy.shape[2:])
    cg = w.shape[1]
    wm = w.astype(np.float32).reshape(groups, o // groups, cg * int(np.prod(kernel)))
    g = gy.astype(np.float32).reshape(n, groups, o // groups, int(np.prod(out)))  # (N,G,Og,L)
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))
    dx = np.zeros((n, groups * cg) + padded, np.float16)
    for i in range(n):
        cols = np.zeros((groups, wm.shape[2], g.shape[3]), np.float32)
        for k in range(o // groups):  # in order over the output channels, float32
            cols += wm[:, k, :, None] * g[i, :, k, None, :]
        cols = cols.astype(np.float16).reshape((groups * cg,) + kernel + out)
        taps = list(itertools.product(*(range(k) for k in kernel)))
        for tap in reversed(taps) if channels_last else taps:
            dst = (i, slice(None)) + tuple(
                slice(t * d, t * d + s * (m - 1) + 1, s)
                for t, d, s, m in zip(tap, dilation, stride, out))
            dx[dst] = (dx[dst].astype(np.float32)
                       + cols[(slice(None),) + tap].astype(np.float32)).astype(np.float16)
    inner = tuple(slice(lo, lo + s) for s, (lo, _) in zip(size, padding))
    return np.ascontiguousarray(dx[(slice(None), slice(None)) + inner])


def bias_grad_per_sample(gy):
    """float16 ``db`` the way torch's dilated CPU convolution sums it: each sample's sum
    (float32) rounded to float16 and added into the float16 gradient, sample after sample (the
    other convolutions sum the whole batch in float32 and round once)."""
    n, o = gy.shape[:2]
    sums = gy.reshape(n, o, int(np.prod(gy.shape[2:]))).astype(np.float32).sum(-1)
    sums = sums.astype(np.float16)
    db = np.zeros(o, np.float16)
    for i in range(n):
        db = (db.astype(np.float32) + sums[i].astype(np.float32)).astype(np.float16)
    return db
