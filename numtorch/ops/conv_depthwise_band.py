"""Depthwise stride-1 2-d convolutions with large kernels on small maps (ConvNeXt's 7x7) as
one GEMM per channel against a banded weight matrix.

Why: a depthwise convolution has no reduction over channels, so the other kernels turn its
``kh * kw`` taps into ``kh * kw`` copies of the input (tap rows, ``conv_depthwise_gemv``) or
``kh * kw`` strided passes (flat planes, ``conv_depthwise``): for a 7x7 kernel that is 49
copies, in Python-level blocks (ConvNeXt-atto's 8x40x16x16 forward 2.3 ms, torch 0.19).
Here each channel's zero-padded planes are stacked as rows ``(N * gh, gw)``; the input under
kernel row ``a`` for output row ``r`` is grid row ``r + a``, so the ``kh`` rows one output row
reads are ONE run of ``kh * gw`` values starting at row ``r``: a single strided view gives
the ``(R, kh * gw)`` operand (``kh`` times the input, not ``kh * kw``). Multiplying it by the
``(kh * gw, ow)`` matrix that holds ``w[a, b]`` at row ``a * gw + j + b`` of column ``j``
(a band per kernel row) gives every output row; the rows that straddle two samples are junk
and dropped. The GEMM does ``gw / kw`` times the needed multiply-adds, so this pays only
while the padded width is a few kernel widths (``MAX_WIDTH_RATIO``). The weight gradient is
the transposed product ``operand^T @ gy`` read back along the same bands.

Kernel rows and columns that only ever meet padding (a 7x7 kernel over a 2x2 map) are cut
first: they add zeros.
"""

from ..backend import _conv_gemm, helpers_for

__all__ = []

# padded width / live kernel width, at most. One thread, float32, batch 8, forward ms (old
# path -> here; torch): 7x7 on 40x16x16 2.35 -> 0.54 (0.19), 80x8x8 1.82 -> 0.39 (0.10),
# 160x4x4 1.81 -> 0.42 (0.08); lost: 3x3 on 32x32x32 0.72 -> 0.82 (ratio 11), 7x7 on
# 96x56x56 31 -> 45 (ratio 8.9); about even: 5x5 on 64x28x28 (6.4), 3x3 on 96x16x16 (6)
MAX_WIDTH_RATIO = 4
MIN_TAPS = 16  # live taps, at least: 3x3 kernels keep the tap-row GEMVs
MAX_OPERAND_BYTES = 64 << 20  # the (C, R, kh * gw) operand copy


def _live(k, pad_lo, n_out, size):
    """The kernel indices ``[lo, hi)`` along one dim that reach the input, for ``n_out``
    outputs with ``pad_lo`` padding before an input of ``size``."""
    return max(0, pad_lo - n_out + 1), min(k, pad_lo + size)


class _Band:
    """The cut kernel, the padded grid and the band indices of one convolution."""

    def __init__(self, x_shape, kernel, padding, out):
        n, c, h, w = x_shape
        (kh, kw), (oh, ow) = kernel, out
        self.rows = _live(kh, padding[0][0], oh, h)
        self.cols = _live(kw, padding[1][0], ow, w)
        self.kh = self.rows[1] - self.rows[0]
        self.kw = self.cols[1] - self.cols[0]
        # the cut kernel's padding before the input, and the grid the outputs need
        self.top = padding[0][0] - self.rows[0]
        self.left = padding[1][0] - self.cols[0]
        self.gh, self.gw = oh + self.kh - 1, ow + self.kw - 1
        self.n, self.c, self.size, self.out = n, c, (h, w), tuple(out)
        self.r = n * self.gh - self.kh + 1  # output rows computed (junk ones included)

    def fits(self, itemsize):
        live = self.kh > 0 and self.kw > 0 and self.kh * self.kw >= MIN_TAPS
        return (live and self.gw <= MAX_WIDTH_RATIO * self.kw
                and self.c * self.r * self.kh * self.gw * itemsize <= MAX_OPERAND_BYTES)

    def operand(self, xp, x):
        """``(C, R, kh * gw)``: row ``r`` of a channel is grid rows ``r .. r + kh - 1``."""
        (h, w), (gh, gw) = self.size, (self.gh, self.gw)
        planes = xp.zeros((self.c, self.n * gh, gw), dtype=x.dtype)
        rows = min(h, gh - self.top)
        cols = min(w, gw - self.left)
        planes.reshape(self.c, self.n, gh, gw)[
            :, :, self.top:self.top + rows, self.left:self.left + cols] = \
            x[:, :, :rows, :cols].transpose(1, 0, 2, 3)
        s0, s1, s2 = planes.strides
        view = helpers_for(xp).as_strided(planes, (self.c, self.r, self.kh * gw), (s0, s1, s2))
        return xp.ascontiguousarray(view)

    def index(self, xp):
        """Flat positions in a ``(kh * gw, ow)`` matrix of tap ``(a, b)`` at column ``j``,
        ordered ``(a, b, j)``."""
        ow = self.out[1]
        j = xp.arange(ow)
        start = (xp.arange(self.kh)[:, None] * self.gw + xp.arange(self.kw)[None, :])
        return ((start[:, :, None] + j) * ow + j).reshape(-1)


