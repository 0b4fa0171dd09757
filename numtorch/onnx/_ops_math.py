"""Converters of the elementwise, comparison, activation and reduction ops."""

import math

import numpy as np

from ._convert import converter

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _const_like(ctx, value, dtype):
    return ctx.b.const(np.asarray(value, dtype=dtype))


def _out_dtype(ctx, k=0):
    return ctx.out(k).dtype


# -- arithmetic -------------------------------------------------------------------------------


def _binary(onnx_op):
    def convert(ctx):
        ctx.set(ctx.b.op(onnx_op, ctx.x(0), ctx.x(1)))
    return convert


for _name, _op in (("Mul", "Mul"), ("Div", "Div"), ("Maximum", "Max"), ("Minimum", "Min")):
    converter(_name, aten=f"aten::{_name.lower()}")(_binary(_op))


@converter("Add", "Sub", aten="aten::add")
def _add_sub(ctx):
    b = ctx.b
    a, c = ctx.x(0), ctx.x(1)
    alpha = ctx.p("alpha", 1)
    if alpha != 1:
        c = b.op("Mul", c, _const_like(ctx, alpha, ctx.dtype(1)))
    if ctx.dtype(0) == np.bool_:
        if ctx.node.op == "Sub":
            raise ctx.unsupported("subtraction of bool tensors")
        ctx.set(b.op("Or", a, c))
        return
    ctx.set(b.op("Add" if ctx.node.op == "Add" else "Sub", a, c))


@converter("Addcmul", aten="aten::addcmul")
def _addcmul(ctx):
    b = ctx.b
    prod = b.op("Mul", ctx.x(1), ctx.x(2))
    value = ctx.p("value", 1)
    if value != 1:
        prod = b.op("Mul", prod, _const_like(ctx, value, ctx.dtype(1)))
    ctx.set(b.op("Add", ctx.x(0), prod))


def _trunc(b, x):
    return b.op("Mul", b.op("Sign", x), b.op("Floor", b.op("Abs", x)))


@converter("DivFloor", "FloorDivide", aten="aten::floor_divide")
def _div_floor(ctx):
    b = ctx.b
    a, c = ctx.x(0), ctx.x(1)
    if ctx.dtype(0).kind == "f":
        ctx.set(b.op("Floor", b.op("Div", a, c)))
    else:  # (a - a mod b) / b is exact, and ONNX's integer Div truncates
        ctx.set(b.op("Div", b.op("Sub", a, b.op("Mod", a, c, fmod=0)), c))


@converter("DivTrunc", aten="aten::div")
def _div_trunc(ctx):
    b = ctx.b
    q = b.op("Div", ctx.x(0), ctx.x(1))
    ctx.set(_trunc(b, q) if ctx.dtype(0).kind == "f" else q)


@converter("Remainder", aten="aten::remainder")
def _remainder(ctx):
    b = ctx.b
    a, c = ctx.x(0), ctx.x(1)
    if ctx.dtype(0).kind == "f":
        ctx.set(b.op("Sub", a, b.op("Mul", b.op("Floor", b.op("Div", a, c)), c)))
    else:
        ctx.set(b.op("Mod", a, c, fmod=0))


@converter("Fmod", aten="aten::fmod")
def _fmod(ctx):
    ctx.set(ctx.b.op("Mod", ctx.x(0), ctx.x(1), fmod=1))


@converter("Pow", aten="aten::pow")
def _pow(ctx):
    ctx.set(ctx.b.op("Pow", ctx.x(0), ctx.x(1)))


@converter("PowScalar", aten="aten::pow")
def _pow_scalar(ctx):
    b = ctx.b
    x = ctx.x(0)
    p = ctx.p("exponent")
    dt = ctx.dtype(0)
    if p == 2:
        ctx.set(b.op("Mul", x, x))
    elif p == 0.5 and dt.kind == "f":
        ctx.set(b.op("Sqrt", x))
    elif p == -0.5 and dt.kind == "f":
        ctx.set(b.op("Reciprocal", b.op("Sqrt", x)))
    else:
        ctx.set(b.op("Pow", x, _const_like(ctx, p, dt if dt.kind == "f" else np.int64)))


