"""Making and reading quantized tensors: ``quantize_per_tensor``, ``quantize_per_channel``,
``dequantize`` and the private constructors torch exposes (``_make_per_tensor_quantized_tensor``,
``_choose_qparams_per_tensor``, ...).

The arithmetic lives in :mod:`numtorch._quantized_array`; this module checks arguments the way
torch does and wraps the results.
"""

import math
import warnings

import numpy as np

from . import _dtype
from ._quantized_array import (PerChannel, PerTensor, QArray, quantize_per_channel_array,
                               quantize_per_tensor_array)
from ._quantized_tensor import make_quantized, wrap_qarray

__all__ = ["quantize_per_tensor", "quantize_per_channel", "dequantize",
           "quantize_per_tensor_dynamic", "_make_per_tensor_quantized_tensor",
           "_make_per_channel_quantized_tensor", "_choose_qparams_per_tensor",
           "choose_qparams", "_empty_affine_quantized", "_empty_per_channel_affine_quantized"]

_DEPRECATION = ("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized "
                "tensor creation functions that produce tensors with dtype torch.quint8, "
                "torch.qint8, and torch.qint32 are deprecated and will be removed in a future "
                "PyTorch release. Please see https://github.com/pytorch/pytorch/issues/184982 "
                "for more information.")
_warned = [False]
_STORAGE_QDTYPE = {"uint8": "quint8", "int8": "qint8", "int32": "qint32"}


def _deprecated():
    # torch warns once per process (a C++ TORCH_WARN_ONCE)
    if not _warned[0]:
        _warned[0] = True
        from .ops._util import user_stacklevel

        # (the program's line, however many numtorch frames lie between)
        warnings.warn(_DEPRECATION, UserWarning, stacklevel=user_stacklevel())


def _tensor_cls():
    from ._tensor import Tensor

    return Tensor


def _check_qdtype(dtype, what="new_qtensor"):
    if type(dtype) is not _dtype.dtype or dtype._category != _dtype._QUANT:
        name = _dtype._TYPE_DISPLAY.get(getattr(dtype, "name", ""), str(dtype))
        raise RuntimeError(f"ScalarType {name} is not supported in {what}.")


def _check_float_input(input):
    if input.dtype is not _dtype.float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got "
                           f"{_dtype._TYPE_DISPLAY.get(input.dtype.name, input.dtype.name)}")


def _check_zero_point(fn, zp, key):
    if zp > key.qmax:
        raise RuntimeError(f"{fn} zero_point {zp} is above upper bound.")
    if zp < key.qmin:
        raise RuntimeError(f"{fn} zero_point {zp} is below lower bound.")


def _scalar(value):
    """A Python number from a number or a one-element tensor."""
    Tensor = _tensor_cls()
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(f"a Tensor with {value.numel()} elements cannot be converted to "
                               f"Scalar")
        return value.reshape(()).item()
    return value


def _host(input):
    arr = input._array
    return arr if type(arr) is np.ndarray else arr.get()


def quantize_per_tensor(input, scale, zero_point, dtype):
    """Quantize float32 values with one ``scale`` and ``zero_point``:
    ``q = clamp(round(x / scale) + zero_point)``, rounding half to even.

    Args:
        input (Tensor or list of Tensors): float32 values; a list is quantized tensor by
            tensor, with ``scale``/``zero_point`` then tensors of one value per input.
        scale (float or Tensor): the step between consecutive quantized values.
        zero_point (int or Tensor): the integer that stands for 0.0.
        dtype (torch.dtype): ``quint8``, ``qint8``, ``qint32`` or ``quint4x2``.

    Returns:
        Tensor (or a tuple of them for a list input).

    Example:
        >>> torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 1.0, 2.0]), 0.1, 10,
        ...                           torch.quint8).int_repr()
        tensor([ 0, 10, 20, 30], dtype=torch.uint8)
    """
    Tensor = _tensor_cls()
    if isinstance(input, (list, tuple)):
        _deprecated()
        out = []
        for i, t in enumerate(input):
            s = scale[i] if isinstance(scale, Tensor) else scale
            z = zero_point[i] if isinstance(zero_point, Tensor) else zero_point
            out.append(quantize_per_tensor(t, s, z, dtype))
        return tuple(out)
    if not isinstance(input, Tensor):
        raise TypeError(f"quantize_per_tensor(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    if not isinstance(zero_point, Tensor) and (isinstance(zero_point, float) or
                                                not isinstance(zero_point, (int, np.integer))):
        raise TypeError(f"quantize_per_tensor() received an invalid combination of arguments - "
                        f"got (Tensor, {type(scale).__name__}, {type(zero_point).__name__}, "
                        f"torch.dtype)")
    _deprecated()
    scale, zero_point = float(_scalar(scale)), int(_scalar(zero_point))
    _check_qdtype(dtype)
    _check_float_input(input)
    key = dtype.np
    _check_zero_point("quantize_tensor_per_tensor_affine", zero_point, key)
    ints = quantize_per_tensor_array(_host(input), scale, zero_point, key)
    return make_quantized(ints, dtype, PerTensor(scale, zero_point))


