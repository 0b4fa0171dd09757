"""Pointwise ops: arithmetic, unary math, comparisons and logic.

Binary ops set ``promote = True`` so ``Op.apply`` casts their inputs to torch's result dtype;
float-only functions set ``promote = "float"`` so integer inputs compute in the default float
dtype, as torch does. Backward passes return gradients in the broadcast shape; the engine sums
them back to each input's shape.
"""

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from ..backend import helpers_for

__all__ = [
    "add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod",
    "pow", "atan2", "maximum", "minimum", "where", "lerp", "addcmul", "addcdiv", "clamp",
    "clip", "neg", "abs", "reciprocal", "sqrt", "rsqrt", "square", "exp", "exp2", "expm1",
    "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "relu", "sign", "floor", "ceil",
    "round", "trunc", "frac", "erf", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "isnan", "isinf", "isfinite", "equal", "allclose", "isclose",
]


# ---------------------------------------------------------------------------------------------
# binary arithmetic


class Add(Op):
    """y = a + alpha * b; dy/da = 1, dy/db = alpha."""

    promote = True
    alpha = 1

    def forward(self, a, b):
        if self.alpha == 1:
            return a + b
        return a + b * self.alpha

    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * self.alpha)


class Sub(Op):
    """y = a - alpha * b; dy/da = 1, dy/db = -alpha."""

    promote = True
    alpha = 1

    def forward(self, a, b):
        if self.alpha == 1:
            return a - b
        return a - b * self.alpha

    def backward(self, grad):
        return grad, (-grad if self.alpha == 1 else grad * (-self.alpha))


