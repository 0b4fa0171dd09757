"""2-d stride-1 convolutions with few filters under a large kernel: one GEMM row per
(filter, kernel tap) instead of im2col.

Why: im2col's columns have ``C * kh * kw`` rows per output position; with only a few filters
(fast_neural_style's last layer, 32 -> 3 channels under a 9x9 kernel: 2,592 rows for 3
outputs) copying them is nearly all of the work and the GEMM, only ``O`` rows tall, is a
memory-bound sliver. Here the roles turn around:

* forward: ``Z = W' @ X`` with ``W'`` the weight as ``(O * taps, C)`` and ``X`` the zero-padded
  input flattened per channel (no copy at all without padding); output ``q`` of filter ``o``
  is then ``sum_t Z[o, t, q + off_t]``, one shifted slice add per tap, ``O * taps`` adds per
  position instead of ``C * taps`` copies, and the GEMM is ``O * taps`` rows tall;
* weight gradient: the columns are built from the output gradient instead of the input
  (``G[(o, t), s] = gy[o, s - off_t]``, ``O * taps`` rows) and ``dW' = G @ X^T``.

Positions are flat over the padded planes (``off_t = kh * d * W_pad + kw * d``), computed on the
padded grid: the outputs in its last rows and columns are junk, dropped at the end (the output
gradient is zero there). The samples sit one after the other in the flat dim, so a batch of
small images is one GEMM per strip as well; a junk output never reads another sample's valid
position. Strips of positions keep ``Z`` (or ``G``) cache-sized.

Measured (one thread, CPU time): 1 x 32 x 1088^2 -> 3 channels 9x9, the forward of the
im2col path 3.3 s (torch 1.05 s); this path with strips of ~1 to 32 image rows 0.46, 0.35,
0.31, 0.36, 0.44, 0.62 s for 1, 2, 4, 8, 16, 32 rows (4 rows: Z ~4 MB).
"""

from . import _intraop

__all__ = []

# Z (forward) or G (weight gradient) per strip, in bytes (see the measurements above)
_STRIP_BYTES = 4 << 20
_MIN_STRIP = 1024
# taken where the reduction over the input channels is a real GEMM and the filters are few
# against them: the adds (O per tap) then cost under im2col's copies (C per tap). Measured
# (one thread, CPU time, ms, im2col/flat -> taps, forward and weight gradient): 4x32x85x85 ->
# 9 3x3 5.7 -> 3.8, 9.8 -> 4.0; -> 16 7.3 -> 6.2, 10.4 -> 6.4; -> 32 10.3 -> 11.1 (forward
# lost), 13.4 -> 11.3; 32x32x32x32 -> 16 7.6 -> 7.9, 12.8 -> 7.9; 4x48x64x64 -> 16 5x5
# 15.6 -> 11.6, 21.8 -> 12.1
_MIN_CHANNELS = 16
FORWARD_SHARE = 2  # the forward: C >= this many times O
WEIGHT_SHARE = 1  # the weight gradient: C >= this many times O
_MIN_TAPS = 9
_MAX_GRID_SHARE = 2  # padded grid positions per valid output at most


def applies(c, o, kernel, stride, groups, dtype, like, share):
    """Whether this path computes a convolution of ``c`` input channels into ``o`` filters (or
    its weight gradient, by ``share``): 2-d, stride 1, one group, a kernel of at least 3x3,
    floating."""
    return (len(kernel) == 2 and tuple(stride) == (1, 1) and groups == 1
            and dtype.char in "fd" and c >= _MIN_CHANNELS and c >= share * o
            and kernel[0] * kernel[1] >= _MIN_TAPS and like.ndim == 4)


def dense(size, padding, out):
    """Whether the outputs fill enough of the padded grid this path computes on: small maps
    under wide padding are mostly junk positions (ResNet-18's 512 channels on 1x1 maps with
    padding 1: 8 of 9), where im2col computes only the valid ones (siamese_network's weight
    gradients there, batch 64: 34 ms per call through this path, 5.2 through im2col; one
    thread, CPU time)."""
    grid = 1
    for s in _grid(size, padding):
        grid *= s
    valid = 1
    for q in out:
        valid *= q
    return grid <= _MAX_GRID_SHARE * valid


def _grid(size, padding):
    return tuple(s + lo + hi for s, (lo, hi) in zip(size, padding))


