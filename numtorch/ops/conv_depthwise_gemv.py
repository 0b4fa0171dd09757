"""Depthwise 2-d convolutions (one filter per channel, any stride) as one GEMV per channel
over tap rows copied in one contiguous run each.

Why: the flat-plane kernel (``conv_depthwise.forward``) multiplies each tap's slice by a
per-plane weight column and adds it: NumPy runs such a broadcast multiply over strided rows at
a third of a contiguous pass's speed (MobileViT's 8x96x16x16 3x3: 9 taps x 2 passes, 1.1 ms
against torch's 0.21). Here the input is laid channel-major, ``(C, N, gh, gw)`` per phase
(stride ``s``: the ``s x s`` phases of the padded input, so every tap reads one phase at a
fixed offset), flat; for a block of channels each tap's operand is then ONE contiguous run
of that buffer (the output computed on the whole grid, its extra rows and columns cropped),
copied into a ``(taps, positions)`` row, and the block's outputs are a batched GEMV
``w_c @ rows_c``. The weight gradient reads the same rows against ``gy`` on the grid (zeros at
the extra positions): ``rows_c @ gy_c``.
"""

from ..backend import _conv_gemm
from .conv_s2d import _span

__all__ = []

_BLOCK_BYTES = 1 << 20  # tap rows per block of channels (256 KB measured slower: 0.9 vs 0.6)
# Where it measured faster (one thread, CPU time, medians of 15 alternating, ms, old path ->
# here): MobileViT's and CvT's maps. Forward, 3x3 stride 1 (flat planes before): 8x96x16x16
# 1.14 -> 0.69, 8x32x32x32 1.27 -> 0.67, 8x32x4x4 0.092 -> 0.046, dilation 2 0.30 -> 0.17;
# 3x3 stride 2 (grouped im2col before) 8x64x32x32 0.94 -> 0.76, 8x96x16x16 0.44 -> 0.31; 5x5
# stride 2 0.56 -> 0.37. Weight gradient, strided (im2col before): 8x64x32x32 1.16 -> 0.79,
# 5x5 0.57 -> 0.37. Lost: stride-1 weight gradients (8x96x16x16 0.50 -> 0.61: the flat
# planes' per-tap GEMVs stay), large batches of large maps (16x144x56x56 /2 fwd 16.8 -> 20.5,
# 53824 cells per channel; 16x96x56x56 even)
MAX_CELLS = 1 << 14  # grid cells per channel (N * gh * gw), at most