class Mul(Op):
    """y = a * b; dy/da = b, dy/db = a."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        return a * b

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        return (grad * b if na else None), (grad * a if nb else None)


class Div(Op):
    """y = a / b; dy/da = 1/b, dy/db = -a/b**2."""

    promote = "float"

    def forward(self, a, b):
        self.save_inputs(a, b)
        return a / b

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        ga = grad / b if na else None
        gb = -grad * a / (b * b) if nb else None
        return ga, gb


class FloorDivide(Op):
    """y = floor(a / b) (floor rounding, integer or float); no gradient."""

    promote = True
    differentiable = False

    def forward(self, a, b):
        if a.dtype.kind in "iub":
            _check_int_divisor(self.xp, b)
            return self.xp.floor_divide(a, b)
        return self.xp.floor(a / b).astype(a.dtype, copy=False)


class TruncDivide(Op):
    """y = trunc(a / b); no gradient."""

    promote = True
    differentiable = False

    def forward(self, a, b):
        xp = self.xp
        if a.dtype.kind in "iub":
            _check_int_divisor(xp, b)
            q = xp.floor_divide(a, b)
            fix = (q < 0) & (q * b != a)
            return (q + fix).astype(a.dtype, copy=False)
        return xp.trunc(a / b).astype(a.dtype, copy=False)


def _check_int_divisor(xp, b):
    if xp.any(xp.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


class Remainder(Op):
    """y = a - floor(a/b) * b (sign of b); dy/da = 1, dy/db = -floor(a/b)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        if a.dtype.kind in "iu":
            _check_int_divisor(self.xp, b)
        return self.xp.remainder(a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        return grad, (-grad * floor(div(a, b)) if self.needs_input_grad[1] else None)


class Fmod(Op):
    """y = a - trunc(a/b) * b (sign of a); dy/da = 1, dy/db = -trunc(a/b)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        if a.dtype.kind in "iu":
            _check_int_divisor(self.xp, b)
        return self.xp.fmod(a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        return grad, (-grad * trunc(div(a, b)) if self.needs_input_grad[1] else None)


class PowScalar(Op):
    """y = x ** p for a Python-number p; dy/dx = p * x ** (p - 1) (0 when p == 0)."""

    def forward(self, x):
        self.save_inputs(x)
        p = self.exponent
        if p == 2:
            return x * x
        if p == 0.5:
            return self.xp.sqrt(x)
        return self.xp.power(x, x.dtype.type(p)) if x.dtype.kind in "fc" else \
            self.xp.power(x, p).astype(x.dtype, copy=False)

    def backward(self, grad):
        x = self.saved_inputs()
        p = self.exponent
        if p == 0:
            return grad * 0
        if p == 1:
            return grad
        if p == 2:
            return grad * (x * 2)
        return grad * (pow(x, p - 1) * p)


class Pow(Op):
    """y = a ** b; dy/da = b * a ** (b - 1), dy/db = y * log(a) (0 where a == 0 and b >= 0)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        xp = self.xp
        if a.dtype.kind in "iu" and xp.any(xp.asarray(b) < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return self.save_output(xp.power(a, b))

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        ga = gb = None
        if na:
            ga = where(b == 0, 0.0, grad * b * pow(a, b - 1))
        if nb:
            y = self.saved_output()
            gb = where((a == 0) & (b >= 0), 0.0, grad * y * log(a))
        return ga, gb


class Atan2(Op):
    """y = atan2(a, b); dy/da = b / (a^2 + b^2), dy/db = -a / (a^2 + b^2)."""

    promote = "float"

    def forward(self, a, b):
        self.save_inputs(a, b)
        return self.xp.arctan2(a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        r = grad / (a * a + b * b)
        return r * b, -r * a


class Maximum(Op):
    """y = max(a, b) elementwise; the gradient is split in half where a == b (as torch)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        return self.xp.maximum(a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        half = where(a == b, grad * 0.5, grad)
        return where(a < b, 0.0, half), where(b < a, 0.0, half)


class Minimum(Op):
    """y = min(a, b) elementwise; the gradient is split in half where a == b (as torch)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        return self.xp.minimum(a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        half = where(a == b, grad * 0.5, grad)
        return where(a > b, 0.0, half), where(b > a, 0.0, half)


class Where(Op):
    """y = cond ? a : b; dy/da = cond, dy/db = not cond."""

    def forward(self, cond, a, b):
        self.save(cond=cond)
        return self.xp.where(cond, a, b)

    def backward(self, grad):
        cond = _make(self.saved("cond"))
        na, nb = self.needs_input_grad[1:]
        return (None, where(cond, grad, 0.0) if na else None,
                where(cond, 0.0, grad) if nb else None)


class Clamp(Op):
    """y = min(max(x, lo), hi) with number bounds; dy/dx = 1 inside [lo, hi], else 0."""

    def forward(self, x):
        self.save_inputs(x)
        xp, lo, hi = self.xp, self.min, self.max
        if lo is not None and hi is not None and lo > hi:
            return xp.full_like(x, hi)
        return xp.clip(x, lo, hi).astype(x.dtype, copy=False)

    def backward(self, grad):
        x = self.saved_inputs()
        keep = None
        if self.min is not None:
            keep = x >= self.min
        if self.max is not None:
            m = x <= self.max
            keep = m if keep is None else keep & m
        return where(keep, grad, 0.0)


# ---------------------------------------------------------------------------------------------
# unary math


class Neg(Op):
    """y = -x; dy/dx = -1."""

    def forward(self, x):
        if x.dtype == np.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return -x

    def backward(self, grad):
        return -grad


class Abs(Op):
    """y = |x|; dy/dx = sign(x) (0 at 0)."""

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.abs(x)

    def backward(self, grad):
        return grad * sign(self.saved_inputs())


class Exp(Op):
    """y = e^x; dy/dx = y."""

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.exp(x))

    def backward(self, grad):
        return grad * self.saved_output()


class Exp2(Op):
    """y = 2^x; dy/dx = y * ln 2."""

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.exp2(x))

    def backward(self, grad):
        return grad * self.saved_output() * math.log(2.0)


class Expm1(Op):
    """y = e^x - 1; dy/dx = y + 1."""

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.expm1(x))

    def backward(self, grad):
        return grad * (self.saved_output() + 1)


class Log(Op):
    """y = ln x; dy/dx = 1/x."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.log(x)

    def backward(self, grad):
        return grad / self.saved_inputs()


class Log2(Op):
    """y = log2 x; dy/dx = 1/(x ln 2)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.log2(x)

    def backward(self, grad):
        return grad / (self.saved_inputs() * math.log(2.0))


class Log10(Op):
    """y = log10 x; dy/dx = 1/(x ln 10)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.log10(x)

    def backward(self, grad):
        return grad / (self.saved_inputs() * math.log(10.0))


class Log1p(Op):
    """y = ln(1 + x); dy/dx = 1/(1 + x)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.log1p(x)

    def backward(self, grad):
        return grad / (self.saved_inputs() + 1)


class Sqrt(Op):
    """y = sqrt(x); dy/dx = 1/(2y)."""

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.sqrt(x))

    def backward(self, grad):
        return grad / (self.saved_output() * 2)


