"""Pointwise ops: arithmetic, unary math, comparisons and logic.

Binary ops set ``promote = True`` so ``Op.apply`` casts their inputs to torch's result dtype;
float-only functions set ``promote = "float"`` so integer inputs compute in the default float
dtype, as torch does. Backward passes return gradients in the broadcast shape; the engine sums
them back to each input's shape.
"""

import math
import operator

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from ..backend import helpers_for, xp_of as backend_xp

__all__ = [
    "add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod",
    "pow", "atan2", "maximum", "minimum", "where", "lerp", "addcmul", "addcdiv", "clamp",
    "clip", "clamp_min", "clamp_max", "neg", "positive", "abs", "reciprocal", "sqrt", "rsqrt",
    "square", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid",
    "relu", "sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "erf", "eq", "ne", "lt",
    "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf", "isfinite", "equal",
    "allclose", "isclose",
    # torch's aliases (the same function objects)
    "subtract", "multiply", "divide", "negative", "absolute", "arcsin", "arccos", "arctan",
    "arcsinh", "arccosh", "arctanh", "arctan2", "fix", "not_equal", "less", "less_equal",
    "greater", "greater_equal",
]


def _broadcast_error(exc, *arrays):
    """Raise torch's error when ``arrays`` do not broadcast together; else re-raise ``exc``.

    Binary ops call this from ``except ValueError`` around their NumPy call, so the check costs
    nothing unless NumPy has already failed. Like torch, the shapes are joined left to right
    and the message names the rightmost clashing dimension of the broadcast result.
    """
    shape = ()
    for arr in arrays:
        s = getattr(arr, "shape", ())
        n = len(shape) if len(shape) > len(s) else len(s)
        a = (1,) * (n - len(shape)) + tuple(shape)
        b = (1,) * (n - len(s)) + tuple(s)
        for i in range(n - 1, -1, -1):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor "
                                   f"b ({b[i]}) at non-singleton dimension {i}") from None
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))
    raise exc


def _not_implemented(kernel, dt):
    """torch's error for a kernel that has no version for dtype ``dt`` (a NumPy dtype)."""
    name = _dtype._TYPE_DISPLAY.get(dt.name, dt.name)
    return NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


# ---------------------------------------------------------------------------------------------
# binary arithmetic


class Add(Op):
    """y = a + alpha * b; dy/da = 1, dy/db = alpha."""

    promote = True
    alpha = 1

    def forward(self, a, b):
        try:
            if self.alpha == 1:
                return a + b
            return a + b * self.alpha
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        return grad, (grad if self.alpha == 1 else grad * self.alpha)


class Sub(Op):
    """y = a - alpha * b; dy/da = 1, dy/db = -alpha."""

    promote = True
    alpha = 1

    def forward(self, a, b):
        try:
            if self.alpha == 1:
                return a - b
            return a - b * self.alpha
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        return grad, (-grad if self.alpha == 1 else grad * (-self.alpha))


class Mul(Op):
    """y = a * b; dy/da = b, dy/db = a."""

    promote = True

    def forward(self, a, b):
        self.save_operands_for_product(a, b)
        try:
            return a * b
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_operands()
        return (grad * b if b is not None else None), (grad * a if a is not None else None)


class Div(Op):
    """y = a / b; dy/da = 1/b, dy/db = -a/b**2."""

    promote = "float"

    def forward(self, a, b):
        if self._recording:  # a's gradient reads only b; b's reads both
            self.save_inputs(a, b) if self.needs_input_grad[1] else self.save_inputs(b)
        try:
            return a / b
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        na, nb = self.needs_input_grad
        if nb:
            a, b = self.saved_inputs()
        else:
            a, b = None, self.saved_inputs()
        ga = grad / b if na else None
        gb = -grad * a / (b * b) if nb else None
        return ga, gb


