"""Unary math: exp/log, powers and roots, trigonometric and hyperbolic functions, erf, signs
and rounding (sigmoid and relu are activations: ``_smooth_activation.py``, ``activation.py``).

Float-only functions set ``promote = "float"`` so integer inputs compute in the default float
dtype, as torch does. Piecewise-constant functions (sign, floor, round, ...) have a zero
gradient almost everywhere, which torch returns as zeros rather than an error.
"""

import math

import numpy as np

from .. import _dtype
from .._sparse import SparseCOO, map_values
from ..autograd.graph import Op, rename_node
from ..backend import _keep_dtype as keep_dtype
from ..backend import helpers_for
from ..backend._fma import _half_scalar_mask
from ._accumulate import is_half
from ._pointwise import (SAME_DTYPE_OUT, _check_tensor, _cj, _not_implemented, _out, _unary,
                         _zeros_like)
from .comparison import where
from .complex_ops import Complex, imag, real

__all__ = [
    "neg", "positive", "abs", "reciprocal", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log",
    "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "sign", "sgn", "floor", "ceil",
    "round", "trunc", "frac", "erf",
    # torch's aliases (the same function objects)
    "negative", "absolute", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "fix",
]


def _rounded(xp, ufunc, x):
    """``ufunc(x)``, small float32 arrays rounded as torch's CPU kernels round them
    (``backend/_libm_f32.py``)."""
    return helpers_for(xp).float32_rounded(ufunc, x)


class Neg(Op):
    """y = -x; dy/dx = -1."""

    out_layout = "elementwise"

    def forward(self, x):
        if x.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return -x

    def backward(self, grad):
        return -grad

    def backward_arrays(self, g):
        return -g


class Abs(Op):
    """y = |x|; dy/dx = sign(x) (0 at 0); for complex x, dL/dx = grad x / |x|."""

    out_layout = "elementwise"

    def forward(self, x):
        if x.dtype.kind == "b":
            raise _not_implemented("abs_cpu", x.dtype)
        self.save_inputs(x)
        return self.xp.abs(x)

    def backward(self, grad):
        x = self.saved_inputs()
        if x._array.dtype.kind != "c":
            return grad * sign(x)
        return grad * sgn(x)  # sgn's own backward keeps double backward right


class Exp(Op):
    """y = e^x; dy/dx = y.

    Note: float32 arrays over ``backend/_libm_f32.SMALL`` values come from NumPy's own exp
    kernel, which differs from torch's by one ulp on ~40% of inputs (tests/ops/test_exp_ulp.py);
    smaller ones take a float64 round trip (~1% differ; it costs 2.5-7x on large arrays).
    """

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        return self.save_output(_rounded(self.xp, self.xp.exp, x))

    def backward(self, grad):
        return grad * _cj(self.saved_output())

    def backward_arrays(self, g):
        y = self.saved_output_array()
        if g.dtype != y.dtype or g.dtype.kind == "c":
            return NotImplemented
        return g * y


class Exp2(Op):
    """y = 2^x; dy/dx = y * ln 2."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        return self.save_output(_rounded(self.xp, self.xp.exp2, x))

    def backward(self, grad):
        return grad * _cj(self.saved_output() * math.log(2.0))


class Expm1(Op):
    """y = e^x - 1; dy/dx = y + 1."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        return self.save_output(_rounded(self.xp, self.xp.expm1, x))

    def backward(self, grad):
        return grad * _cj(self.saved_output() + 1)


class Log(Op):
    """y = ln x; dy/dx = 1/x."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.log, x)

    def backward(self, grad):
        return grad / _cj(self.saved_inputs())

    def backward_arrays(self, g):
        x = self.saved_input_arrays()
        if g.dtype != x.dtype or g.dtype.kind == "c":
            return NotImplemented
        return g / x


class Log2(Op):
    """y = log2 x; dy/dx = 1/(x ln 2)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.log2, x)

    def backward(self, grad):
        return grad / _cj(self.saved_inputs() * math.log(2.0))


class Log10(Op):
    """y = log10 x; dy/dx = 1/(x ln 10)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.log10, x)

    def backward(self, grad):
        return grad / _cj(self.saved_inputs() * math.log(10.0))


class Log1p(Op):
    """y = ln(1 + x); dy/dx = 1/(1 + x)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        if x.dtype.kind == "c":
            return _complex_log1p(self.xp, x)
        return _rounded(self.xp, self.xp.log1p, x)

    def backward(self, grad):
        return grad / _cj(self.saved_inputs() + 1)


