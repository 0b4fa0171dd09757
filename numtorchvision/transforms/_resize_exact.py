"""Antialiased bilinear/bicubic resizing of integer images with torch's float32 rounding.

torchvision resizes an integer image by converting it to float32, calling torch's
antialiased interpolation and rounding back. A weighted sum that lands within a few float32
ulps of ``k + 0.5`` rounds to ``k`` or ``k + 1`` depending on every rounding step on the way,
so matching torchvision pixel for pixel needs torch's float32 arithmetic, not merely an
accurate resize. The steps below were established by experiment against torch 2.13 (probing
weights with identity images and summation orders with random ones):

* the filter weights are computed in float32, except that the tap offset gets its ``+ 0.5``
  and the division by the scale in double precision before being rounded to float32;
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
    return (np.asarray(a, _F64) * b + c).astype(_F32)


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
    lo = np.maximum((center.astype(_F64) - support + 0.5).astype(np.int64), 0)
    width = np.minimum((center.astype(_F64) + support + 0.5).astype(np.int64), n_in) - lo
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