class FloorDivide(Op):
    """y = floor(a / b) (integer or float); torch defines no derivative, so backward raises."""

    promote = True

    def forward(self, a, b):
        xp = self.xp
        kind = a.dtype.kind
        if kind in "iubc":
            if kind in "bc":
                raise _not_implemented("div_floor_cpu", a.dtype)
            _check_int_divisor(xp, b)
        try:
            # NumPy's floor_divide corrects a / b for rounding as Python and torch do
            # (1 // 0.1 == 9), which floor(a / b) does not
            return xp.floor_divide(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class DivFloor(FloorDivide):
    """y = floor(a / b) for ``div(rounding_mode='floor')``; dy/da = dy/db = 0 (as torch)."""

    def backward(self, grad):
        z = _zeros_like(grad)
        return z, z


class DivTrunc(Op):
    """y = trunc(a / b) for ``div(rounding_mode='trunc')``; dy/da = dy/db = 0 (as torch)."""

    promote = True

    def forward(self, a, b):
        xp = self.xp
        kind = a.dtype.kind
        try:
            if kind in "iubc":
                if kind in "bc":
                    raise _not_implemented("div_trunc_cpu", a.dtype)
                _check_int_divisor(xp, b)
                q = xp.floor_divide(a, b)
                return q + ((q < 0) & (q * b != a))  # floor -> trunc for inexact negatives
            return xp.trunc(a / b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        z = _zeros_like(grad)
        return z, z


def _zeros_like(t):
    """Constant zeros shaped like ``t`` (a zero derivative; nothing to differentiate)."""
    return _make(backend_xp(t._array).zeros(t._array.shape, t._array.dtype))


def _check_int_divisor(xp, b):
    if not xp.all(b):  # torch raises for integer division by zero instead of returning junk
        raise RuntimeError("ZeroDivisionError")


class Remainder(Op):
    """y = a - floor(a/b) * b (sign of b); dy/da = 1, dy/db = -floor(a/b)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        kind = a.dtype.kind
        if kind in "iubc":
            if kind in "bc":
                raise _not_implemented("remainder_cpu", a.dtype)
            _check_int_divisor(self.xp, b)
        try:
            return self.xp.remainder(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        if not self.needs_input_grad[1]:
            return grad, None
        return grad, -grad * div(a, b, rounding_mode="floor")


class Fmod(Op):
    """y = a - trunc(a/b) * b (sign of a); dy/da = 1, dy/db = -trunc(a/b)."""

    promote = True

    def forward(self, a, b):
        self.save_inputs(a, b)
        kind = a.dtype.kind
        if kind in "iubc":
            if kind in "bc":
                raise _not_implemented("fmod_cpu", a.dtype)
            _check_int_divisor(self.xp, b)
        try:
            return self.xp.fmod(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        if not self.needs_input_grad[1]:
            return grad, None
        return grad, -grad * div(a, b, rounding_mode="trunc")


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
            return _zeros_like(grad)
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
        kind = a.dtype.kind
        try:
            if kind in "iub":
                if kind == "b":
                    raise _not_implemented("pow", a.dtype)
                return _int_power(xp, a, b)  # integer results never need saving
            return self.save_output(xp.power(a, b))
        except ValueError as e:
            _broadcast_error(e, a, b)

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


def _int_power(xp, a, b):
    """Integer ``a ** b``; for ``b < 0`` torch gives 1 for a base 1, +/-1 for -1, else 0."""
    neg = b < 0
    if not xp.any(neg):
        return xp.power(a, b)
    r = xp.power(a, xp.where(neg, 0, b))
    odd = (b & 1).astype(bool)
    inv = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0))
    return xp.where(neg, inv, r).astype(r.dtype, copy=False)


class Atan2(Op):
    """y = atan2(a, b); dy/da = b / (a^2 + b^2), dy/db = -a / (a^2 + b^2)."""

    promote = "float"

    def forward(self, a, b):
        if a.dtype.kind == "c":
            raise _not_implemented("atan2_cpu", a.dtype)
        self.save_inputs(a, b)
        try:
            return self.xp.arctan2(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        r = grad / (a * a + b * b)
        return r * b, -r * a


class Maximum(Op):
    """y = max(a, b) elementwise; the gradient is split in half where a == b (as torch)."""

    promote = True

    def forward(self, a, b):
        if a.dtype.kind == "c":
            raise RuntimeError("maximum not implemented for complex tensors.")
        self.save_inputs(a, b)
        try:
            return self.xp.maximum(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        half = where(a == b, grad * 0.5, grad)
        return where(a < b, 0.0, half), where(b < a, 0.0, half)


class Minimum(Op):
    """y = min(a, b) elementwise; the gradient is split in half where a == b (as torch)."""

    promote = True

    def forward(self, a, b):
        if a.dtype.kind == "c":
            raise RuntimeError("minimum not implemented for complex tensors.")
        self.save_inputs(a, b)
        try:
            return self.xp.minimum(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)

    def backward(self, grad):
        a, b = self.saved_inputs()
        half = where(a == b, grad * 0.5, grad)
        return where(a > b, 0.0, half), where(b > a, 0.0, half)


class Where(Op):
    """y = cond ? a : b; dy/da = cond, dy/db = not cond."""

    def forward(self, cond, a, b):
        self.save(cond=cond)
        try:
            return self.xp.where(cond, a, b)
        except ValueError as e:
            _broadcast_error(e, cond, a, b)

    def backward(self, grad):
        cond = _make(self.saved("cond"))
        na, nb = self.needs_input_grad[1:]
        return (None, where(cond, grad, 0.0) if na else None,
                where(cond, 0.0, grad) if nb else None)


class Clamp(Op):
    """y = min(max(x, lo), hi) with number bounds; dy/dx = 1 inside [lo, hi], else 0."""

    def forward(self, x):
        if x.dtype.kind == "c":
            raise NotImplementedError("clamp is not supported for complex types")
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
        if x.dtype.kind == "b":
            raise _not_implemented("abs_cpu", x.dtype)
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
        if x.dtype.kind == "c":
            return self.save_output(1 / (1 + xp.exp(-x)))
        # e^-|x| never overflows: 1/(1+e) for x >= 0 and e/(1+e) below keep full relative
        # precision in both tails (torch's tiny values for very negative x)
        e = xp.exp(-xp.abs(x))
        y = (xp.where(x >= 0, 1, e) / (1 + e)).astype(x.dtype, copy=False)
        return self.save_output(y)

    def backward(self, grad):
        y = self.saved_output()
        return grad * y * (1 - y)


class Relu(Op):
    """y = max(x, 0); dy/dx = 1 where y > 0 (0 at x == 0, as torch)."""

    def forward(self, x):
        kind = x.dtype.kind
        if kind == "b" or kind == "c":
            if kind == "c":
                raise NotImplementedError("clamp is not supported for complex types")
            raise RuntimeError("Boolean inputs not supported for relu")
        return self.save_output(self.xp.maximum(x, x.dtype.type(0)))

    def backward(self, grad):
        return where(self.saved_output() > 0, grad, 0.0)


class Erf(Op):
    """y = erf x; dy/dx = 2/sqrt(pi) e^(-x^2)."""

    promote = "float"

    def forward(self, x):
        if x.dtype.kind == "c":
            raise _not_implemented("erf_vml_cpu", x.dtype)
        self.save_inputs(x)
        return helpers_for(self.xp).erf(x).astype(x.dtype, copy=False)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * exp(-(x * x)) * (2.0 / math.sqrt(math.pi))


class _ZeroGrad(Op):
    """Piecewise-constant functions: the gradient is zero almost everywhere (as torch)."""

    def backward(self, grad):
        return _zeros_like(grad)


class Sign(_ZeroGrad):
    """y = sign(x) (0 for NaN, as torch); dy/dx = 0."""

    def forward(self, x):
        kind = x.dtype.kind
        if kind == "b" or kind == "c":
            if kind == "c":
                raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support "
                                          "complex numbers. Please use torch.sgn instead.")
            return x.copy()
        if kind == "f":
            # NumPy gives NaN for NaN; torch's (0 < x) - (x < 0) gives 0
            y = self.xp.sign(x, out=self.xp.empty_like(x))
            return self.xp.nan_to_num(y, copy=False, nan=0.0)
        return self.xp.sign(x)


class Sgn(Sign):
    """y = x / |x| (0 at 0) for complex x, sign(x) for real x; dy/dx = 0 for real x."""

    def forward(self, x):
        if x.dtype.kind == "c":
            return self.xp.sign(x)  # NumPy >= 2 gives x / |x| for complex, as torch.sgn
        return Sign.forward(self, x)


class _Rounding(_ZeroGrad):
    """floor/ceil/trunc: the identity on integers; torch has no bool kernel."""

    def forward(self, x):
        kind = x.dtype.kind
        if kind == "f":
            return getattr(self.xp, self.fn)(x)
        if kind == "b":
            raise _not_implemented(f"{self.fn}_vml_cpu", x.dtype)
        if kind == "c":
            raise NotImplementedError(f"{self.fn} is not supported for complex inputs")
        return x.copy()


class Floor(_Rounding):
    """y = floor(x); dy/dx = 0."""

    fn = "floor"


class Ceil(_Rounding):
    """y = ceil(x); dy/dx = 0."""

    fn = "ceil"


class Trunc(_Rounding):
    """y = trunc(x); dy/dx = 0."""

    fn = "trunc"


class Round(_ZeroGrad):
    """y = round-half-to-even(x * 10^d) / 10^d; dy/dx = 0."""

    def forward(self, x):
        kind = x.dtype.kind
        if kind == "f":
            return self.xp.round(x, self.decimals)
        if kind in "bc" or self.decimals:
            raise _not_implemented("round_cpu" if self.decimals else "round_vml_cpu", x.dtype)
        return x.copy()


class Frac(Op):
    """y = x - trunc(x); dy/dx = 1."""

    def forward(self, x):
        if x.dtype.kind != "f":
            raise _not_implemented("frac_cpu", x.dtype)
        return x - self.xp.trunc(x)

    def backward(self, grad):
        return grad


# ---------------------------------------------------------------------------------------------
# comparison and logic (no gradient)


class _Compare(Op):
    """y = compare(a, b) after promotion; no gradient."""

    promote = True
    differentiable = False

    def forward(self, a, b):
        try:
            return self.compare(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


class Eq(_Compare):
    """y = (a == b); no gradient."""

    compare = staticmethod(operator.eq)


class Ne(_Compare):
    """y = (a != b); no gradient."""

    compare = staticmethod(operator.ne)


class _Order(_Compare):
    """Ordering comparisons: torch has no complex kernels for them."""

    def forward(self, a, b):
        if a.dtype.kind == "c":
            raise _not_implemented(f"{type(self).__name__.lower()}_cpu", a.dtype)
        try:
            return self.compare(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


class Lt(_Order):
    """y = (a < b); no gradient."""

    compare = staticmethod(operator.lt)


class Le(_Order):
    """y = (a <= b); no gradient."""

    compare = staticmethod(operator.le)


class Gt(_Order):
    """y = (a > b); no gradient."""

    compare = staticmethod(operator.gt)


class Ge(_Order):
    """y = (a >= b); no gradient."""

    compare = staticmethod(operator.ge)


class _Logical(Op):
    """y = a and/or/xor b on truth values (any dtypes, no promotion); no gradient."""

    differentiable = False

    def forward(self, a, b):
        try:
            return getattr(self.xp, self.fn)(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


class _Bitwise(Op):
    """y = a &/|/^ b on integers and bools; no gradient."""

    promote = True
    differentiable = False

    def forward(self, a, b):
        if a.dtype.kind in "fc":
            raise _not_implemented(f"{self.fn}_cpu", a.dtype)
        try:
            return getattr(self.xp, self.fn)(a, b)
        except ValueError as e:
            _broadcast_error(e, a, b)


class LogicalNot(Op):
    """y = not x (x == 0); no gradient."""

    differentiable = False

    def forward(self, x):
        return self.xp.logical_not(x)


class BitwiseNot(Op):
    """y = ~x on integers (logical not on bools); no gradient."""

    differentiable = False

    def forward(self, x):
        if x.dtype.kind in "fc":
            raise _not_implemented("bitwise_not_cpu", x.dtype)
        return self.xp.logical_not(x) if x.dtype == np.bool_ else self.xp.invert(x)


class _Classify(Op):
    """y = isnan/isinf/isfinite(x) (constant for integers); no gradient."""

    differentiable = False

    def forward(self, x):
        if x.dtype.kind not in "fc":
            return self.xp.full(x.shape, self.fn == "isfinite")
        return getattr(self.xp, self.fn)(x)


# ---------------------------------------------------------------------------------------------
# public functions


_NUMBER = (int, float, bool, complex, np.generic)


def _check_number_or_tensor(fn, x, name="other", pos=2):
    if not isinstance(x, Tensor) and not isinstance(x, _NUMBER):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor or Number, "
                        f"not {type(x).__name__}")


def _check_tensor(fn, x, name="input", pos=1):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _check_alpha(fn, input, other, alpha):
    """torch refuses a float alpha for integer results and a bool alpha for non-bool ones."""
    dt = _dtype.result_type(input, other)
    if isinstance(alpha, float) and dt._category < _dtype._FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, bool) and dt is not _dtype.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")


def add(input, other, *, alpha=1, out=None):
    """Add ``alpha * other`` to ``input`` elementwise, with broadcasting and type promotion.

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the second operand.
        alpha (Number): multiplier of ``other``. Default: 1.
        out (Tensor, optional): tensor to write the result into.

    Returns:
        Tensor: ``input + alpha * other`` in the promoted dtype.

    Example:
        >>> torch.add(torch.tensor([1., 2.]), 1, alpha=2)
        tensor([3., 4.])
    """
    if not isinstance(other, Tensor):
        _check_number_or_tensor("add", other)
    if alpha != 1 or alpha is True:
        _check_alpha("add", input, other, alpha)
        return _out(Add.apply(input, other, alpha=alpha), out, "add")
    return _out(Add.apply(input, other), out, "add")


def _bool_operand(x):
    return x.__class__ is bool or (isinstance(x, Tensor) and x._array.dtype.kind == "b")


def _bool_sub_error(both):
    if both:
        return RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                            "supported. Use the `^` or `logical_xor()` operator instead.")
    return RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                        "If you are trying to invert a mask, use the `~` or `logical_not()` "
                        "operator instead.")


def sub(input, other, *, alpha=1, out=None):
    """Subtract ``alpha * other`` from ``input`` elementwise (broadcasting, promotion).

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the operand to subtract.
        alpha (Number): multiplier of ``other``. Default: 1.
        out (Tensor, optional): tensor to write the result into.

    Returns:
        Tensor: ``input - alpha * other``.

    Note:
        As in torch, bool operands are rejected: use ``^`` or ``logical_not`` instead.

    Example:
        >>> torch.sub(torch.tensor([5, 7]), torch.tensor([1, 2]), alpha=2)
        tensor([3, 3])
    """
    # inlined type checks: sub is on the tiny-op hot path
    if isinstance(other, Tensor):
        bool_b = other._array.dtype.kind == "b"
    else:
        _check_number_or_tensor("sub", other)
        bool_b = other.__class__ is bool
    bool_a = input._array.dtype.kind == "b" if isinstance(input, Tensor) else \
        input.__class__ is bool
    if bool_a or bool_b:
        raise _bool_sub_error(bool_a and bool_b)
    if alpha != 1:
        _check_alpha("sub", input, other, alpha)
        return _out(Sub.apply(input, other, alpha=alpha), out, "sub")
    return _out(Sub.apply(input, other), out, "sub")


subtract = sub


def rsub(input, other, *, alpha=1):
    """Return ``other - alpha * input`` (subtraction with the operands swapped).

    Example:
        >>> torch.rsub(torch.tensor([1., 2.]), 5)
        tensor([4., 3.])
    """
    return sub(other, input, alpha=alpha)


def mul(input, other, *, out=None):
    """Multiply ``input`` by ``other`` elementwise, with broadcasting and type promotion.

    Args:
        input (Tensor): the first factor.
        other (Tensor or Number): the second factor.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.mul(torch.tensor([1., 2.]), 3)
        tensor([3., 6.])
    """
    if not isinstance(other, Tensor):
        _check_number_or_tensor("mul", other)
    return _out(Mul.apply(input, other), out, "mul")


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """Divide ``input`` by ``other`` elementwise.

    Args:
        input (Tensor): the dividend.
        other (Tensor or Number): the divisor.
        rounding_mode (str, optional): None for true division (integers give the default
            float dtype), ``'trunc'`` to round toward zero, ``'floor'`` to round down; the
            rounded forms keep integer dtypes and raise on integer division by zero.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor")
        tensor([ 3, -4])
    """
    if not isinstance(other, Tensor):
        _check_number_or_tensor("div", other)
    if rounding_mode is None:
        return _out(Div.apply(input, other), out, "div")
    if rounding_mode == "floor":
        return _out(DivFloor.apply(input, other), out, "div")
    if rounding_mode == "trunc":
        return _out(DivTrunc.apply(input, other), out, "div")
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


divide = div


def true_divide(input, other, *, out=None):
    """Same as :func:`div` with ``rounding_mode=None``."""
    return div(input, other, out=out)


def floor_divide(input, other, *, out=None):
    """Divide and round down elementwise (Python's ``//``); torch gives it no derivative.

    Example:
        >>> torch.floor_divide(torch.tensor([7., -7.]), 2)
        tensor([ 3., -4.])
    """
    _check_number_or_tensor("floor_divide", other)
    r = FloorDivide.apply(input, other)
    if out is None:
        return r
    # torch lets out= through with grad-requiring inputs here: there is no derivative to lose
    return _out(r.detach(), out, "floor_divide")


def remainder(input, other, *, out=None):
    """Python-style modulus: the result has the sign of ``other`` (``input % other``).

    Example:
        >>> torch.remainder(torch.tensor([-3, 3]), 2)
        tensor([1, 1])
    """
    _check_number_or_tensor("remainder", other)
    return _out(Remainder.apply(input, other), out, "remainder")


def fmod(input, other, *, out=None):
    """C-style modulus: the result has the sign of ``input``.

    Example:
        >>> torch.fmod(torch.tensor([-3, 3]), 2)
        tensor([-1,  1])
    """
    _check_tensor("fmod", input)
    _check_number_or_tensor("fmod", other)
    return _out(Fmod.apply(input, other), out, "fmod")


def pow(input, exponent, *, out=None):  # noqa: A001 - torch's name
    """Raise ``input`` to ``exponent`` elementwise; either (not both) may be a number.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.
        out (Tensor, optional): tensor to write the result into.

    Note:
        As in torch, an integer tensor raised to a negative Python integer raises, while a
        negative exponent *tensor* gives 0 (or 1 / -1 for the bases 1 / -1).

    Example:
        >>> torch.pow(torch.tensor([1., 2., 3.]), 2)
        tensor([1., 4., 9.])
    """
    if not isinstance(input, Tensor):
        _check_number_or_tensor("pow", input, "self", 1)
        _check_tensor("pow", exponent, "exponent", 2)
        return _out(Pow.apply(input, exponent), out, "pow")
    cls = exponent.__class__
    if cls is not int and cls is not float and isinstance(exponent, np.generic):
        # torch treats NumPy scalars as Python numbers (NumPy bools as floats)
        exponent = float(exponent) if exponent.dtype.kind == "b" else exponent.item()
        cls = exponent.__class__
    if cls is int or cls is float or cls is bool:
        dt = _dtype.result_type(input, exponent)
        if dt._category >= _dtype._FLOAT or exponent >= 0:
            x = input if input.dtype is dt else input.to(dt)
            return _out(PowScalar.apply(x, exponent=exponent), out, "pow")
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    _check_number_or_tensor("pow", exponent, "exponent")
    return _out(Pow.apply(input, exponent), out, "pow")


def atan2(input, other, *, out=None):
    """Elementwise arctangent of ``input / other``, using both signs to pick the quadrant.

    Example:
        >>> torch.atan2(torch.tensor([1., -1.]), torch.tensor([-1., -1.]))
        tensor([ 2.3562, -2.3562])
    """
    _check_tensor("atan2", input)
    _check_tensor("atan2", other, "other", 2)
    return _out(Atan2.apply(input, other), out, "atan2")


arctan2 = atan2


def maximum(input, other, *, out=None):
    """Elementwise maximum of two tensors; NaN propagates, ties split the gradient.

    Example:
        >>> torch.maximum(torch.tensor([1., 4.]), torch.tensor([3., 2.]))
        tensor([3., 4.])
    """
    _check_tensor("maximum", input)
    _check_tensor("maximum", other, "other", 2)
    return _out(Maximum.apply(input, other), out, "maximum")


def minimum(input, other, *, out=None):
    """Elementwise minimum of two tensors; NaN propagates, ties split the gradient.

    Example:
        >>> torch.minimum(torch.tensor([1., 4.]), torch.tensor([3., 2.]))
        tensor([1., 2.])
    """
    _check_tensor("minimum", input)
    _check_tensor("minimum", other, "other", 2)
    return _out(Minimum.apply(input, other), out, "minimum")


def where(condition, input=None, other=None):
    """Pick ``input`` where ``condition`` is true and ``other`` elsewhere.

    Args:
        condition (Tensor): a bool tensor (uint8 is accepted, as torch still does).
        input (Tensor or Number): values where ``condition`` is true.
        other (Tensor or Number): values where it is false.

    Returns:
        Tensor: the broadcast selection in the promoted dtype of ``input`` and ``other``.
        ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``.

    Example:
        >>> x = torch.tensor([-1., 2.])
        >>> torch.where(x > 0, x, 0.)
        tensor([0., 2.])
    """
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        _check_tensor("where", condition, "condition")
    if condition._array.dtype.kind != "b":
        if condition.dtype is _dtype.uint8:
            condition = condition.to(_dtype.bool)
        else:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {_dtype._TYPE_DISPLAY[condition.dtype.name]}")
    dt = _dtype.result_type(input, other)
    if isinstance(input, Tensor):
        a = input if input._array.dtype == dt.np else input.to(dt)
    else:
        _check_number_or_tensor("where", input, "input", 2)
        a = _scalar_as(dt, input)
    if isinstance(other, Tensor):
        b = other if other._array.dtype == dt.np else other.to(dt)
    else:
        _check_number_or_tensor("where", other, "other", 3)
        b = _scalar_as(dt, other)
    return Where.apply(condition, a, b)


def _scalar_as(dt, value):
    """A Python number as a NumPy scalar of ``dt``, wrapping out-of-range integers as torch."""
    try:
        return dt.np.type(value)
    except (OverflowError, ValueError):
        return np.array(value).astype(dt.np)[()]


def _float_kernel_dtype(fn, kernel, *tensors):
    """torch's lerp demands one floating dtype for all dimensioned tensor operands."""
    ref = tensors[0]
    for name, t in zip(("end", "weight"), tensors[1:]):
        if isinstance(t, Tensor) and t.dtype is not ref.dtype and t.ndim:
            raise RuntimeError(f"expected dtype {_dtype._TYPE_DISPLAY[ref.dtype.name].lower()} "
                               f"for `{name}` but got dtype "
                               f"{_dtype._TYPE_DISPLAY[t.dtype.name].lower()}")
    if not ref.dtype.is_floating_point and not ref.dtype.is_complex:
        raise _not_implemented(kernel, ref._array.dtype)


def lerp(input, end, weight, *, out=None):
    """Linear interpolation ``input + weight * (end - input)``.

    Args:
        input (Tensor): the start points.
        end (Tensor): the end points (same dtype as ``input``).
        weight (float or Tensor): the interpolation weight.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.lerp(torch.tensor([0., 10.]), torch.tensor([10., 20.]), 0.5)
        tensor([ 5., 15.])
    """
    _check_tensor("lerp", input)
    _check_tensor("lerp", end, "end", 2)
    _check_number_or_tensor("lerp", weight, "weight", 3)
    kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
    _float_kernel_dtype("lerp", kernel, input, end, weight)
    if isinstance(weight, Tensor) and weight.dtype is not input.dtype:
        weight = weight.to(input.dtype)  # a 0-d weight may differ; torch computes in input's
    return _out(add(input, mul(weight, sub(end, input))), out, "lerp")


def _int_value(value, *tensors):
    # torch truncates a float ``value`` when the result is integral
    if isinstance(value, float) and _dtype.result_type(*tensors)._category < _dtype._FLOAT:
        return int(value)
    return value


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """Return ``input + value * tensor1 * tensor2`` elementwise.

    Example:
        >>> torch.addcmul(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([3., 4.]), value=2)
        tensor([ 7., 17.])
    """
    for i, (name, t) in enumerate((("input", input), ("tensor1", tensor1),
                                   ("tensor2", tensor2))):
        _check_tensor("addcmul", t, name, i + 1)
    if _bool_operand(input) and _bool_operand(tensor1) and _bool_operand(tensor2):
        raise _not_implemented("addcmul_cpu_out", np.dtype(bool))
    value = _int_value(value, input, tensor1, tensor2)
    prod = mul(tensor1, tensor2)
    return _out(add(input, prod if value == 1 else mul(prod, value)), out, "addcmul")


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """Return ``input + value * tensor1 / tensor2`` elementwise (true division).

    Example:
        >>> torch.addcdiv(torch.ones(2), torch.tensor([1., 2.]), torch.tensor([4., 4.]))
        tensor([1.2500, 1.5000])
    """
    for i, (name, t) in enumerate((("input", input), ("tensor1", tensor1),
                                   ("tensor2", tensor2))):
        _check_tensor("addcdiv", t, name, i + 1)
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
    return _out(add(input, q if value == 1 else mul(q, value)), out, "addcdiv")


def _check_int_bound(dt, v):
    """A number bound for an integer tensor must fit its dtype (unsigned: up to +/- max)."""
    info = np.iinfo(dt.np)
    lo = -info.max if info.min == 0 else info.min
    if isinstance(v, (int, np.integer)) and not lo <= v <= info.max:
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")


def clamp(input, min=None, max=None, *, out=None):  # noqa: A002 - torch's names
    """Clamp every element into ``[min, max]``.

    Args:
        input (Tensor): the input.
        min (Number or Tensor, optional): lower bound.
        max (Number or Tensor, optional): upper bound. Where ``min > max`` the result is
            ``max``, as in torch.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.clamp(torch.tensor([-2., 0.5, 3.]), -1, 1)
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if not isinstance(input, Tensor):
        _check_tensor("clamp", input)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if input.dtype.is_complex:
            raise NotImplementedError("clamp is not supported for complex types")
        r = input
        if min is not None:
            r = where(r < min, min, r)
        if max is not None:
            r = where(r > max, max, r)
        return _out(r, out, "clamp")
    if min is not None and not isinstance(min, _NUMBER):
        _check_number_or_tensor("clamp", min, "min", 2)
    if max is not None and not isinstance(max, _NUMBER):
        _check_number_or_tensor("clamp", max, "max", 3)
    dt = _dtype.result_type(input, min, max)
    if dt is _dtype.bool:
        kernel = "clamp_scalar_cpu" if min is not None and max is not None else (
            "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
        raise _not_implemented(kernel, np.dtype(bool))
    if dt._category == _dtype._INT:
        for b in (min, max):
            _check_int_bound(dt, b)
        # torch wraps in-range negative bounds of unsigned tensors (-2 -> 254 for uint8)
        min, max = (None if b is None else int(np.array(b).astype(dt.np)) for b in (min, max))
    x = input if input.dtype is dt else input.to(dt)
    return _out(Clamp.apply(x, min=min, max=max), out, "clamp")


clip = clamp


def clamp_min(input, min, *, out=None):  # noqa: A002
    """Clamp from below: ``max(input, min)`` (see :func:`clamp`)."""
    return clamp(input, min, None, out=out)


def clamp_max(input, max, *, out=None):  # noqa: A002
    """Clamp from above: ``min(input, max)`` (see :func:`clamp`)."""
    return clamp(input, None, max, out=out)


def _unary(cls, name, summary):
    def fn(input, *, out=None):
        if not isinstance(input, Tensor):
            _check_tensor(name, input)
        return _out(cls.apply(input), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\n    Args:\n        input (Tensor): the input.\n"
                  f"        out (Tensor, optional): tensor to write the result into.\n\n"
                  f"    Returns:\n        Tensor: the elementwise result (integer inputs give "
                  f"the default float dtype\n        where the result is fractional, as in "
                  f"torch).\n")
    return fn


neg = _unary(Neg, "neg", "Return ``-input`` elementwise (bool tensors are rejected).")
negative = neg
abs = _unary(Abs, "abs", "Return the absolute value of each element.")  # noqa: A001
absolute = abs
reciprocal = _unary(Reciprocal, "reciprocal", "Return ``1 / input`` elementwise.")
sqrt = _unary(Sqrt, "sqrt", "Return the square root of each element.")
rsqrt = _unary(Rsqrt, "rsqrt", "Return the reciprocal square root of each element.")
exp = _unary(Exp, "exp", "Return ``e`` raised to each element.")
exp2 = _unary(Exp2, "exp2", "Return 2 raised to each element.")
expm1 = _unary(Expm1, "expm1", "Return ``exp(input) - 1``, accurate near zero.")
log = _unary(Log, "log", "Return the natural logarithm of each element.")
log1p = _unary(Log1p, "log1p", "Return ``log(1 + input)``, accurate near zero.")
log2 = _unary(Log2, "log2", "Return the base-2 logarithm of each element.")
log10 = _unary(Log10, "log10", "Return the base-10 logarithm of each element.")
sin = _unary(Sin, "sin", "Return the sine of each element (radians).")
cos = _unary(Cos, "cos", "Return the cosine of each element (radians).")
tan = _unary(Tan, "tan", "Return the tangent of each element (radians).")
asin = arcsin = _unary(Asin, "asin", "Return the arcsine of each element.")
acos = arccos = _unary(Acos, "acos", "Return the arccosine of each element.")
atan = arctan = _unary(Atan, "atan", "Return the arctangent of each element.")
sinh = _unary(Sinh, "sinh", "Return the hyperbolic sine of each element.")
cosh = _unary(Cosh, "cosh", "Return the hyperbolic cosine of each element.")
tanh = _unary(Tanh, "tanh", "Return the hyperbolic tangent of each element.")
asinh = arcsinh = _unary(Asinh, "asinh", "Return the inverse hyperbolic sine of each element.")
acosh = arccosh = _unary(Acosh, "acosh", "Return the inverse hyperbolic cosine of each element.")
atanh = arctanh = _unary(Atanh, "atanh", "Return the inverse hyperbolic tangent of each element.")
sigmoid = _unary(Sigmoid, "sigmoid", "Return the logistic function ``1 / (1 + exp(-x))``.")
relu = _unary(Relu, "relu", "Return ``max(input, 0)``; the gradient at 0 is 0, as in torch.")
sign = _unary(Sign, "sign", "Return -1, 0 or 1 by the sign of each element (0 for NaN).")
sgn = _unary(Sgn, "sgn", "Return ``x / |x|`` (0 at 0) for complex tensors; :func:`sign` for real.")
floor = _unary(Floor, "floor", "Round each element down to an integral value.")
ceil = _unary(Ceil, "ceil", "Round each element up to an integral value.")
trunc = _unary(Trunc, "trunc", "Round each element toward zero.")
fix = trunc
frac = _unary(Frac, "frac", "Return the fractional part ``input - trunc(input)``.")
erf = _unary(Erf, "erf", "Return the Gauss error function of each element.")
logical_not = _unary(LogicalNot, "logical_not", "Return True where ``input`` is zero.")
bitwise_not = _unary(BitwiseNot, "bitwise_not", "Invert the bits of an integer or bool tensor.")


def positive(input):
    """Return ``input`` itself (unary ``+``); bool tensors are rejected, as in torch."""
    _check_tensor("positive", input)
    if input._array.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def square(input, *, out=None):
    """Return ``input * input`` (bool tensors give int64, as in torch).

    Example:
        >>> torch.square(torch.tensor([-2., 3.]))
        tensor([4., 9.])
    """
    _check_tensor("square", input)
    return _out(pow(input, 2), out, "square")


def round(input, *, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` decimal digits, halves to even (as torch).

    Args:
        input (Tensor): the input.
        decimals (int): digits to keep; negative values round to tens, hundreds, ...
            Default: 0.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.round(torch.tensor([0.5, 1.5, 1.26]), decimals=0)
        tensor([0., 2., 1.])
    """
    _check_tensor("round", input)
    return _out(Round.apply(input, decimals=decimals), out, "round")


def _compare(cls, name, symbol):
    def fn(input, other, *, out=None):
        if not isinstance(other, Tensor):
            _check_number_or_tensor(name, other)
        return _out(cls.apply(input, other), out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Return ``input {symbol} other`` elementwise as a bool tensor.\n\n"
                  f"    Both operands are promoted to a common dtype first; ``other`` may be a "
                  f"number.\n")
    return fn


def _eq_operator(input, other):
    """``input == other``: like torch, a non-number non-tensor compares unequal, not raises."""
    if isinstance(other, Tensor) or isinstance(other, _NUMBER):
        return Eq.apply(input, other)
    return NotImplemented


def _ne_operator(input, other):
    """``input != other`` (see :func:`_eq_operator`)."""
    if isinstance(other, Tensor) or isinstance(other, _NUMBER):
        return Ne.apply(input, other)
    return NotImplemented


def _invert_operator(input):
    """``~input``: torch raises TypeError for floating tensors (the function raises otherwise)."""
    if input._array.dtype.kind in "fc":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return BitwiseNot.apply(input)


eq = _compare(Eq, "eq", "==")
ne = not_equal = _compare(Ne, "ne", "!=")
lt = less = _compare(Lt, "lt", "<")
le = less_equal = _compare(Le, "le", "<=")
gt = greater = _compare(Gt, "gt", ">")
ge = greater_equal = _compare(Ge, "ge", ">=")


def _logical(fn_name):
    def fn(input, other, *, out=None):
        _check_tensor(fn_name, input)
        _check_tensor(fn_name, other, "other", 2)
        return _out(_Logical.apply(input, other, fn=fn_name), out, fn_name)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Elementwise ``{fn_name[8:]}`` of the truth values of two tensors (nonzero "
                  f"is True).\n")
    return fn


def _bitwise(fn_name):
    def fn(input, other, *, out=None):
        _check_number_or_tensor(fn_name, input, "input", 1)
        _check_number_or_tensor(fn_name, other)
        return _out(_Bitwise.apply(input, other, fn=fn_name), out, fn_name)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"Elementwise ``{fn_name[8:]}`` of the bits of integer or bool operands.\n")
    return fn


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")
bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")


def isnan(input):
    """Return True where ``input`` is NaN (never for integer tensors)."""
    _check_tensor("isnan", input)
    return _Classify.apply(input, fn="isnan")


def isinf(input):
    """Return True where ``input`` is +inf or -inf."""
    _check_tensor("isinf", input)
    return _Classify.apply(input, fn="isinf")


def isfinite(input):
    """Return True where ``input`` is neither NaN nor infinite."""
    _check_tensor("isfinite", input)
    return _Classify.apply(input, fn="isfinite")


def equal(input, other):
    """Return True if both tensors have the same shape and the same values.

    Example:
        >>> torch.equal(torch.tensor([1, 2]), torch.tensor([1., 2.]))
        True
    """
    _check_tensor("equal", input)
    _check_tensor("equal", other, "other", 2)
    if input.shape != other.shape:
        return False
    return bool(eq(input, other).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Return True where ``|input - other| <= atol + rtol * |other|``, elementwise.

    Args:
        input (Tensor): first tensor.
        other (Tensor): second tensor, of the same dtype.
        rtol (float): relative tolerance. Default: 1e-05.
        atol (float): absolute tolerance. Default: 1e-08.
        equal_nan (bool): count two NaNs as close. Default: False.

    Example:
        >>> torch.isclose(torch.tensor([1., 2.]), torch.tensor([1., 2.1]))
        tensor([ True, False])
    """
    _check_tensor("isclose", input)
    _check_tensor("isclose", other, "other", 2)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_dtype._TYPE_DISPLAY[input.dtype.name]} did not match "
                           f"{_dtype._TYPE_DISPLAY[other.dtype.name]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    a, b = input._array, other._array
    xp = np if type(a) is np.ndarray else backend_xp(a)
    try:
        return _make(xp.asarray(xp.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))
    except ValueError as e:
        _broadcast_error(e, a, b)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Return True if every element pair is close (see :func:`isclose`).

    Example:
        >>> torch.allclose(torch.tensor([1., 2.]), torch.tensor([1., 2. + 1e-9]))
        True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def _is_float(x):
    if isinstance(x, Tensor):
        return x.dtype._category >= _dtype._FLOAT
    return isinstance(x, (float, complex))


def _out(result, out, name=None):
    """Honour torch's ``out=`` argument: write ``result`` into ``out`` (resized if empty)."""
    if out is None:
        return result
    from ..autograd.inplace import apply_inplace

    if result.requires_grad or out.requires_grad:
        from ..autograd.grad_mode import is_grad_enabled

        if is_grad_enabled():
            fn = name or type(result.grad_fn).__name__.lower()
            raise RuntimeError(f"{fn}(): functions with out=... arguments don't support "
                               f"automatic differentiation, but one of the arguments requires "
                               f"grad.")
    if out.shape != result.shape:
        if out.numel() != 0:
            import warnings

            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}.", UserWarning, stacklevel=3)
        xp = np if type(out._array) is np.ndarray else backend_xp(out._array)
        out._array = xp.empty(result._array.shape, out._array.dtype)
    return apply_inplace(out, lambda _, r: r, result)