def _complex_log1p(xp, z):
    """log(1 + z) for complex ``z`` without the cancellation of forming 1 + z (NumPy's log1p
    loses the real part of a small z: log1p(1e-10+1e-10j) came out 1.0000000827e-10):
    ln|1 + z| = log1p(x (2 + x) + y^2) / 2 and arg(1 + z) = atan2(y, 1 + x), in z's own
    precision as torch's kernel; very large or non-finite parts keep NumPy's form."""
    x, y = z.real, z.imag
    one = x.dtype.type(1)
    limit = 1e150 if x.dtype.itemsize == 8 else 1e18
    big = ~((xp.abs(x) < limit) & (xp.abs(y) < limit))  # (NaNs and infinities too)
    out = xp.empty_like(z)
    with np.errstate(invalid="ignore", over="ignore"):
        out.real = xp.log1p(x * (one + one + x) + y * y) * x.dtype.type(0.5)
        out.imag = xp.arctan2(y, one + x)
        if big.any():
            out = xp.where(big, xp.log1p(z), out)
    return out


class Sqrt(Op):
    """y = sqrt(x); dy/dx = 1/(2y)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        return self.save_output(self.xp.sqrt(x))

    def backward(self, grad):
        return grad / _cj(self.saved_output() * 2)

    def backward_arrays(self, g):
        # ``grad / (y * 2)``, the 2 in y's dtype as the product takes it
        if g.dtype.kind != "f" or g.dtype.itemsize < 4:
            return NotImplemented
        y = self.saved_output_array()
        if y.dtype != g.dtype:
            return NotImplemented
        return g / (y * y.dtype.type(2))


class Rsqrt(Op):
    """y = x^(-1/2); dy/dx = -y^3 / 2."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        # float16/bfloat16 computed in float32 and rounded once, as torch's kernels do
        w = x.astype(np.float32) if _dtype.np_kind(x.dtype) == "f" and x.dtype.itemsize < 4 \
            else x
        y = 1 / self.xp.sqrt(w)
        if w is not x and type(x) is np.ndarray:
            # torch's vector loop leaves the last n % 32 values of each inner loop (all of a
            # strided one) to its scalar 16-bit form: the square root rounded to the 16-bit
            # type first, then the reciprocal
            y = np.asarray(y.astype(x.dtype))
            mask = _half_scalar_mask(x.shape, x, x) if x.size <= 32768 else None
            if mask is not None:
                one = x.dtype.type(1)
                np.copyto(y, one / np.sqrt(x), where=mask)
            return self.save_output(y)
        return self.save_output(y.astype(x.dtype, copy=False))

    def backward(self, grad):
        y = self.saved_output()
        return grad * _cj(y * y * y * -0.5)


class Reciprocal(Op):
    """y = 1/x; dy/dx = -y^2."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        if x.dtype.kind == "c":  # CuPy's complex division makes 1 / 0j NaN + NaN j
            y = helpers_for(self.xp).true_divide(x.dtype.type(1), x)
        else:
            y = 1 / x
        return self.save_output(y.astype(x.dtype, copy=False))

    def backward(self, grad):
        y = self.saved_output()
        return -grad * _cj(y * y)


class Sin(Op):
    """y = sin x; dy/dx = cos x."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.sin, x)

    def backward(self, grad):
        return grad * _cj(cos(self.saved_inputs()))


class Cos(Op):
    """y = cos x; dy/dx = -sin x."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.cos, x)

    def backward(self, grad):
        return grad * _cj(-sin(self.saved_inputs()))


class Tan(Op):
    """y = tan x; dy/dx = 1 + y^2."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        return self.save_output(_rounded(self.xp, self.xp.tan, x))

    def backward(self, grad):
        y = self.saved_output()
        return grad * _cj(y * y + 1)


class Asin(Op):
    """y = asin x; dy/dx = 1/sqrt(1 - x^2)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.arcsin, x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * _cj(rsqrt(1 - x * x))


class Acos(Op):
    """y = acos x; dy/dx = -1/sqrt(1 - x^2)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.arccos, x)

    def backward(self, grad):
        x = self.saved_inputs()
        return -grad * _cj(rsqrt(1 - x * x))


