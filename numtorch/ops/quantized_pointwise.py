"""Quantized elementwise ops and normalizations (torch's ``torch.ops.quantized.*`` family):
add/mul (of two tensors or with a scalar), cat, activations, batch/layer/group/instance
norm. They compute on dequantized float32 values and quantize the result with the requested
output parameters, as torch's CPU kernels do (results within one quantum of torch's).

``add_scalar``/``mul_scalar`` follow torch in changing the quantization parameters instead of
the integers where they can (a shifted zero point, a scaled scale).
"""

import numpy as np

from .. import _dtype
from .._quantized_array import PerTensor, QArray, dequantize_array
from .._quantized_tensor import make_quantized
from .quantized_nn import dequantized, require_quantized, requantize_float

__all__ = ["add", "add_relu", "mul", "mul_relu", "add_scalar", "mul_scalar", "cat", "relu6",
           "hardswish", "hardsigmoid", "elu", "celu", "leaky_relu", "sigmoid", "tanh",
           "softmax", "prelu", "threshold", "hardtanh", "batch_norm", "layer_norm",
           "group_norm", "instance_norm", "matmul", "clamp", "gelu", "mean", "std"]


def _check_q(name, *tensors):
    """torch's dispatcher error for ``quantized::<name>`` given a non-quantized tensor."""
    require_quantized(name, *tensors)


def _params(t):
    q = t._array.quantizer
    return q.scale, q.zero_point


def _binary(name, a, b, scale, zero_point, fn, relu):
    _check_q(name, a, b)
    if a._array.qdtype is not b._array.qdtype:
        raise RuntimeError(f"quantized::{name} operands should have same data type.")
    out = fn(dequantized(a), dequantized(b))
    if relu:
        out = np.maximum(out, np.float32(0))
    return requantize_float(out, float(scale), int(zero_point), a._array.qdtype)


def add(a, b, scale, zero_point):
    """Quantized ``a + b`` with output ``scale``/``zero_point``."""
    return _binary("add", a, b, scale, zero_point, np.add, False)


def add_relu(a, b, scale, zero_point):
    """Quantized ``relu(a + b)``."""
    return _binary("add_relu", a, b, scale, zero_point, np.add, True)


def mul(a, b, scale, zero_point):
    """Quantized ``a * b``."""
    return _int_mul("mul", a, b, scale, zero_point, False)


def mul_relu(a, b, scale, zero_point):
    """Quantized ``relu(a * b)``."""
    return _int_mul("mul_relu", a, b, scale, zero_point, True)


def _int_mul(name, a, b, scale, zero_point, relu):
    """torch's quantized mul: the product of the centred integers (exact), scaled by the one
    float32 multiplier ``s_a * s_b * (1 / s_out)``, rounded half to even, plus the zero
    point."""
    _check_q(name, a, b)
    qa, qb = a._array, b._array
    if qa.qdtype is not qb.qdtype:
        raise RuntimeError(f"quantized::{name} operands should have same data type.")
    (sa, za), (sb, zb) = _params(a), _params(b)
    prod = (qa.ints.astype(np.int64) - za) * (qb.ints.astype(np.int64) - zb)
    f32 = np.float32  # the multiplier in float32 throughout, as torch computes it
    mult = f32(sa) * f32(sb) * (f32(1) / f32(scale))
    out = np.rint(prod.astype(np.float32) * mult) + np.float64(zero_point)
    key = qa.key
    np.clip(out, int(zero_point) if relu else key.qmin, key.qmax, out=out)
    return make_quantized(out.astype(qa.ints.dtype), qa.qdtype,
                          PerTensor(float(scale), int(zero_point)))


def add_scalar(a, c):
    """Quantized ``a + c``: the zero point moves by ``round(c / scale)``; when that leaves the
    integer range, the range is stretched to hold the shifted values instead and, as torch's
    kernel does, each ``q - z + round(c / scale)`` is scaled by the float32 multiplier
    ``s * (1 / s_out)`` and rounded half to even."""
    _check_q("add_scalar", a)
    s, z = _params(a)
    key = a._array.key
    qmin, qmax = key.qmin, key.qmax
    c_q = int(np.rint(c / s))
    shifted = z - c_q
    if qmin <= shifted <= qmax:
        return make_quantized(a._array.ints.copy(), a._array.qdtype, PerTensor(s, shifted))
    if shifted < qmin:
        new_s, new_z = (qmax - shifted) / (qmax - qmin) * s, qmin
    else:
        new_s, new_z = (shifted - qmin) / (qmax - qmin) * s, qmax
    f32 = np.float32
    multiplier = f32(s) * (f32(1) / f32(new_s))
    centred = (a._array.ints.astype(np.int64) - z + c_q).astype(np.float32)
    out = np.rint(centred * multiplier) + np.float64(new_z)
    np.clip(out, qmin, qmax, out=out)
    return make_quantized(out.astype(a._array.ints.dtype), a._array.qdtype,
                          PerTensor(float(new_s), int(new_z)))