@converter("Fmax", "Fmin", aten="aten::fmax")
def _fmax(ctx):
    b = ctx.b
    a, c = ctx.x(0), ctx.x(1)
    m = b.op("Max" if ctx.node.op == "Fmax" else "Min", a, c)
    if ctx.dtype(0).kind == "f":  # a NaN loses to a number
        m = b.op("Where", b.op("IsNaN", a), c, b.op("Where", b.op("IsNaN", c), a, m))
    ctx.set(m)


# -- comparisons and selection ----------------------------------------------------------------

_COMPARE = {"Eq": "Equal", "Lt": "Less", "Gt": "Greater", "Le": "LessOrEqual",
            "Ge": "GreaterOrEqual"}


@converter("Eq", "Ne", "Lt", "Le", "Gt", "Ge", aten="aten::eq")
def _compare(ctx):
    b = ctx.b
    dt = ctx.dtype(0)
    cast = None if dt != np.bool_ or ctx.node.op in ("Eq", "Ne") else np.int32
    a, c = ctx.x(0, cast), ctx.x(1, cast)
    op = ctx.node.op
    if op == "Ne":
        ctx.set(b.op("Not", b.op("Equal", a, c)))
    elif op in ("Le", "Ge") and ctx.opset < 12:
        ctx.set(b.op("Not", b.op("Greater" if op == "Le" else "Less", a, c)))
    else:
        ctx.set(b.op(_COMPARE[op], a, c))


@converter("Where", "Select", aten="aten::where")
def _where(ctx):
    dt = _out_dtype(ctx)
    ctx.set(ctx.b.op("Where", ctx.x(0, np.bool_), ctx.x(1, dt), ctx.x(2, dt)))


@converter("Clamp", aten="aten::clamp")
def _clamp(ctx):
    b = ctx.b
    x = ctx.x(0)
    dt = ctx.dtype(0)
    lo, hi = ctx.p("min"), ctx.p("max")
    if lo is not None and hi is not None and lo > hi:
        lo = hi  # torch: every element becomes max
    if dt.kind == "f" or ctx.opset >= 12:
        ctx.set(b.op("Clip", x, "" if lo is None else _const_like(ctx, lo, dt),
                     "" if hi is None else _const_like(ctx, hi, dt)))
        return
    if lo is not None:
        x = b.op("Max", x, _const_like(ctx, lo, dt))
    if hi is not None:
        x = b.op("Min", x, _const_like(ctx, hi, dt))
    ctx.set(x)


@converter("_Logical", aten="aten::logical_and")
def _logical(ctx):
    op = {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}[ctx.p("fn")]
    ctx.set(ctx.b.op(op, ctx.x(0, np.bool_), ctx.x(1, np.bool_)))


@converter("LogicalNot", aten="aten::logical_not")
def _logical_not(ctx):
    ctx.set(ctx.b.op("Not", ctx.x(0, np.bool_)))


@converter("_Bitwise", aten="aten::bitwise_and")
def _bitwise(ctx):
    kind = ctx.p("fn")[len("bitwise_"):]
    if ctx.dtype(0) == np.bool_:
        ctx.set(ctx.b.op({"and": "And", "or": "Or", "xor": "Xor"}[kind], ctx.x(0), ctx.x(1)))
    elif ctx.opset >= 18:
        ctx.set(ctx.b.op("Bitwise" + kind.capitalize(), ctx.x(0), ctx.x(1)))
    else:
        raise ctx.unsupported("bitwise ops on integers need opset 18")


@converter("BitwiseNot", aten="aten::bitwise_not")
def _bitwise_not(ctx):
    if ctx.dtype(0) == np.bool_:
        ctx.set(ctx.b.op("Not", ctx.x(0)))
    elif ctx.opset >= 18:
        ctx.set(ctx.b.op("BitwiseNot", ctx.x(0)))
    else:
        raise ctx.unsupported("bitwise_not on integers needs opset 18")


@converter("_Classify", aten="aten::isnan")
def _classify(ctx):
    b = ctx.b
    fn = ctx.p("fn")
    x = ctx.x(0, np.float32 if ctx.dtype(0).kind != "f" else None)
    if fn == "isnan":
        ctx.set(b.op("IsNaN", x))
    elif fn == "isinf":
        ctx.set(b.op("IsInf", x))
    elif fn == "isposinf":
        ctx.set(b.op("IsInf", x, detect_negative=0))
    elif fn == "isneginf":
        ctx.set(b.op("IsInf", x, detect_positive=0))
    else:
        ctx.set(b.op("Not", b.op("Or", b.op("IsNaN", x), b.op("IsInf", x))))


