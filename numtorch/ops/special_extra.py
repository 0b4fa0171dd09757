"""The rest of ``torch.special``: Bessel and Airy functions, the scaled Bessel functions, the
normal distribution's ``ndtr``/``ndtri``/``log_ndtr``, ``erfcx``, ``entr``, ``xlog1py``, the
Hurwitz ``zeta`` and the regularized incomplete gamma functions.

Values come from SciPy through ``backend.scipy_special`` (``cupyx.scipy.special`` on a GPU);
formulas NumPy can evaluate directly (``entr``, ``spherical_bessel_j0``, ``xlog1py``) need no
SciPy. Integer and bool inputs compute in the default float dtype.

Gradients follow torch: the functions torch differentiates have a backward written with these
same functions (so every order works), ``zeta`` and the incomplete gamma functions raise torch's
"not implemented" error for the derivative in their first argument, and the Bessel/Airy family
is not differentiable at all (its outputs never require grad, as in torch).
"""

import math

import numpy as np

from .. import _dtype
from ..autograd.graph import Op
from ..backend import helpers_for
from ._pointwise import _broadcast_error, _not_implemented
from .comparison import where
from .unary import exp, log, log1p, sign

__all__ = []

_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _scipy(xp, name):
    return helpers_for(xp).scipy_special(name)


class _Unary(Op):
    """A float function of one input; ``half`` says whether float16/bfloat16 are allowed
    (torch's newer special functions reject them), ``kernel`` names torch's kernel in the
    dtype error."""

    out_layout = "elementwise"

    promote = "float"
    kernel = ""
    half = True

    def forward(self, x):
        if x.dtype.kind == "c" or (not self.half and x.dtype.itemsize == 2):
            raise _not_implemented(self.kernel, x.dtype)
        if x.dtype.itemsize == 2:  # compute half precision in float32, as torch's kernels do
            y = self.values(x.astype(np.float32))
        else:
            y = self.values(x)
        return self.xp.asarray(y).astype(x.dtype, copy=False)


class _NoGrad(_Unary):
    """torch's newer special functions have no derivative: their outputs do not require grad."""

    differentiable = False
    half = False
    scipy_name = ""

    def values(self, x):
        return _scipy(self.xp, self.scipy_name)(x)


def _no_grad_op(name, scipy_name, values=None):
    attrs = {"kernel": f"{name}_cpu", "scipy_name": scipy_name, "__doc__":
             f"y = {name}(x), SciPy's ``{scipy_name}``; not differentiable (as in torch)."}
    if values is not None:
        attrs["values"] = values
    return type(name.title().replace("_", ""), (_NoGrad,), attrs)


def _airy_ai(self, x):
    y = _scipy(self.xp, "airy")(x)[0]
    # SciPy gives NaN for very large finite x, where Ai has underflowed to 0 (torch's value)
    return self.xp.where(self.xp.isnan(y) & (x > 0) & self.xp.isfinite(x), y.dtype.type(0), y)


def _spherical_j0(self, x):
    xp = self.xp
    safe = xp.where(x == 0, x.dtype.type(1), x)
    # sin(x)/x, with its limit 1 at 0; torch returns 0 at +-inf, where sin(x)/x is 0/inf
    y = xp.where(x == 0, x.dtype.type(1), xp.sin(safe) / safe)
    return xp.where(xp.isinf(x), x.dtype.type(0), y)


AiryAi = _no_grad_op("airy_ai", "airy", _airy_ai)
BesselJ0 = _no_grad_op("bessel_j0", "j0")
BesselJ1 = _no_grad_op("bessel_j1", "j1")
BesselY0 = _no_grad_op("bessel_y0", "y0")
BesselY1 = _no_grad_op("bessel_y1", "y1")
ModifiedBesselI0 = _no_grad_op("modified_bessel_i0", "i0")
ModifiedBesselI1 = _no_grad_op("modified_bessel_i1", "i1")
ModifiedBesselK0 = _no_grad_op("modified_bessel_k0", "k0")
ModifiedBesselK1 = _no_grad_op("modified_bessel_k1", "k1")
ScaledModifiedBesselK0 = _no_grad_op("scaled_modified_bessel_k0", "k0e")
ScaledModifiedBesselK1 = _no_grad_op("scaled_modified_bessel_k1", "k1e")
SphericalBesselJ0 = _no_grad_op("spherical_bessel_j0", "", _spherical_j0)