def mul_scalar(a, c):
    """Quantized ``a * c``: the scale is multiplied by ``|c|`` (integers unchanged for
    ``c > 0``, mirrored through the range for ``c < 0``; all zero for ``c == 0``)."""
    _check_q("mul_scalar", a)
    s, z = _params(a)
    key = a._array.key
    ints = a._array.ints
    if c == 0:
        return make_quantized(np.zeros_like(ints), a._array.qdtype, PerTensor(1.0, 0))
    if c > 0:
        return make_quantized(ints.copy(), a._array.qdtype, PerTensor(s * c, z))
    flipped = (key.qmax - (ints.astype(np.int64) - key.qmin)).astype(ints.dtype)
    return make_quantized(flipped, a._array.qdtype,
                          PerTensor(abs(c) * s, key.qmax - (z - key.qmin)))


def cat(tensors, scale, zero_point, dim=0, op="cat"):
    """Concatenation requantized to ``scale``/``zero_point``."""
    tensors = list(tensors)
    _check_q(op, *tensors)
    values = np.concatenate([dequantized(t) for t in tensors], axis=dim)
    return requantize_float(values, float(scale), int(zero_point), tensors[0]._array.qdtype)


def _unary(name, x, fn, scale=None, zero_point=None, kernel=True):
    """``fn`` on the values of ``x``, quantized to ``scale``/``zero_point`` (x's own by
    default); ``kernel``: with the arithmetic of torch's vectorised elementwise kernels, else
    as ``dequantize``/``quantize_per_tensor`` (torch's reductions go that way)."""
    _check_q(name, x)
    s, z = _params(x) if scale is None else (float(scale), int(zero_point))
    with np.errstate(over="ignore", invalid="ignore"):
        out = fn(kernel_dequantized(x) if kernel else dequantized(x))
    if kernel:
        return kernel_quantized(out, s, z, x._array.qdtype)
    return requantize_float(out, s, z, x._array.qdtype)


def kernel_quantized(values, scale, zero_point, qdtype):
    """float32 ``values`` quantized as torch's vectorised 8-bit kernels store their results:
    ``rint(float32(v * inv)) + zp`` with ``inv = float32(1 / scale)`` (a rounded product,
    not a fused multiply-add as in ``quantize_per_tensor``)."""
    if qdtype.np.bits != 8:
        return requantize_float(values, scale, zero_point, qdtype)
    f32 = np.float32
    key = qdtype.np
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.rint(np.asarray(values, f32) * f32(1.0 / scale)) + f32(zero_point)
    np.clip(r, key.qmin, key.qmax, out=r)
    r[np.isnan(r)] = key.qmin
    return make_quantized(r.astype(key.storage), qdtype, PerTensor(scale, zero_point))


def kernel_dequantized(x):
    """The float32 values torch's vectorised 8-bit kernels compute from the integers:
    ``fma(q, s, s * -zp)`` with the product ``s * -zp`` rounded to float32 first (rounding
    can differ from ``Tensor.dequantize``'s ``(q - zp) * s`` in the last bit). In float64,
    ``q * s`` is exact (8 + 24 bits) and so is its sum with the float32 premultiplied zero
    point, so one rounding to float32 reproduces the fused multiply-add."""
    a = x._array
    if a.key.bits != 8:
        return dequantized(x)
    f32 = np.float32
    s, z = a.quantizer.scale, a.quantizer.zero_point
    premul = f32(s) * f32(-z)
    t = a.ints.astype(np.float64)
    t *= np.float64(f32(s))
    t += np.float64(premul)
    return t.astype(f32)


def relu6(x, inplace=False):
    """``min(max(x, 0), 6)`` on the input's grid (integers clamped to [zp, q(6)])."""
    _check_q("relu6", x)
    s, z = _params(x)
    key = x._array.key
    six = int(np.clip(np.rint(np.float32(6.0) * (np.float32(1.0) / np.float32(s))) + z,
                      key.qmin, key.qmax))
    ints = np.clip(x._array.ints, z, six).astype(x._array.ints.dtype)
    if inplace:
        x._array.ints[...] = ints
        x._vc[0] += 1
        return x
    return make_quantized(ints, x._array.qdtype, PerTensor(s, z))


def hardswish(x, scale, zero_point):
    """``x * relu6(x + 3) / 6`` quantized to ``scale``/``zero_point``."""
    f = np.float32
    return _unary("hardswish", x, lambda v: v * np.clip(v + f(3), f(0), f(6)) / f(6),
                  scale, zero_point)


