"""Quantized layers on quantized tensors: linear and convolution (static and dynamic), the
elementwise ops of ``FloatFunctional`` (add, mul, cat, ...), normalization, pooling,
interpolation and activations.

Linear and convolution accumulate zero-point-centred integers exactly
(:mod:`numtorch.ops.quantized_gemm`) and requantize as torch's x86/fbgemm kernels do. The
other ops follow torch's kernels in working on dequantized float32 values and quantizing the
result with the output's parameters (the input's for shape-preserving ops), which matches
torch to within one quantum.
"""

import numpy as np

from .. import _dtype
from .._quantized_array import (PerTensor, QArray, dequantize_array,
                                quantize_per_tensor_array)
from .._quantized_tensor import make_quantized
from . import quantized_gemm as _gemm

__all__ = ["linear", "linear_dynamic", "linear_dynamic_array", "conv", "conv_dynamic", "quantize_like",
           "requantize_float", "dequantized", "ints_and_params", "weight_params",
           "choose_dynamic_params", "no_kernel", "require_quantized", "require_float",
           "conv_op_name"]


def no_kernel(op, t):
    """torch's dispatcher NotImplementedError for ``quantized::<op>`` (``op`` as torch's
    schema names it, e.g. ``"conv2d.new"``) called with tensor ``t``, which has no kernel
    there: a float tensor reports the 'CPU' backend, a quantized one 'QuantizedCPU'."""
    backend = "QuantizedCPU" if type(getattr(t, "_array", None)) is QArray else "CPU"
    return NotImplementedError(
        f"Could not run 'quantized::{op}' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build). If you are a Facebook "
        "employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for "
        "possible resolutions.")


def require_quantized(op, *tensors):
    """Raise torch's dispatcher error for ``quantized::<op>`` unless every tensor is
    quantized (a float tensor given to a converted module, its QuantStub forgotten)."""
    for t in tensors:
        if type(getattr(t, "_array", None)) is not QArray:
            raise no_kernel(op, t)


def _engine():
    from ..backends.quantized import _state

    return _state["engine"]


def _check_activation_dtype(x, nd=None, relu=False, transposed=False):
    """torch's error (worded per quantized engine) for a linear (``nd`` None) or convolution
    given a quantized input that is not quint8."""
    qdtype = x._array.qdtype
    if qdtype is _dtype.quint8:
        return
    got = _dtype._TYPE_DISPLAY.get(qdtype.name, qdtype.name)
    engine = _engine()
    if nd is None:
        if engine == "qnnpack":
            msg = f"quantized::linear (qnnpack): Expected input data type QUInt8 but got {got}"
        elif engine == "onednn":
            if qdtype is _dtype.qint8:  # oneDNN's linear takes (and returns) qint8 too
                return
            msg = "qlinear (ONEDNN): data type of input should be QUInt8 or QInt8."
        else:
            msg = f"Expected input data type QUInt8 but got {got}"
    elif engine in ("x86", "onednn"):
        name = ("conv_transpose" if transposed else "conv") + f"{max(nd, 2)}d" + \
            ("_relu" if relu and not transposed else "")
        msg = f"quantized::{name} (ONEDNN): data type of input should be QUint8."
    else:
        name = "conv_transpose" if transposed else "conv"
        msg = (f"quantized::{name}({'qnnpack' if engine == 'qnnpack' else 'FBGEMM'}): "
               f"Expected activation data type QUInt8 but got {got}")
    raise RuntimeError(msg)


def require_float(op, t):
    """The dispatcher error of a dynamic (float-input) quantized op given a quantized
    tensor."""
    if type(getattr(t, "_array", None)) is QArray:
        raise no_kernel(op, t)


def dequantized(t):
    """The float32 array of quantized tensor ``t``."""
    return dequantize_array(t._array)


def ints_and_params(t):
    """(integers, scale, zero_point) of a per-tensor quantized tensor."""
    a = t._array
    if type(a) is not QArray:
        raise RuntimeError(f"expected a quantized tensor, got {t.dtype}")
    if a.quantizer.per_channel:
        raise RuntimeError("Only per tensor quantization is supported for the input")
    return a.ints, a.quantizer.scale, a.quantizer.zero_point