class I0e(_Unary):
    """y = e^-|x| I0(x); dy/dx = i1e(x) - sgn(x) y."""

    kernel = "i0e_cpu"
    node_name = "SpecialI0EBackward0"

    def values(self, x):
        self.save_inputs(x)
        if x.dtype == np.float32:  # torch's float32 series (SciPy's rounded: ~53% differ)
            from .special import _i0_float32
            return _i0_float32(self.xp, x, scaled=True)
        return _scipy(self.xp, "i0e")(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * (I1e.apply(x) - sign(x) * I0e.apply(x))


class I1e(_Unary):
    """y = e^-|x| I1(x); dy/dx = i0e(x) - y (sgn(x) + 1/x), 1/2 at 0."""

    kernel = "i1e_cpu"
    node_name = "SpecialI1EBackward0"

    def values(self, x):
        self.save_inputs(x)
        return _scipy(self.xp, "i1e")(x)

    def backward(self, grad):
        x = self.saved_inputs()
        zero = x == 0
        safe = where(zero, 1.0, x)
        slope = I0e.apply(x) - I1e.apply(safe) * (sign(safe) + 1 / safe)
        return grad * where(zero, 0.5, slope)


class Erfcx(_Unary):
    """y = e^(x^2) erfc(x); dy/dx = 2 x y - 2/sqrt(pi)."""

    kernel = "erfcx_cpu"
    half = False
    node_name = "SpecialErfcxBackward0"

    def values(self, x):
        self.save_inputs(x)
        return _scipy(self.xp, "erfcx")(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * (2 * x * Erfcx.apply(x) - _TWO_OVER_SQRT_PI)


class Ndtri(_Unary):
    """y = the standard normal quantile of x; dy/dx = sqrt(2 pi) e^(y^2 / 2)."""

    kernel = "ndtri_cpu"
    half = False
    node_name = "SpecialNdtriBackward0"

    def forward(self, x):
        return self.save_output(super().forward(x))

    def values(self, x):
        return _scipy(self.xp, "ndtri")(x)

    def backward(self, grad):
        y = self.saved_output()
        return grad * _SQRT_2PI * exp(y * y / 2)


class LogNdtr(_Unary):
    """y = log Phi(x); dy/dx = e^(-x^2/2 - y) / sqrt(2 pi) (the normal density over Phi)."""

    kernel = "log_ndtr_cpu"
    half = False
    node_name = "SpecialLogNdtrBackward0"

    def values(self, x):
        self.save_inputs(x)
        return _scipy(self.xp, "log_ndtr")(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * exp(-(x * x) / 2 - LogNdtr.apply(x)) / _SQRT_2PI


class Entr(_Unary):
    """y = -x log x (0 at 0, -inf for x < 0); dy/dx = -(1 + log x)."""

    kernel = "entr_cpu"
    node_name = "SpecialEntrBackward0"

    def values(self, x):
        self.save_inputs(x)
        xp = self.xp
        with np.errstate(divide="ignore", invalid="ignore"):
            y = -x * xp.log(xp.where(x > 0, x, x.dtype.type(1)))
        y = xp.where(x == 0, x.dtype.type(0), y)
        return xp.where(x < 0, x.dtype.type(-np.inf), y)  # NaN stays NaN

    def backward(self, grad):
        return grad * -(1 + log(self.saved_inputs()))


class _Binary(Op):
    """A float function of two broadcast inputs (a Python number may stand for one)."""

    out_layout = "pointwise"
    promote = "float"
    kernel = ""
    half = True

    def forward(self, a, b):
        xp = self.xp
        self.save_inputs(a, b)
        a, b = xp.asarray(a), xp.asarray(b)
        dt = a.dtype
        if dt.kind == "c" or (not self.half and dt.itemsize == 2):
            raise _not_implemented(self.kernel, dt)
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError as e:
            _broadcast_error(e, a, b)
        wide = np.float32 if dt.itemsize == 2 else dt
        y = self.values(a.astype(wide, copy=False), b.astype(wide, copy=False))
        return xp.broadcast_to(xp.asarray(y), shape).astype(dt)


class Xlog1py(_Binary):
    """y = a log(1 + b) (0 where a == 0 and b is not NaN); dy/da = log1p(b) (0 where a == 0
    and b <= -1), dy/db = a / (1 + b)."""

    kernel = "xlog1py_cpu"
    node_name = "SpecialXlog1PyBackward0"

    def values(self, a, b):
        xp = self.xp
        with np.errstate(divide="ignore", invalid="ignore"):
            y = a * xp.log1p(b)
        return xp.where((a == 0) & ~xp.isnan(b), y.dtype.type(0), y)

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        ga = grad * where((a == 0) & (b <= -1), 0.0, log1p(b)) if na else None
        gb = grad * a / (1 + b) if nb else None
        return ga, gb


class Zeta(_Binary):
    """y = the Hurwitz zeta function sum_k (q + k)^-x; dy/dq = -x zeta(x + 1, q); torch has no
    derivative in x."""

    kernel = "zeta_cpu"
    half = False
    node_name = "SpecialZetaBackward0"

    def values(self, x, q):
        y = _scipy(self.xp, "zeta")(x, q)
        # torch's series gives NaN at q = +inf (SciPy's limit is 0); x = 1 stays inf
        bad = self.xp.isposinf(q) & (x != 1)
        return self.xp.where(bad, self.xp.nan, y).astype(y.dtype, copy=False)

    def backward(self, grad):
        x, q = self.saved_inputs()
        nx, nq = self.needs_input_grad
        if nx:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, (grad * -x * Zeta.apply(x + 1, q) if nq else None)


class Igamma(_Binary):
    """y = P(a, x), the regularized lower incomplete gamma function (``upper``: Q = 1 - P);
    dy/dx = +-e^-x x^(a-1) / Gamma(a); torch has no derivative in a."""

    half = True

    def values(self, a, x):
        return _scipy(self.xp, "gammaincc" if self.upper else "gammainc")(a, x)

    def backward(self, grad):
        from .special import lgamma

        a, x = self.saved_inputs()
        na, nx = self.needs_input_grad
        if na:
            name = "igammac" if self.upper else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        if not nx:
            return None, None
        density = exp((a - 1) * log(x) - x - lgamma(a))
        return None, grad * (-density if self.upper else density)


del _dtype
