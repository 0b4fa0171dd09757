"""Converters of the neural-network ops: linear, convolution, pooling, normalization,
attention, interpolation and the LSTM cell."""

import numpy as np

from ._convert import converter
from ._dynamic import Sym, Unknown, has_dynamic
from .errors import SymbolicValueError

_BIG = np.iinfo(np.int64).max


def _is_dynamic(v):
    return isinstance(v, (Sym, Unknown))


@converter("LinearFused", aten="aten::linear")
def _linear(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    x, w = ctx.x(0, dt), ctx.x(1, dt)
    bias = None if ctx.is_none(2) or ctx.n_inputs < 3 else ctx.x(2, dt)
    if ctx.rank(0) == 2:
        ctx.set(b.op("Gemm", x, w, bias, transB=1))
        return
    y = b.op("MatMul", x, b.op("Transpose", w, perm=[1, 0]))
    ctx.set(b.op("Add", y, bias) if bias is not None else y)


@converter("MatMul", aten="aten::matmul")
def _matmul(ctx):
    dt = ctx.out().dtype
    ctx.set(ctx.b.op("MatMul", ctx.x(0, dt), ctx.x(1, dt)))


def _conv_inputs(ctx):
    dt = ctx.out().dtype
    names = [ctx.x(0, dt), ctx.x(1, dt)]
    if ctx.n_inputs > 2 and not ctx.is_none(2):
        names.append(ctx.x(2, dt))
    return names


@converter("Conv", aten="aten::_convolution")
def _conv(ctx):
    kernel = list(ctx.arr(1).shape[2:])
    pads = ctx.static("padding")
    ctx.set(ctx.b.op("Conv", *_conv_inputs(ctx), kernel_shape=kernel,
                     strides=list(ctx.static("stride")),
                     pads=[int(lo) for lo, _ in pads] + [int(hi) for _, hi in pads],
                     dilations=list(ctx.static("dilation")), group=int(ctx.static("groups"))))


@converter("ConvTranspose", aten="aten::_convolution")
def _conv_transpose(ctx):
    kernel = list(ctx.arr(1).shape[2:])
    stride, dilation = ctx.static("stride"), ctx.static("dilation")
    pads = ctx.static("padding")
    size = ctx.p("size")
    spatial = ctx.arr(0).shape[2:]
    extra = []
    for n, k, s, d, (lo, hi), want in zip(spatial, kernel, stride, dilation, pads, size):
        extra.append(int(want) - ((n - 1) * s + d * (k - 1) + 1 - lo - hi))
    ctx.set(ctx.b.op("ConvTranspose", *_conv_inputs(ctx), kernel_shape=kernel,
                     strides=list(stride), dilations=list(dilation),
                     pads=[int(lo) for lo, _ in pads] + [int(hi) for _, hi in pads],
                     output_padding=extra if any(extra) else None,
                     group=int(ctx.static("groups"))))


def _ceil_extra(spatial, kernel, stride, padding, dilation, out):
    """Per dim, how far the last window reaches past the padded input (ceil_mode)."""
    extra = []
    for n, k, s, p, d, o in zip(spatial, kernel, stride, padding, dilation, out):
        extra.append(max(0, (int(o) - 1) * s + d * (k - 1) + 1 - (n + 2 * p)))
    return extra


@converter("MaxPool", aten="aten::max_pool2d")
def _max_pool(ctx):
    b = ctx.b
    kernel, stride = list(ctx.static("kernel")), list(ctx.static("stride"))
    padding, dilation = list(ctx.static("padding")), list(ctx.static("dilation"))
    spatial = ctx.arr(0).shape[2:]
    floor_out = [(n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)]
    ceil = any(int(o) > f for o, f in zip(ctx.p("out"), floor_out))
    x = ctx.x(0)
    attrs = {"kernel_shape": kernel, "strides": stride, "pads": padding + padding,
             "dilations": dilation if any(d != 1 for d in dilation) else None,
             "ceil_mode": int(ceil)}
    if not ctx.p("indices"):
        ctx.set(b.op("MaxPool", x, **attrs))
        return
    y, index = b.op("MaxPool", x, outputs=2, **attrs)
    # ONNX counts over the whole tensor, torch within each (n, c) plane
    plane = b.reduce("ReduceProd", b.op("Shape", x, start=2) if ctx.opset >= 15 else
                     b.slice(b.op("Shape", x), [2], [_BIG], [0]), [0], 1)
    ctx.set(y, b.op("Mod", index, plane, fmod=0))


@converter("AvgPool", aten="aten::avg_pool2d")
def _avg_pool(ctx):
    b = ctx.b
    x = ctx.x(0)
    kernel, stride = list(ctx.static("kernel")), list(ctx.static("stride"))
    padding = list(ctx.static("padding"))
    divisor = ctx.p("divisor")
    spatial = ctx.arr(0).shape[2:]
    out = [int(o) for o in ctx.p("out")]
    ones = [1] * len(kernel)
    extra = _ceil_extra(spatial, kernel, stride, padding, ones, out)
    window = int(np.prod(kernel))
    if not any(extra) and not isinstance(divisor, np.ndarray) and divisor == window:
        ctx.set(b.op("AveragePool", x, kernel_shape=kernel, strides=stride,
                     pads=padding + padding, count_include_pad=1))
        return
    if any(_is_dynamic(d) for d in ctx.shape(0)[2:]):
        raise ctx.unsupported("this average pooling on dynamic spatial sizes")
    # pad explicitly, average whole windows (a window sum / window), then divide as torch does
    dt = ctx.out().dtype
    begins = [0, 0] + padding
    ends = [0, 0] + [p + e for p, e in zip(padding, extra)]
    padded = b.op("Pad", x, b.ints(begins + ends), b.const(np.zeros((), dt)), mode="constant")
    mean = b.op("AveragePool", padded, kernel_shape=kernel, strides=stride)
    scale = np.asarray(window, dtype=dt) / np.asarray(divisor).astype(dt)
    ctx.set(b.op("Mul", mean, b.const(np.asarray(scale, dtype=dt))))


@converter("WindowMax", aten="aten::adaptive_max_pool2d")
def _window_max(ctx):
    b = ctx.b
    if ctx.p("indices"):
        raise ctx.unsupported("adaptive max pooling that returns indices")
    index = ctx.static("index")
    if index.shape[0] != 1:
        raise ctx.unsupported("max pooling over per-plane windows (fractional max pooling)")
    flat = b.op("Reshape", ctx.x(0), b.ints([0, 0, -1]))
    win = b.op("Gather", flat, b.const(index[0].astype(np.int64)), axis=2)  # (N, C, L, *out)
    ctx.set(b.reduce("ReduceMax", win, [2], 0))


def _weighted_gather(ctx, x, axis, index, weight):
    """sum over taps t of ``weight[j, t] * x[.., index[j, t], ..]`` along ``axis``."""
    b = ctx.b
    rank = ctx.rank(0)
    if ctx.shape(0)[axis] != ctx.arr(0).shape[axis] or _is_dynamic(ctx.shape(0)[axis]):
        raise ctx.unsupported("resampling along a dynamic axis")
    g = b.op("Gather", x, b.const(index.astype(np.int64)), axis=axis)  # (.., J, T, ..)
    tail = (1,) * (rank - axis - 1)
    w = b.const(weight.astype(ctx.out().dtype).reshape(weight.shape + tail))
    return b.reduce("ReduceSum", b.op("Mul", g, w), [axis + 1], 0)


@converter("AxisWindowSum", aten="aten::adaptive_avg_pool2d")
def _axis_window_sum(ctx):
    axis = int(ctx.static("axis"))
    ctx.set(_weighted_gather(ctx, ctx.x(0), axis, ctx.static("idx"), ctx.static("w")))


@converter("Resample", aten="aten::upsample")
def _resample(ctx):
    axis = int(ctx.static("dim"))
    index, weight = ctx.static("index"), ctx.static("weight")
    if weight is None:
        if _is_dynamic(ctx.shape(0)[axis]):
            raise ctx.unsupported("resampling along a dynamic axis")
        ctx.set(ctx.b.op("Gather", ctx.x(0), ctx.b.const(index[0].astype(np.int64)), axis=axis))
        return
    ctx.set(_weighted_gather(ctx, ctx.x(0), axis, index.T, weight.T))


@converter("LinearResize", aten="aten::upsample")
def _linear_resize(ctx):
    # numtorch's float32 (bi)linear interpolation in torch's rounding: one weighted gather per
    # resized (trailing) dim, as for Resample
    index, weight = ctx.static("index"), ctx.static("weight")
    x, rank = ctx.x(0), ctx.rank(0)
    for k, (idx, w) in enumerate(zip(index, weight)):
        x = _weighted_gather(ctx, x, rank - len(index) + k, np.stack(idx).T, np.stack(w).T)
    ctx.set(x)


def _standardize(ctx, x, dims, eps, dt):
    """(x - mean) / sqrt(var + eps) over ``dims`` and 1 / sqrt(var + eps) (kept dims)."""
    b = ctx.b
    d = b.op("Sub", x, b.reduce("ReduceMean", x, dims, 1))
    var = b.reduce("ReduceMean", b.op("Mul", d, d), dims, 1)
    inv = b.op("Reciprocal", b.op("Sqrt", b.op("Add", var, b.const(np.asarray(eps, dt)))))
    return b.op("Mul", d, inv), inv


@converter("NormalizeAffine", aten="aten::layer_norm")
def _normalize_affine(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    x = ctx.x(0, dt)
    rank = ctx.rank(0)
    dims = sorted(int(d) for d in ctx.static("dims"))
    eps = float(ctx.static("eps"))
    w = None if ctx.is_none(1) else ctx.x(1, dt)
    bias = None if ctx.n_inputs < 3 or ctx.is_none(2) else ctx.x(2, dt)
    tail = tuple(ctx.arr(0).shape[dims[0]:]) if dims else ()
    trailing = dims == list(range(rank - len(dims), rank)) and dims
    fits = all(i is None or tuple(ctx.arr(i).shape) == tail for i, n in ((1, w), (2, bias))
               if n is not None)
    if ctx.opset >= 17 and trailing and fits and not any(
            _is_dynamic(s) for s in ctx.shape(0)[dims[0]:]):
        scale = w if w is not None else b.const(np.ones(tail, dt))
        ctx.set(b.op("LayerNormalization", x, scale, bias, axis=dims[0], epsilon=eps))
        return
    y, _ = _standardize(ctx, x, dims, eps, dt)
    if w is not None:
        y = b.op("Mul", y, w)
    if bias is not None:
        y = b.op("Add", y, bias)
    ctx.set(y)


@converter("Normalize", aten="aten::native_layer_norm")
def _normalize(ctx):
    dt = ctx.out().dtype
    dims = sorted(int(d) for d in ctx.static("dims"))
    ctx.set(*_standardize(ctx, ctx.x(0, dt), dims, float(ctx.static("eps")), dt))


@converter("MultiHeadAttentionCore", aten="aten::_native_multi_head_attention")
def _attention(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    heads = int(ctx.static("heads"))
    packed = ctx.p("packed")
    if packed:
        qkv = ctx.x(0, dt)
        e = ctx.arr(0).shape[-1] // 3
        q, k, v = b.split(qkv, [e, e, e], 2)
        mask_at = 1
    else:
        q, k, v = ctx.x(0, dt), ctx.x(1, dt), ctx.x(2, dt)
        mask_at = 3
    split = b.ints([0, 0, heads, -1])
    qh = b.op("Transpose", b.op("Reshape", q, split), perm=[1, 2, 0, 3])  # (N, H, L, d)
    kh = b.op("Transpose", b.op("Reshape", k, split), perm=[1, 2, 3, 0])  # (N, H, d, S)
    vh = b.op("Transpose", b.op("Reshape", v, split), perm=[1, 2, 0, 3])  # (N, H, S, dv)
    scores = b.op("Mul", b.op("MatMul", qh, kh),
                  b.const(np.asarray(float(ctx.static("scale")), dt)))
    if ctx.n_inputs > mask_at and not ctx.is_none(mask_at):
        scores = b.op("Add", scores, ctx.x(mask_at, dt))
    p = b.softmax(scores, 3, 4)
    if ctx.p("safe"):  # rows with every key masked give zero weights, not NaN
        p = b.op("Where", b.op("IsNaN", p), b.const(np.zeros((), dt)), p)
    o = b.op("MatMul", p, vh)  # (N, H, L, dv)
    out = b.op("Reshape", b.op("Transpose", o, perm=[2, 0, 1, 3]), b.ints([0, 0, -1]))
    ctx.set(out, p if ctx.p("weights") else None)


@converter("LSTMCell", aten="aten::lstm_cell")
def _lstm_cell(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    z, c = ctx.x(0, dt), ctx.x(1, dt)
    n = ctx.arr(1).shape[-1]
    axis = ctx.rank(0) - 1
    i, f, g, o = b.split(z, [n] * 4, axis)
    i, f, o = (b.op("Sigmoid", t) for t in (i, f, o))
    c_next = b.op("Add", b.op("Mul", f, c), b.op("Mul", i, b.op("Tanh", g)))
    ctx.set(b.op("Mul", o, b.op("Tanh", c_next)), c_next)


@converter("BernoulliFill", aten="aten::bernoulli")
def _bernoulli_fill(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    u = b.op("RandomUniformLike", ctx.x(0, dt))
    ctx.set(b.cast(b.op("Less", u, ctx.x(1, dt)), dt))


@converter("NormalFill", aten="aten::normal")
def _normal_fill(ctx):
    ctx.set(ctx.b.op("RandomNormalLike", ctx.x(0), mean=float(ctx.p("mean", 0.0)),
                     scale=float(ctx.p("std", 1.0))))


@converter("Uniform", aten="aten::uniform")
def _uniform(ctx):
    ctx.set(ctx.b.op("RandomUniformLike", ctx.x(0), low=float(ctx.p("low", 0.0)),
                     high=float(ctx.p("high", 1.0))))


@converter("Im2Col", aten="aten::im2col")
def _im2col(ctx):
    """``unfold``: a grouped convolution whose filters each pick one kernel position."""
    b = ctx.b
    kernel = [int(k) for k in ctx.static("kernel")]
    channels = ctx.arr(0).shape[1]
    count = int(np.prod(kernel))
    dt = ctx.out().dtype
    eye = np.eye(count, dtype=dt).reshape([count, 1] + kernel)
    weight = np.tile(eye, (channels,) + (1,) * (len(kernel) + 1))
    pads = ctx.static("padding")
    y = b.op("Conv", ctx.x(0, dt), b.const(weight), kernel_shape=kernel,
             strides=[int(s) for s in ctx.static("stride")],
             pads=[int(lo) for lo, _ in pads] + [int(hi) for _, hi in pads],
             dilations=[int(d) for d in ctx.static("dilation")], group=channels)
    ctx.set(b.op("Reshape", y, b.ints([0, channels * count, -1])))


@converter("ScaledDotProductAttention", aten="aten::scaled_dot_product_attention")
def _sdpa(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    q, k, v = ctx.x(0, dt), ctx.x(1, dt), ctx.x(2, dt)
    r = ctx.rank(0)
    kt = b.op("Transpose", k, perm=list(range(r - 2)) + [r - 1, r - 2])
    scores = b.op("Mul", b.op("MatMul", q, kt), b.const(np.asarray(float(ctx.static("scale")),
                                                                   dt)))
    masked = False
    if ctx.p("causal"):  # key s hidden from query l when s > l (sizes of the trace)
        shape = ctx.shape(0)[-2], ctx.shape(1)[-2]
        if has_dynamic(shape):
            raise SymbolicValueError("scaled_dot_product_attention: is_causal with a dynamic "
                                     "sequence length is not supported", "is_causal")
        hide = np.triu(np.ones(tuple(int(n) for n in shape), dtype=bool), 1)
        scores = b.op("Add", scores, b.const(np.where(hide, -np.inf, 0).astype(dt)))
    if ctx.n_inputs > 3 and not ctx.is_none(3):
        masked = True
        if ctx.dtype(3) == np.bool_:
            add = b.op("Where", ctx.x(3), b.const(np.zeros((), dt)),
                       b.const(np.asarray(-np.inf, dt)))
        else:
            add = ctx.x(3, dt)
        scores = b.op("Add", scores, add)
    p = b.softmax(scores, r - 1, r)
    if masked:  # rows with every key masked give zero weights, as torch's math kernel
        p = b.op("Where", b.op("IsNaN", p), b.const(np.zeros((), dt)), p)
    ctx.set(b.op("MatMul", p, v))