class Rsqrt(Op):
    """y = x^(-1/2); dy/dx = -y^3 / 2."""

    promote = "float"

    def forward(self, x):
        y = 1 / self.xp.sqrt(x)
        return self.save_output(y.astype(x.dtype, copy=False))

    def backward(self, grad):
        y = self.saved_output()
        return grad * (y * y * y) * -0.5


class Reciprocal(Op):
    """y = 1/x; dy/dx = -y^2."""

    promote = "float"

    def forward(self, x):
        y = 1 / x
        return self.save_output(y.astype(x.dtype, copy=False))

    def backward(self, grad):
        y = self.saved_output()
        return -grad * (y * y)


class Sin(Op):
    """y = sin x; dy/dx = cos x."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.sin(x)

    def backward(self, grad):
        return grad * cos(self.saved_inputs())


class Cos(Op):
    """y = cos x; dy/dx = -sin x."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.cos(x)

    def backward(self, grad):
        return grad * -sin(self.saved_inputs())


class Tan(Op):
    """y = tan x; dy/dx = 1 + y^2."""

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.tan(x))

    def backward(self, grad):
        y = self.saved_output()
        return grad * (y * y + 1)


class Asin(Op):
    """y = asin x; dy/dx = 1/sqrt(1 - x^2)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arcsin(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * rsqrt(1 - x * x)


class Acos(Op):
    """y = acos x; dy/dx = -1/sqrt(1 - x^2)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arccos(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return -grad * rsqrt(1 - x * x)


class Atan(Op):
    """y = atan x; dy/dx = 1/(1 + x^2)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arctan(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad / (x * x + 1)


class Sinh(Op):
    """y = sinh x; dy/dx = cosh x."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.sinh(x)

    def backward(self, grad):
        return grad * cosh(self.saved_inputs())


class Cosh(Op):
    """y = cosh x; dy/dx = sinh x."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.cosh(x)

    def backward(self, grad):
        return grad * sinh(self.saved_inputs())


class Tanh(Op):
    """y = tanh x; dy/dx = 1 - y^2."""

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.tanh(x))

    def backward(self, grad):
        return TanhBackward.apply(self.saved_output(), grad)


class TanhBackward(Op):
    """g_x = g * (1 - y^2) fused; d/dy = -2 y g, d/dg = 1 - y^2."""

    def forward(self, y, g):
        self.save_inputs(y, g)
        return g * (1 - y * y)

    def backward(self, gg):
        y, g = self.saved_inputs()
        return gg * g * y * -2, gg * (1 - y * y)


class Asinh(Op):
    """y = asinh x; dy/dx = 1/sqrt(x^2 + 1)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arcsinh(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * rsqrt(x * x + 1)


class Acosh(Op):
    """y = acosh x; dy/dx = 1/sqrt(x^2 - 1)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arccosh(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * rsqrt(x * x - 1)


class Atanh(Op):
    """y = atanh x; dy/dx = 1/(1 - x^2)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arctanh(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad / (1 - x * x)


class Sigmoid(Op):
    """y = 1/(1 + e^-x); dy/dx = y (1 - y)."""

    promote = "float"

    def forward(self, x):
        xp = self.xp
        # split by sign so exp never overflows (torch's values for large |x| are exact 0/1)
        e = xp.exp(-xp.abs(x))
        y = xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
        return self.save_output(y)

    def backward(self, grad):
        y = self.saved_output()
        return grad * y * (1 - y)


class Relu(Op):
    """y = max(x, 0); dy/dx = 1 where y > 0 (0 at x == 0, as torch)."""

    def forward(self, x):
        return self.save_output(self.xp.maximum(x, x.dtype.type(0)))

    def backward(self, grad):
        return where(self.saved_output() > 0, grad, 0.0)


class Erf(Op):
    """y = erf x; dy/dx = 2/sqrt(pi) e^(-x^2)."""

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return helpers_for(self.xp).erf(x).astype(x.dtype, copy=False)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * exp(-(x * x)) * (2.0 / math.sqrt(math.pi))


class _ZeroGrad(Op):
    """Piecewise-constant functions: the gradient is zero almost everywhere (as torch)."""

    def backward(self, grad):
        return grad * 0


class Sign(_ZeroGrad):
    """y = sign(x); dy/dx = 0."""

    def forward(self, x):
        if x.dtype == np.bool_:
            return x.copy()
        return self.xp.sign(x)


class Floor(_ZeroGrad):
    """y = floor(x); dy/dx = 0."""

    def forward(self, x):
        return self.xp.floor(x) if x.dtype.kind in "fc" else x.copy()


class Ceil(_ZeroGrad):
    """y = ceil(x); dy/dx = 0."""

    def forward(self, x):
        return self.xp.ceil(x) if x.dtype.kind in "fc" else x.copy()


class Trunc(_ZeroGrad):
    """y = trunc(x); dy/dx = 0."""

    def forward(self, x):
        return self.xp.trunc(x) if x.dtype.kind in "fc" else x.copy()


class Round(_ZeroGrad):
    """y = round-half-to-even(x * 10^d) / 10^d; dy/dx = 0."""

    def forward(self, x):
        if x.dtype.kind not in "fc":
            return x.copy()
        return self.xp.round(x, self.decimals)


class Frac(Op):
    """y = x - trunc(x); dy/dx = 1."""

    def forward(self, x):
        return x - self.xp.trunc(x)

    def backward(self, grad):
        return grad


# ---------------------------------------------------------------------------------------------
# comparison and logic (no gradient)


class _Compare(Op):
    promote = True
    differentiable = False


class Eq(_Compare):
    def forward(self, a, b):
        return a == b


class Ne(_Compare):
    def forward(self, a, b):
        return a != b


class Lt(_Compare):
    def forward(self, a, b):
        return a < b


class Le(_Compare):
    def forward(self, a, b):
        return a <= b


class Gt(_Compare):
    def forward(self, a, b):
        return a > b


class Ge(_Compare):
    def forward(self, a, b):
        return a >= b


class _Logical(Op):
    differentiable = False

    def forward(self, a, b):
        return getattr(self.xp, self.fn)(a, b)


class _Bitwise(Op):
    promote = True
    differentiable = False

    def forward(self, a, b):
        if a.dtype.kind == "f" or a.dtype.kind == "c":
            raise RuntimeError(f'"{self.fn}_cpu" not implemented for '
                               f"'{_dtype._TYPE_DISPLAY.get(a.dtype.name, a.dtype.name)}'")
        return getattr(self.xp, self.fn)(a, b)


class LogicalNot(Op):
    differentiable = False

    def forward(self, x):
        return self.xp.logical_not(x)


class BitwiseNot(Op):
    differentiable = False

    def forward(self, x):
        if x.dtype.kind in "fc":
            raise RuntimeError("bitwise_not: expected an integer or bool tensor, but got "
                               f"{_dtype._FROM_NP[x.dtype]}")
        return self.xp.logical_not(x) if x.dtype == np.bool_ else self.xp.invert(x)


class _Classify(Op):
    differentiable = False

    def forward(self, x):
        if x.dtype.kind not in "fc":
            return self.xp.full(x.shape, self.fn == "isfinite")
        return getattr(self.xp, self.fn)(x)


# ---------------------------------------------------------------------------------------------
# public functions


def _check_tensor_arg(fn, x):
    if not isinstance(x, (Tensor, int, float, bool, complex, np.generic)):
        raise TypeError(f"{fn}(): argument 'other' must be Tensor or Number, but got "
                        f"{type(x).__name__}")


def add(input, other, *, alpha=1, out=None):
    """Return ``input + alpha * other`` with broadcasting and type promotion.

    Example:
        >>> torch.add(torch.tensor([1., 2.]), 1, alpha=2)
        tensor([3., 4.])
    """
    _check_tensor_arg("add", other)
    return _out(Add.apply(input, other, alpha=alpha) if alpha != 1 else
                Add.apply(input, other), out)


def sub(input, other, *, alpha=1, out=None):
    """Return ``input - alpha * other``; bool tensors are rejected as in torch."""
    _check_tensor_arg("sub", other)
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    return _out(Sub.apply(input, other, alpha=alpha) if alpha != 1 else
                Sub.apply(input, other), out)


subtract = sub


def rsub(input, other, *, alpha=1):
    """Return ``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


def mul(input, other, *, out=None):
    """Return ``input * other`` elementwise."""
    _check_tensor_arg("mul", other)
    return _out(Mul.apply(input, other), out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """Divide elementwise; ``rounding_mode`` None (true division), 'trunc' or 'floor'.

    True division of integers gives the default float dtype, as in torch.
    """
    _check_tensor_arg("div", other)
    if rounding_mode is None:
        return _out(Div.apply(input, other), out)
    if rounding_mode == "floor":
        return _out(FloorDivide.apply(input, other), out)
    if rounding_mode == "trunc":
        return _out(TruncDivide.apply(input, other), out)
    raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                     f"found '{rounding_mode}'")


divide = div


def true_divide(input, other, *, out=None):
    """Same as :func:`div` with ``rounding_mode=None``."""
    return div(input, other, out=out)


def floor_divide(input, other, *, out=None):
    """Return ``floor(input / other)``; not differentiable."""
    return _out(FloorDivide.apply(input, other), out)


def remainder(input, other, *, out=None):
    """Python-style modulus: the result has the sign of ``other``."""
    return _out(Remainder.apply(input, other), out)


def fmod(input, other, *, out=None):
    """C-style modulus: the result has the sign of ``input``."""
    return _out(Fmod.apply(input, other), out)


def pow(input, exponent, *, out=None):  # noqa: A001 - torch's name
    """Raise ``input`` to ``exponent`` elementwise (either may be a number)."""
    if not isinstance(input, Tensor):
        return _out(Pow.apply(input, exponent), out)
    if isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
        dt = _dtype.result_type(input, exponent)
        if dt._category >= _dtype._FLOAT or exponent >= 0:
            x = input if input.dtype is dt else input.to(dt)
            return _out(PowScalar.apply(x, exponent=exponent), out)
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _out(Pow.apply(input, exponent), out)


def atan2(input, other, *, out=None):
    """Elementwise arctangent of ``input / other`` with the quadrant taken into account."""
    return _out(Atan2.apply(input, other), out)


arctan2 = atan2


def maximum(input, other, *, out=None):
    """Elementwise maximum of two tensors (NaN propagates)."""
    return _out(Maximum.apply(input, other), out)


def minimum(input, other, *, out=None):
    """Elementwise minimum of two tensors (NaN propagates)."""
    return _out(Minimum.apply(input, other), out)


def where(condition, input=None, other=None):
    """Pick ``input`` where ``condition`` is true and ``other`` elsewhere.

    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.
    """
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not "
                        f"{type(condition).__name__}")
    if condition.dtype is not _dtype.bool:
        if condition.dtype is _dtype.uint8:
            condition = condition.to(_dtype.bool)
        else:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {_dtype._TYPE_DISPLAY[condition.dtype.name]}")
    dt = _dtype.result_type(input, other)
    a = input.to(dt) if isinstance(input, Tensor) else input
    b = other.to(dt) if isinstance(other, Tensor) else other
    if not isinstance(a, Tensor):
        a = dt.np.type(a)
    if not isinstance(b, Tensor):
        b = dt.np.type(b)
    return Where.apply(condition, a, b)


def lerp(input, end, weight, *, out=None):
    """Return ``input + weight * (end - input)``."""
    return _out(add(input, mul(weight, sub(end, input))), out)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """Return ``input + value * tensor1 * tensor2``."""
    prod = mul(tensor1, tensor2)
    return _out(add(input, prod if value == 1 else mul(prod, value)), out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """Return ``input + value * tensor1 / tensor2``."""
    if not (_is_float(tensor1) or _is_float(tensor2)):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future release addcdiv will perform a true division of tensor1 and "
                           "tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    q = div(tensor1, tensor2)
    return _out(add(input, q if value == 1 else mul(q, value)), out)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002 - torch's names
    """Clamp every element into ``[min, max]`` (either bound may be None or a tensor)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        r = input
        if min is not None:
            r = where(r < min, min, r)
        if max is not None:
            r = where(r > max, max, r)
        return _out(r, out)
    dt = _dtype.result_type(input, *(b for b in (min, max) if b is not None))
    x = input if input.dtype is dt else input.to(dt)
    return _out(Clamp.apply(x, min=min, max=max), out)


clip = clamp


def _unary(cls):
    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            raise TypeError(f"{cls.__name__.lower()}(): argument 'input' must be Tensor, not "
                            f"{type(input).__name__}")
        return _out(cls.apply(input), out)

    return fn


neg = _unary(Neg)
negative = neg
abs = _unary(Abs)  # noqa: A001
absolute = abs
reciprocal = _unary(Reciprocal)
sqrt = _unary(Sqrt)
rsqrt = _unary(Rsqrt)
exp = _unary(Exp)
exp2 = _unary(Exp2)
expm1 = _unary(Expm1)
log = _unary(Log)
log1p = _unary(Log1p)
log2 = _unary(Log2)
log10 = _unary(Log10)
sin = _unary(Sin)
cos = _unary(Cos)
tan = _unary(Tan)
asin = arcsin = _unary(Asin)
acos = arccos = _unary(Acos)
atan = arctan = _unary(Atan)
sinh = _unary(Sinh)
cosh = _unary(Cosh)
tanh = _unary(Tanh)
asinh = arcsinh = _unary(Asinh)
acosh = arccosh = _unary(Acosh)
atanh = arctanh = _unary(Atanh)
sigmoid = _unary(Sigmoid)
relu = _unary(Relu)
sign = _unary(Sign)
floor = _unary(Floor)
ceil = _unary(Ceil)
trunc = fix = _unary(Trunc)
frac = _unary(Frac)
erf = _unary(Erf)
logical_not = _unary(LogicalNot)
bitwise_not = _unary(BitwiseNot)


def square(input, *, out=None):
    """Return ``input * input``."""
    return _out(pow(input, 2), out)


def round(input, *, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` digits, halves to even (as torch)."""
    return _out(Round.apply(input, decimals=decimals), out)


def _compare(cls, name):
    def fn(input, other, *, out=None):
        _check_tensor_arg(name, other)
        return _out(cls.apply(input, other), out)

    fn.__name__ = name
    return fn


eq = _compare(Eq, "eq")
ne = not_equal = _compare(Ne, "ne")
lt = less = _compare(Lt, "lt")
le = less_equal = _compare(Le, "le")
gt = greater = _compare(Gt, "gt")
ge = greater_equal = _compare(Ge, "ge")


def _binary_named(cls, fn_name):
    def fn(input, other, *, out=None):
        return _out(cls.apply(input, other, fn=fn_name), out)

    fn.__name__ = fn_name
    return fn


logical_and = _binary_named(_Logical, "logical_and")
logical_or = _binary_named(_Logical, "logical_or")
logical_xor = _binary_named(_Logical, "logical_xor")
bitwise_and = _binary_named(_Bitwise, "bitwise_and")
bitwise_or = _binary_named(_Bitwise, "bitwise_or")
bitwise_xor = _binary_named(_Bitwise, "bitwise_xor")


def isnan(input):
    """True where ``input`` is NaN."""
    return _Classify.apply(input, fn="isnan")


def isinf(input):
    """True where ``input`` is +/-inf."""
    return _Classify.apply(input, fn="isinf")


def isfinite(input):
    """True where ``input`` is neither NaN nor infinite."""
    return _Classify.apply(input, fn="isfinite")


def equal(input, other):
    """True if both tensors have the same shape and elements."""
    if input.shape != other.shape:
        return False
    return bool(eq(input, other).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|``."""
    a, b = input._array, (other._array if isinstance(other, Tensor) else other)
    xp = np if type(a) is np.ndarray else __import__("numtorch").backend.xp_of(a)
    return _make(xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True if every element is close (see :func:`isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def _is_bool(x):
    return isinstance(x, (bool, np.bool_)) or (isinstance(x, Tensor) and x.dtype is _dtype.bool)


def _is_float(x):
    if isinstance(x, Tensor):
        return x.dtype._category >= _dtype._FLOAT
    return isinstance(x, (float, complex))


def _out(result, out):
    """Honour torch's ``out=`` argument: write ``result`` into ``out`` (resized if empty)."""
    if out is None:
        return result
    from ..autograd.inplace import apply_inplace

    if out.shape != result.shape:
        if out.numel() != 0:
            import warnings

            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}.", UserWarning, stacklevel=3)
        xp = np if type(out._array) is np.ndarray else __import__("numtorch").backend.xp_of(
            out._array)
        out._array = xp.empty(result._array.shape, out._array.dtype)
    return apply_inplace(out, lambda _, r: r, result)
