"""Float ops applied to quantized tensors where torch supports them by working on the stored
integers (max/average pooling, interpolation, ...): the integers run through numtorch's float
op and the result, rounded half to even, keeps the input's quantization parameters.

Max pooling and nearest interpolation only select integers, so they are exact; averages round
the mean of the stored integers once, half to even, as torch's integer kernels do (padding
stands for the zero point); bilinear interpolation rounds its float result once.

The elementwise functions torch also accepts on quantized tensors (sigmoid, tanh,
hardsigmoid, leaky_relu, gelu, threshold, clamp, mean, std, masked_fill) go to
:mod:`numtorch.ops.quantized_pointwise` through :func:`quantized_dispatch`, which numtorch's
float entry points call when their input is quantized.
"""

import numpy as np

from ._quantized_array import QArray, not_supported
from ._quantized_tensor import make_quantized

__all__ = ["on_int_values", "qnnpack_average", "quantized_dispatch"]


def on_int_values(input, fn, *args, rounding=False, **kwargs):
    """``fn`` (a float op) applied to the integers of per-tensor quantized ``input``."""
    from ._tensor import _make

    a = input._array
    if type(a) is not QArray:
        raise RuntimeError("expected a quantized tensor")
    if a.quantizer.per_channel:
        raise RuntimeError("Only per-tensor quantized tensors are supported here")
    # averages round in float64: exact sums, one rounding of the quotient
    exact = np.float32 if a.key.bits <= 16 and not rounding else np.float64
    # centred on the zero point: padding then stands for real zeros, as in torch's kernels
    zp = a.quantizer.zero_point
    out = fn(_make(a.ints.astype(exact) - exact(zp)), *args, **kwargs)
    rest = ()
    if isinstance(out, tuple):
        out, rest = out[0], tuple(out[1:])
    values = out.detach()._array
    values = values + zp
    if rounding:  # torch rounds the average of the stored integers (ties to even)
        values = np.rint(values)
    values = np.clip(values, a.key.qmin, a.key.qmax).astype(a.ints.dtype)
    q = make_quantized(values, a.qdtype, a.quantizer)
    return (q,) + rest if rest else q


def quantized_dispatch(name, input, *args, **kwargs):
    """The quantized form of float op ``name`` for a quantized ``input`` (the hook numtorch's
    float functions call when they meet one)."""
    from .nn import functional as F

    if name in _ELEMENTWISE:
        return _elementwise(name, input, *args, **kwargs)
    table = {
        "max_pool1d": (F.max_pool1d, False), "max_pool2d": (F.max_pool2d, False),
        "max_pool3d": (F.max_pool3d, False), "avg_pool1d": (F.avg_pool1d, True),
        "avg_pool2d": (F.avg_pool2d, True), "avg_pool3d": (F.avg_pool3d, True),
        "adaptive_avg_pool1d": (F.adaptive_avg_pool1d, True),
        "adaptive_avg_pool2d": (F.adaptive_avg_pool2d, True),
        "adaptive_avg_pool3d": (F.adaptive_avg_pool3d, True),
        "adaptive_max_pool2d": (F.adaptive_max_pool2d, False),
        "interpolate": (F.interpolate, None),
    }
    if name not in table:
        raise not_supported(name)
    fn, rounding = table[name]
    if name == "interpolate":
        mode = kwargs.get("mode", args[2] if len(args) > 2 else "nearest")
        if mode not in ("nearest", "nearest-exact", "bilinear"):
            raise not_supported({"bicubic": "upsample_bicubic2d.out",
                                 "linear": "upsample_linear1d.out",
                                 "trilinear": "upsample_trilinear3d.out"}.get(
                                     mode, f"upsample_{mode}"))
        if mode == "bilinear":
            return _bilinear(input, *args, **kwargs)
        rounding = False
    return on_int_values(input, fn, *args, rounding=rounding, **kwargs)


