"""Strided 2-d convolutions whose kernel is a multiple of the stride, on a space-to-depth grid.

Why: with stride ``s`` and kernel ``k = a*s``, the input zero-padded and cut into ``s x s``
cells, each cell a column of ``s*s*C`` values (a grid of ``gh x gw`` cells per sample,
``g = out + a - 1``), the convolution is a stride-1 ``a x a`` one on the grid: output
``(i, j)`` is ``sum over taps (u, v) of w_uv @ cell[(i+u)*gw + j+v]``. Computed on the whole
grid (``gw - ow`` extra columns and ``gh - oh`` extra rows per sample, cropped), every tap's
operand is the SAME buffer starting ``u*gw + v`` columns later, so the taps are ``a*a`` GEMMs
reading it in place and adding into one result (``backend._conv_gemm``): no im2col columns,
where the channels-last path copied ``k*k*C`` values per output position (dcgan's 16 -> 32
4x4/2 discriminator layer: 4 MB of columns for a 1 MB input). The buffers are channels-first
(a row per phase and channel, a column per cell): the fill and the result's copy move whole
rows of ``(N, C, H, W)`` arrays (a channels-last grid's transposes cost 0.5 ms of 1.6 for
dcgan's layer, and its GEMMs ran no faster).

The input gradient is the transpose: ``w_uv^T @ gy_grid`` per tap added into the cells
``u*gw + v`` columns later (``gy`` laid on the grid with zeros at the extra positions, so
they add nothing), then the cells put back into ``(N, C, H, W)``; a transposed convolution's
weight gradient is ``cells[:, off:] @ gy_grid^T`` per tap, from the cells its other gradient
filled. Where it is taken: the measurements above ``MIN_POSITIONS``."""

from ..backend import _conv_gemm
from . import _intraop

__all__ = []

_BLOCK_BYTES = 1 << 21  # grid rows per block of samples, about


# Where it measured faster (one thread, CPU time, medians of 11-15 alternating, ms, old path
# -> here): output maps of 16x16+ (the grid's extra column and row cost at most 1/8 more
# GEMM) and shallow cells (s*s*C). Forward and weight gradient (cells of 16-64): dcgan's D
# 16 -> 32 on 32x32, batch 16, fwd 1.34 -> 1.13, dw 1.29 -> 1.21, its transposed 32 -> 16
# layer's pair 2.61 -> 2.46 (channels-last pair); 8 -> 16 on 64x64 fwd 2.74 -> 1.57, dw 2.62
# -> 1.96. Input gradient (cells up to 256): 16 -> 32 1.46 -> 1.14; 3 -> 16 on 64x64 (also
# dcgan's 16 -> 3 transposed output layer) 2.22 -> 0.80; batch 64 64 -> 128 on 32x32 63.6 ->
# 59.1. Lost or even: 8x8 maps (32 -> 64 fwd 1.08 -> 1.10, 4x4 1.20 -> 1.40: the grid's
# waste is 27% / 56%), deep cells (64x128x16x16 -> 256 fwd 53.5 -> 61.0), 3-channel
# forwards and weight gradients (fwd 0.66 -> 0.60, dw 0.61 -> 0.88: the per-sample GEMMs,
# which the transposed pair shares, stay).
MIN_POSITIONS = 256  # output positions per sample
FORWARD_DEPTH = (16, 64)  # s*s*C, the grid rows of a forward
INPUT_MAX_DEPTH = 256  # s*s*C of an input gradient
# and 8x8 maps (27% extra GEMM) with cells up to 128: dcgan's D 32 -> 64 dx (and G 64 -> 32
# forward) 1.32 -> 1.16, 16 -> 32 on 16x16 0.41 -> 0.35; lost with 512 (64x128x16x16 -> 256
# 59.0 -> 61.0) or 4x4 maps (64 -> 128 on 8x8 1.32 -> 1.40)
INPUT_SMALL_MAPS = (64, 128)  # (positions at least, s*s*C at most)


