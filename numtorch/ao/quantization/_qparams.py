"""The arithmetic observers share: ``(scale, zero_point)`` from observed min/max values.

Everything is float32 (as torch's observers compute on float32 tensors, a Python number meeting
a float32 tensor being rounded to float32 first); zero points are rounded half to even.
"""

import numpy as np

__all__ = ["calculate_qparams_arrays", "qmin_qmax"]

_F32_EPS = float(np.finfo(np.float32).eps)


def qmin_qmax(quant_min, quant_max, customized, dtype_name, reduce_range):
    """The integer range an observer quantizes to (torch's ``calculate_qmin_qmax``)."""
    if customized:
        lo, hi = (0, 2 ** 32 - 1) if dtype_name in ("qint32", "int32") else (0, 255)
        if quant_min is not None and quant_max is not None:
            lo, hi = quant_min, quant_max
        span = hi - lo + 1
        if dtype_name in ("qint8", "int8") and not 0 < span <= 256:
            raise AssertionError("quantization range should be positive and not exceed the "
                                 "maximum bit range (=256).")
        if dtype_name in ("qint32", "int32") and not 0 < span <= 2 ** 32:
            raise AssertionError("quantization range should be positive and not exceed the "
                                 "maximum bit range (=4294967296).")
        if reduce_range:
            quant_min, quant_max = quant_min // 2, quant_max // 2
        return quant_min, quant_max
    table = {"qint8": (-128, 127, -64, 63), "int8": (-128, 127, -64, 63),
             "quint8": (0, 255, 0, 127), "uint8": (0, 255, 0, 127),
             "qint32": (-2 ** 31, 2 ** 31 - 1) * 2, "int32": (-2 ** 31, 2 ** 31 - 1) * 2,
             "uint16": (0, 2 ** 16 - 1) * 2, "int16": (-2 ** 15, 2 ** 15 - 1) * 2}
    lo, hi, rlo, rhi = table.get(dtype_name, (0, 15, 0, 15))
    return (rlo, rhi) if reduce_range else (lo, hi)


def calculate_qparams_arrays(min_val, max_val, quant_min, quant_max, symmetric, zp_dtype,
                             eps=_F32_EPS, float_qparams=False, unsigned_midpoint=None):
    """Scale (float32) and zero point arrays for float32 ``min_val``/``max_val`` arrays.

    Args:
        min_val, max_val: observed extremes (same shape: () per tensor, (C,) per channel).
        quant_min, quant_max (int): the integer range.
        symmetric (bool): a symmetric scheme (range centred on 0).
        zp_dtype: NumPy dtype of the zero points returned by the affine scheme.
        eps (float): the smallest scale allowed.
        float_qparams (bool): ``per_channel_affine_float_qparams`` (float zero points).
        unsigned_midpoint (int or None): the zero point of a symmetric scheme for unsigned
            dtypes (128, or the middle of a customised range), None for signed ones.
    """
    f32 = np.float32
    mn = np.asarray(min_val, dtype=f32)
    mx = np.asarray(max_val, dtype=f32)
    eps = np.asarray([eps], dtype=f32)
    neg = np.minimum(mn, f32(0))
    pos = np.maximum(mx, f32(0))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if symmetric:
            pos = np.maximum(-neg, pos)
            scale = np.maximum(pos / f32((quant_max - quant_min) / 2), eps)
            zp = np.zeros(scale.shape, dtype=np.int64)
            if unsigned_midpoint is not None:
                zp[...] = unsigned_midpoint
        elif float_qparams:
            scale = (mx - mn) / f32(quant_max - quant_min)
            scale = np.where(scale > eps, scale, f32(1)).astype(f32)
            zp = (f32(-1) * mn / scale).astype(f32)
        else:
            scale = np.maximum((pos - neg) / f32(quant_max - quant_min), eps)
            zp = (quant_min - np.rint(neg / scale).astype(np.int32)).astype(np.int32)
            zp = np.clip(zp, quant_min, quant_max).astype(zp_dtype)
    return scale.astype(f32).reshape(-1) if scale.ndim == 0 else scale.astype(f32), \
        zp.reshape(-1) if zp.ndim == 0 else zp
