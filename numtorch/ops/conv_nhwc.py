"""Strided 2-d convolutions over short output rows through channels-last (NHWC) columns.

Why: channels-first im2col of a stride-2 convolution copies one element at a time (the
kernel tap's input positions step over every other value) in inner runs of one output row,
4-14 values on ResNet's late stages; on siamese_network's 7x7 and 4x4 maps at batch 1000 that
copy took 12.8 ms of a 43 ms forward. With the input transposed once to ``(N, H, W, C)``, the
columns of one output position are ``kernel_h`` runs of ``kernel_w * C`` contiguous values
(whole channel vectors), so the copy moves long runs; the GEMM is ``(positions, K*C) @ (K*C,
O)`` and its ``(positions, O)`` result goes back to ``(N, O, *out)`` in one transposing copy
(where it is taken: ``applies``, measurements there).

The weight gradient reduces the same columns against the output gradient's rows
(``dw = gy^T cols``), the input gradient scatters ``gy w`` back through one strided add per
kernel tap on channels-last planes (whole channel vectors per add).
"""

from ..backend import helpers_for
from . import _intraop

__all__ = []

# bytes of columns per block of samples (the copy then stays in the cache for the GEMM)
_BLOCK_BYTES = 1 << 19  # 0.5 and 2 MB measured alike, 8 MB slower
_MIN_ROWS = 256  # GEMM rows (positions) per block at least
# where it measured faster (one thread, CPU time, forward ms, channels-first -> here; torch):
# small maps with a moderate reduction. 1000x64x7x7 -> 128 3x3/2 (depth 576, 16 positions)
# 41-43 -> 36-38 (20); 1000x128x4x4 -> 256 (1152, 4) 42 -> 33-35 (24); 16x128x14x14 -> 256
# (1152, 49) 6.4-7.0 -> 6.5-7.0 (4.8). Lost: deeper reductions, 16x256x7x7 -> 512 (2304, 16)
# 7.5 -> 8.0-8.5 and dcgan's 4x4/2 64x128x16x16 -> 256 (2048, 64) 54 -> 55-59, 64x256x8x8 ->
# 512 (4096, 16) 50 -> 53-55; larger maps, 64x64x32x32 -> 128 4x4/2 (1024, 256) 60 -> 63-65
MAX_DEPTH = 1152  # C * kh * kw
MAX_POSITIONS = 64  # output positions per sample
# and up to 16x16 output maps from at most 16 channels under a shallow reduction: dcgan's
# 16 -> 32 4x4/2 layer on 32x32 maps, batch 16 (depth 256, 256 positions): forward 1.84-1.89
# -> 1.37-1.46 ms, dw 1.61-1.67 -> 1.40-1.53; 8 channels forward 1.06 -> 0.73; a CIFAR ResNet's
# 16 -> 32 3x3/2 1.18 -> 1.06 (batch 128: 8.9 -> 8.2, dw 9.1 -> 8.2). Lost: 28 channels 3x3
# (dw 1.52 -> 2.01), 32 channels 4x4 (fwd 3.11 -> 3.45), 1024 positions (one thread, CPU
# time, best of 11-15)
MAX_SHALLOW_POSITIONS = 256
MAX_SHALLOW_DEPTH = 256
MAX_SHALLOW_CHANNELS = 16
# the input gradient's scatter (one add per tap of whole channel vectors) gains from this many
# input channels: 1000x128x4x4 -> 256 dx 37-39 -> 33.5-36.4 ms, 16x128x14x14 -> 256 6.9-8.3 ->
# 6.5-7.3; with 64 (1000x64x7x7 -> 128) it did not (34-37.5 -> 37.4-37.9)
MIN_INPUT_CHANNELS = 128
_ALIAS_BYTES = 4096  # channel planes a multiple of this apart alias in the L1 cache
_ALIASED_MIN_CHANNELS = 16


def applies(x, w, stride, dilation, groups, out):
    """2-d, one group, strided, floating operands of one dtype, small output maps and a
    moderate reduction (``w`` gives the kernel and the input channels); not 1x1 kernels
    (their strided GEMM reads no windows: not measured here)."""
    return (x.ndim == 4 and w.ndim == 4 and groups == 1 and any(s > 1 for s in stride)
            and x.dtype.char in "fd" and w.dtype == x.dtype and x.shape[0] > 0
            and w.shape[2] * w.shape[3] > 1 and _small(out[0] * out[1], w.shape[1],
                                                       w.shape[2] * w.shape[3]))


def _small(positions, channels, taps):
    """Whether a sample's output positions and reduction (``channels`` times kernel ``taps``)
    are in the measured range."""
    depth = channels * taps
    if positions <= 0 or depth <= 0:
        return False
    return (positions <= MAX_POSITIONS and depth <= MAX_DEPTH) or (
        positions <= MAX_SHALLOW_POSITIONS and depth <= MAX_SHALLOW_DEPTH
        and channels <= MAX_SHALLOW_CHANNELS)


