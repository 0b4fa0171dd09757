"""``torch.ops.quantized``: the quantized operators by torch's names and argument orders
(``torch.ops.quantized.add(qa, qb, scale, zero_point)``, ``linear_prepack``/``linear``,
``conv2d_prepack``/``conv2d``, ...), for programs that call them directly.

They are thin adapters over the kernels the ``nn.quantized`` modules use
(:mod:`numtorch.ops.quantized_pointwise`, :mod:`numtorch.ops.quantized_nn`); packed weights
are the same ``torch.ScriptObject`` values the modules hold and checkpoints store.
"""

from . import quantized_nn as _qnn
from . import quantized_pointwise as _qp

__all__ = ["add", "add_relu", "mul", "mul_relu", "add_scalar", "mul_scalar", "cat",
           "cat_relu", "matmul", "linear", "linear_relu", "linear_prepack", "linear_unpack",
           "linear_prepack_fp16", "linear_dynamic", "linear_relu_dynamic",
           "linear_dynamic_fp16", "conv1d_prepack", "conv2d_prepack", "conv3d_prepack",
           "conv1d", "conv2d", "conv3d", "conv1d_relu", "conv2d_relu", "conv3d_relu",
           "conv2d_unpack", "conv3d_unpack", "conv_transpose2d_prepack", "conv_transpose2d",
           "relu6", "hardswish", "dropout", "sigmoid", "leaky_relu", "threshold", "elu", "celu",
           "softmax", "layer_norm", "batch_norm2d", "group_norm", "instance_norm"]

add_scalar, mul_scalar, matmul = _qp.add_scalar, _qp.mul_scalar, _qp.matmul


def _binary_or_scalar(tensor_op, scalar_op, relu, name):
    """torch's two overloads: ``op(qa, qb, scale, zero_point)`` and ``op(qa, number)`` (the
    ``add_scalar``/``mul_scalar`` result, then ReLU on its grid for the ``_relu`` ops)."""

    def op(qa, qb, scale=None, zero_point=None):
        if isinstance(qa, (int, float)) and not isinstance(qa, bool) and scale is None:
            qa, qb = qb, qa  # op(number, qtensor) works as op(qtensor, number) in torch
        if isinstance(qb, (int, float)) and not isinstance(qb, bool) and scale is None:
            out = scalar_op(qa, qb)
            return _relu(out) if relu else out
        if scale is None or zero_point is None:
            raise TypeError(f"{name}() missing 2 required positional arguments: 'scale' and "
                            f"'zero_point'")
        return tensor_op(qa, qb, scale, zero_point)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = tensor_op.__doc__
    return op


add = _binary_or_scalar(_qp.add, _qp.add_scalar, False, "add")
add_relu = _binary_or_scalar(_qp.add_relu, _qp.add_scalar, True, "add_relu")
mul = _binary_or_scalar(_qp.mul, _qp.mul_scalar, False, "mul")
mul_relu = _binary_or_scalar(_qp.mul_relu, _qp.mul_scalar, True, "mul_relu")
relu6, softmax, threshold = _qp.relu6, _qp.softmax, _qp.threshold
group_norm, instance_norm = _qp.group_norm, _qp.instance_norm


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, output_scale=1.0,
               output_zero_point=0):
    """Layer norm of a quantized tensor on the given output grid (named here so that FX code
    prints it as ``torch.ops.quantized.layer_norm``)."""
    return _qp.layer_norm(input, normalized_shape, weight, bias, eps, output_scale,
                          output_zero_point)


def cat(qx, dim, scale=None, zero_point=None, _op="cat"):
    """Concatenation requantized to ``scale``/``zero_point`` (the first input's by default)."""
    qx = list(qx)
    _qp.require_quantized(_op, *qx)
    if scale is None:
        scale, zero_point = qx[0].q_scale(), qx[0].q_zero_point()
    return _qp.cat(qx, scale, zero_point, dim, op=_op)