# -- unary ------------------------------------------------------------------------------------

_UNARY = {"Abs": "Abs", "Neg": "Neg", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt",
          "Reciprocal": "Reciprocal", "Sin": "Sin", "Cos": "Cos", "Tan": "Tan", "Asin": "Asin",
          "Acos": "Acos", "Atan": "Atan", "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh",
          "Acosh": "Acosh", "Atanh": "Atanh", "Tanh": "Tanh", "Sigmoid": "Sigmoid",
          "Erf": "Erf", "Floor": "Floor", "Ceil": "Ceil", "Sign": "Sign", "Sgn": "Sign",
          "Relu": "Relu"}


def _unary(onnx_op):
    def convert(ctx):
        x = ctx.x(0, _out_dtype(ctx))
        ctx.set(ctx.b.op(onnx_op, x))
    return convert


for _name, _op in _UNARY.items():
    converter(_name, aten=f"aten::{_name.lower()}")(_unary(_op))


def _float_in(ctx):
    return ctx.x(0, _out_dtype(ctx))


def _composite(fn):
    def convert(ctx):
        dt = _out_dtype(ctx)
        ctx.set(fn(ctx.b, _float_in(ctx), lambda v: _const_like(ctx, v, dt)))
    return convert


_COMPOSITES = {
    "Rsqrt": lambda b, x, c: b.op("Reciprocal", b.op("Sqrt", x)),
    "Log1p": lambda b, x, c: b.op("Log", b.op("Add", x, c(1))),
    "Expm1": lambda b, x, c: b.op("Sub", b.op("Exp", x), c(1)),
    "Log2": lambda b, x, c: b.op("Div", b.op("Log", x), c(_LN2)),
    "Log10": lambda b, x, c: b.op("Div", b.op("Log", x), c(_LN10)),
    "Exp2": lambda b, x, c: b.op("Pow", c(2), x),
    "Erfc": lambda b, x, c: b.op("Sub", c(1), b.op("Erf", x)),
    "Trunc": lambda b, x, c: _trunc(b, x),
    "Frac": lambda b, x, c: b.op("Sub", x, _trunc(b, x)),
    "Silu": lambda b, x, c: b.op("Mul", x, b.op("Sigmoid", x)),
    "Mish": lambda b, x, c: b.op("Mul", x, b.op("Tanh", b.op("Softplus", x))),
    "LogSigmoid": lambda b, x, c: b.op("Neg", b.op("Softplus", b.op("Neg", x))),
    "Hardsigmoid": lambda b, x, c: b.op("HardSigmoid", x, alpha=1.0 / 6, beta=0.5),
}
for _name, _fn in _COMPOSITES.items():
    converter(_name, aten=f"aten::{_name.lower()}")(_composite(_fn))


@converter("Round", aten="aten::round")
def _round(ctx):
    b = ctx.b
    x = _float_in(ctx)
    d = ctx.p("decimals", 0) or 0
    if ctx.dtype(0).kind != "f":
        ctx.set(ctx.x(0))
        return
    if d == 0:
        ctx.set(b.op("Round", x))
        return
    scale = _const_like(ctx, 10.0 ** d, _out_dtype(ctx))
    ctx.set(b.op("Div", b.op("Round", b.op("Mul", x, scale)), scale))