def quantize_per_channel(input, scales, zero_points, axis, dtype):
    """Quantize float32 values with one scale and zero point per slice along ``axis``.

    Integer ``zero_points`` give ``per_channel_affine`` (``q = round(x / s) + zp``); floating
    ones give ``per_channel_affine_float_qparams`` (``q = round(x / s + zp)``), the scheme of
    quantized embeddings.

    Args:
        input (Tensor): float32 values.
        scales (Tensor): 1-D, one per channel (floating point).
        zero_points (Tensor): 1-D, one per channel.
        axis (int): the channel dim (non-negative).
        dtype (torch.dtype): ``quint8``, ``qint8``, ``qint32`` or ``quint4x2``.

    Example:
        >>> q = torch.quantize_per_channel(torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
        ...     torch.tensor([0.5, 1.0]), torch.tensor([0, 1]), 0, torch.qint8)
        >>> q.int_repr()
        tensor([[2, 4],
                [4, 5]], dtype=torch.int8)
    """
    Tensor = _tensor_cls()
    for name, pos, v in (("scales", 2, scales), ("zero_points", 3, zero_points)):
        if not isinstance(v, Tensor):
            raise TypeError(f"quantize_per_channel(): argument '{name}' (position {pos}) must "
                            f"be Tensor, not {type(v).__name__}")
    _deprecated()
    _check_qdtype(dtype)
    _check_float_input(input)
    quantizer = _per_channel_quantizer(input, scales, zero_points, axis, dtype,
                                       "quantize_tensor_per_channel_affine", "quantization")
    ints = quantize_per_channel_array(_host(input), quantizer, dtype.np)
    return make_quantized(ints, dtype, quantizer)


def _per_channel_quantizer(input, scales, zero_points, axis, dtype, fn, what):
    if scales.numel() != zero_points.numel():
        raise RuntimeError("number of elements in scales and zero_points must match")
    if not scales.dtype.is_floating_point:
        raise RuntimeError("scale tensor must be floating point")
    ndim = input.dim()
    if not 0 <= axis < ndim:
        raise RuntimeError(f"Channel axis out of range in per channel affine {what}. Got: "
                           f"{axis}Expected: [0, {ndim})")
    n = input.shape[axis]
    if scales.numel() != n:
        raise RuntimeError(f"length of scales must equal to channel, expected {n} got, "
                           f"{scales.numel()}")
    s = _host(scales).reshape(-1)
    z = _host(zero_points).reshape(-1)
    if zero_points.dtype.is_floating_point:
        return PerChannel(s.astype(np.float32), z.astype(np.float32), axis, True)
    key = dtype.np
    for zp in z.tolist():
        _check_zero_point(fn, zp, key)
    return PerChannel(s.astype(np.float64), z.astype(np.int64), axis)


def dequantize(tensor):
    """The float32 values of a quantized tensor (or of each tensor of a list).

    Example:
        >>> q = torch.quantize_per_tensor(torch.tensor([0.25, 0.5]), 0.25, 0, torch.quint8)
        >>> torch.dequantize(q)
        tensor([0.2500, 0.5000])
    """
    if isinstance(tensor, (list, tuple)):
        return tuple(t.dequantize() for t in tensor)
    return tensor.dequantize()


def _make_per_tensor_quantized_tensor(input, scale, zero_point):
    """A quantized tensor whose integers are ``input``'s (uint8 -> quint8, int8 -> qint8,
    int32 -> qint32), with one scale and zero point. The integers are copied."""
    name = _STORAGE_QDTYPE.get(input.dtype.name)
    if name is None:
        raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                           "torch.quint8")
    qdtype = _dtype._BY_NAME[name]
    return make_quantized(np.array(_host(input), copy=True), qdtype,
                          PerTensor(float(_scalar(scale)), int(_scalar(zero_point))))


def _make_per_channel_quantized_tensor(input, scale, zero_point, axis):
    """A per-channel quantized tensor whose integers are ``input``'s (copied)."""
    name = _STORAGE_QDTYPE.get(input.dtype.name)
    if name is None:
        raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                           "torch.quint8")
    qdtype = _dtype._BY_NAME[name]
    q = _per_channel_quantizer(input, scale, zero_point, axis, qdtype,
                               "make_per_channel_quantized_tensor", "quantization")
    return make_quantized(np.array(_host(input), copy=True), qdtype, q)