class Atan(Op):
    """y = atan x; dy/dx = 1/(1 + x^2)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.arctan, x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad / _cj(x * x + 1)


class Sinh(Op):
    """y = sinh x; dy/dx = cosh x."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.sinh, x)

    def backward(self, grad):
        return grad * _cj(cosh(self.saved_inputs()))


class Cosh(Op):
    """y = cosh x; dy/dx = sinh x."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.cosh, x)

    def backward(self, grad):
        return grad * _cj(sinh(self.saved_inputs()))


class Tanh(Op):
    """y = tanh x; dy/dx = 1 - y^2."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        return self.save_output(_rounded(self.xp, self.xp.tanh, x))

    def backward(self, grad):
        y = self.saved_output()
        if y._array.dtype.kind == "c":  # the fused op is for real tensors only
            return grad * _cj(1 - y * y)
        return TanhBackward.apply(y, grad)

    def backward_arrays(self, g):
        y = self.saved_output_array()
        if y.dtype.kind == "c":
            return NotImplemented
        return _tanh_grad(y, g)


def _tanh_grad(y, g):
    """g * (1 - y^2) on arrays: TanhBackward's forward."""
    if y.dtype == g.dtype and is_half(y.dtype):
        # torch's half kernel works in float32 and rounds once (rounding each step differs by
        # an ulp on ~40% of values)
        y32 = y.astype(np.float32)
        return (g.astype(np.float32) * (1 - y32 * y32)).astype(y.dtype)
    return g * (1 - y * y)


class TanhBackward(Op):
    """g_x = g * (1 - y^2) fused; d/dy = -2 y g, d/dg = 1 - y^2."""

    out_layout = "elementwise"

    def forward(self, y, g):
        self.save_inputs(y, g)
        return _tanh_grad(y, g)

    def backward(self, gg):
        y, g = self.saved_inputs()
        return gg * g * y * -2, gg * (1 - y * y)


class Asinh(Op):
    """y = asinh x; dy/dx = 1/sqrt(x^2 + 1)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arcsinh(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * _cj(rsqrt(x * x + 1))


class Acosh(Op):
    """y = acosh x; dy/dx = 1/sqrt(x^2 - 1)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return self.xp.arccosh(x)

    def backward(self, grad):
        x = self.saved_inputs()
        if x.dtype.is_complex:  # the principal branch's derivative (1/sqrt(x^2 - 1) flips
            return grad * _cj((sqrt(x - 1) * sqrt(x + 1)).reciprocal())  # sign for Re x < 0)
        return grad * _cj(rsqrt(x * x - 1))


class Atanh(Op):
    """y = atanh x; dy/dx = 1/(1 - x^2)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        self.save_inputs(x)
        return _rounded(self.xp, self.xp.arctanh, x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad / _cj(1 - x * x)


class Erf(Op):
    """y = erf x; dy/dx = 2/sqrt(pi) e^(-x^2)."""

    out_layout = "elementwise"

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

    out_layout = "elementwise"

    def backward(self, grad):
        return _zeros_like(grad)


class Sign(_ZeroGrad):
    """y = sign(x) (0 for NaN, as torch); dy/dx = 0."""

    def forward(self, x):
        kind = _dtype.np_kind(x.dtype)
        if kind == "b" or kind == "c":
            if kind == "c":
                raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support "
                                          "complex numbers. Please use torch.sgn instead.")
            return x.copy()
        if kind == "f":
            # NumPy gives NaN for NaN; torch's (0 < x) - (x < 0) gives 0
            y = self.xp.sign(x, out=self.xp.empty_like(x))
            if x.dtype is _dtype._BF16_NP:  # nan_to_num passes non-NumPy float types through
                return keep_dtype.where(self.xp, self.xp.isnan(y), y.dtype.type(0), y)
            return self.xp.nan_to_num(y, copy=False, nan=0.0)
        return self.xp.sign(x)


class Sgn(Sign):
    """y = x / |x| (0 at 0) for complex x, sign(x) for real x; dy/dx = 0 for real x.

    For complex x = a + ib with r = |x| and incoming w = p + iq:
    dL/dx = b c - i a c with c = (p b - q a) / r^3 (0 at 0).
    """

    complex_input = False

    def forward(self, x):
        if x.dtype.kind == "c":
            self.complex_input = True
            self.save_inputs(x)
            y = self.xp.sign(x)  # NumPy >= 2 gives x / |x| for complex, as torch.sgn
            odd = ~self.xp.isfinite(x)
            if odd.any():  # NumPy gives inf + 1j the sign 1; torch's x / |x| is inf / inf
                with np.errstate(invalid="ignore"):
                    y[odd] = x[odd] / self.xp.abs(x[odd])
            return y
        return Sign.forward(self, x)

    def backward(self, grad):
        if not self.complex_input:
            return _zeros_like(grad)
        x = self.saved_inputs()
        a, b = real(x), imag(x)
        r = abs(x)
        zero = r == 0
        rs = where(zero, 1.0, r)
        c = (real(grad) * b - imag(grad) * a) / (rs * rs * rs)
        return rename_node(where(zero, 0.0, Complex.apply(b * c, -a * c)), "MaskedFillBackward0")


def _refuse_quantized(x, op):
    """torch's QuantizedCPU error for a rounding op given a quantized tensor."""
    if type(x).__name__ == "QArray":
        from .._quantized_array import not_supported

        raise not_supported(op)


