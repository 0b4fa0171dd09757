"""Antialiased bilinear/bicubic resizing of integer images with torch's float32 rounding.

torchvision resizes an integer image by converting it to float32, calling torch's
antialiased interpolation and rounding back. A weighted sum that lands within a few float32
ulps of ``k + 0.5`` rounds to ``k`` or ``k + 1`` depending on every rounding step on the way,
so matching torchvision pixel for pixel needs torch's float32 arithmetic, not merely an
accurate resize. The steps below were established by experiment against torch 2.13 (probing
weights with identity images and summation orders with random ones):

* the filter weights are computed in float32, except that the tap offset gets its ``+ 0.5``
  and the division by the scale in double precision before being rounded to float32; the
  window's ends are ``centre -/+ support`` in float32 plus 0.5 in double, truncated (an end
  computed without the float32 rounding lands on the next tap when it is near a
  half-integer, e.g. output 22 of a 201 -> 43 resize);
  the bicubic filter's polynomials are evaluated with fused multiply-adds;
* each output sums its taps in order; the taps after the first come in runs of four plain
  ``acc + x * w`` steps, and the leftover ``(taps - 1) % 4`` taps are fused multiply-adds
  (a fused multiply-add is emulated exactly enough in float64: the product of two float32
  values is exact there, leaving a single rounding of the sum);
* the width is resampled first, then the height.

There is no autograd here: integer images have no gradient.
"""

import numpy as np

_F32, _F64 = np.float32, np.float64


def _fma(a, b, c):
    """float32 ``a * b + c`` rounded once (through float64)."""
    t = np.multiply(a, b, dtype=_F64)  # (converting the operands first is 8x slower)
    if isinstance(t, np.ndarray) and t.shape == np.broadcast_shapes(t.shape, np.shape(c)):
        t += c
    else:
        t = t + c
    return t.astype(_F32)


def _bilinear(x):
    return np.maximum(_F32(1) - np.abs(x), _F32(0))


def _bicubic(x):
    a = _F32(-0.5)  # the antialiased cubic uses PIL's coefficient
    x = np.abs(x)
    near = _fma(_fma(x, a + 2, -(a + 3)) * x, x, _F32(1))
    far = _fma(_fma(x - _F32(5), x, _F32(8)), x, _F32(-4)) * a
    return np.where(x < 1, near, np.where(x < 2, far, _F32(0))).astype(_F32)