def hardsigmoid(x, scale=None, zero_point=None):
    """``relu6(x + 3) / 6``, by default on torch's fixed output grid (scale 1/256, zero
    point 0 for quint8)."""
    f = np.float32
    if scale is None:
        scale, zero_point = _fixed_grid(x, 1.0 / 256.0, 0)
    return _unary("hardsigmoid", x, lambda v: np.clip(v + f(3), f(0), f(6)) / f(6), scale,
                  zero_point)


def _fixed_grid(x, scale, zero_point):
    """Output parameters of ops with a fixed range ([0, 1] or [-1, 1]) for x's dtype: the
    8-bit grid given (zero point moved by -128 for qint8); for qint32 the range spread over
    2**32 steps (2**-32 for [0, 1], 2**-31 for [-1, 1]), zero point 0, as torch's kernels."""
    qdtype = x._array.qdtype
    if qdtype is _dtype.qint8:
        return scale, zero_point - 128
    if qdtype is _dtype.qint32:
        return scale * 256.0 / 2.0 ** 32, 0
    return scale, zero_point


def elu(x, scale, zero_point, alpha=1.0):
    """``x`` if positive, else ``alpha * (exp(x) - 1)``."""
    a = np.float32(alpha)
    return _unary("elu", x, lambda v: np.where(v > 0, v, a * np.expm1(v)), scale, zero_point)