def choose_qparams(min_val, max_val, qmin, qmax, preserve_sparsity=False,
                   force_scale_power_of_two=False, reduce_range=False):
    """ATen's (and fbgemm's) choice of ``(scale, zero_point)`` for a float range.

    The range is widened to contain 0; the scale spans it over ``[qmin, qmax]`` (halved with
    ``reduce_range``), falls back to 0.1 when zero or too small to invert, and is raised to
    6.1e-5 (the float16 normal minimum) with the range scaled to match; the zero point is
    computed from whichever end loses less precision and rounded half to even into range.
    ``min_val``/``max_val`` are float32 numbers, as in the C++ code; the scale is returned as
    the float32 value the kernels use.
    """
    f32 = np.float32
    lo, hi = f32(min_val), f32(max_val)
    if lo > hi:
        raise RuntimeError("In ChooseQuantizationParams, min should be less than or equal to "
                           "max")
    if reduce_range:
        qmin, qmax = int(qmin / 2), int(qmax / 2)
    if lo < 0 and hi > 0 and preserve_sparsity:
        sym_min = -((qmax - qmin) // 2 + 1)
        sym_max = (qmax - qmin) // 2
        widest = max(abs(float(lo) / sym_min), abs(float(hi) / sym_max))
        lo, hi = f32(widest * sym_min), f32(widest * sym_max)
    lo, hi = min(lo, f32(0)), max(hi, f32(0))
    scale = (float(hi) - float(lo)) / (qmax - qmin)
    with np.errstate(divide="ignore", over="ignore"):
        if f32(scale) == 0 or not np.isfinite(f32(1.0) / f32(scale)):
            scale = 0.1
    if force_scale_power_of_two:
        if scale < 1:
            scale = 1.0 / (1 << int(math.floor(math.log(1.0 / scale) / math.log(2))))
        else:
            scale = float(1 << int(math.ceil(math.log(scale) / math.log(2))))
    threshold = f32(6.1e-5)
    if scale < threshold:
        small = f32(scale)
        scale = float(threshold)
        if lo == 0:
            hi = f32(threshold * f32(qmax - qmin))
        elif hi == 0:
            lo = f32(-threshold * f32(qmax - qmin))
        else:
            amp = f32(threshold / small)
            lo, hi = f32(lo * amp), f32(hi * amp)
    zp_min = qmin - float(lo) / scale
    zp_max = qmax - float(hi) / scale
    err_min = abs(qmin) - abs(float(lo) / scale)
    err_max = abs(qmax) - abs(float(hi) / scale)
    zp = zp_min if err_min < err_max else zp_max
    if lo < 0 and hi > 0 and preserve_sparsity:
        zp = (qmin + qmax) / 2
    if zp < qmin:
        nudged = qmin
    elif zp > qmax:
        nudged = qmax
    else:
        nudged = int(np.rint(zp))
    return scale, nudged


def _choose_qparams_per_tensor(input, reduce_range=False):
    """``(scale, zero_point)`` for quint8 covering ``input``'s min and max (and 0)."""
    arr = _host(input)
    lo = float(arr.min()) if arr.size else 0.0
    hi = float(arr.max()) if arr.size else 0.0
    return choose_qparams(lo, hi, 0, 255, reduce_range=reduce_range)


def quantize_per_tensor_dynamic(input, dtype, reduce_range):
    """Quantize with parameters chosen from ``input``'s own range (``quint8`` or ``qint8``),
    as :func:`choose_qparams` picks them."""
    if dtype is not _dtype.quint8 and dtype is not _dtype.qint8 and \
            dtype is not _dtype.float16:
        raise RuntimeError(f"dtype={dtype} is not supported in quantize_per_tensor_dynamic")
    if dtype is _dtype.float16:  # no quantized tensor made: no deprecation warning
        return input.to(_dtype.float16)
    _deprecated()
    arr = _host(input)
    lo = float(arr.min()) if arr.size else 0.0
    hi = float(arr.max()) if arr.size else 0.0
    key = dtype.np
    scale, zp = choose_qparams(lo, hi, key.qmin, key.qmax, reduce_range=reduce_range)
    return quantize_per_tensor(input, scale, zp, dtype)


def _empty_affine_quantized(size, *, scale=1.0, zero_point=0, dtype=None, device=None,
                            memory_format=None, **kwargs):
    """An uninitialised per-tensor quantized tensor (``dtype`` defaults to quint8)."""
    dtype = _dtype.quint8 if dtype is None else dtype
    _check_qdtype(dtype)
    shape = tuple(size)
    return make_quantized(np.zeros(shape, dtype=dtype.np.storage), dtype,
                          PerTensor(scale, zero_point))


def _empty_per_channel_affine_quantized(size, *, scales, zero_points, axis, dtype=None,
                                        device=None, memory_format=None, **kwargs):
    """An uninitialised per-channel quantized tensor."""
    dtype = _dtype.quint8 if dtype is None else dtype
    _check_qdtype(dtype)
    ints = np.zeros(tuple(size), dtype=dtype.np.storage)
    q = _per_channel_quantizer(wrap_qarray(QArray(ints, dtype, PerTensor(1.0, 0))), scales,
                               zero_points, axis, dtype, "empty_per_channel", "quantization")
    return make_quantized(ints, dtype, q)