def applies_input(gy, w, stride, dilation, groups, out):
    """Whether the input gradient of such a convolution goes through ``input_grad``."""
    return w.ndim == 4 and w.shape[1] >= MIN_INPUT_CHANNELS and applies(
        gy, w, stride, dilation, groups, out)


def _channels_last(xp, x, padding, buf=None):
    """``x`` ``(N, C, H, W)`` zero-padded as ``(N, Hp, Wp, C)``; into ``buf`` if given (whose
    padding border must hold zeros already: only the inside is written then)."""
    n, c, h, w = x.shape
    (lh, hh), (lw, hw) = padding
    if buf is None:
        buf = xp.empty((n, h + lh + hh, w + lw + hw, c), dtype=x.dtype)
        if lh:
            buf[:, :lh] = 0
        if hh:
            buf[:, lh + h:] = 0
        if lw:
            buf[:, lh:lh + h, :lw] = 0
        if hw:
            buf[:, lh:lh + h, lw + w:] = 0
    src = x.transpose(0, 2, 3, 1)
    if c >= _ALIASED_MIN_CHANNELS and (h * w * x.itemsize) % _ALIAS_BYTES == 0:
        # channel planes a multiple of 4 KiB apart: the direct copy's innermost run reads
        # one value per plane, all in one cache set (dcgan's 16x16x32x32: 0.25 ms). Through
        # (N, H, C, W) rows first, each copy reads unit-stride or spread runs: 0.16 ms;
        # 16x32x32x32 1.05 -> 0.34, 8x16x64x64 0.53 -> 0.31 (lost: 8 channels, 0.075 ->
        # 0.097; planes not a multiple of 4 KiB, 16x64x56x56 2.9 -> 4.9; one thread, CPU time)
        rows = xp.empty((n, h, c, w), dtype=x.dtype)
        _intraop.copy(x.transpose(0, 2, 1, 3), rows)
        src = rows.transpose(0, 1, 3, 2)
    _intraop.copy(src, buf[:, lh:lh + h, lw:lw + w])
    return buf


def _block_views(xp, x, padding, kernel, stride, dilation, out, step):
    """``(i, m, windows)`` per block of ``step`` samples: each block's input turned
    channels-last into one reused buffer just before its columns are copied, so that both
    copies run in the cache (siamese_network's 1000x64x7x7 input: 4.0 ms turned whole, a
    20 MB buffer read back from memory by the column copies, 1.1 ms in blocks of 32; one
    thread, CPU time)."""
    n = x.shape[0]
    buf = _channels_last(xp, x[:min(step, n)], padding)
    # one strided view for all blocks (as_strided costs ~15 us a call: a tenth of dcgan's
    # 16 -> 32 forward in blocks of 2 samples)
    win = _windows(xp, buf, kernel, stride, dilation, out)
    for i in range(0, n, step):
        m = min(step, n - i)
        if i:
            _channels_last(xp, x[i:i + m], padding, buf[:m])
        yield i, m, win[:m]


def _windows(xp, buf, kernel, stride, dilation, out):
    """The strided view ``(N, oh, ow, kh, kw, C)`` of the channels-last padded input."""
    sn, sy, sx, sc = buf.strides
    shape = (buf.shape[0],) + tuple(out) + tuple(kernel) + (buf.shape[3],)
    strides = (sn, sy * stride[0], sx * stride[1], sy * dilation[0], sx * dilation[1], sc)
    return helpers_for(xp).as_strided(buf, shape, strides)


