"""The strided input gradient (and strided transposed convolution) in channels-last order.

``conv._input_col2im`` scatters GEMM columns ``(C, *kernel, N, *out)`` into ``dx`` with one
strided add per kernel tap; the innermost run of each add is one output row (4-16 values on
the small maps of a GAN or a ResNet's late stages), so NumPy's per-run overhead dominates
(dcgan's 256 -> 128 k4 s2 layer: 7.5 ms of col2im beside an 11.8 ms GEMM). Here the GEMM
writes ``(N, *out, *kernel, C)`` and ``dx`` is accumulated as ``(N, *S, C)``: every tap add
then runs over whole contiguous channel vectors, and one transposing copy returns NCHW
(measured 15-30% faster per call with 64+ channels on 4x4..12x12 maps; slower below ~32
channels, where the channel runs are the short ones).
"""

import itertools

from ..backend import is_device_array
from . import _intraop

__all__ = []

MIN_CHANNELS = 32


def applies(c_in, groups):
    """Whether ``input_grad`` is the faster col2im for ``c_in`` dx channels."""
    return groups == 1 and c_in >= MIN_CHANNELS


def input_grad(xp, gy, w, size, stride, padding, dilation, step, copy, res=None):
    """dx of spatial ``size`` for output gradient ``gy`` of a single-group convolution with
    weight ``w``; ``step`` is the samples per GEMM block, ``copy(xp, src, out)`` a contiguous
    copy helper, ``res`` (optional) the array to copy dx into."""
    kernel = tuple(w.shape[2:])
    nd = len(kernel)
    n, o = gy.shape[:2]
    out = tuple(gy.shape[2:])
    length, taps = 1, 1
    for q in out:
        length *= q
    for k in kernel:
        taps *= k
    c = w.shape[1]
    # weight as (O, *kernel, C): the GEMM's result rows then hold each tap's channel vector
    wm = xp.ascontiguousarray(xp.moveaxis(w, 1, -1).reshape(o, taps * c))
    full = tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))
    dtype = xp.result_type(gy, w)
    # one padded channels-last buffer of a block's samples, reused: it stays in the cache
    # from its zeroing through the tap adds to the transposing copy into dx, where a
    # whole-batch buffer (dcgan's 128 -> 64 layer: 19 MB) costs its page faults and one more
    # pass over main memory
    dx = xp.empty((n, c) + tuple(size), dtype=dtype) if res is None else res
    buf = xp.empty((min(step, n),) + full + (c,), dtype=dtype)
    crop = (slice(None),) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(size, padding))
    gy3 = gy.reshape(n, o, length)
    dsts = _taps(kernel, stride, dilation, out)
    # the taps below the stride (unit dilation, a kernel reaching the stride) write every
    # position of [0, stride * out) once: they are assigned, not added, and only the rest of
    # the buffer is zeroed
    tiled = all(d == 1 and k >= st for k, d, st in zip(kernel, dilation, stride))
    for i in range(0, n, step):
        m = min(step, n - i)
        rows = gy3[i] if m == 1 else copy(xp, gy3[i:i + m].swapaxes(0, 1)).reshape(o, -1)
        cols = xp.matmul(rows.T, wm).reshape((m,) + out + (taps, c))
        blk = buf[:m]
        if tiled:
            for d, (st, q) in enumerate(zip(stride, out)):
                blk[(slice(None),) * (1 + d) + (slice(st * q, None),)] = 0
        else:
            blk.fill(0)
        _add_taps(xp, blk, cols, dsts, tiled)
        copy(xp, xp.moveaxis(blk[crop], nd + 1, 1), dx[i:i + m])
    return dx


def _taps(kernel, stride, dilation, out):
    """Per kernel tap: its index and the strided slice of the padded map it adds into."""
    return [(t, tuple(slice(k * d, k * d + st * (q - 1) + 1, st)
                      for k, d, st, q in zip(kidx, dilation, stride, out)),
             all(k < st for k, st in zip(kidx, stride)))
            for t, kidx in enumerate(itertools.product(*(range(k) for k in kernel)))]


def _add_taps(xp, blk, cols, dsts, tiled=False):
    """Add every tap's columns ``cols (m, *out, taps, C)`` into the block ``blk``; ``tiled``:
    the taps below the stride are assigned (they cover ``[0, stride * out)`` once)."""
    m = blk.shape[0]

    def part(lo, hi):
        for t, dst, first in dsts:
            if tiled and first:
                blk[(slice(lo, hi),) + dst] = cols[lo:hi, ..., t, :]
            else:
                blk[(slice(lo, hi),) + dst] += cols[lo:hi, ..., t, :]

    if is_device_array(blk) or m == 1:
        part(0, m)
    else:
        _intraop.split(part, m, blk.size // m)

