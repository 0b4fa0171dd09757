"""``torch.ao.nn.quantized.functional``: functional forms of the quantized ops (pooling,
interpolation, linear, convolution, activations) on quantized tensors."""

import warnings

import numtorch as torch
from numtorch._quantized_ops_float import on_int_values
from numtorch.nn.modules.utils import _pair, _single, _triple
from numtorch.ops import quantized_nn as _qnn
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["avg_pool2d", "avg_pool3d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "conv1d", "conv2d", "conv3d", "interpolate", "linear", "max_pool1d", "max_pool2d",
           "celu", "leaky_relu", "hardtanh", "hardswish", "threshold", "elu", "hardsigmoid",
           "clamp", "upsample", "upsample_bilinear", "upsample_nearest"]

F = torch.nn.functional


def _require_quantized(input, name):
    if not input.is_quantized:
        raise ValueError(f"Input to '{name}' must be quantized!")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling of a quantized tensor (output on the input's grid)."""
    _require_quantized(input, "quantized.avg_pool2d")
    return on_int_values(input, F.avg_pool2d, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override, rounding=True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling of a quantized tensor."""
    _require_quantized(input, "quantized.avg_pool3d")
    return on_int_values(input, F.avg_pool3d, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override, rounding=True)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive 2-d average pooling of a quantized tensor."""
    _require_quantized(input, "quantized.functional.adaptive_avg_pool2d")
    return on_int_values(input, F.adaptive_avg_pool2d, output_size, rounding=True)


def adaptive_avg_pool3d(input, output_size):
    """Adaptive 3-d average pooling of a quantized tensor."""
    _require_quantized(input, "quantized.functional.adaptive_avg_pool3d")
    return on_int_values(input, F.adaptive_avg_pool3d, output_size, rounding=True)


def _check_conv(input, weight, padding_mode, ndim, shape):
    if padding_mode != "zeros":
        raise NotImplementedError("Only zero-padding is supported!")
    if input.dtype is not torch.quint8:
        raise NotImplementedError("Only torch.quint8 is supported for activation tensor!")
    if weight.dtype is not torch.qint8:
        raise NotImplementedError("Only torch.qint8 is supported for weight tensor!")
    if input.dim() != ndim:
        raise ValueError(f"Input shape must be `{shape}`!")


def conv1d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=torch.quint8):
    """1-d convolution of quantized ``(N, C, L)`` input with a qint8 weight."""
    _check_conv(input, weight, padding_mode, 3, "(N, C, L)")
    return _qnn.conv(1, input, weight, bias, _single(stride), _single(padding),
                     _single(dilation), groups, scale, zero_point)


def conv2d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=torch.quint8):
    """2-d convolution of quantized ``(N, C, H, W)`` input with a qint8 weight."""
    _check_conv(input, weight, padding_mode, 4, "(N, C, H, W)")
    return _qnn.conv(2, input, weight, bias, _pair(stride), _pair(padding), _pair(dilation),
                     groups, scale, zero_point)


def conv3d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1,
           padding_mode="zeros", scale=1.0, zero_point=0, dtype=torch.quint8):
    """3-d convolution of quantized ``(N, C, D, H, W)`` input with a qint8 weight."""
    _check_conv(input, weight, padding_mode, 5, "(N, C, D, H, W)")
    return _qnn.conv(3, input, weight, bias, _triple(stride), _triple(padding),
                     _triple(dilation), groups, scale, zero_point)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Resize a quantized tensor (``nearest``, ``nearest-exact`` or ``bilinear``)."""
    _require_quantized(input, "quantized.interpolate")
    if mode not in ("bilinear", "nearest", "nearest-exact"):
        raise ValueError("Only 'nearest', 'nearest-exact' and 'bilinear' modes are supported "
                         "for quantized interpolate")
    return F.interpolate(input, size, scale_factor, mode, align_corners)


def linear(input, weight, bias=None, scale=None, zero_point=None):
    """``input @ weight.T + bias`` of quint8 input and qint8 weight; the output parameters
    default to the input's."""
    scale = input.q_scale() if scale is None else scale
    zero_point = input.q_zero_point() if zero_point is None else zero_point
    return _qnn.linear(input, weight, bias, scale, zero_point)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling of a quantized tensor."""
    if return_indices:
        raise NotImplementedError("return_indices is not yet implemented!")
    stride = [] if stride is None else stride
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode,
                        return_indices=return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling of a quantized tensor."""
    if return_indices:
        raise NotImplementedError("return_indices is not yet implemented!")
    if not input.is_quantized:  # torch's max_pool2d runs on any tensor
        return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode)
    return on_int_values(input, F.max_pool2d, kernel_size, stride, padding, dilation,
                         ceil_mode, return_indices)


