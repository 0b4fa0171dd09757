"""Winograd F(2x2, 3x3): 3x3 stride-1 convolutions and their weight gradients with 2.25x
fewer multiplications.

Each 2x2 block of outputs ("tile") is computed from the 4x4 input patch under it as
``Y = A^T [ (G g G^T) * (B^T d B) ] A`` (Lavin and Gray, 2015): the 16 elementwise products
summed over input channels are 16 GEMMs ``(tiles, C) @ (C, O)`` with 4 multiplications per
output instead of im2col's 9. The transforms are additions only (B^T and A^T hold 0 and +-1;
G holds halves, applied to the small weight), so float32 results stay within a few ulps of
the direct sum; float64 agrees to ~1e-15.

Layout: tiles outermost and channels innermost (``(tile_row, tile_col, N, C)``), so every
transform pass runs over long contiguous rows; a channels-first layout measured 1.5-3x slower
on small maps, where its inner rows are a few tiles long. The input is first copied into its
four stride-2 phases, so each of the 4x4 patch positions is a unit-stride slice.

The weight gradient runs the same algebra backwards: ``dU = sum over tiles of V (A dY A^T)``
(16 GEMMs reducing over the tiles) and ``dw = G^T dU G``; measured 16x128x14x14 11.8 -> 7.9
ms, 16x256x7x7 11.8 -> 8.5 ms, 16x512x4x4 14.4 -> 11.6 ms (one thread).

Used where it measured faster than im2col + GEMM (see ``applies``): many channels (the
transforms cost O(C + O) per tile, the GEMM saves O(C * O)) and enough tiles for the GEMMs;
e.g. 16x128x14x14 with 128 filters 12.7 -> 8.4 ms, 16x256x7x7 11.6 -> 9.6 ms (one thread).
64 channels gain once the blocks are cache-sized (``_samples_per_block``): ResNet-18's
64-channel 3x3 conv on 28x28 maps, batch 16, forward + both gradients 38 -> 30 ms (one thread,
CPU time; torch 36); in one 64 MB block they had measured 2.5% slower within a ResNet step.
32 and fewer channels are slower.
"""

import numpy as np

from ..backend import is_device_array
from . import _intraop
from . import conv_samples as _batch_split

_MIN_CHANNELS = 64
# fewer filters than inputs: Winograd from this many inputs and filters on (see ``applies``)
_NARROW_INPUTS = 64
_NARROW_FILTERS = 32
# the weight gradient gains from 32 channels on one side when the other has twice as many:
# the MNIST net's 32 -> 64 channels on 26x26 maps, batch 64, 22 -> 17.4 ms (its forward
# 18.6 -> 22.4: not taken); 32 -> 32 on 32x32, batch 32, lost (13 -> 17-20 ms)
_MIN_WEIGHT_CHANNELS = 32
# a block of samples has about this many tiles (fewer make skinny GEMMs: ResNet-18's 7x7 maps,
# 16 tiles per sample, 8.8 ms forward in one block of 16 samples, 10-21 in blocks of 1-8) ...
_BLOCK_TILES = 256
# ... or this many bytes of transformed tiles, if more: beyond, the temporaries fall out of
# the cache (64 channels on 28x28 maps, batch 16: weight gradient 13.0 ms in one block, 9.0 in
# blocks of one sample)
_BLOCK_BYTES = 3 << 19
_MIN_TILES = 64
_PHASE_BAND_BYTES = 1 << 18
_PHASE_WHOLE_BYTES = 1 << 20  # a block's input up to this size: not banded
_BAND_BYTES = 3 << 19
_MAX_BLOCK_BYTES = 64 << 20
# ``filters``: values of padding after each of the 16 planes, from planes of this many values
_FILTER_ROW_PAD = 16
_FILTER_PAD_FROM = 1 << 12
_REORDER = True  # reordered filters for several blocks (off: to compare, as in tests)
# ... up to this size (ResNet-18's 128 channels: 1 MB; 256 channels, 4 MB, run two blocks)
_REORDER_BYTES = 3 << 19
_KERNEL_ROWS = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]])
# U[4a + b] = sum_kl G[a, k] G[b, l] w[k, l]: the weight transform as one GEMM
_WEIGHT_MAP = np.kron(_KERNEL_ROWS, _KERNEL_ROWS)  # (16, 9)
# G's rows reversed are G's rows 3, 1, 2, 0, so the filters of the kernel flipped in both dims
# are the same 16 matrices in this order: FLIPPED[4a + b] = 4 p(a) + p(b), p = (3, 1, 2, 0)
FLIPPED = tuple(4 * p + q for p in (3, 1, 2, 0) for q in (3, 1, 2, 0))
# the sign of entry 4a + b of ``_gradient_tiles``: -1 where exactly one of a, b is 3
TILE_SIGNS = np.array([(-1.0) ** ((a == 3) + (b == 3)) for a in range(4) for b in range(4)])


