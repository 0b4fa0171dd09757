"""Special functions: ``erfc``/``erfinv``, the gamma family (``lgamma``, ``digamma``,
``polygamma``, ``mvlgamma``), the Bessel function ``i0``, ``sinc``, ``logit``, ``xlogy``, and
trapezoid integration.

Values come from SciPy through the backend helpers (``cupyx.scipy.special`` on a GPU). Without
SciPy, ``erfc``, ``erfinv`` and ``i0`` fall back to NumPy code and the others raise a
RuntimeError that names SciPy. Integer and bool inputs compute in the default float dtype, as
in torch; each derivative is again one of these functions, so every order differentiates.
"""

import math
import operator

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for
from ..backend import _keep_dtype as keep_dtype
from ._util import as_real, canonical_dim
from ._pointwise import (
    _broadcast_error, _check_number_or_tensor, _check_tensor, _cj, _not_implemented, _out,
    _unary,
)
from .comparison import where
from .unary import cos, exp, sin
from ._util import no_dims_error

__all__ = ["erfc", "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "i0", "sinc",
           "logit", "xlogy", "trapezoid", "trapz"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class _Special(Op):
    """A float function of one input whose values come from a backend helper."""

    out_layout = "elementwise"

    promote = "float"
    kernel = ""  # torch's kernel name, for its "not implemented for 'ComplexFloat'" error

    def forward(self, x):  # subclasses define ``values(helpers, x)``
        if x.dtype.kind == "c":
            raise _not_implemented(self.kernel, x.dtype)
        y = self.values(helpers_for(self.xp), x)
        return self.xp.asarray(y).astype(x.dtype, copy=False)


class Erfc(_Special):
    """y = erfc x = 1 - erf x; dy/dx = -2/sqrt(pi) e^(-x^2)."""

    kernel = "erfc_vml_cpu"

    def values(self, helpers, x):
        self.save_inputs(x)
        return helpers.erfc(x)

    def backward(self, grad):
        x = self.saved_inputs()
        return grad * exp(-(x * x)) * -_TWO_OVER_SQRT_PI


class Erfinv(_Special):
    """y = erfinv x; dy/dx = sqrt(pi)/2 e^(y^2)."""

    kernel = "erfinv_vml_cpu"

    def forward(self, x):
        return self.save_output(super().forward(x))

    def values(self, helpers, x):
        return self.xp.where(x == 0, x, helpers.erfinv(x))  # (SciPy's erfinv(-0.0) is +0.0)

    def backward(self, grad):
        y = self.saved_output()
        return grad * exp(y * y) / _TWO_OVER_SQRT_PI


class Lgamma(_Special):
    """y = log |Gamma(x)|; dy/dx = digamma(x)."""

    kernel = "lgamma_vml_cpu"

    def values(self, helpers, x):
        self.save_inputs(x)
        y = helpers.gammaln(x)
        return self.xp.where(x == -np.inf, np.inf, y)  # torch: +inf (SciPy gives -inf)

    def backward(self, grad):
        return grad * digamma(self.saved_inputs())


class Polygamma(_Special):
    """y = psi^(n)(x), the n-th derivative of digamma; dy/dx = psi^(n+1)(x)."""

    def forward(self, x):
        n = self.n
        if x.dtype.kind == "c":
            raise _not_implemented(("digamma", "trigamma")[n] if n < 2 else "polygamma",
                                   x.dtype)
        return super().forward(x)

    def values(self, helpers, x):
        self.save_inputs(x)
        xp, n = self.xp, self.n
        if n == 0:
            # torch: digamma(+0) = -inf and digamma(-0) = +inf (SciPy gives -inf for both)
            y = helpers.digamma(x)
            return xp.where(x == 0, xp.copysign(np.inf, -x), y)
        if n == 1:
            # SciPy's series for negative x takes time linear in |x| (minutes near -1e10);
            # reflect them: psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x), as torch does
            neg = x < 0
            if neg.any():
                s = xp.sin(np.pi * x)
                # the reflected term only at negative x (1 - x of a large positive x is
                # itself in SciPy's slow range)
                return xp.where(neg, np.pi ** 2 / (s * s) - helpers.polygamma(1, xp.where(neg, 1 - x, 1)),
                                helpers.polygamma(1, xp.where(neg, 1, x)))
            return helpers.polygamma(1, x)
        # torch gives NaN at +inf for n >= 2 (SciPy the limit, 0)
        return xp.where(x == np.inf, np.nan, helpers.polygamma(n, x))

    def backward(self, grad):
        return grad * Polygamma.apply(self.saved_inputs(), n=self.n + 1)


# Cephes' Chebyshev coefficients for I0 (exp(-x) I0(x)): |x| <= 8 in t = x/2 - 2, |x| > 8 in
# t = 32/x - 2 (sqrt(x) exp(-x) I0(x)); the same series NumPy's i0 evaluates
_I0_A = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05,
    0.00018850288509584165, -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576,
    0.010546460394594998, -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
    0.17162090152220877, -0.3046826723431984, 0.6767952744094761,
)
_I0_B = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15,
    3.8116806693526224e-15, -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14,
    3.8527783827421426e-13, 7.180124451383666e-13, -1.7941785315068062e-12,
    -1.3215811840447713e-11, -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
    3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07, 2.8913705208347567e-06,
    6.889758346916825e-05, 0.0033691164782556943, 0.8044904110141088,
)