def celu(input, scale, zero_point, alpha=1.0):
    """Quantized CELU with output ``scale``/``zero_point``."""
    _require_quantized(input, "quantized.celu")
    return _qp.celu(input, scale, zero_point, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False, scale=None, zero_point=None):
    """Quantized leaky ReLU (on the input's grid unless ``scale``/``zero_point`` are given).
    """
    rescale = scale is not None and zero_point is not None
    if rescale and inplace:
        raise AssertionError("Cannot rescale with `inplace`")
    if not input.is_quantized:  # torch runs the float op (an output grid needs a qdtype)
        if rescale:
            raise RuntimeError("Creation of quantized tensor requires quantized dtype like "
                               "torch.quint8")
        return F.leaky_relu(input, negative_slope, inplace)
    if rescale:
        return _qp.leaky_relu(input, negative_slope, False, scale, zero_point)
    return _qp.leaky_relu(input, negative_slope, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Quantized hardtanh (bounds quantized with the input's parameters)."""
    _require_quantized(input, "quantized.hardtanh")
    out = _qp.clamp(input, min_val, max_val)
    if inplace:
        input._array.ints[...] = out._array.ints
        input._vc[0] += 1
        return input
    return out


def hardswish(input, scale, zero_point):
    """Quantized hardswish with output ``scale``/``zero_point``."""
    _require_quantized(input, "quantized.hardswish")
    return _qp.hardswish(input, scale, zero_point)


def threshold(input, threshold, value):
    """``input`` where above ``threshold``, else ``value`` (on the input's grid)."""
    _require_quantized(input, "quantized.threshold")
    if threshold is None:
        raise ValueError("Input to 'threshold' must be specified!")
    if value is None:
        raise ValueError("Input to 'value' must be specified!")
    return _qp.threshold(input, threshold, value)


def elu(input, scale, zero_point, alpha=1.0):
    """Quantized ELU with output ``scale``/``zero_point``."""
    _require_quantized(input, "quantized.elu")
    return _qp.elu(input, scale, zero_point, alpha)


def hardsigmoid(input, inplace=False):
    """Quantized hardsigmoid on torch's fixed output grid."""
    _require_quantized(input, "quantized.hardsigmoid")
    out = _qp.hardsigmoid(input)
    if inplace:
        input._array.ints[...] = out._array.ints
        input._array.quantizer = out._array.quantizer
        return input
    return out


def clamp(input, min_, max_):
    """Clamp a quantized tensor (bounds quantized with its parameters)."""
    _require_quantized(input, "quantized.clamp")
    return _qp.clamp(input, min_, max_)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of :func:`interpolate`."""
    warnings.warn("nn.quantized.functional.upsample is deprecated. Use "
                  "nn.quantized.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: bilinear :func:`interpolate` with ``align_corners=True``."""
    warnings.warn("nn.quantized.functional.upsample_bilinear is deprecated. Use "
                  "nn.quantized.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: nearest :func:`interpolate`."""
    warnings.warn("nn.quantized.functional.upsample_nearest is deprecated. Use "
                  "nn.quantized.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")