def applies(x, w, stride, dilation, groups, out):
    """Whether F(2x2, 3x3) computes (and measured faster) this convolution."""
    if (w.ndim != 4 or w.shape[2:] != (3, 3) or groups != 1 or tuple(stride) != (1, 1)
            or tuple(dilation) != (1, 1) or x.dtype.char not in "fd" or w.dtype != x.dtype):
        return False
    tiles = x.shape[0] * (-(-out[0] // 2)) * (-(-out[1] // 2))
    c, o = x.shape[1], w.shape[0]
    # fewer filters than inputs gain from 64 inputs on (one thread, CPU time: 64 -> 32 channels
    # on 24x24 maps, the MNIST net's input gradient, 28.5 -> 24.5 ms; 128 -> 32 on 16x16
    # 6.8 -> 5.3; 96 -> 48 6.2 -> 4.5; 64 -> 32 on 32x32 12.8 -> 13.4 the one loss seen); more
    # filters than inputs do not (32 -> 64 on 26x26: 17.8 -> 22.0 ms)
    wide = min(c, o) >= _MIN_CHANNELS or (
        c >= _NARROW_INPUTS and _NARROW_FILTERS <= o < c)
    # a 1-wide output still pays for a whole 2x2 tile: on ResNet-18's last stage at 28x28
    # inputs (512 channels, 1x1 maps, batch 64) im2col + GEMM took 4.6 ms forward and 18.6
    # backward against Winograd's 13.9 and 29.0 (one thread, CPU time)
    return wide and tiles >= _MIN_TILES and min(out) >= 2


def _split(xp, kernel, n, unit, like):
    """``kernel(lo, hi)`` over ``[0, n)``, split across the intra-op threads on the CPU."""
    if is_device_array(like):
        kernel(0, n)
    else:
        _intraop.split(kernel, n, unit)


def _copy(xp, src, dst):
    if is_device_array(dst):
        dst[...] = src
    else:
        _intraop.copy(src, dst)


def _phases(xp, x, padding, th, tw):
    """``P[ra, cb, i, j, n, c] = xpad[n, c, 2i + ra, 2j + cb]`` for the zero-padded input."""
    n, c, h, w = x.shape
    (lh, _), (lw, _) = padding
    p = xp.zeros((2, 2, th + 1, tw + 1, n, c), dtype=x.dtype)
    xt = x.transpose(2, 3, 0, 1)  # (h, w, n, c)
    # a transposing copy: in bands of phase rows whose input rows stay in the cache while all
    # four phases read them (a 1082x1082 image's 64 channels: 125 -> 100 ms, one thread);
    # a block that fits the cache whole is one band (the MNIST net's 64-channel 24x24 input
    # gradient, blocks of two samples: 2 bands doubled the copies' calls, 19.4 -> 22.3 ms)
    band = th + 1
    if not is_device_array(x) and x.size * x.itemsize > _PHASE_WHOLE_BYTES:
        band = max(1, _PHASE_BAND_BYTES // max(2 * w * n * c * x.itemsize, 1))
    for b0 in range(0, th + 1, band):
        for ra in range(2):
            h0 = (ra - lh) % 2  # the first input row that lands in row phase ra
            i0 = (h0 + lh) // 2
            rows = max(0, min(th + 1 - i0, -(-(h - h0) // 2)))
            lo, hi = max(i0, b0), min(i0 + rows, b0 + band)  # this band's phase rows
            if hi <= lo:
                continue
            src = xt[h0 + 2 * (lo - i0):h0 + 2 * (hi - i0):2]
            for cb in range(2):
                w0 = (cb - lw) % 2
                j0 = (w0 + lw) // 2
                cols = max(0, min(tw + 1 - j0, -(-(w - w0) // 2)))
                if cols:
                    _copy(xp, src[:, w0:w0 + 2 * cols:2], p[ra, cb, lo:hi, j0:j0 + cols])
    return p


def _input_transform(xp, p, th, tw):
    """``V[4a + b] = (B^T d B)[a, b]`` per tile, as ``(16, th, tw, N, C)``."""
    _, _, _, _, n, c = p.shape
    t = xp.empty((4, 2, th, tw + 1, n, c), dtype=p.dtype)
    v = xp.empty((16, th, tw, n, c), dtype=p.dtype)

    v4 = v.reshape((4, 4) + v.shape[1:])

    # each pass covers all four rows (columns) of the patch at once: 8 ufunc calls per block
    # instead of 24 (one-sample blocks of 64 channels on 28x28 maps spent most of this
    # transform in call overhead)
    def rows(lo, hi):
        def d(a):  # patch row a of tile rows lo..hi, both column phases: (2, rows, tw+1, ...)
            return p[a % 2, :, lo + a // 2:hi + a // 2]
        xp.subtract(d(0), d(2), out=t[0, :, lo:hi])
        xp.add(d(1), d(2), out=t[1, :, lo:hi])
        xp.subtract(d(2), d(1), out=t[2, :, lo:hi])
        xp.subtract(d(1), d(3), out=t[3, :, lo:hi])

        def s(b):  # patch column b of every transformed row: (4, rows, tw, ...)
            return t[:, b % 2, lo:hi, b // 2:b // 2 + tw]
        xp.subtract(s(0), s(2), out=v4[:, 0, lo:hi])
        xp.add(s(1), s(2), out=v4[:, 1, lo:hi])
        xp.subtract(s(2), s(1), out=v4[:, 2, lo:hi])
        xp.subtract(s(1), s(3), out=v4[:, 3, lo:hi])

    _split(xp, rows, th, 16 * tw * n * c, p)
    return v


def _output_transform(xp, m, b, th, tw):
    """``Y = A^T m A`` per tile (+ bias) from ``m`` ``(4, 4, th, tw, N, O)``, as
    ``(th, 2, tw, 2, N, O)``: ``y[n, o, 2t + i, 2u + j] = Y[t, i, u, j, n, o]``.

    Tile rows and columns interleaved with their outputs make the result an image in
    ``(H, W, N, O)`` order, so that the copy into ``(N, O, H, W)`` is one plain transpose
    (ResNet-18's 64-channel 28x28 layer: 0.09 -> 0.03 ms per one-sample block, against a
    6-d transposing copy of the tile layout)."""
    z = xp.empty((2, 4) + m.shape[2:], dtype=m.dtype)
    y = xp.empty((th, 2, tw, 2) + m.shape[4:], dtype=m.dtype)
    unit = 16 * tw * m.shape[4] * m.shape[5]

    def rows(lo, hi):
        mm = m[:, :, lo:hi]
        z0, z1 = z[0, :, lo:hi], z[1, :, lo:hi]
        xp.add(mm[0], mm[1], out=z0)
        z0 += mm[2]
        xp.subtract(mm[1], mm[2], out=z1)
        z1 -= mm[3]
        zz = z[:, :, lo:hi]
        # both output rows i at once: (2, rows, tw, N, O)
        y0, y1 = y[lo:hi, :, :, 0].swapaxes(0, 1), y[lo:hi, :, :, 1].swapaxes(0, 1)
        xp.add(zz[:, 0], zz[:, 1], out=y0)
        y0 += zz[:, 2]
        xp.subtract(zz[:, 1], zz[:, 2], out=y1)
        y1 -= zz[:, 3]
        if b is not None:
            y0 += b
            y1 += b

    _split(xp, rows, th, unit, m)
    return y


def _samples_per_block(n, tiles_per_sample, channels, itemsize):
    """Samples per block: about ``_BLOCK_TILES`` tiles, more while the transformed tiles (16
    per tile and channel) stay within ``_BLOCK_BYTES``, and never beyond ``_MAX_BLOCK_BYTES``,
    so a large batch never holds 4x its input at once."""
    per_sample = max(16 * tiles_per_sample * channels * itemsize, 1)
    want = max(round(_BLOCK_TILES / max(tiles_per_sample, 1)), _BLOCK_BYTES // per_sample)
    return max(1, min(n, want, _MAX_BLOCK_BYTES // per_sample))


def filters(xp, w, parts=1):
    """The transformed filters ``U = G w G^T`` of a ``(O, C, 3, 3)`` weight as ``(16, O, C)``.

    One GEMM against the (16, 9) map. It reads the weight and writes 16/9 of it (ResNet-18's
    512-channel layers: 9 + 17 MB, ~4 ms on one core, memory-bound), which is why ``Conv``
    computes it once for all the batch's parts and for the input gradient (``forward``'s
    ``taps``). With ``parts`` > 1 (the batch's parts, ``conv_samples``) the filters are cut
    into that many ranges of output channels, each a one-thread GEMM on its own core: threaded
    by BLAS, the K=9 GEMM kept the calling thread busier than one thread alone did (ResNet-18
    step: 31 ms of it per step on one thread, 43 ms on the calling thread with two BLAS
    threads); split across the intra-op threads without a one-thread BLAS, each part started
    BLAS threads of its own (a two-core 128-channel layer measured 20% slower so).
    """
    o, c = w.shape[:2]
    maps = xp.asarray(_WEIGHT_MAP.astype(w.dtype))
    if is_device_array(w):
        return xp.matmul(maps, w.reshape(o * c, 9).T).reshape(16, o, c)
    # The 16 filter planes' rows are one cache line apart past O * C values, not O * C
    # (a power of two for the usual channel counts: the GEMM's 16 output rows then share
    # cache sets, which made this memory-bound product 2-6x slower; 512 channels 12.9 ->
    # 3.7 ms, 256 2.5 -> 0.4, one thread). ``u`` is a view of the padded block: each plane
    # ``u[t]`` stays a contiguous (O, C) matrix, and the values are the same.
    pad = _FILTER_ROW_PAD if o * c >= _FILTER_PAD_FROM else 0
    u = xp.empty((16, o * c + pad), dtype=w.dtype)[:, :o * c].reshape(16, o, c)
    if parts == 1:
        xp.matmul(maps, w.reshape(o * c, 9).T, out=u.reshape(16, o * c))
        return u

    def part(lo, hi):
        xp.matmul(maps, w[lo:hi].reshape((hi - lo) * c, 9).T,
                  out=u[:, lo:hi].reshape(16, (hi - lo) * c))

    _batch_split.run(part, o, parts)
    return u


def forward(xp, x, w, b, padding, out, taps=None, res=None):
    """y = conv2d(x, w) + b for a 3x3 kernel, stride 1, dilation 1, one group; ``padding``
    is ``((top, bottom), (left, right))`` and ``out`` the output's spatial size.

    ``taps``, when given, is ``(u, order)``: the 16 GEMM operands ``(C, O)`` of this weight are
    ``u[order[t]]`` (``order`` None: ``u[t]``), e.g. ``(filters(w).transpose(0, 2, 1), None)``
    or, for the input gradient ``conv(gy, flip(w^T))`` of a convolution with weight ``w``,
    ``(filters(w), FLIPPED)``: no weight transform and no flipped copy of the weight.
    ``res``, when given, is the contiguous ``(N, O, *out)`` array the result is written into.
    """
    n, c = x.shape[:2]
    o = w.shape[0]
    ho, wo = out
    th, tw = -(-ho // 2), -(-wo // 2)
    if taps is None:
        taps = (filters(xp, w).transpose(0, 2, 1), None)
    ut, order = taps
    bias = None if b is None else b.astype(x.dtype, copy=False)
    if res is None:
        res = xp.empty((n, o, ho, wo), dtype=x.dtype)
    step = _samples_per_block(n, th * tw, max(c, o), x.itemsize)
    if order is not None and n > step and ut.nbytes <= _REORDER_BYTES and _REORDER:
        # several blocks and small filters: one reordered copy, then one batched GEMM call
        # per block instead of 16 (ResNet-18's 64-channel input gradients run 8 one-sample
        # blocks per part of the batch)
        ut, order = ut[list(order)], None
    band = _tile_rows(step, th, tw, max(c, o), x.itemsize)
    for i in range(0, n, step):
        m = min(step, n - i)
        p = _phases(xp, x[i:i + m], padding, th, tw)
        for r in range(0, th, band):
            rows = min(band, th - r)
            v = _input_transform(xp, p[:, :, r:r + rows + 1], rows, tw)
            v = v.reshape(16, rows * tw * m, c)
            if order is None:
                prod = xp.matmul(v, ut)
            else:
                prod = xp.empty((16, rows * tw * m, o), dtype=x.dtype)
                for t, src in enumerate(order):
                    xp.matmul(v[t], ut[src], out=prod[t])
            del v
            y = _output_transform(xp, prod.reshape((4, 4, rows, tw, m, o)), bias, rows, tw)
            del prod
            # odd sizes: the last tiles overhang, cropped in the same copy
            y = y.reshape(2 * rows, 2 * tw, m, o)[:ho - 2 * r, :wo]
            _copy(xp, y.transpose(2, 3, 0, 1), res[i:i + m, :, 2 * r:2 * (r + rows)])
    return res


def _tile_rows(step, th, tw, channels, itemsize):
    """Tile rows per band of one sample: all ``th`` unless blocks are single samples whose
    transformed tiles overflow ``_BAND_BYTES`` (a 1080x1080 image's 64 -> 32 channels: 1.2 GB
    of them at once, memory-bound); then bands of about that size, of at least
    ``_BLOCK_TILES`` tiles. Measured (one thread, CPU time): 1 x 128 x 542^2 -> 64, 711 ->
    407 ms (torch 409); 4 x 64 x 85^2 -> 64 (one 7.5 MB sample per block before) 29 -> 25 ms;
    band sizes of 1.5 to 6 MB measured within noise of each other."""
    if step > 1:
        return th
    band = _BAND_BYTES // max(16 * tw * channels * itemsize, 1)
    return max(1, min(th, max(band, -(-_BLOCK_TILES // tw))))


def applies_weight(x, gy, kernel, stride, dilation, groups):
    """Whether F(2x2, 3x3) computes (and measured faster) this weight gradient."""
    if (len(kernel) != 2 or tuple(kernel) != (3, 3) or x.ndim != 4 or groups != 1
            or tuple(stride) != (1, 1) or tuple(dilation) != (1, 1)
            or x.dtype.char not in "fd" or gy.dtype != x.dtype):
        return False
    tiles = x.shape[0] * (-(-gy.shape[2] // 2)) * (-(-gy.shape[3] // 2))
    c, o = x.shape[1], gy.shape[1]
    wide = min(c, o) >= _MIN_CHANNELS or (min(c, o) >= _MIN_WEIGHT_CHANNELS
                                         and max(c, o) >= 2 * _MIN_WEIGHT_CHANNELS)
    return (wide and tiles >= _MIN_TILES
            and min(gy.shape[2:]) >= 2)


def _gradient_tiles(xp, gy, th, tw):
    """``E = S * (A dY A^T)`` per tile of the output gradient, as ``(16, th, tw, N, O)``:
    the adjoint of the output transform, each of the 16 entries times its sign
    ``TILE_SIGNS`` (callers fold the sign into their small operands).

    Why the signs: with row 3 of ``A`` negated, ``A' = [1, 0; 1, 1; 1, -1; 0, 1]``, the four
    corners ``E[0|3, 0|3]`` are dY's four elements themselves, copied straight from gy into
    place, and the rest are one add or subtract each: 16 entries written once, 4 ufunc calls
    (against 24 entries, 8 calls and 2 negations unsigned)."""
    n, o, ho, wo = gy.shape
    # only odd sizes leave tiles (overhanging the output) to zero-fill
    alloc = xp.empty if ho % 2 == 0 and wo % 2 == 0 else xp.zeros
    e = alloc((16, th, tw, n, o), dtype=gy.dtype)
    e4 = e.reshape((4, 4) + e.shape[1:])
    gt = gy.transpose(2, 3, 0, 1)
    for i in range(2):
        for j in range(2):  # E[3i, 3j][t, u] = gy[2t + i, 2u + j]
            rows, cols = (ho - i + 1) // 2, (wo - j + 1) // 2
            _copy(xp, gt[i::2, j::2], e4[3 * i, 3 * j, :rows, :cols])

    def rows(lo, hi):
        outer = e4[::3, :, lo:hi]  # rows a = 0 and 3: (2, 4, rows, tw, N, O)
        xp.add(outer[:, 0], outer[:, 3], out=outer[:, 1])
        xp.subtract(outer[:, 0], outer[:, 3], out=outer[:, 2])
        xp.add(e4[0, :, lo:hi], e4[3, :, lo:hi], out=e4[1, :, lo:hi])
        xp.subtract(e4[0, :, lo:hi], e4[3, :, lo:hi], out=e4[2, :, lo:hi])

    _split(xp, rows, th, 16 * tw * n * o, gy)
    return e


def _signed(xp, a, dtype):
    """``a`` ``(16, ...)`` times ``TILE_SIGNS`` (each entry's sign in ``_gradient_tiles``)."""
    signs = xp.asarray(TILE_SIGNS.astype(dtype))
    return a * signs.reshape((16,) + (1,) * (a.ndim - 1))


def weight(xp, x, gy, padding):
    """dw ``(O, C, 3, 3)`` of a 3x3 stride-1 single-group convolution for output gradient gy:
    ``dU = sum over tiles of V^T dM`` (16 GEMMs with the tiles as the reduction), then
    ``dw = G^T dU G`` (the adjoint of the weight transform)."""
    n, c = x.shape[:2]
    o = gy.shape[1]
    th, tw = -(-gy.shape[2] // 2), -(-gy.shape[3] // 2)
    du = None
    step = _samples_per_block(n, th * tw, max(c, o), x.itemsize)
    band = _tile_rows(step, th, tw, max(c, o), x.itemsize)
    for i in range(0, n, step):
        m = min(step, n - i)
        p = _phases(xp, x[i:i + m], padding, th, tw)
        for r in range(0, th, band):
            rows = min(band, th - r)
            v = _input_transform(xp, p[:, :, r:r + rows + 1], rows, tw)
            dm = _gradient_tiles(xp, gy[i:i + m, :, 2 * r:2 * (r + rows)], rows, tw)
            dm = dm.reshape(16, rows * tw * m, o)
            part = xp.matmul(dm.transpose(0, 2, 1), v.reshape(16, rows * tw * m, c))
            del v, dm
            if du is None:
                du = part
            else:
                du += part
    if du is None:  # an empty batch
        return xp.zeros((o, c, 3, 3), dtype=x.dtype)
    return _weight_from(xp, du, o, c)


def _weight_from(xp, du, o, c):
    """dw ``(O, C, 3, 3)`` from the sign-folded ``(16, O, C)`` sums ``du``: the signs and
    ``G^T . G`` at once, as ``(O*C, 16) @ (16, 9)``, which lands in the weight's layout (no
    transposing copy of a (9, O*C) product: for 512 channels 5.2 -> 3.9 ms)."""
    maps = xp.asarray(_signed(np, _WEIGHT_MAP, np.float64).astype(du.dtype))
    return xp.matmul(du.reshape(16, o * c).T, maps).reshape(o, c, 3, 3)


def _scatter_tiles(xp, g, th, tw, signed=False):
    """The input-side adjoint ``B G B^T`` of every tile, its overlapping 4x4 patches (stride
    2) added up, as an ``(2 th + 2, 2 tw + 2, N, C)`` image of the padded input's gradient.

    ``g`` is ``(4, 4, th, tw, N, C)``; with ``signed`` each entry comes times its
    ``TILE_SIGNS`` sign (``G[a, b]`` negated where exactly one of a, b is 3), which the two
    folds take out as they go (``_fold``'s ``signed``), exactly. With ``B^T``'s rows
    (1,0,-1,0), (0,1,1,0), (0,-1,1,0), (0,1,0,-1), a tile's patch row i is
    ``Q_i = sum_a B^T[a, i] G[a]``: ``Q_0 = G_0``, ``Q_1 = G_1 - G_2 + G_3``,
    ``Q_2 = G_1 + G_2 - G_0``, ``Q_3 = -G_3``; image row 2s gets ``Q_0`` of tile row s and
    ``Q_2`` of tile row s - 1, row 2s + 1 ``Q_1`` of s and ``Q_3`` of s - 1. The same again
    along the columns, on both row phases at once."""
    n, c = g.shape[4:]
    img = xp.empty((th + 1, 2, tw + 1, 2, n, c), dtype=g.dtype)
    r = xp.empty((2, 4, th + 1, tw, n, c), dtype=g.dtype)  # [row phase, b, s, u]
    _fold(xp, g[0], g[1], g[2], g[3], r[0], r[1], th, signed)
    # the columns: b is now axis 1 of r, u axis 3; the result's column phases are img's axis 3
    q = r.transpose(1, 0, 2, 3, 4, 5)  # (4 b, 2 row phases, th + 1, tw, N, C)
    out = img.transpose(3, 1, 0, 2, 4, 5)  # (2 col phases, 2 row phases, th + 1, tw + 1, ...)
    _fold(xp, *(qb.swapaxes(1, 2) for qb in q), out[0].swapaxes(1, 2),
          out[1].swapaxes(1, 2), tw, signed)
    return img.reshape(2 * th + 2, 2 * tw + 2, n, c)


def _fold(xp, g0, g1, g2, g3, even, odd, t, signed=False):
    """``even[s] = G_0[s] + (G_1 + G_2 - G_0)[s - 1]`` and ``odd[s] = (G_1 - G_2 + G_3)[s] -
    G_3[s - 1]`` for s in ``0..t`` along axis 1 (terms outside ``0..t-1`` are zero); the
    arrays' axis 0 is carried along. With ``signed``, ``g3`` holds -G_3: each of its terms
    changes sides (``a - (-b)`` is ``a + b`` exactly, so the results are the same bits but
    for the sign of a zero)."""
    h = xp.add(g1, g2)
    h -= g0
    k = xp.subtract(g1, g2)
    even[:, 0] = g0[:, 0]
    xp.add(g0[:, 1:], h[:, :-1], out=even[:, 1:t])
    even[:, t] = h[:, t - 1]
    if signed:
        k -= g3
        odd[:, 0] = k[:, 0]
        xp.add(k[:, 1:], g3[:, :-1], out=odd[:, 1:t])
        odd[:, t] = g3[:, t - 1]
        return
    k += g3
    odd[:, 0] = k[:, 0]
    xp.subtract(k[:, 1:], g3[:, :-1], out=odd[:, 1:t])
    xp.negative(g3[:, t - 1], out=odd[:, t])


def backward(xp, x, gy, u, padding, need_dx=True, dx=None):
    """``(dx, dw)`` of a 3x3 stride-1 single-group convolution from one pass over the output
    gradient's tiles ``dM = A dY A^T`` (``_gradient_tiles``): the weight gradient reduces
    them against the input's tiles (as ``weight``), the input gradient is their adjoint
    through the filters ``u`` ``(16, O, C)``, ``B (dM U) B^T``, the tiles' patches added up
    (``_scatter_tiles``). Against the input gradient as a Winograd convolution of the padded
    output gradient, this skips that convolution's phase copy, input and output transforms
    and runs the forward's tiles (12x12 per 24x24 map instead of 13x13).
    ``dx``: the contiguous array to write the input gradient into, if given."""
    n, c, h, w = x.shape
    o = gy.shape[1]
    th, tw = -(-gy.shape[2] // 2), -(-gy.shape[3] // 2)
    (lh, _), (lw, _) = padding
    if need_dx and dx is None:
        dx = xp.empty(x.shape, dtype=x.dtype)
    # the tiles' signs stay in dM @ U, taken out by the scatter's additions (multiplying them
    # into the filters was a pass over 16/9 of the weight per call: ResNet-18's 512-channel
    # filters are 16 MB, ~15 ms of a one-thread step over its 13 such convolutions)
    du = None
    step = _samples_per_block(n, th * tw, max(c, o), x.itemsize)
    for i in range(0, n, step):
        m = min(step, n - i)
        dm = _gradient_tiles(xp, gy[i:i + m], th, tw).reshape(16, th * tw * m, o)
        v = _input_transform(xp, _phases(xp, x[i:i + m], padding, th, tw), th, tw)
        part = xp.matmul(dm.transpose(0, 2, 1), v.reshape(16, th * tw * m, c))
        del v
        if du is None:
            du = part
        else:
            du += part
        if need_dx:
            g = xp.matmul(dm, u).reshape(4, 4, th, tw, m, c)
            img = _scatter_tiles(xp, g, th, tw, True)
            del g
            _copy(xp, img[lh:lh + h, lw:lw + w].transpose(2, 3, 0, 1), dx[i:i + m])
    if du is None:  # an empty batch
        return dx, xp.zeros((o, c, 3, 3), dtype=x.dtype)
    return dx, _weight_from(xp, du, o, c)


def applies_backward(x, w, gy, stride, dilation, groups, padding):
    """Whether ``backward`` computes both gradients: where the weight gradient takes
    Winograd and the input gradient would too (as a convolution of the output gradient), the
    blocks hold whole samples (``_tile_rows`` would not band them) and the padding is within
    the kernel."""
    if not applies_weight(x, gy, (3, 3), stride, dilation, groups) or w.dtype != x.dtype:
        return False
    if any(lo > 2 or hi > 2 for lo, hi in padding):
        return False
    if not applies(gy, w.swapaxes(0, 1), stride, dilation, groups, tuple(x.shape[2:])):
        return False
    th, tw = -(-gy.shape[2] // 2), -(-gy.shape[3] // 2)
    c, o = x.shape[1], gy.shape[1]
    step = _samples_per_block(x.shape[0], th * tw, max(c, o), x.itemsize)
    return _tile_rows(step, th, tw, max(c, o), x.itemsize) == th