def _eligible(x, w, stride, dilation, groups, out, positions=None):
    """2-d, one group, no dilation, strided with a kernel a multiple of the stride (more than
    one tap on the grid), host float arrays the BLAS takes, maps of ``positions`` (default
    ``MIN_POSITIONS``) or more."""
    if not (x.ndim == 4 and w.ndim == 4 and groups == 1 and tuple(dilation) == (1, 1)
            and any(s > 1 for s in stride) and x.shape[0] > 0
            and out[0] * out[1] >= (MIN_POSITIONS if positions is None else positions)):
        return False
    kh, kw = w.shape[2:]
    sh, sw = stride
    if kh % sh or kw % sw or (kh // sh) * (kw // sw) < 2:
        return False
    return w.dtype == x.dtype and _conv_gemm.available(x)


def applies(x, w, stride, dilation, groups, out):
    """Whether ``forward`` computes conv(x, w) (and ``forward_weight`` a transposed
    convolution's two gradients): see the measurements above."""
    depth = stride[0] * stride[1] * x.shape[1] if len(stride) == 2 else 0
    return (FORWARD_DEPTH[0] <= depth <= FORWARD_DEPTH[1]
            and _eligible(x, w, stride, dilation, groups, out))


def applies_input(gy, w, stride, dilation, groups):
    """Whether ``input_grad`` computes dx of conv(., w) for output gradient ``gy``."""
    depth = stride[0] * stride[1] * w.shape[1] if len(stride) == 2 and w.ndim == 4 else 0
    if not 0 < depth <= INPUT_MAX_DEPTH:
        return False
    small = depth <= INPUT_SMALL_MAPS[1]
    return _eligible(gy, w, stride, dilation, groups, gy.shape[2:],
                     min(MIN_POSITIONS, INPUT_SMALL_MAPS[0]) if small else None)


class _Grid:
    """The space-to-depth geometry of one convolution; its buffers are channels-first: one
    row per (phase row, phase column, channel), one column per grid cell ``(n, gi, gj)``
    (a tap's operand is then the buffer ``u*gw + v`` columns later)."""

    def __init__(self, n, c, size, kernel, stride, padding, out, itemsize):
        self.n, self.c, self.size, self.out = n, c, tuple(size), tuple(out)
        self.stride = tuple(stride)
        self.pad = (padding[0][0], padding[1][0])
        self.taps = (kernel[0] // stride[0], kernel[1] // stride[1])
        self.g = (out[0] + self.taps[0] - 1, out[1] + self.taps[1] - 1)
        self.depth = stride[0] * stride[1] * c
        self.cells = self.g[0] * self.g[1]
        self.offsets = [u * self.g[1] + v for u in range(self.taps[0])
                        for v in range(self.taps[1])]
        self.tail = self.offsets[-1]
        self.step = max(1, min(n, _BLOCK_BYTES // max(self.cells * self.depth * itemsize, 1)))
        self.width = self.step * self.cells + self.tail  # columns of a buffer
        self.phases = [(p, q) + _span(self.pad[0], p, stride[0], self.g[0], size[0])
                       + _span(self.pad[1], q, stride[1], self.g[1], size[1])
                       for p in range(stride[0]) for q in range(stride[1])]

    def covered(self):
        """The input rows and columns inside the grid: ``(h, w)``, each a count from 0."""
        (gh, gw), (sh, sw), (lh, lw) = self.g, self.stride, self.pad
        return (max(0, min(self.size[0], gh * sh - lh)), max(0, min(self.size[1], gw * sw - lw)))

    def buffer(self, xp, dtype):
        """A zeroed ``(s*s*C, width)`` buffer: ``step`` samples' cells plus the last tap's
        overhang."""
        return xp.zeros((self.depth, self.width), dtype=dtype)

    def _cells(self, buf, m, p, q):
        """Phase ``(p, q)``'s rows of ``buf`` as ``(C, m, gh, gw)``."""
        k = (p * self.stride[1] + q) * self.c
        return buf[k:k + self.c, :m * self.cells].reshape((self.c, m) + self.g)

    def fill(self, x, i, m, buf):
        """Cells of samples ``i:i+m`` of ``x`` (cells over padding keep their zeros)."""
        sh, sw = self.stride
        for p, q, gi, h0, nh, gj, w0, nw in self.phases:
            if nh and nw:
                src = x[i:i + m, :, h0:h0 + sh * (nh - 1) + 1:sh, w0:w0 + sw * (nw - 1) + 1:sw]
                _intraop.copy(src.transpose(1, 0, 2, 3),
                              self._cells(buf, m, p, q)[:, :, gi:gi + nh, gj:gj + nw])

    def scatter(self, buf, m, dx):
        """The cells of ``buf`` back into ``dx`` ``(m, C, H, W)`` (every input value inside
        the grid is in exactly one phase)."""
        sh, sw = self.stride
        for p, q, gi, h0, nh, gj, w0, nw in self.phases:
            if nh and nw:
                dst = dx[:, :, h0:h0 + sh * (nh - 1) + 1:sh, w0:w0 + sw * (nw - 1) + 1:sw]
                _intraop.copy(self._cells(buf, m, p, q)[:, :, gi:gi + nh, gj:gj + nw]
                              .transpose(1, 0, 2, 3), dst)

    def weight_taps(self, xp, w):
        """``(taps, O, s*s*C)``: each tap's block in the buffers' row order."""
        o, c = w.shape[:2]
        (ah, aw), (sh, sw) = self.taps, self.stride
        t = w.reshape(o, c, ah, sh, aw, sw).transpose(2, 4, 0, 3, 5, 1)
        return xp.ascontiguousarray(t).reshape(ah * aw, o, self.depth)

    def grad_grid(self, gy, i, m, buf):
        """``gy`` of samples ``i:i+m`` laid on the grid, ``(O, step * cells)`` (``buf``'s
        extra cells hold zeros)."""
        o = gy.shape[1]
        (oh, ow) = self.out
        dst = buf[:, :m * self.cells].reshape((o, m) + self.g)[:, :, :oh, :ow]
        _intraop.copy(gy[i:i + m].transpose(1, 0, 2, 3), dst)
        return buf

    def grad_rows(self, gy, i, m, buf):
        """``gy`` of samples ``i:i+m`` laid on the grid channels-last, ``(m * cells, O)``
        (``buf``'s extra cells hold zeros): the weight gradient's GEMM reads it as is."""
        o = gy.shape[1]
        (oh, ow) = self.out
        dst = buf[:m * self.cells]
        _intraop.copy(gy[i:i + m].transpose(0, 2, 3, 1),
                      dst.reshape((m,) + self.g + (o,))[:, :oh, :ow])
        return dst


def _span(pad, phase, stride, cells, size):
    """``(first cell, first input index, count)`` of one phase along one dim: cell ``g``
    holds padded index ``g * stride + phase``, input index ``that - pad``."""
    first = max(0, -(-(pad - phase) // stride))
    start = first * stride + phase - pad
    count = max(0, min(cells - first, -(-(size - start) // stride))) if start < size else 0
    return first, start, count


def forward(xp, x, w, b, stride, padding, out, res=None):
    """y = conv(x, w) + b; ``res``: a contiguous ``(N, O, *out)`` array to write into."""
    n, o = x.shape[0], w.shape[0]
    grid = _Grid(n, x.shape[1], x.shape[2:], w.shape[2:], stride, padding, out, x.itemsize)
    wt = grid.weight_taps(xp, w)
    y = xp.empty((n, o) + tuple(out), dtype=x.dtype) if res is None else res
    buf = grid.buffer(xp, x.dtype)
    part = xp.empty((o, grid.step * grid.cells), dtype=x.dtype)
    d, (oh, ow) = grid.depth, grid.out
    for i in range(0, n, grid.step):
        m = min(grid.step, n - i)
        grid.fill(x, i, m, buf)
        rm = m * grid.cells
        if b is not None:
            part[:, :rm] = b.reshape(o, 1)
        for t, off in enumerate(grid.offsets):
            _conv_gemm.gemm(x.dtype, False, False, o, rm, d, wt, t * o * d, d, buf, off,
                            grid.width, 1 if (t or b is not None) else 0, part, 0, part.shape[1])
        cells = part[:, :rm].reshape((o, m) + grid.g)[:, :, :oh, :ow]
        _intraop.copy(cells.transpose(1, 0, 2, 3), y[i:i + m])
    return y


def weight(xp, x, gy, kernel, stride, padding):
    """dw of conv(x, w) for output gradient ``gy``: per tap, ``cells[:, off:] @ gy_grid^T``."""
    n, c = x.shape[:2]
    o = gy.shape[1]
    grid = _Grid(n, c, x.shape[2:], kernel, stride, padding, gy.shape[2:], x.itemsize)
    buf = grid.buffer(xp, x.dtype)
    gbuf = xp.zeros((grid.step * grid.cells, o), dtype=x.dtype)
    d = grid.depth
    acc = xp.empty((len(grid.offsets), d, o), dtype=x.dtype)
    for i in range(0, n, grid.step):
        m = min(grid.step, n - i)
        grid.fill(x, i, m, buf)
        g = grid.grad_rows(gy, i, m, gbuf)
        for t, off in enumerate(grid.offsets):
            _conv_gemm.gemm(x.dtype, False, False, d, o, m * grid.cells, buf, off, grid.width,
                            g, 0, o, 1 if i else 0, acc, t * d * o, o)
    (ah, aw), (sh, sw) = grid.taps, grid.stride
    dw = acc.reshape(ah, aw, sh, sw, c, o).transpose(5, 4, 0, 2, 1, 3)
    return xp.ascontiguousarray(dw).reshape((o, c) + tuple(kernel))


def input_grad(xp, gy, w, size, stride, padding, res=None):
    """dx of conv(x, w) (x of spatial ``size``) for output gradient ``gy``: per tap
    ``w_tap^T @ gy_grid`` added into the cells ``off`` columns later, then the cells put back
    into ``(N, C, H, W)``."""
    n, o = gy.shape[:2]
    c = w.shape[1]
    grid = _Grid(n, c, size, w.shape[2:], stride, padding, gy.shape[2:], gy.itemsize)
    wt = grid.weight_taps(xp, w)
    dx = xp.empty((n, c) + tuple(size), dtype=gy.dtype) if res is None else res
    h, wd = grid.covered()
    if h < size[0] or wd < size[1]:
        dx[...] = 0  # input rows/columns past the last window get no gradient
    buf = xp.empty((grid.depth, grid.width), dtype=gy.dtype)
    gbuf = xp.zeros((o, grid.step * grid.cells), dtype=gy.dtype)
    d = grid.depth
    for i in range(0, n, grid.step):
        m = min(grid.step, n - i)
        g = grid.grad_grid(gy, i, m, gbuf)
        rm = m * grid.cells
        # tap 0 (beta 0) writes every cell of the block; the columns past it collect the
        # extra cells' sums, which are never read back
        for t, off in enumerate(grid.offsets):
            _conv_gemm.gemm(gy.dtype, True, False, d, rm, o, wt, t * o * d, d, g, 0,
                            g.shape[1], 1 if t else 0, buf, off, grid.width)
        grid.scatter(buf, m, dx[i:i + m])
    return dx


def forward_weight(xp, a, w, g, stride, padding, out):
    """``(conv(a, w), dw of conv(a, .) for output gradient g)`` from one fill of ``a``'s
    cells: a transposed convolution's two gradients (``a`` its output gradient, ``g`` its
    input)."""
    n, c = a.shape[:2]
    o = w.shape[0]
    grid = _Grid(n, c, a.shape[2:], w.shape[2:], stride, padding, out, a.itemsize)
    wt = grid.weight_taps(xp, w)
    y = xp.empty((n, o) + tuple(out), dtype=a.dtype)
    buf = grid.buffer(xp, a.dtype)
    part = xp.empty((o, grid.step * grid.cells), dtype=a.dtype)
    gbuf = xp.zeros((grid.step * grid.cells, o), dtype=a.dtype)
    d, (oh, ow) = grid.depth, grid.out
    acc = xp.empty((len(grid.offsets), d, o), dtype=a.dtype)
    for i in range(0, n, grid.step):
        m = min(grid.step, n - i)
        grid.fill(a, i, m, buf)
        rm = m * grid.cells
        for t, off in enumerate(grid.offsets):
            _conv_gemm.gemm(a.dtype, False, False, o, rm, d, wt, t * o * d, d, buf, off,
                            grid.width, 1 if t else 0, part, 0, part.shape[1])
        cells = part[:, :rm].reshape((o, m) + grid.g)[:, :, :oh, :ow]
        _intraop.copy(cells.transpose(1, 0, 2, 3), y[i:i + m])
        gg = grid.grad_rows(g, i, m, gbuf)
        for t, off in enumerate(grid.offsets):
            _conv_gemm.gemm(a.dtype, False, False, d, o, rm, buf, off, grid.width,
                            gg, 0, o, 1 if i else 0, acc, t * d * o, o)
    (ah, aw), (sh, sw) = grid.taps, grid.stride
    dw = acc.reshape(ah, aw, sh, sw, c, o).transpose(5, 4, 0, 2, 1, 3)
    return y, xp.ascontiguousarray(dw).reshape((o, c) + tuple(w.shape[2:]))