def weight_params(w):
    """(integers, float64 scales, int64 zero points, per_channel) of a quantized weight."""
    q = w._array.quantizer
    if q.per_channel:
        return w._array.ints, q.scales.astype(np.float64), q.zero_points.astype(np.int64), True
    return w._array.ints, np.array([q.scale]), np.array([q.zero_point], np.int64), False


def requantize_float(values, scale, zero_point, qdtype=None):
    """A per-tensor quantized tensor of float32 ``values``."""
    qdtype = _dtype.quint8 if qdtype is None else qdtype
    ints = quantize_per_tensor_array(np.asarray(values, np.float32), scale, zero_point,
                                     qdtype.np)
    return make_quantized(ints, qdtype, PerTensor(scale, zero_point))


def quantize_like(values, t):
    """float32 ``values`` quantized with tensor ``t``'s own per-tensor parameters."""
    a = t._array
    return requantize_float(values, a.quantizer.scale, a.quantizer.zero_point, a.qdtype)


def _bias_array(bias):
    if bias is None:
        return None
    arr = bias.detach()._array if hasattr(bias, "_array") else np.asarray(bias)
    if type(arr) is QArray:
        arr = dequantize_array(arr)
    return arr.astype(np.float32)


def linear(x, w, bias, scale, zero_point, relu=False, op=None):
    """Quantized linear: quint8 ``x`` (..., K), qint8 ``w`` (N, K), float ``bias``; the
    quint8 output has ``scale``/``zero_point`` (``op``: torch's op name in errors)."""
    require_quantized(op or ("linear_relu" if relu else "linear"), x)
    _check_activation_dtype(x)
    xi, sx, zx = ints_and_params(x)
    wi, ws, wz, _ = weight_params(w)
    if xi.shape[-1] != wi.shape[1]:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: "
                           f"{xi.shape[-1]}")
    a = xi.astype(np.int32) - zx
    b = (wi.astype(np.int32) - wz[:, None]).T
    acc = _gemm.int_matmul(a, b)
    qdtype = x._array.qdtype  # quint8, or qint8 on the onednn engine
    key = qdtype.np
    out = _gemm.requantize(acc, _bias_array(bias), sx, ws, scale, zero_point, relu,
                           out_min=key.qmin, out_max=key.qmax, qnnpack=_qnnpack())
    return make_quantized(out.astype(key.storage), qdtype, PerTensor(scale, zero_point))


def _qnnpack():
    from ..backends.quantized import _state

    return _state["engine"] == "qnnpack"


def choose_dynamic_params(x, reduce_range):
    """(scale, zero_point) quint8 parameters for float32 array ``x`` as torch's dynamic
    kernels choose them (the range of x widened to 0, ``reduce_range`` halving it)."""
    from .._quantized_functions import choose_qparams

    lo = float(x.min()) if x.size else 0.0
    hi = float(x.max()) if x.size else 0.0
    return choose_qparams(lo, hi, 0, 255, reduce_range=reduce_range)


def linear_dynamic(x, packed, reduce_range=True, relu=False):
    """Dynamically quantized linear: float ``x`` is quantized to quint8 with parameters from
    its own range, multiplied with the packed qint8 weight in integers, and returned as
    float32 (``packed`` a LinearPackedParamsBase)."""
    from .._tensor import _make

    require_float("linear_relu_dynamic" if relu else "linear_dynamic", x)
    xf = x.detach()._array.astype(np.float32, copy=False)
    return _make(linear_dynamic_array(xf, packed, reduce_range, relu))


def linear_dynamic_array(xf, packed, reduce_range=True, relu=False):
    """:func:`linear_dynamic` on float32 arrays."""
    weight, scales, bias = packed.gemm_operands()
    if weight is None:  # float16 weights: a float32 GEMM with the rounded weight
        w = packed.weight.detach()._array.astype(np.float32)
        out = np.matmul(xf, w.T)
        if bias is not None:
            out = out + bias
        return np.maximum(out, np.float32(0)) if relu else out
    if xf.shape[-1] != weight.ints.shape[0]:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: "
                           f"{xf.shape[-1]}")
    qnnpack = getattr(packed, "engine", None) == "qnnpack"
    if qnnpack:
        reduce_range = False  # qnnpack's dynamic kernels use the full uint8 range regardless
    sx, zx = choose_dynamic_params(xf, reduce_range)
    xi = quantize_per_tensor_array(xf, sx, zx, _dtype.quint8.np)
    a = xi.astype(np.float32)  # centred integers, exact in float32
    a -= np.float32(zx)
    # |a| is at most the distance from the zero point to the farther extreme of the uint8
    # integers (two cheap byte reductions instead of a float pass over a)
    amax = max(zx - int(xi.min()), int(xi.max()) - zx) if xi.size else 0
    acc = weight.matmul(a, amax)
    # fbgemm (x86/fbgemm engines) adds the bias in a fused multiply-add; qnnpack does not
    return _gemm.dequantize_accumulator(acc, bias, np.float32(sx), scales, relu,
                                        fused=not qnnpack)