def _table(mode, n_in, n_out):
    """(index, weight, fused): taps x outputs; ``fused`` marks the fused multiply-add taps."""
    half, fn = (1.0, _bilinear) if mode == "bilinear" else (2.0, _bicubic)
    scale = _F32(n_in) / _F32(n_out)
    support = _F32(half * _F64(scale)) if scale >= 1 else _F32(half)
    inv = _F32(1) / scale if scale >= 1 else _F32(1)
    center = (_F64(scale) * (np.arange(n_out) + 0.5)).astype(_F32)
    # the window's ends: centre -/+ support in float32, then + 0.5 in double
    lo = np.maximum(((center - support).astype(_F64) + 0.5).astype(np.int64), 0)
    width = np.minimum(((center + support).astype(_F64) + 0.5).astype(np.int64), n_in) - lo
    taps = max(int(width.max()), 1)
    k = np.arange(taps)[:, None]
    offset = ((k + lo) - center).astype(_F32).astype(_F64) + 0.5
    w = np.where(k < width, fn((offset * _F64(inv)).astype(_F32)), _F32(0))
    total = w[0].copy()
    for t in range(1, taps):
        total += w[t]
    w = np.where(total != 0, w / np.where(total != 0, total, _F32(1)), w).astype(_F32)
    return np.minimum(lo + k, n_in - 1), w, k > 4 * ((width - 1) // 4)


def _resample(x, axis, index, weight, fused):
    shape = (-1,) + (1,) * (x.ndim - axis - 1)
    out = np.take(x, index[0], axis=axis) * weight[0].reshape(shape)
    for t in range(1, index.shape[0]):
        xt = np.take(x, index[t], axis=axis)
        wt = weight[t].reshape(shape)
        cols = np.flatnonzero(fused[t])
        if cols.size == fused.shape[1]:
            out = _fma(xt, wt, out)
            continue
        step = xt * wt
        if cols.size:  # only the outputs whose tap t is fused take the float64 detour
            sel = (slice(None),) * axis + (cols,)
            fused_part = _fma(xt[sel], wt[cols], out[sel])
        out += step
        if cols.size:
            out[sel] = fused_part
    return out


def resize_integer_aa(arr, size, mode):
    """float32 result of resizing the last two dims of ``arr`` (any integer dtype) to
    ``size`` with antialiasing, rounded as torch's float32 kernel rounds."""
    # each pass gathers whole rows: the resampled dim goes first (gathering along the last
    # dim is several times slower than the two transposing copies)
    x = np.moveaxis(arr, -1, 0).astype(_F32, order="C")  # (W, ..., H)
    if size[1] != x.shape[0]:
        x = _resample(x, 0, *_table(mode, x.shape[0], size[1]))
    x = np.ascontiguousarray(np.moveaxis(x, -1, 0))  # (H, W', ...)
    if size[0] != x.shape[0]:
        x = _resample(x, 0, *_table(mode, x.shape[0], size[0]))
    return np.ascontiguousarray(np.moveaxis(x, (0, 1), (-2, -1)))


# ---------------------------------------------------------------------------------------------
# Without antialiasing. torchvision converts the image to float32, calls torch's plain
# bilinear/bicubic kernels and rounds. Established by experiment against torch 2.13 on x86-64
# (its kernels are built with fused multiply-adds where the compiler contracts ``a * b + c``):
#
# * source position ``fma(scale, j + 0.5, -0.5)`` with ``scale = float32(n_in) / n_out``;
#   linear clamps it at 0 and weighs the two taps ``1 - l`` and ``l``; cubic takes
#   ``floor`` and ``t``, and its weights are Keys' polynomials (a = -0.75) with the middle
#   Horner step of the outer polynomial fused;
# * torch's general kernel sums the taps of each row (width) and then the rows, each sum as
#   ``fma(v0, w0, v1 * w1)`` followed by ``fma(vk, wk, acc)`` for further taps; a sum over the
#   width depends on its input row only, so it is computed once per input row;
# * bilinear has a second kernel, taken when the output's edges sum to at most 128, for
#   channels-last inputs of more than 3 channels, and for 3-channel images when torch runs on
#   one thread: it weighs the four corners by products of the two lambdas and sums them in
#   one order for runs of 8 channels (vectorised) and another for the remaining channels.
#
# The float64 detour rounds twice; the sum of a float32 product and a float32 addend that
# needs more than 53 bits and lands on a float32 tie is the only case where that differs from
# one rounding: far too rare to matter for images (no disagreement in any test sweep).
# ---------------------------------------------------------------------------------------------

def _plain_coords(n_in, n_out):
    scale = _F32(n_in) / _F32(n_out)
    return _fma(scale, np.arange(n_out).astype(_F32) + _F32(0.5), _F32(-0.5))


def _linear_taps(n_in, n_out):
    """(index (2, out), weight (2, out)) of torch's plain linear interpolation."""
    src = np.maximum(_plain_coords(n_in, n_out), _F32(0))
    i0 = src.astype(np.int64)
    i1 = np.where(i0 < n_in - 1, i0 + 1, i0)
    lam = np.clip(src - i0.astype(_F32), _F32(0), _F32(1)).astype(_F32)
    return np.stack([i0, i1]), np.stack([_F32(1) - lam, lam]).astype(_F32)


def _keys_near(x):  # |x| <= 1
    a = _F32(-0.75)
    return ((_fma(a + 2, x, -(a + 3)) * x) * x + _F32(1)).astype(_F32)


def _keys_far(x):  # 1 <= |x| <= 2
    a = _F32(-0.75)
    r = _fma(a, x, _F32(-5) * a)
    r = _fma(r, x, _F32(8) * a)
    return (r * x - _F32(4) * a).astype(_F32)


def _cubic_taps(n_in, n_out):
    """(index (4, out), weight (4, out)) of torch's plain cubic interpolation."""
    src = _plain_coords(n_in, n_out)
    base = np.floor(src)
    t = (src - base).astype(_F32)
    u = (_F32(1) - t).astype(_F32)
    weight = np.stack([_keys_far(t + _F32(1)), _keys_near(t), _keys_near(u),
                       _keys_far(u + _F32(1))])
    index = np.clip(base.astype(np.int64) + np.arange(-1, 3)[:, None], 0, n_in - 1)
    return index, weight


def _tap_sum(x, index, weight):
    """Taps along axis 0 of ``x`` summed as torch's general kernel sums them."""
    shape = (-1,) + (1,) * (x.ndim - 1)

    def tap(k):
        return np.take(x, index[k], axis=0), weight[k].reshape(shape)

    (v0, w0), (v1, w1) = tap(0), tap(1)
    acc = _fma(v0, w0, v1 * w1)
    for k in range(2, index.shape[0]):
        acc = _fma(*tap(k), acc)
    return acc


def _general(x, taps):
    """(N, C, H, W) float32 -> (N, C, H', W'): the width's taps, then the height's."""
    (ih, wh), (iw, ww) = taps
    x = np.ascontiguousarray(np.moveaxis(x, -1, 0))  # (W, N, C, H)
    x = _tap_sum(x, iw, ww)
    x = np.ascontiguousarray(np.moveaxis(x, -1, 0))  # (H, W', N, C)
    x = _tap_sum(x, ih, wh)
    return np.ascontiguousarray(np.moveaxis(x, (0, 1), (-2, -1)))


def _corners(x, taps):
    """torch's pixel-at-a-time bilinear kernel on (N, C, H, W) float32."""
    (ih, wh), (iw, ww) = taps
    corner = {}
    for a in range(2):
        rows = np.take(x, ih[a], axis=2)
        for b in range(2):
            corner[a, b] = (np.take(rows, iw[b], axis=3),
                            (wh[a][:, None] * ww[b][None, :]).astype(_F32))
    order_vec = [(1, 0), (1, 1), (0, 1), (0, 0)]
    order_tail = [(0, 1), (0, 0), (1, 0), (1, 1)]
    c = x.shape[1]
    split = c - c % 8
    out = np.empty(x.shape[:2] + (ih.shape[1], iw.shape[1]), _F32)
    for part, order in ((slice(0, split), order_vec), (slice(split, c), order_tail)):
        if part.start == part.stop:
            continue
        v, w = corner[order[0]]
        acc = v[:, part] * w
        for key in order[1:]:
            v, w = corner[key]
            acc = _fma(v[:, part], w, acc)
        out[:, part] = acc
    return out


def resize_integer_plain(arr, size, mode, threads, channels_last):
    """float32 result of resizing ``arr`` ((N, C, H, W), any integer dtype) to ``size``
    without antialiasing, rounded as torch's float32 kernels round.

    ``threads`` is the intra-op thread count and ``channels_last`` whether the image is laid
    out channels-last: both choose among torch's bilinear kernels.
    """
    x = arr.astype(_F32)
    (h, w), (oh, ow) = arr.shape[-2:], size
    tables = _cubic_taps if mode == "bicubic" else _linear_taps
    taps = (tables(h, oh), tables(w, ow))
    c = x.shape[1]
    if mode == "bilinear" and (oh + ow <= 128 or (channels_last and c > 3)
                               or (threads == 1 and c == 3)):
        return _corners(x, taps)
    return _general(x, taps)