@converter("Gelu", aten="aten::gelu")
def _gelu(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = _float_in(ctx)
    approximate = ctx.p("approximate", "none")
    if ctx.opset >= 20:
        ctx.set(b.op("Gelu", x, approximate=approximate))
        return

    def c(v):
        return _const_like(ctx, v, dt)
    if approximate == "tanh":
        inner = b.op("Mul", c(math.sqrt(2 / math.pi)),
                     b.op("Add", x, b.op("Mul", c(0.044715), b.op("Mul", x, b.op("Mul", x, x)))))
        gate = b.op("Add", c(1.0), b.op("Tanh", inner))
    else:
        gate = b.op("Add", c(1.0), b.op("Erf", b.op("Mul", x, c(1 / math.sqrt(2)))))
    ctx.set(b.op("Mul", b.op("Mul", x, c(0.5)), gate))


@converter("Hardswish", aten="aten::hardswish")
def _hardswish(ctx):
    b = ctx.b
    x = _float_in(ctx)
    if ctx.opset >= 14:
        ctx.set(b.op("HardSwish", x))
    else:
        ctx.set(b.op("Mul", x, b.op("HardSigmoid", x, alpha=1.0 / 6, beta=0.5)))


@converter("Softplus", aten="aten::softplus")
def _softplus(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = _float_in(ctx)
    beta, threshold = ctx.p("beta", 1), ctx.p("threshold", 20)
    bx = x if beta == 1 else b.op("Mul", x, _const_like(ctx, beta, dt))
    soft = b.op("Softplus", bx)
    if beta != 1:
        soft = b.op("Div", soft, _const_like(ctx, beta, dt))
    ctx.set(b.op("Where", b.op("Greater", bx, _const_like(ctx, threshold, dt)), x, soft))


@converter("Elu", "Celu", aten="aten::elu")
def _elu(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = _float_in(ctx)
    alpha, scale = ctx.p("alpha", 1.0), ctx.p("scale", 1.0)
    input_scale = ctx.p("input_scale", 1.0)
    if scale == 1 and input_scale == 1:
        ctx.set(b.op("Elu", x, alpha=float(alpha)))
        return
    neg = b.op("Mul", _const_like(ctx, alpha, dt), b.op("Sub", b.op(
        "Exp", b.op("Mul", x, _const_like(ctx, input_scale, dt))), _const_like(ctx, 1, dt)))
    y = b.op("Where", b.op("Greater", x, _const_like(ctx, 0, dt)), x, neg)
    ctx.set(b.op("Mul", y, _const_like(ctx, scale, dt)))


@converter("Hardtanh", aten="aten::hardtanh")
def _hardtanh(ctx):
    dt = _out_dtype(ctx)
    ctx.set(ctx.b.op("Clip", _float_in(ctx), _const_like(ctx, ctx.p("min_val"), dt),
                     _const_like(ctx, ctx.p("max_val"), dt)))


@converter("LeakyRelu", aten="aten::leaky_relu")
def _leaky_relu(ctx):
    ctx.set(ctx.b.op("LeakyRelu", _float_in(ctx), alpha=float(ctx.p("negative_slope"))))


@converter("Threshold", aten="aten::threshold")
def _threshold(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    ctx.set(b.op("Where", b.op("Greater", x, _const_like(ctx, ctx.p("threshold"), dt)), x,
                 _const_like(ctx, ctx.p("value"), dt)))


@converter("Hardshrink", "Softshrink", aten="aten::hardshrink")
def _shrink(ctx):
    lambd = float(ctx.p("lambd"))
    bias = lambd if ctx.node.op == "Softshrink" else 0.0
    ctx.set(ctx.b.op("Shrink", _float_in(ctx), lambd=lambd, bias=bias))


@converter("Softmax", "LogSoftmax", aten="aten::softmax")
def _softmax(ctx):
    x = ctx.x(0, _out_dtype(ctx))
    ctx.set(ctx.b.softmax(x, ctx.static("dim"), ctx.rank(0), log=ctx.node.op == "LogSoftmax"))


@converter("Cast", "Clone", "ToDevice", "ToFormat", "GradToFormat", aten="aten::to")
def _cast(ctx):
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    ctx.set(ctx.b.op("Identity", x) if ctx.dtype(0) == dt else x)


# -- reductions -------------------------------------------------------------------------------


def _axes(ctx, key="dims"):
    dims = ctx.static(key)
    rank = ctx.rank(0)
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = (dims,)
    return sorted(int(d) % max(rank, 1) for d in dims)


@converter("Sum", aten="aten::sum")
def _sum(ctx):
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    ctx.set(ctx.b.reduce("ReduceSum", x, _axes(ctx), ctx.p("keepdim")))


@converter("Mean", aten="aten::mean")
def _mean(ctx):
    x = ctx.x(0, _out_dtype(ctx))
    ctx.set(ctx.b.reduce("ReduceMean", x, _axes(ctx), ctx.p("keepdim")))


@converter("Prod", aten="aten::prod")
def _prod(ctx):
    x = ctx.x(0, _out_dtype(ctx))
    ctx.set(ctx.b.reduce("ReduceProd", x, _axes(ctx), ctx.p("keepdim")))


@converter("Amax", aten="aten::amax")
def _amax(ctx):
    op = "ReduceMax" if ctx.p("fn") == "max" else "ReduceMin"
    dt = ctx.dtype(0)
    x = ctx.x(0, np.int32 if dt == np.bool_ else None)
    y = ctx.b.reduce(op, x, _axes(ctx), ctx.p("keepdim"))
    ctx.set(ctx.b.cast(y, dt) if dt == np.bool_ else y)


@converter("_Logic", aten="aten::all")
def _logic(ctx):
    b = ctx.b
    x = ctx.x(0, np.int32)
    y = b.reduce("ReduceMin" if ctx.p("fn") == "all" else "ReduceMax", x, _axes(ctx),
                 ctx.p("keepdim"))
    ctx.set(b.cast(y, _out_dtype(ctx)))


@converter("MaxDim", aten="aten::max")
def _max_dim(ctx):
    b = ctx.b
    x = ctx.x(0)
    if ctx.rank(0) == 0:
        ctx.set(b.op("Identity", x), b.const(np.zeros((), np.int64)))
        return
    d = int(ctx.static("dim")) % ctx.rank(0)
    keep = int(bool(ctx.p("keepdim")))
    is_max = ctx.p("fn") == "max"
    values = b.reduce("ReduceMax" if is_max else "ReduceMin", x, [d], keep)
    index = b.op("ArgMax" if is_max else "ArgMin", x, axis=d, keepdims=keep)
    ctx.set(values, index)


@converter("ArgReduce", aten="aten::argmax")
def _arg_reduce(ctx):
    b = ctx.b
    x = ctx.x(0)
    op = "ArgMax" if ctx.p("fn") == "argmax" else "ArgMin"
    dim, keep = ctx.static("dim"), int(bool(ctx.p("keepdim")))
    if dim is None:
        y = b.op(op, b.op("Reshape", x, b.ints([-1])), axis=0, keepdims=0)
        if keep:
            y = b.op("Reshape", y, b.ints([1] * ctx.rank(0)))
        ctx.set(y)
        return
    ctx.set(b.op(op, x, axis=int(dim) % max(ctx.rank(0), 1), keepdims=keep))


@converter("Cumsum", aten="aten::cumsum")
def _cumsum(ctx):
    x = ctx.x(0, _out_dtype(ctx))
    ctx.set(ctx.b.op("CumSum", x, ctx.b.const(np.asarray(int(ctx.static("dim")), np.int64))))


@converter("Var", aten="aten::var")
def _var(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    axes = _axes(ctx)
    keep = ctx.p("keepdim")
    d = b.op("Sub", x, b.reduce("ReduceMean", x, axes, 1))
    var = b.reduce("ReduceMean", b.op("Mul", d, d), axes, keep)
    correction = ctx.p("correction", 0)
    if correction:
        n = ctx.static("n")
        var = b.op("Mul", var, _const_like(ctx, n / max(n - correction, 0) if n > correction
                                           else float("inf"), dt))
    ctx.set(b.op("Sqrt", var) if ctx.p("root") else var)


@converter("LogSumExp", aten="aten::logsumexp")
def _logsumexp(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    axes = _axes(ctx)
    m = b.reduce("ReduceMax", x, axes, 1)
    m = b.op("Where", b.op("IsInf", m), _const_like(ctx, 0, dt), m)
    s = b.reduce("ReduceSum", b.op("Exp", b.op("Sub", x, m)), axes, 1)
    y = b.op("Add", b.op("Log", s), m)
    ctx.set(y if ctx.p("keepdim") else b.squeeze(y, axes))


@converter("Norm", aten="aten::norm")
def _norm(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    axes, keep, p = _axes(ctx), ctx.p("keepdim"), ctx.p("p", 2)
    if p == 2:
        ctx.set(b.reduce("ReduceL2", x, axes, keep))
    elif p == 1:
        ctx.set(b.reduce("ReduceL1", x, axes, keep))
    elif p == float("inf"):
        ctx.set(b.reduce("ReduceMax", b.op("Abs", x), axes, keep))
    elif p == float("-inf"):
        ctx.set(b.reduce("ReduceMin", b.op("Abs", x), axes, keep))
    elif p == 0:
        nz = b.cast(b.op("Not", b.op("Equal", x, _const_like(ctx, 0, dt))), dt)
        ctx.set(b.reduce("ReduceSum", nz, axes, keep))
    else:
        s = b.reduce("ReduceSum", b.op("Pow", b.op("Abs", x), _const_like(ctx, p, dt)), axes,
                     keep)
        ctx.set(b.op("Pow", s, _const_like(ctx, 1.0 / p, dt)))


@converter("NanToNum", aten="aten::nan_to_num")
def _nan_to_num(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    x = ctx.x(0, dt)
    if dt.kind != "f":
        ctx.set(b.op("Identity", x))
        return
    info = np.finfo(dt)
    nan, pos, neg = ctx.p("nan", 0.0), ctx.p("posinf"), ctx.p("neginf")
    pos = info.max if pos is None else pos
    neg = info.min if neg is None else neg
    y = b.op("Where", b.op("IsNaN", x), _const_like(ctx, nan or 0.0, dt), x)
    y = b.op("Where", b.op("IsInf", y, detect_negative=0), _const_like(ctx, pos, dt), y)
    ctx.set(b.op("Where", b.op("IsInf", y, detect_positive=0), _const_like(ctx, neg, dt), y))


@converter("Atan2", aten="aten::atan2")
def _atan2(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    y, x = ctx.x(0, dt), ctx.x(1, dt)

    def c(v):
        return _const_like(ctx, v, dt)
    zero = c(0.0)
    base = b.op("Atan", b.op("Div", y, x))
    # x < 0: add pi with y's sign (y = +-0 keeps its sign through copysign-like Where)
    neg_y = b.op("Or", b.op("Less", y, zero),
                 b.op("And", b.op("Equal", y, zero), b.op("Less", b.op("Reciprocal", y), zero)))
    shift = b.op("Where", neg_y, c(-math.pi), c(math.pi))
    out = b.op("Where", b.op("Less", x, zero), b.op("Add", base, shift), base)
    # x == 0: +-pi/2 by y's sign, 0 when y is 0 too (x = -0 is handled by the branch above)
    half = b.op("Where", b.op("Greater", y, zero), c(math.pi / 2),
                b.op("Where", b.op("Less", y, zero), c(-math.pi / 2), y))
    x_zero = b.op("And", b.op("Equal", x, zero),
                  b.op("Greater", b.op("Reciprocal", x), zero))  # +0 only
    ctx.set(b.op("Where", x_zero, half, out))


@converter("Logaddexp", aten="aten::logaddexp")
def _logaddexp(ctx):
    b = ctx.b
    dt = _out_dtype(ctx)
    a, c = ctx.x(0, dt), ctx.x(1, dt)
    m = b.op("Max", a, c)
    d = b.op("Neg", b.op("Abs", b.op("Sub", a, c)))
    y = b.op("Add", m, b.op("Log", b.op("Add", _const_like(ctx, 1.0, dt), b.op("Exp", d))))
    # equal infinities: the difference is NaN, the answer the infinity itself
    ctx.set(b.op("Where", b.op("Equal", a, c), b.op("Add", a, _const_like(ctx, math.log(2), dt)),
                 y))


@converter("Lerp", aten="aten::lerp")
def _lerp(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    start, end = ctx.x(0, dt), ctx.x(1, dt)
    if ctx.n_inputs > 2 and not ctx.is_none(2):
        w = ctx.x(2, dt)
    else:
        w = b.const(np.asarray(float(ctx.static("weight")), dt))
    ctx.set(b.op("Add", start, b.op("Mul", w, b.op("Sub", end, start))))


@converter("Logit", aten="aten::logit")
def _logit(ctx):
    b = ctx.b
    dt = ctx.out().dtype
    x = ctx.x(0, dt)
    eps = ctx.p("eps")
    if eps is not None:  # the lower bound is tested first, as in numtorch's kernel
        lo, hi = b.const(np.asarray(eps, dt)), b.const(np.asarray(1 - eps, dt))
        x = b.op("Where", b.op("Less", x, lo), lo, b.op("Where", b.op("Greater", x, hi), hi, x))
    one = b.const(np.ones((), dt))
    ctx.set(b.op("Log", b.op("Div", x, b.op("Sub", one, x))))