def _int_conv(nd, a, b, stride, padding, dilation, groups, transposed, output_padding):
    """The exact integer convolution of centred integers (float64 result), computed by
    numtorch's float convolution in a dtype that keeps every partial sum exact."""
    from .. import nn
    from .._tensor import _make

    per_out = b.shape[1] * int(np.prod(b.shape[2:])) if not transposed else \
        (b.shape[0] // groups) * int(np.prod(b.shape[2:]))
    dt = _gemm.exact_float_dtype(per_out, int(np.abs(a).max()) if a.size else 0,
                                 int(np.abs(b).max()) if b.size else 0) or np.float64
    F = nn.functional
    xa, wa = _make(a.astype(dt)), _make(b.astype(dt))
    if transposed:
        fn = getattr(F, f"conv_transpose{nd}d")
        y = fn(xa, wa, None, stride, padding, output_padding, groups, dilation)
    else:
        fn = getattr(F, f"conv{nd}d")
        y = fn(xa, wa, None, stride, padding, dilation, groups)
    return y._array.astype(np.float64)


def conv_op_name(nd, relu=False, transposed=False):
    """torch's name of the quantized convolution op (``conv2d.new``, ``conv1d_relu``...)."""
    if transposed:
        return f"conv_transpose{nd}d"
    return f"conv{nd}d" + ("_relu" if relu else "") + (".new" if nd > 1 else "")


def conv(nd, x, w, bias, stride, padding, dilation, groups, scale, zero_point, relu=False,
         transposed=False, output_padding=0):
    """Quantized N-d convolution (or its transpose) of quint8 ``x`` with qint8 ``w``.

    Padding stands for real zeros, i.e. the input's zero point, which is 0 once centred.
    """
    require_quantized(conv_op_name(nd, relu, transposed), x)
    _check_activation_dtype(x, nd, relu, transposed)
    xi, sx, zx = ints_and_params(x)
    wi, ws, wz, _ = weight_params(w)
    channel_shape = (-1,) + (1,) * (wi.ndim - 1)
    b = wi.astype(np.int32) - wz.reshape(channel_shape)
    a = xi.astype(np.int32) - zx
    acc = _int_conv(nd, a, b, stride, padding, dilation, groups, transposed, output_padding)
    out = _gemm.requantize(acc, _bias_array(bias), sx, ws, scale, zero_point, relu,
                           channel_axis=1, qnnpack=_qnnpack())
    return make_quantized(out.astype(np.uint8), _dtype.quint8, PerTensor(scale, zero_point))


def conv_dynamic(nd, x, w, bias, stride, padding, dilation, groups, reduce_range=True,
                 transposed=False, output_padding=0):
    """Dynamically quantized convolution: float in, float out (quint8 activations chosen
    from the input's range)."""
    from .._tensor import _make

    require_float(f"conv_transpose{nd}d_dynamic" if transposed else f"conv{nd}d_dynamic", x)
    xf = x.detach()._array.astype(np.float32, copy=False)
    wi, ws, wz, _ = weight_params(w)
    sx, zx = choose_dynamic_params(xf, reduce_range)
    xi = quantize_per_tensor_array(xf, sx, zx, _dtype.quint8.np)
    b = wi.astype(np.int32) - wz.reshape((-1,) + (1,) * (wi.ndim - 1))
    acc = _int_conv(nd, xi.astype(np.int32) - zx, b, stride, padding, dilation, groups,
                    transposed, output_padding)
    return _make(_gemm.dequantize_accumulator(acc, _bias_array(bias), np.float32(sx), ws,
                                              channel_axis=1))