def applies(x, w, stride, dilation, groups, out):
    """2-d depthwise (one filter per channel), host float operands of one dtype, a stride
    or a dilation (not both), up to ``MAX_CELLS`` grid cells per channel."""
    if not (x.ndim == 4 and w.ndim == 4 and groups > 1 and x.shape[1] == groups == w.shape[0]
            and w.shape[1] == 1 and _conv_gemm.host_float(x) and w.dtype == x.dtype
            and x.shape[0] > 0 and out[0] > 0 and out[1] > 0
            and (all(s == 1 for s in stride) or all(d == 1 for d in dilation))):
        return False
    grid = [o + ((k - 1) * d) // s for o, k, s, d in zip(out, w.shape[2:], stride, dilation)]
    return x.shape[0] * grid[0] * grid[1] <= MAX_CELLS


def applies_weight(x, w, stride, dilation, groups, out):
    """Whether ``weight`` computes dw: strided only (see above)."""
    return any(s > 1 for s in stride) and applies(x, w, stride, dilation, groups, out)


class _Layout:
    """Phases, grid and each tap's (phase, offset) of one convolution."""

    def __init__(self, n, c, size, kernel, stride, padding, dilation, out, itemsize):
        (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
        self.n, self.c, self.size, self.out, self.stride = n, c, tuple(size), tuple(out), stride
        self.pad = (padding[0][0], padding[1][0])
        self.g = (out[0] + ((kh - 1) * dh) // sh, out[1] + ((kw - 1) * dw) // sw)
        gw = self.g[1]
        self.taps = [((a * dh) % sh * sw + (b * dw) % sw,
                      (a * dh) // sh * gw + (b * dw) // sw)
                     for a in range(kh) for b in range(kw)]
        self.tail = max(off for _, off in self.taps)
        self.cells = n * self.g[0] * gw  # per channel
        self.step = max(1, min(c, _BLOCK_BYTES // max(len(self.taps) * self.cells * itemsize, 1)))

    def planes(self, xp, x):
        """``(phases, C * cells + tail)``: x zero-padded, cut into phases, channel-major."""
        (sh, sw), (gh, gw) = self.stride, self.g
        buf = xp.zeros((sh * sw, self.c * self.cells + self.tail), dtype=x.dtype)
        for p in range(sh):
            gi, h0, nh = _span(self.pad[0], p, sh, gh, self.size[0])
            for q in range(sw):
                gj, w0, nw = _span(self.pad[1], q, sw, gw, self.size[1])
                if nh and nw:
                    dst = buf[p * sw + q, :self.c * self.cells].reshape(self.c, self.n, gh, gw)
                    src = x[:, :, h0:h0 + sh * (nh - 1) + 1:sh, w0:w0 + sw * (nw - 1) + 1:sw]
                    dst[:, :, gi:gi + nh, gj:gj + nw] = src.transpose(1, 0, 2, 3)
        return buf

    def rows(self, planes, c0, m, buf):
        """The tap rows of channels ``c0:c0+m``: ``(m, taps, cells)`` (a view of ``buf``)."""
        span = m * self.cells
        base = c0 * self.cells
        for t, (k, off) in enumerate(self.taps):
            buf[t, :span] = planes[k, base + off:base + off + span]
        return buf[:, :span].reshape(len(self.taps), m, self.cells).transpose(1, 0, 2)


def forward(xp, x, w, b, stride, padding, dilation, out):
    """y = depthwise_conv(x, w) + b."""
    n, c = x.shape[:2]
    lay = _Layout(n, c, x.shape[2:], w.shape[2:], stride, padding, dilation, out, x.itemsize)
    planes = lay.planes(xp, x)
    taps = w.reshape(c, 1, -1)
    buf = xp.empty((len(lay.taps), lay.step * lay.cells), dtype=x.dtype)
    y = xp.empty((n, c) + tuple(out), dtype=x.dtype)
    (gh, gw), (oh, ow) = lay.g, lay.out
    for c0 in range(0, c, lay.step):
        m = min(lay.step, c - c0)
        part = xp.matmul(taps[c0:c0 + m], lay.rows(planes, c0, m, buf))  # (m, 1, cells)
        y[:, c0:c0 + m] = part.reshape(m, n, gh, gw)[:, :, :oh, :ow].transpose(1, 0, 2, 3)
    if b is not None:
        y += b.reshape(c, 1, 1)
    return y


def weight(xp, x, gy, kernel, stride, padding, dilation):
    """dw ``(C, 1, *kernel)`` for output gradient ``gy``: ``rows_c @ gy_c`` per channel."""
    n, c = x.shape[:2]
    out = tuple(gy.shape[2:])
    lay = _Layout(n, c, x.shape[2:], tuple(kernel), stride, padding, dilation, out,
                  x.itemsize)
    planes = lay.planes(xp, x)
    (gh, gw), (oh, ow) = lay.g, lay.out
    grid = xp.zeros((c, n, gh, gw), dtype=x.dtype)
    grid[:, :, :oh, :ow] = gy.transpose(1, 0, 2, 3)
    grid = grid.reshape(c, lay.cells, 1)
    buf = xp.empty((len(lay.taps), lay.step * lay.cells), dtype=x.dtype)
    dw = xp.empty((c, len(lay.taps), 1), dtype=x.dtype)
    for c0 in range(0, c, lay.step):
        m = min(lay.step, c - c0)
        xp.matmul(lay.rows(planes, c0, m, buf), grid[c0:c0 + m], out=dw[c0:c0 + m])
    return dw.reshape((c, 1) + tuple(kernel))


def applies_input(gy, w, stride, dilation, groups):
    """Whether ``input_grad`` computes dx: strided (stride 1 is a convolution of ``gy``,
    which ``forward`` computes)."""
    return any(s > 1 for s in stride) and applies(gy, w, stride, dilation, groups,
                                                  tuple(gy.shape[2:]))


def input_grad(xp, gy, w, size, stride, padding):
    """dx of a strided depthwise convolution (x of spatial ``size``): per phase of the padded
    input, the taps of that phase gather ``gy`` (laid channel-major with ``taps - 1`` zero
    rows and columns before it) as in ``forward``, one GEMV per channel; the phases are then
    interleaved into dx."""
    n, c = gy.shape[:2]
    (kh, kw), (sh, sw), out = w.shape[2:], stride, tuple(gy.shape[2:])
    lay = _Layout(n, c, size, (kh, kw), stride, padding, (1, 1), out, gy.itemsize)
    (gh, gw), (ah, aw) = lay.g, (-(-kh // sh), -(-kw // sw))
    rows_g, cols_g = gh + ah - 1, gw + aw - 1  # gy's grid: ah - 1 zero rows before, after
    cells = n * rows_g * cols_g
    tail = (ah - 1) * cols_g + aw - 1
    grid = xp.zeros(c * cells + tail, dtype=gy.dtype)
    grid[:c * cells].reshape(c, n, rows_g, cols_g)[
        :, :, ah - 1:ah - 1 + out[0], aw - 1:aw - 1 + out[1]] = gy.transpose(1, 0, 2, 3)
    taps = w.reshape(c, kh * kw)
    dx = xp.zeros((n, c) + tuple(size), dtype=gy.dtype)
    step = max(1, min(c, _BLOCK_BYTES // max(ah * aw * cells * gy.itemsize, 1)))
    buf = xp.empty((ah * aw, step * cells), dtype=gy.dtype)
    for p in range(sh):
        gi, h0, nh = _span(lay.pad[0], p, sh, gh, size[0])
        for q in range(sw):
            gj, w0, nw = _span(lay.pad[1], q, sw, gw, size[1])
            phase = [(a * kw + b, (ah - 1 - a // sh) * cols_g + aw - 1 - b // sw)
                     for a in range(p, kh, sh) for b in range(q, kw, sw)]
            if not (nh and nw and phase):
                continue
            own = taps[:, [t for t, _ in phase]].reshape(c, 1, len(phase))
            dst = dx[:, :, h0:h0 + sh * (nh - 1) + 1:sh, w0:w0 + sw * (nw - 1) + 1:sw]
            for c0 in range(0, c, step):
                m = min(step, c - c0)
                span, base = m * cells, c0 * cells
                for t, (_, off) in enumerate(phase):
                    buf[t, :span] = grid[base + off:base + off + span]
                rows = buf[:len(phase), :span].reshape(len(phase), m, cells).transpose(1, 0, 2)
                part = xp.matmul(own[c0:c0 + m], rows).reshape(m, n, rows_g, cols_g)
                dst[:, c0:c0 + m] = part[:, :, gi:gi + nh, gj:gj + nw].transpose(1, 0, 2, 3)
    return dx