def applies(x, w, stride, dilation, groups, out, padding):
    """2-d depthwise (one filter per channel), stride 1, no dilation, host float operands of
    one dtype, and a grid narrow enough against the kernel (see ``MAX_WIDTH_RATIO``)."""
    if not (x.ndim == 4 and w.ndim == 4 and groups > 1 and x.shape[1] == groups == w.shape[0]
            and w.shape[1] == 1 and _conv_gemm.host_float(x) and w.dtype == x.dtype
            and all(s == 1 for s in stride) and all(d == 1 for d in dilation)
            and x.shape[0] > 0 and out[0] > 0 and out[1] > 0):
        return False
    return _Band(x.shape, w.shape[2:], padding, out).fits(x.itemsize)


def forward(xp, x, w, b, padding, out):
    """y = depthwise_conv(x, w) + b (stride 1)."""
    band = _Band(x.shape, w.shape[2:], padding, out)
    c, (oh, ow) = band.c, band.out
    taps = w[:, 0, band.rows[0]:band.rows[1], band.cols[0]:band.cols[1]].reshape(c, -1)
    mat = xp.zeros((c, band.kh * band.gw * ow), dtype=x.dtype)
    mat[:, band.index(xp)] = xp.repeat(taps, ow, axis=1)
    grid = xp.empty((c, band.n * band.gh, ow), dtype=x.dtype)
    xp.matmul(band.operand(xp, x), mat.reshape(c, band.kh * band.gw, ow),
              out=grid[:, :band.r])
    y = xp.empty((band.n, c, oh, ow), dtype=x.dtype)
    y.transpose(1, 0, 2, 3)[...] = grid.reshape(c, band.n, band.gh, ow)[:, :, :oh]
    if b is not None:
        y += b.reshape(c, 1, 1)
    return y


def weight(xp, x, gy, kernel, padding):
    """dw ``(C, 1, kh, kw)`` for the output gradient ``gy``: ``operand^T @ gy`` per channel,
    each tap's value the sum along its band."""
    out = tuple(gy.shape[2:])
    band = _Band(x.shape, tuple(kernel), padding, out)
    c, (oh, ow) = band.c, band.out
    grid = xp.zeros((c, band.n * band.gh, ow), dtype=gy.dtype)
    grid.reshape(c, band.n, band.gh, ow)[:, :, :oh] = gy.transpose(1, 0, 2, 3)
    prod = xp.matmul(band.operand(xp, x).transpose(0, 2, 1), grid[:, :band.r])
    live = prod.reshape(c, -1)[:, band.index(xp)].reshape(c, band.kh, band.kw, ow).sum(-1)
    dw = xp.zeros((c, 1) + tuple(kernel), dtype=gy.dtype)
    dw[:, 0, band.rows[0]:band.rows[1], band.cols[0]:band.cols[1]] = live
    return dw