def _i0_float32(xp, x, scaled=False):
    """float32 I0 as torch's CPU kernel rounds it: the Chebyshev recurrence in float32 with a
    fused multiply-subtract per step, times exp(|x|) rounded once to float32 (bit-equal to torch
    in all but ~0.1% of values; SciPy's float64 value rounded differs in ~57%)."""
    f32, f64 = np.float32, np.float64
    ax = xp.abs(x)
    large = ax > 8
    t = xp.where(large, f32(32) / xp.where(large, ax, f32(1)), ax / f32(2)) - f32(2)
    t64 = t.astype(f64)
    outs = []
    for coef in (_I0_A, _I0_B):
        b0, b1, b2 = xp.full_like(t, coef[0]), xp.zeros_like(t), xp.zeros_like(t)
        for c in coef[1:]:
            b2, b1 = b1, b0
            b0 = (t64 * b1 - b2).astype(f32) + f32(c)
        outs.append(f32(0.5) * (b0 - b2))
    with np.errstate(all="ignore"):
        big = outs[1] / xp.sqrt(ax)
    if scaled:  # i0e: the series alone
        return xp.where(large, big, outs[0])
    e = xp.exp(ax.astype(f64)).astype(f32)
    with np.errstate(all="ignore"):
        big = e * outs[1] / xp.sqrt(ax)
    return xp.where(large, big, e * outs[0])


class I0(_Special):
    """y = I0(x), the modified Bessel function of order 0; dy/dx = I1(x)."""

    kernel = "i0_vml_cpu"

    def values(self, helpers, x):
        self.save_inputs(x)
        if x.dtype == np.float32:
            return _i0_float32(self.xp, x)
        return helpers.i0(x)

    def backward(self, grad):
        return grad * I1.apply(self.saved_inputs())


class I1(_Special):
    """y = I1(x); dy/dx = I0(x) - I1(x)/x (1/2 at x = 0)."""

    kernel = "i1_cpu"

    def values(self, helpers, x):
        self.save_inputs(x)
        return helpers.i1(x)

    def backward(self, grad):
        x = self.saved_inputs()
        zero = x == 0
        safe = where(zero, 1.0, x)  # keeps the unused branch finite, so its gradient is too
        return grad * where(zero, 0.5, I0.apply(x) - I1.apply(safe) / safe)