class _Rounding(_ZeroGrad):
    """floor/ceil/trunc: the identity on integers; torch has no bool kernel."""

    def forward(self, x):
        kind = _dtype.np_kind(x.dtype)
        if kind == "f":
            return getattr(self.xp, self.fn)(x)
        if kind == "b":
            raise _not_implemented(f"{self.fn}_vml_cpu", x.dtype)
        if kind == "c":
            raise NotImplementedError(f"{self.fn} is not supported for complex inputs")
        _refuse_quantized(x, f"{self.fn}.out")  # (its integers are no values to copy)
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
        kind = _dtype.np_kind(x.dtype)
        if kind == "f":
            d = self.decimals
            if not d:
                y = self.xp.round(x)  # (CuPy's has no bfloat16 loop: float32 comes back)
                return y if y.dtype == x.dtype else y.astype(x.dtype)
            # scaled in the input's type, as torch and NumPy do (CuPy's round scales in
            # double: float32 0.35 gave 0.3 there, torch 0.4)
            # (half types in float32, as torch's kernels compute them)
            w = x.astype(np.float32) if x.dtype.itemsize == 2 else x
            f = w.dtype.type(10.0 ** (d if d > 0 else -d))  # (abs is the op here)
            rint = self.xp.rint
            return (rint(w / f) * f if d < 0 else rint(w * f) / f).astype(x.dtype, copy=False)
        _refuse_quantized(x, "round.decimals_out" if self.decimals else "round.out")
        if kind in "bc" or self.decimals:
            raise _not_implemented("round_cpu" if self.decimals else "round_vml_cpu", x.dtype)
        return x.copy()


class Frac(Op):
    """y = x - trunc(x); dy/dx = 1."""

    out_layout = "elementwise"

    def forward(self, x):
        if _dtype.np_kind(x.dtype) != "f":
            raise _not_implemented("frac_cpu", x.dtype)
        return x - self.xp.trunc(x)

    def backward(self, grad):
        return grad


# ---------------------------------------------------------------------------------------------
# public functions


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
sign = _unary(Sign, "sign", "Return -1, 0 or 1 by the sign of each element (0 for NaN).")
sgn = _unary(Sgn, "sgn", "Return ``x / |x|`` (0 at 0) for complex tensors; :func:`sign` for real.")
floor = _unary(Floor, "floor", "Round each element down to an integral value.")
ceil = _unary(Ceil, "ceil", "Round each element up to an integral value.")
trunc = _unary(Trunc, "trunc", "Round each element toward zero.")
fix = trunc
frac = _unary(Frac, "frac", "Return the fractional part ``input - trunc(input)``.")
erf = _unary(Erf, "erf", "Return the Gauss error function of each element.")


def positive(input):
    """Return ``input`` itself (unary ``+``); bool tensors are rejected, as in torch."""
    _check_tensor("positive", input)
    if input._array.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


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
    if out is None and input._array.__class__ is SparseCOO:  # stored values only, as torch
        return map_values(input, "round", decimals=decimals) if decimals else \
            map_values(input, "round")
    return _out(Round.apply(input, decimals=decimals), out, "round", SAME_DTYPE_OUT)