def qnnpack_average(input, kernel_size=None, stride=None, padding=0, ceil_mode=False,
                    divisor_override=None, output_size=None):
    """qnnpack's quint8 average pooling (avg_pool2d without ceil mode or divisor; adaptive
    pooling to 1x1 with ``output_size``) under the qnnpack engine: the window's centred
    integer sum times the float32 scale ``s / (s * area)``, rounded half to even (padding
    counts in the area, as qnnpack counts it). None where torch uses its generic kernel."""
    from ._dtype import quint8
    from .backends.quantized import _state

    if _state["engine"] != "qnnpack" or input.dtype is not quint8 or input.dim() != 4 or \
            ceil_mode or divisor_override is not None:
        return None
    h, w = input.shape[2:]
    if output_size is not None:
        size = (output_size,) * 2 if isinstance(output_size, int) else tuple(output_size)
        if len(size) != 2 or (h if size[0] is None else size[0]) != 1 or \
                (w if size[1] is None else size[1]) != 1 or h * w == 0:
            return None
        k, stride, padding = (h, w), None, 0
    else:
        k = (kernel_size,) * 2 if isinstance(kernel_size, int) else tuple(kernel_size)
        k = k * 2 if len(k) == 1 else k
    from ._tensor import _make
    from .nn import functional as F

    a = input._array
    zp = a.quantizer.zero_point
    sums = F.avg_pool2d(_make(a.ints.astype(np.float64) - zp), k, stride, padding,
                        count_include_pad=True, divisor_override=1)
    f = np.float32
    s = f(a.quantizer.scale)
    values = np.rint(sums._array.astype(f) * (s / (s * f(k[0] * k[1])))) + zp
    values = np.clip(values, a.key.qmin, a.key.qmax).astype(a.ints.dtype)
    return make_quantized(values, a.qdtype, a.quantizer)


def _source_index(n_in, n_out, align_corners, scale):
    """torch's float32 source coordinates of a linear resize: the lower neighbour, the step
    to the upper one (0 at the edge) and the two weights."""
    f = np.float32
    if align_corners:
        step = f(n_in - 1) / f(n_out - 1) if n_out > 1 else f(0)
    else:
        step = f(1.0 / scale) if scale is not None and scale > 0 else f(n_in) / f(n_out)
    dst = np.arange(n_out, dtype=f)
    src = step * dst if align_corners else np.maximum(step * (dst + f(0.5)) - f(0.5), f(0))
    lo = src.astype(np.int64)
    hi_step = (lo < n_in - 1).astype(np.int64)
    l1 = src - lo.astype(f)
    return lo, hi_step, f(1) - l1, l1


def _bilinear(input, size=None, scale_factor=None, mode="bilinear", align_corners=None,
              recompute_scale_factor=None):
    """Bilinear resize of a per-tensor quantized 4-D tensor as torch's integer kernel does
    it: the stored integers weighted in float32, less the zero point, then rounded once
    (half to even) with the zero point added back; the quantization parameters stay."""
    from .nn.functional.vision import _output_size

    a = input._array
    if a.quantizer.per_channel:
        raise RuntimeError("Only per-tensor quantized tensors are supported here")
    (oh, ow), scales = _output_size(input, size, scale_factor, recompute_scale_factor)
    h, w = a.shape[2:]
    hl, hs, h0, h1 = _source_index(h, oh, bool(align_corners), scales[0])
    wl, ws, w0, w1 = _source_index(w, ow, bool(align_corners), scales[1])
    p = a.ints.astype(np.float32)
    top, bottom = p[:, :, hl], p[:, :, hl + hs]
    h0, h1, w0, w1 = h0[:, None], h1[:, None], w0[None], w1[None]
    res = h0 * (w0 * top[..., wl] + w1 * top[..., wl + ws]) + \
        h1 * (w0 * bottom[..., wl] + w1 * bottom[..., wl + ws])
    zp = a.quantizer.zero_point
    res -= np.float32(zp)
    values = np.rint(res.astype(np.float64) + zp)
    values = np.clip(values, a.key.qmin, a.key.qmax).astype(a.ints.dtype)
    return make_quantized(values, a.qdtype, a.quantizer)