class Sinc(Op):
    """y = sin(pi x) / (pi x) (1 at 0); dy/dx = (cos(pi x) - y) / x (0 at 0)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        xp = self.xp
        self.save_inputs(x)
        out_dt = x.dtype
        if _dtype.np_kind(x.dtype) == "f" and x.dtype.itemsize < 4:
            x = x.astype(np.float32)  # half types in float32, rounded once (torch's opmath)
        px = x * x.dtype.type(math.pi)
        safe = xp.where(x == 0, x.dtype.type(1), px)
        return xp.where(x == 0, x.dtype.type(1), xp.sin(safe) / safe).astype(out_dt, copy=False)

    def backward(self, grad):
        # torch's formula and its zero mask (where pi x**2 is 0, also by underflow): the
        # second derivative at 0 is then NaN in both libraries, as torch's
        x = self.saved_inputs()
        px = x * math.pi
        sq = x * x * math.pi
        out = grad * _cj((px * cos(px) - sin(px)) / sq)
        return where(sq == 0, 0.0, out)


class Logit(Op):
    """y = log(z / (1 - z)), z = x held inside [eps, 1 - eps]; dy/dx = 1 / (x (1 - x)) where x
    is inside (0 outside)."""

    out_layout = "elementwise"

    promote = "float"

    def forward(self, x):
        if x.dtype.kind == "c":
            raise _not_implemented("logit_cpu", x.dtype)
        self.save_inputs(x)
        xp, eps = self.xp, self.eps
        if eps is not None:
            lo, hi = x.dtype.type(eps), x.dtype.type(1 - eps)
            # torch tests the lower bound first, so eps > 0.5 does not give clamp's answer
            x = keep_dtype.where(xp, x < lo, lo, keep_dtype.where(xp, x > hi, hi, x))
        return xp.log(x / (1 - x))

    def backward(self, grad):
        x = self.saved_inputs()
        if self.eps is not None:
            return where((x < self.eps) | (x > 1 - self.eps), 0.0, grad / (x * (1 - x)))
        # torch: NaN outside [0, 1] and an infinite slope (of the gradient's sign) at 0 and 1,
        # also at -0.0, where 1 / (x (1 - x)) would be -inf
        edge = (x == 0) | (x == 1)
        # sign(grad) * inf has grad * inf's values but a zero derivative: differentiating this
        # gradient again (forward AD, double backward) must not meet inf * 0 = NaN off the edge
        g = where(edge, grad.sign() * float("inf"), grad / (x * (1 - x)))
        return where((x < 0) | (x > 1), float("nan"), g)


class Xlogy(Op):
    """y = a log b (0 where a == 0 and b is not NaN); dy/da = log b (0 where a == 0),
    dy/db = a / b."""

    out_layout = "pointwise"
    promote = "float"

    def forward(self, a, b):
        if a.dtype.kind == "c":
            raise _not_implemented("xlogy_cpu", a.dtype)
        self.save_inputs(a, b)
        xp = self.xp
        try:
            y = a * xp.log(b)
        except ValueError as e:
            _broadcast_error(e, a, b)
        return keep_dtype.where(xp, (a == 0) & ~xp.isnan(b), y.dtype.type(0), y)

    def backward(self, grad):
        a, b = self.saved_inputs()
        na, nb = self.needs_input_grad
        # torch: log(b), except 0 where a == 0 and b <= 0 (the region where y is held at 0)
        ga = grad * where((a == 0) & (b <= 0), 0.0, b.log()) if na else None
        gb = grad * a / b if nb else None
        return ga, gb


# ---------------------------------------------------------------------------------------------
# public functions


erfc = _unary(Erfc, "erfc", "Return the complementary error function ``1 - erf(x)``.")
erfinv = _unary(Erfinv, "erfinv", "Return the inverse error function (NaN outside [-1, 1]).")
lgamma = _unary(Lgamma, "lgamma", "Return ``log |Gamma(x)|`` of each element.")
i0 = _unary(I0, "i0", "Return the modified Bessel function of the first kind, order 0.")
sinc = _unary(Sinc, "sinc", "Return the normalized sinc ``sin(pi x) / (pi x)`` (1 at 0).")


def digamma(input, *, out=None):
    """Return the digamma function, the logarithmic derivative of Gamma.

    Args:
        input (Tensor): the input.
        out (Tensor, optional): tensor to write the result into.

    Note:
        As in torch, ``digamma(0)`` is ``-inf`` and ``digamma(-0.)`` is ``+inf``.

    Example:
        >>> torch.digamma(torch.tensor([1., 0.5]))
        tensor([-0.5772, -1.9635])
    """
    _check_tensor("digamma", input)
    return _out(Polygamma.apply(input, n=0, node_name="DigammaBackward0"), out, "digamma",
                over=(input,))


def _int_arg(fn, value, name, pos):
    """An integer argument (ints and integer 0-d tensors, as torch accepts); else TypeError."""
    if isinstance(value, Tensor) and value.dtype._category == _dtype._INT and value.ndim == 0:
        return int(value.item())
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(value).__name__}")
    return operator.index(value)


def polygamma(n, input, *, out=None):
    """Return the ``n``-th derivative of the digamma function.

    Args:
        n (int): the order, ``n >= 0`` (``n = 0`` is :func:`digamma`).
        input (Tensor): the input.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.polygamma(1, torch.tensor([1., 2.]))
        tensor([1.6449, 0.6449])
    """
    n = _int_arg("polygamma", n, "n", 1)
    _check_tensor("polygamma", input, "input", 2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _out(Polygamma.apply(input, n=n), out, "polygamma")


def mvlgamma(input, p, *, out=None):
    """Return the multivariate log-gamma function of dimension ``p``.

    .. math:: \\log \\Gamma_p(x) = \\frac{p (p - 1)}{4} \\log \\pi
        + \\sum_{i=0}^{p-1} \\log \\Gamma(x - i / 2)

    Args:
        input (Tensor): the input (not bool).
        p (int): the dimension, ``p >= 1``.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.mvlgamma(torch.tensor([2.5, 3.0]), 2)
        tensor([0.8570, 1.5502])
    """
    _check_tensor("mvlgamma", input)
    p = _int_arg("mvlgamma", p, "p", 2)
    if input.dtype is _dtype.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.dtype.is_complex:
        raise _not_implemented("arange_cpu", input._array.dtype)
    x = input if input.dtype.is_floating_point else input.to(_dtype.get_default_dtype())
    offsets = x.new_tensor(np.arange(p) * -0.5)
    terms = lgamma(x.unsqueeze(-1) + offsets).sum(-1)
    r = rename_node(terms + p * (p - 1) / 4 * math.log(math.pi), "MvlgammaBackward0")
    return _out(r, out, "mvlgamma")


def logit(input, eps=None, *, out=None):
    """Return the log-odds ``log(x / (1 - x))`` of each element.

    Args:
        input (Tensor): probabilities (integer inputs compute in the default float dtype).
        eps (float, optional): when given, ``input`` is first held inside ``[eps, 1 - eps]``,
            and the gradient is zero outside that interval. Default: None.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.logit(torch.tensor([0.25, 0.5, 1.0]), eps=1e-6)
        tensor([-1.0986,  0.0000, 13.8023])
    """
    _check_tensor("logit", input)
    if eps is not None:
        eps = as_real(eps)
        if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating, np.integer)):
            raise TypeError(f"logit(): argument 'eps' must be float, not {type(eps).__name__}")
        eps = float(eps)
    return _out(Logit.apply(input, eps=eps), out, "logit", over=(input,))


def xlogy(input, other, *, out=None):
    """Return ``input * log(other)``, with 0 wherever ``input`` is 0 (unless ``other`` is NaN).

    Args:
        input (Tensor or Number): the factor (one of the two must be a tensor).
        other (Tensor or Number): the argument of the logarithm.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.xlogy(torch.tensor([0., 2.]), torch.tensor([0., 3.]))
        tensor([0.0000, 2.1972])
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        _check_tensor("xlogy", input)
    _check_number_or_tensor("xlogy", input, "input", 1)
    _check_number_or_tensor("xlogy", other)
    r = Xlogy.apply(input, other)
    if not isinstance(other, Tensor):  # torch's nodes of the Scalar overloads
        rename_node(r, "XlogyBackward2")
    elif not isinstance(input, Tensor):
        rename_node(r, "XlogyBackward1")
    return _out(r, out, "xlogy", over=(input, other))