def _offsets(kernel, dilation, grid):
    """Flat offset of each kernel tap (row-major taps) on a padded plane of width ``grid[1]``."""
    return [a * dilation[0] * grid[1] + b * dilation[1]
            for a in range(kernel[0]) for b in range(kernel[1])]


def _planes(xp, x, padding):
    """``x`` ``(N, C, H, W)`` zero-padded as ``(C, N * Hp * Wp)``, and ``(Hp, Wp)``; a view of
    ``x`` itself for one contiguous unpadded sample."""
    n, c = x.shape[:2]
    grid = _grid(x.shape[2:], padding)
    if n == 1 and grid == tuple(x.shape[2:]) and x.flags.c_contiguous:
        return x.reshape(c, -1), grid
    if grid == tuple(x.shape[2:]):
        flat = xp.empty((c, n) + grid, dtype=x.dtype)
    else:
        flat = xp.zeros((c, n) + grid, dtype=x.dtype)
    (lo0, _), (lo1, _) = padding
    _intraop.copy(x.swapaxes(0, 1), flat[:, :, lo0:lo0 + x.shape[2], lo1:lo1 + x.shape[3]])
    return flat.reshape(c, -1), grid


def _strip(rows, itemsize):
    return max(_MIN_STRIP, _STRIP_BYTES // (rows * itemsize))


def forward(xp, x, w, b, padding, dilation, out):
    """y = conv(x, w) + b (stride 1, one group) through per-tap GEMM rows and shifted adds."""
    n, c = x.shape[:2]
    o, kernel = w.shape[0], tuple(w.shape[2:])
    taps = kernel[0] * kernel[1]
    flat, grid = _planes(xp, x, padding)
    total = flat.shape[1]
    offsets = _offsets(kernel, dilation, grid)
    wt = xp.ascontiguousarray(w.reshape(o, c, taps).swapaxes(1, 2)).reshape(o * taps, c)
    acc = xp.zeros((o, total), dtype=x.dtype)
    step = _strip(o * taps, x.itemsize)
    for s0 in range(0, total, step):
        s1 = min(total, s0 + step)
        z = xp.matmul(wt, flat[:, s0:s1]).reshape(o, taps, s1 - s0)
        # z[:, t, s - s0] adds to the output at s - off_t (when that is a position at all)
        for t, off in enumerate(offsets):
            q0 = max(0, s0 - off)
            if s1 - off > q0:
                acc[:, q0:s1 - off] += z[:, t, q0 + off - s0:]
    valid = acc.reshape((o, n) + grid)[:, :, :out[0], :out[1]]
    y = _intraop.copy(valid.swapaxes(0, 1))
    if b is not None:
        y += b.reshape(o, 1, 1)
    return y


def weight(xp, x, gy, kernel, padding, dilation):
    """dw of conv(x, w) for output gradient ``gy`` (stride 1, one group): columns of ``gy``
    shifted per tap, one GEMM against the flat padded input per strip."""
    n, c = x.shape[:2]
    o, out = gy.shape[1], gy.shape[2:]
    kernel = tuple(kernel)
    taps = kernel[0] * kernel[1]
    flat, grid = _planes(xp, x, padding)
    total = flat.shape[1]
    offsets = _offsets(kernel, dilation, grid)
    reach = offsets[-1]
    # gy on the padded grid (zeros at the junk positions), ``reach`` zeros in front so that
    # every tap's shifted slice is in range
    ext = xp.zeros((o, reach + total), dtype=gy.dtype)
    on_grid = ext[:, reach:].reshape((o, n) + grid)
    _intraop.copy(gy.swapaxes(0, 1), on_grid[:, :, :out[0], :out[1]])
    acc = xp.zeros((o * taps, c), dtype=xp.result_type(x, gy))
    step = _strip(o * taps, gy.itemsize)
    cols = xp.empty((o, taps, min(step, total)), dtype=gy.dtype)
    for s0 in range(0, total, step):
        s1 = min(total, s0 + step)
        if s1 - s0 < cols.shape[2]:
            cols = xp.empty((o, taps, s1 - s0), dtype=gy.dtype)
        for t, off in enumerate(offsets):
            cols[:, t] = ext[:, reach + s0 - off:reach + s1 - off]
        acc += xp.matmul(cols.reshape(o * taps, s1 - s0), flat[:, s0:s1].T)
    dw = acc.reshape(o, taps, c).swapaxes(1, 2)
    return xp.ascontiguousarray(dw).reshape((o, c) + kernel)