def cat_relu(qx, dim, scale=None, zero_point=None):
    """:func:`cat` followed by a ReLU on the output grid."""
    return _relu(cat(qx, dim, scale, zero_point, _op="cat_relu"))


def _relu(q):
    import numpy as np

    from .._quantized_tensor import make_quantized

    a = q._array
    z = a.quantizer.zero_point
    return make_quantized(np.maximum(a.ints, a.ints.dtype.type(z)), a.qdtype, a.quantizer)


def sigmoid(qx, output_scale, output_zero_point):
    """The logistic function on the given output grid."""
    return _qp.sigmoid(qx, output_scale, output_zero_point)


def dropout(input, p, training, output_scale, output_zero_point):
    """Dropout of a quantized tensor: torch's kernel returns the input itself (whatever
    ``training`` and the output grid)."""
    _qp._check_q("dropout", input)
    return input


def hardswish(input, output_scale, output_zero_point):
    """Hardswish on the given output grid (torch's argument names: FX lowering passes the
    grid as keywords)."""
    return _qp.hardswish(input, output_scale, output_zero_point)


def leaky_relu(qx, negative_slope, inplace, output_scale, output_zero_point):
    """Leaky ReLU quantized to the given output grid."""
    return _qp.leaky_relu(qx, negative_slope, inplace, output_scale, output_zero_point)


def elu(input, output_scale, output_zero_point, alpha=1.0, scale=1.0, input_scale=1.0):
    """ELU (torch's ``scale``/``input_scale`` extension included) on the output grid."""
    if scale == 1.0 and input_scale == 1.0:
        return _qp.elu(input, output_scale, output_zero_point, alpha)
    import numpy as np

    a, s, k = np.float32(alpha), np.float32(scale), np.float32(input_scale)
    return _qp._unary("elu", input, lambda v: s * np.where(v > 0, v, a * np.expm1(v * k)),
                      output_scale, output_zero_point)


def celu(input, output_scale, output_zero_point, alpha=1.0):
    """CELU on the output grid."""
    return _qp.celu(input, output_scale, output_zero_point, alpha)


def batch_norm2d(qx, weight, bias, mean, var, eps, output_scale, output_zero_point):
    """Inference batch norm of a 4-d quantized tensor."""
    _qp.require_quantized("batch_norm2d", qx)
    if qx.dim() != 4:
        raise RuntimeError(f"Expected 4D input, got {qx.dim()}D")
    return _qp.batch_norm(qx, weight, bias, mean, var, eps, output_scale, output_zero_point,
                          op="batch_norm2d")


# -- linear ----------------------------------------------------------------------------------

def linear_prepack(W, B=None):  # noqa: N803 - torch's argument names
    """Pack a qint8 weight (and float bias) into a ``LinearPackedParamsBase``."""
    from ..ao.nn.quantized.modules.linear import linear_prepack as prepack

    return prepack(W, B)


def linear_prepack_fp16(W, B=None):  # noqa: N803
    """Pack a float weight for float16 dynamic linear."""
    from ..ao.nn.quantized.modules.linear import linear_prepack_fp16 as prepack

    return prepack(W, B)


def linear_unpack(W_prepack):  # noqa: N803
    """``(weight, bias)`` of a packed linear weight."""
    return tuple(W_prepack.unpack())


def linear(X, W_prepack, Y_scale_i, Y_zero_point_i):  # noqa: N803
    """Quantized linear with a packed weight; the quint8 output has the given grid."""
    w, b = W_prepack.unpack()
    return _qnn.linear(X, w, b, float(Y_scale_i), int(Y_zero_point_i))


def linear_relu(X, W_prepack, Y_scale_i, Y_zero_point_i):  # noqa: N803
    """:func:`linear` with a fused ReLU."""
    w, b = W_prepack.unpack()
    return _qnn.linear(X, w, b, float(Y_scale_i), int(Y_zero_point_i), relu=True)


def linear_dynamic(X, W_prepack, reduce_range=False):  # noqa: N803
    """Dynamically quantized linear: float in, float out."""
    return _qnn.linear_dynamic(X, W_prepack, reduce_range)