def _refuse_bool(fn, y, x):
    """torch refuses bool samples in the trapezoid rules."""
    if x is not None and _dtype.bool in (x.dtype, y.dtype):
        raise RuntimeError(f"{fn}: received a bool input for `x` or `y`, but bool is not "
                           f"supported")
    if y.dtype is _dtype.bool:
        raise RuntimeError(f"{fn}: received a bool input for `y`, but bool is not supported")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integrate ``y`` along ``dim`` with the trapezoidal rule.

    Args:
        y (Tensor): the values of the integrand.
        x (Tensor, optional): the sample points, either with ``y``'s shape or 1-D along
            ``dim``. Default: None (evenly spaced by ``dx``).
        dx (float, optional): the constant spacing when ``x`` is not given. Default: 1.
        dim (int): the dimension to integrate along. Default: -1.

    Returns:
        Tensor: ``y`` with ``dim`` removed (integers give the default float dtype).

    Example:
        >>> torch.trapezoid(torch.tensor([1., 2., 3.]), torch.tensor([0., 1., 3.]))
        tensor(6.5000)
    """
    _check_tensor("trapezoid", y, "y")
    if x is not None and (dx is not None or not isinstance(x, Tensor)):
        raise TypeError("trapezoid() received an invalid combination of arguments: x must be a "
                        "Tensor, and x and dx cannot both be given")
    if y.ndim == 0:
        raise no_dims_error(dim)
    d = canonical_dim(dim, y.ndim)
    _refuse_bool("trapezoid", y, x)
    n = y.shape[d]
    if n == 0:  # torch: constant zeros of y's own dtype, outside the graph
        return y.new_zeros(y.shape[:d] + y.shape[d + 1:])
    if x is not None:
        pair = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        if x.ndim == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"trapezoid: There must be one `x` value for each sample "
                                   f"point, but got {x.shape[0]} values and {n} samples")
            shape = [1] * y.ndim
            shape[d] = n - 1
            widths = (x[1:] - x[:-1]).reshape(shape)
        else:
            from .statistics_extra import _diff_along

            widths = _diff_along(x, d, y.ndim)
        # torch's nodes: a division/multiplication by a Python scalar (its Backward1 form)
        return rename_node((pair * widths).sum(d) / 2, "DivBackward1")
    # evenly spaced: torch's rounding, (sum - (first + last) / 2) * dx
    ends = y.select(d, 0) + y.select(d, n - 1)
    return rename_node((y.sum(d) - ends * 0.5) * (1 if dx is None else dx), "MulBackward1")


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid` (torch's older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)