def _step(n, per_sample, length):
    """Samples per block: about ``_BLOCK_BYTES`` of columns, at least ``_MIN_ROWS`` rows."""
    least = -(-_MIN_ROWS // max(length, 1))
    return max(1, min(n, max(_BLOCK_BYTES // max(per_sample, 1), least)))


def _weight_matrix(xp, w):
    """``(O, kh * kw * C)``: the weight in the columns' ``(tap, channel)`` order. Each
    filter's ``(C, K)`` block is transposed in place of the filter (a transposing copy into
    ``(K * C, O)`` cost 2-3 ms for 256 -> 512 channels); the GEMMs read it transposed."""
    o = w.shape[0]
    return xp.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(o, -1)


def forward(xp, x, w, b, stride, padding, dilation, out, res=None):
    """y = conv(x, w) + b; ``res``: a contiguous ``(N, O, *out)`` array to write into."""
    n = x.shape[0]
    o, kernel = w.shape[0], tuple(w.shape[2:])
    length = out[0] * out[1]
    depth = kernel[0] * kernel[1] * x.shape[1]
    wm = _weight_matrix(xp, w)
    y = xp.empty((n, o) + tuple(out), dtype=x.dtype) if res is None else res
    y3 = y.reshape(n, o, length)
    step = _step(n, depth * length * x.itemsize, length)
    for i, m, view in _block_views(xp, x, padding, kernel, stride, dilation, out, step):
        cols = _intraop.copy(view).reshape(m * length, depth)
        part = xp.matmul(cols, wm.T).reshape(m, length, o)
        _intraop.copy(part.transpose(0, 2, 1), y3[i:i + m])
    if b is not None:
        y3 += b.reshape(o, 1)
    return y


def weight(xp, x, gy, kernel, stride, padding, dilation):
    """dw of conv(x, w) for output gradient ``gy``: ``sum over blocks of gy^T cols``."""
    n, c = x.shape[:2]
    o, out = gy.shape[1], tuple(gy.shape[2:])
    length = out[0] * out[1]
    depth = kernel[0] * kernel[1] * c
    gy3 = gy.reshape(n, o, length)
    acc = None
    step = _step(n, depth * length * x.itemsize, length)
    for i, m, view in _block_views(xp, x, padding, tuple(kernel), stride, dilation, out, step):
        cols = _intraop.copy(view).reshape(m * length, depth)
        rows = _intraop.copy(gy3[i:i + m].swapaxes(0, 1)).reshape(o, m * length)
        part = xp.matmul(rows, cols)
        if acc is None:
            acc = part
        else:
            acc += part
    dw = acc.reshape(o, kernel[0], kernel[1], c).transpose(0, 3, 1, 2)
    return xp.ascontiguousarray(dw)


def forward_weight(xp, x, w, gy, stride, padding, dilation, out):
    """``(conv(x, w), dw of conv(x, .) for output gradient gy)`` from one pass over x's
    columns: a transposed convolution's two gradients (x is its output gradient, gy its
    input), which read the same columns (dcgan's 32 -> 16 generator layer: each alone turned
    its 16-channel 32x32 gradient channels-last and copied its columns)."""
    n = x.shape[0]
    o, kernel = w.shape[0], tuple(w.shape[2:])
    length = out[0] * out[1]
    depth = kernel[0] * kernel[1] * x.shape[1]
    wm = _weight_matrix(xp, w)
    y = xp.empty((n, o) + tuple(out), dtype=x.dtype)
    y3 = y.reshape(n, o, length)
    gy3 = gy.reshape(n, gy.shape[1], length)
    acc = None
    step = _step(n, depth * length * x.itemsize, length)
    for i, m, view in _block_views(xp, x, padding, kernel, stride, dilation, out, step):
        cols = _intraop.copy(view).reshape(m * length, depth)
        part = xp.matmul(cols, wm.T).reshape(m, length, o)
        _intraop.copy(part.transpose(0, 2, 1), y3[i:i + m])
        rows = _intraop.copy(gy3[i:i + m].swapaxes(0, 1)).reshape(gy.shape[1], m * length)
        if acc is None:
            acc = xp.matmul(rows, cols)
        else:
            acc += xp.matmul(rows, cols)
    dw = acc.reshape(gy.shape[1], kernel[0], kernel[1], x.shape[1]).transpose(0, 3, 1, 2)
    return y, xp.ascontiguousarray(dw)


def input_grad(xp, gy, w, size, stride, padding, dilation, res=None):
    """dx of conv(x, w) (x of spatial ``size``) for output gradient ``gy``: per block
    ``cols = gy w`` in channels-last order, added back one kernel tap at a time into the
    channels-last padded planes, then transposed into ``(N, C, H, W)``."""
    n, o = gy.shape[:2]
    c, kernel = w.shape[1], tuple(w.shape[2:])
    out = tuple(gy.shape[2:])
    length = out[0] * out[1]
    (lh, hh), (lw, hw) = padding
    hp, wp = size[0] + lh + hh, size[1] + lw + hw
    wm = _weight_matrix(xp, w)
    dx = xp.empty((n, c) + tuple(size), dtype=gy.dtype) if res is None else res
    gy3 = gy.reshape(n, o, length)
    depth = kernel[0] * kernel[1] * c
    step = _step(n, depth * length * gy.itemsize, length)
    buf = xp.empty((min(step, n), hp, wp, c), dtype=gy.dtype)
    for i in range(0, n, step):
        m = min(step, n - i)
        rows = _intraop.copy(gy3[i:i + m].swapaxes(1, 2)).reshape(m * length, o)
        cols = xp.matmul(rows, wm).reshape((m,) + out + kernel + (c,))
        planes = buf[:m]
        planes[...] = 0
        for a in range(kernel[0]):
            r0 = a * dilation[0]
            for b in range(kernel[1]):
                c0 = b * dilation[1]
                planes[:, r0:r0 + stride[0] * (out[0] - 1) + 1:stride[0],
                       c0:c0 + stride[1] * (out[1] - 1) + 1:stride[1]] += cols[:, :, :, a, b]
        inner = planes[:, lh:lh + size[0], lw:lw + size[1]]
        _intraop.copy(inner.transpose(0, 3, 1, 2), dx[i:i + m])
    return dx