def linear_relu_dynamic(X, W_prepack, reduce_range=False):  # noqa: N803
    """:func:`linear_dynamic` with a fused ReLU."""
    return _qnn.linear_dynamic(X, W_prepack, reduce_range, relu=True)


def linear_dynamic_fp16(X, W_prepack):  # noqa: N803
    """Float16-weight dynamic linear (a float32 GEMM with the rounded weight)."""
    return _qnn.linear_dynamic(X, W_prepack)


# -- convolution -----------------------------------------------------------------------------

def _prepack(nd, weight, bias, stride, padding, dilation, groups, transposed=False,
             output_padding=None):
    from ..ao.nn.quantized.modules.conv import conv_prepack

    return conv_prepack(nd, weight, bias, stride, padding, dilation, groups, transposed,
                        output_padding)


def conv1d_prepack(weight, bias, stride, padding, dilation, groups):
    """Pack a 1-d convolution (stored as 2-d with a unit height, as torch does)."""
    return _prepack(1, weight, bias, stride, padding, dilation, groups)


def conv2d_prepack(weight, bias, stride, padding, dilation, groups):
    """Pack a qint8 2-d convolution weight with its geometry."""
    return _prepack(2, weight, bias, stride, padding, dilation, groups)


def conv3d_prepack(weight, bias, stride, padding, dilation, groups):
    """Pack a qint8 3-d convolution weight with its geometry."""
    return _prepack(3, weight, bias, stride, padding, dilation, groups)


def conv_transpose2d_prepack(weight, bias, stride, padding, output_padding, dilation, groups):
    """Pack a qint8 2-d transposed-convolution weight."""
    return _prepack(2, weight, bias, stride, padding, dilation, groups, True, output_padding)


def conv2d_unpack(packed_weights):
    """``(weight, bias)`` of a packed convolution."""
    return tuple(packed_weights.unpack())


conv3d_unpack = conv2d_unpack


def _conv(nd, qx, packed, scale, zero_point, relu=False):
    p = packed
    w, b = p.unpack()
    if nd == 1:  # packed as 2-d: run on a unit-height input
        out = _qnn.conv(2, qx.unsqueeze(2), w, b, p.stride(), p.padding(), p.dilation(),
                        p.groups(), float(scale), int(zero_point), relu)
        return out.squeeze(2)
    return _qnn.conv(nd, qx, w, b, p.stride(), p.padding(), p.dilation(), p.groups(),
                     float(scale), int(zero_point), relu, transposed=p.transpose(),
                     output_padding=p.output_padding())


def conv1d(qx, packed_weight, output_scale, output_zero_point):
    """Quantized 1-d convolution with a packed weight."""
    return _conv(1, qx, packed_weight, output_scale, output_zero_point)


def conv2d(qx, packed_weight, output_scale, output_zero_point):
    """Quantized 2-d convolution with a packed weight."""
    return _conv(2, qx, packed_weight, output_scale, output_zero_point)


def conv3d(qx, packed_weight, output_scale, output_zero_point):
    """Quantized 3-d convolution with a packed weight."""
    return _conv(3, qx, packed_weight, output_scale, output_zero_point)


def conv1d_relu(qx, packed_weight, output_scale, output_zero_point):
    """:func:`conv1d` with a fused ReLU."""
    return _conv(1, qx, packed_weight, output_scale, output_zero_point, True)


def conv2d_relu(qx, packed_weight, output_scale, output_zero_point):
    """:func:`conv2d` with a fused ReLU."""
    return _conv(2, qx, packed_weight, output_scale, output_zero_point, True)


def conv3d_relu(qx, packed_weight, output_scale, output_zero_point):
    """:func:`conv3d` with a fused ReLU."""
    return _conv(3, qx, packed_weight, output_scale, output_zero_point, True)


def conv_transpose2d(qx, packed_weight, output_scale, output_zero_point):
    """Quantized 2-d transposed convolution with a packed weight."""
    return _conv(2, qx, packed_weight, output_scale, output_zero_point)