def celu(x, scale, zero_point, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    a = np.float32(alpha)
    return _unary("celu", x, lambda v: np.where(v > 0, v, a * np.expm1(v / a)), scale,
                  zero_point)


def leaky_relu(x, negative_slope=0.01, inplace=False, scale=None, zero_point=None):
    """``x`` if positive, else ``negative_slope * x`` (on the input's grid by default)."""
    k = np.float32(negative_slope)
    out = _unary("leaky_relu", x, lambda v: np.where(v > 0, v, v * k), scale, zero_point)
    if inplace:
        x._array.ints[...] = out._array.ints
        x._vc[0] += 1
        return x
    return out


def sigmoid(x, scale=None, zero_point=None):
    """The logistic function, by default on torch's fixed grid (1/256, 0 for quint8)."""
    if scale is None:
        scale, zero_point = _fixed_grid(x, 1.0 / 256.0, 0)
    one = np.float32(1)
    # float32 throughout, as torch's vectorised kernel (exp, add, reciprocal)
    return _unary("sigmoid", x, lambda v: one / (one + np.exp(-v)), scale, zero_point)


def tanh(x, scale=None, zero_point=None):
    """``tanh``, by default on torch's fixed grid (2/256, 128 for quint8)."""
    if scale is None:
        scale, zero_point = _fixed_grid(x, 2.0 / 256.0, 128)
    return _unary("tanh", x, np.tanh, scale, zero_point)


def gelu(x, approximate="none"):
    """GELU on the input's grid (torch keeps the scale as a float32 number)."""
    from .. import nn
    from .._tensor import _make

    s, z = _params(x)
    return _unary("gelu", x, lambda v: nn.functional.gelu(_make(v), approximate=approximate)
                  ._array, float(np.float32(s)), z)


def mean(x, *args, **kwargs):
    """Mean of the dequantized values (``torch.mean``'s arguments), quantized with the
    input's parameters."""
    return _reduced("mean", x, args, kwargs)


def std(x, *args, **kwargs):
    """Standard deviation of the dequantized values (``torch.std``'s arguments) on the
    input's grid."""
    return _reduced("std", x, args, kwargs)


def _reduced(name, x, args, kwargs):
    from .. import ops
    from .._tensor import _make

    if kwargs.get("dtype") is not None:  # torch builds the quantized result first
        raise RuntimeError(f"ScalarType {_dtype._TYPE_DISPLAY[kwargs['dtype'].name]} is not "
                           f"supported in new_qtensor.")
    kwargs.pop("dtype", None)
    return _unary(name, x, lambda v: getattr(ops, name)(_make(v), *args, **kwargs)._array,
                  kernel=False)


def softmax(x, dim, scale, zero_point):
    """Softmax along ``dim`` quantized to ``scale``/``zero_point``."""
    def fn(v):
        e = np.exp(v - v.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    return _unary("softmax", x, fn, scale, zero_point)


def prelu(x, weight, scale, zero_point):
    """``x`` if positive, else ``weight * x`` (weight per channel, dim 1)."""
    w = dequantized(weight) if type(weight._array) is QArray else weight._array
    w = w.astype(np.float32)

    def fn(v):
        shape = [1] * v.ndim
        if v.ndim > 1 and w.size > 1:
            shape[1] = -1
        return np.where(v > 0, v, v * w.reshape(shape) if w.size > 1 else v * w.reshape(()))

    return _unary("prelu", x, fn, scale, zero_point)


def threshold(x, threshold, value):
    """``x`` where ``x > threshold``, else ``value`` (on the input's grid)."""
    t, v = np.float32(threshold), np.float32(value)
    return _unary("threshold", x, lambda a: np.where(a > t, a, v))


def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to ``[min_val, max_val]`` on the input's grid (bounds quantized)."""
    return clamp(x, min_val, max_val)


def clamp(x, min=None, max=None):  # noqa: A002 - torch's names
    """Clamp on the input's grid: the bounds are quantized with the input's parameters."""
    _check_q("clamp", x)
    a = x._array
    lo = None if min is None else a._on_grid(min)
    hi = None if max is None else a._on_grid(max)
    ints = np.clip(a.ints, lo, hi) if (lo is not None or hi is not None) else a.ints.copy()
    return make_quantized(ints.astype(a.ints.dtype), a.qdtype, a.quantizer)


def _f32(t):
    if t is None:
        return None
    arr = t.detach()._array if hasattr(t, "_array") else np.asarray(t)
    return np.asarray(arr, dtype=np.float32)


def batch_norm(x, weight, bias, mean, var, eps, scale, zero_point, op="batch_norm"):
    """Inference batch norm over dim 1 of a quantized ``(N, C, ...)`` tensor (``op``:
    torch's op name in errors)."""
    _check_q(op, x)
    v = dequantized(x)
    shape = (1, -1) + (1,) * (v.ndim - 2)
    inv = (np.float32(1) / np.sqrt(_f32(var) + np.float32(eps))).astype(np.float32)
    w = _f32(weight) if weight is not None else np.ones_like(inv)
    b = _f32(bias) if bias is not None else np.zeros_like(inv)
    alpha = w * inv
    beta = b - _f32(mean) * alpha
    out = v * alpha.reshape(shape) + beta.reshape(shape)
    return requantize_float(out, float(scale), int(zero_point), x._array.qdtype)


def _normalize(v, axes, eps):
    mean = v.mean(axis=axes, keepdims=True, dtype=np.float64)
    var = ((v - mean) ** 2).mean(axis=axes, keepdims=True)
    return ((v - mean) / np.sqrt(var + eps)).astype(np.float32)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, output_scale=1.0,
               output_zero_point=0):
    """Layer norm over the trailing ``normalized_shape`` dims, quantized to the output
    parameters."""
    _check_q("layer_norm", x)
    v = dequantized(x)
    n = len(tuple(normalized_shape)) if not isinstance(normalized_shape, int) else 1
    out = _normalize(v, tuple(range(v.ndim - n, v.ndim)), eps)
    if weight is not None:
        out = out * _f32(weight)
    if bias is not None:
        out = out + _f32(bias)
    return requantize_float(out, float(output_scale), int(output_zero_point), x._array.qdtype)


def group_norm(x, num_groups, weight, bias, eps, output_scale, output_zero_point):
    """Group norm of a quantized ``(N, C, ...)`` tensor."""
    _check_q("group_norm", x)
    v = dequantized(x)
    n, c = v.shape[:2]
    g = v.reshape(n, num_groups, -1)
    out = _normalize(g, (2,), eps).reshape(v.shape)
    shape = (1, c) + (1,) * (v.ndim - 2)
    if weight is not None:
        out = out * _f32(weight).reshape(shape)
    if bias is not None:
        out = out + _f32(bias).reshape(shape)
    return requantize_float(out, float(output_scale), int(output_zero_point), x._array.qdtype)


def instance_norm(x, weight, bias, eps, output_scale, output_zero_point):
    """Instance norm: each (sample, channel) normalised over its spatial dims."""
    _check_q("instance_norm", x)
    v = dequantized(x)
    out = _normalize(v, tuple(range(2, v.ndim)), eps)
    shape = (1, -1) + (1,) * (v.ndim - 2)
    if weight is not None:
        out = out * _f32(weight).reshape(shape)
    if bias is not None:
        out = out + _f32(bias).reshape(shape)
    return requantize_float(out, float(output_scale), int(output_zero_point), x._array.qdtype)


def matmul(a, b, scale, zero_point):
    """Quantized matrix product (integers multiplied exactly, requantized once)."""
    from . import quantized_gemm as gemm

    _check_q("matmul", a, b)
    ai, (sa, za) = a._array.ints.astype(np.int32), _params(a)
    bi, (sb, zb) = b._array.ints.astype(np.int32), _params(b)
    acc = gemm.int_matmul(ai - za, bi - zb).astype(np.float64) if bi.ndim == 2 else \
        np.matmul((ai - za).astype(np.float64), (bi - zb).astype(np.float64))
    values = (acc * (sa * sb)).astype(np.float32)
    return requantize_float(values, float(scale), int(zero_point), a._array.qdtype)