# float functions torch also runs on per-tensor quantized tensors: dequantize, compute in
# float32, quantize (with the input's parameters, or the fixed grid of sigmoid-like ops)
_ELEMENTWISE = frozenset(("sigmoid", "tanh", "hardsigmoid", "leaky_relu", "gelu", "threshold",
                          "clamp", "mean", "std", "masked_fill"))


def _elementwise(name, input, *args, **kwargs):
    from ._quantized_tensor import _NOT_PER_TENSOR
    from .ops import quantized_pointwise as qp

    if input._array.quantizer.per_channel:
        raise RuntimeError(_NOT_PER_TENSOR)
    if name == "leaky_relu":  # (input, negative_slope, inplace)
        return qp.leaky_relu(input, *args)
    if name == "hardsigmoid":
        out = qp.hardsigmoid(input)
        if args and args[0]:  # in place, torch gives the input the result's grid as well
            input._array = out._array
            input._vc[0] += 1
            return input
        return out
    if name == "threshold":  # (input, threshold, value, inplace)
        if (args[2] if len(args) > 2 else kwargs.get("inplace", False)):
            raise not_supported("threshold.out")
        return qp.threshold(input, args[0], args[1])
    if name == "clamp":
        lo, hi = args
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        for bound in (lo, hi):
            if hasattr(bound, "dtype"):
                raise RuntimeError(f"promoteTypes with quantized numbers is not handled yet; "
                                   f"figure out what the correct rules should be, offending "
                                   f"types: {_display(input.dtype)} {_display(bound.dtype)}")
        return qp.clamp(input, lo, hi)
    if name == "masked_fill":
        out = input.clone()
        out.masked_fill_(*args)
        return out
    return getattr(qp, name)(input, *args, **kwargs)


_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}


def compare(name, input, other):
    """``input <op> other`` for a quantized ``input``: the values it stands for compared with
    a number or a (quantized or floating) tensor, as torch compares them."""
    from ._tensor import Tensor, _make
    from ._quantized_array import dequantize_array

    if isinstance(other, Tensor):
        other = dequantize_array(other._array) if type(other._array) is QArray else \
            other._array
    return _make(_COMPARE[name](dequantize_array(input._array), other))


def constant_pad(input, pad, value):
    """Constant padding of a per-tensor quantized tensor: the pad holds ``value`` quantized
    with the tensor's own parameters (0 gives the zero point)."""
    from .nn import functional as F

    a = input._array
    q = a.quantizer
    if q.per_channel:
        raise not_supported("constant_pad_nd")
    fill = 0.0 if value is None else float(value)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        filled = np.rint(np.float32(fill) * (np.float32(1.0) / np.float32(q.scale))) + q.zero_point
    centred = float(np.clip(filled, a.key.qmin, a.key.qmax)) - q.zero_point
    return on_int_values(input, F.pad, pad, "constant", centred)


# the ATen operator torch names when a float activation meets a quantized tensor
_MISSING = {"elu": "elu.out", "selu": "elu.out", "celu": "elu.out", "hardswish": "hardswish",
            "logsigmoid": "log_sigmoid_forward", "rrelu": "rrelu_with_noise"}


def missing_kernel(fn, kernel, dtype):
    """torch's error for float activation ``fn`` given a quantized tensor (softshrink checks
    its argument first and reports the kernel, as for other dtypes)."""
    if fn == "softshrink":
        return NotImplementedError(f'"{kernel}" not implemented for \'{_display(dtype)}\'')
    return not_supported(_MISSING.get(fn, f"{fn}.out"))


def _display(dtype):
    from ._dtype import _TYPE_DISPLAY

    return _TYPE_DISPLAY.get(dtype.name, dtype.name)
