"""``torch.special``: special mathematical functions.

The functions shared with the top level (``erf``, ``digamma``, ``i0``, ``logit``, ``xlogy``...)
are the same ops; the rest live in ``numtorch/ops/special_extra.py`` (Bessel, Airy, normal
distribution, zeta, incomplete gamma, ...) and ``numtorch/ops/polynomials.py`` (orthogonal
polynomials). SciPy supplies most values (imported on first use).
"""

import math

from .. import ops as _ops
from .._tensor import Tensor
from ..autograd.graph import rename_node
from ..ops import polynomials as _poly
from ..ops import special_extra as _x
from ..ops._pointwise import _check_number_or_tensor, _check_tensor, _out, type_name
from ..ops.special import I1 as _I1

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]


def _unary(op, name, summary, **params):
    def fn(input, *, out=None):
        _check_tensor(f"special_{name}", input)
        return _out(op.apply(input, **params), out, f"special_{name}")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\n    Args:\n        input (Tensor): the input (integer inputs "
                  f"compute in the default float dtype).\n        out (Tensor, optional): "
                  f"tensor to write the result into.\n")
    return fn


airy_ai = _unary(_x.AiryAi, "airy_ai", "The Airy function Ai(x) (not differentiable).")
bessel_j0 = _unary(_x.BesselJ0, "bessel_j0", "The Bessel function of the first kind, order 0.")
bessel_j1 = _unary(_x.BesselJ1, "bessel_j1", "The Bessel function of the first kind, order 1.")
bessel_y0 = _unary(_x.BesselY0, "bessel_y0",
                   "The Bessel function of the second kind, order 0.")
bessel_y1 = _unary(_x.BesselY1, "bessel_y1",
                   "The Bessel function of the second kind, order 1.")
modified_bessel_i0 = _unary(_x.ModifiedBesselI0, "modified_bessel_i0",
                            "The modified Bessel function of the first kind, order 0.")
modified_bessel_i1 = _unary(_x.ModifiedBesselI1, "modified_bessel_i1",
                            "The modified Bessel function of the first kind, order 1.")
modified_bessel_k0 = _unary(_x.ModifiedBesselK0, "modified_bessel_k0",
                            "The modified Bessel function of the second kind, order 0.")
modified_bessel_k1 = _unary(_x.ModifiedBesselK1, "modified_bessel_k1",
                            "The modified Bessel function of the second kind, order 1.")
scaled_modified_bessel_k0 = _unary(_x.ScaledModifiedBesselK0, "scaled_modified_bessel_k0",
                                   "``exp(x) K0(x)``, the scaled modified Bessel function.")
scaled_modified_bessel_k1 = _unary(_x.ScaledModifiedBesselK1, "scaled_modified_bessel_k1",
                                   "``exp(x) K1(x)``, the scaled modified Bessel function.")
spherical_bessel_j0 = _unary(_x.SphericalBesselJ0, "spherical_bessel_j0",
                             "The spherical Bessel function of the first kind, ``sin(x)/x``.")
entr = _unary(_x.Entr, "entr", "The elementwise entropy ``-x log x`` (``-inf`` for x < 0).")
erfcx = _unary(_x.Erfcx, "erfcx", "The scaled complementary error function "
               "``exp(x^2) erfc(x)``.")
i0e = _unary(_x.I0e, "i0e", "``exp(-|x|) I0(x)``, the exponentially scaled Bessel function.")
i1 = _unary(_I1, "i1", "The modified Bessel function of the first kind, order 1.",
            node_name="SpecialI1Backward0")  # torch's node for special.i1
i1e = _unary(_x.I1e, "i1e", "``exp(-|x|) I1(x)``, the exponentially scaled Bessel function.")
log_ndtr = _unary(_x.LogNdtr, "log_ndtr",
                  "The log of the standard normal distribution function, accurate in the tails.")
ndtri = _unary(_x.Ndtri, "ndtri", "The standard normal quantile function (inverse of ndtr).")

erf = _ops.erf
erfc = _ops.erfc
erfinv = _ops.erfinv
exp2 = _ops.exp2
expm1 = _ops.expm1
log1p = _ops.log1p
digamma = _ops.digamma
i0 = _ops.i0
sinc = _ops.sinc
polygamma = _ops.polygamma


def psi(input, *, out=None):
    """Alias of :func:`digamma`."""
    return _ops.digamma(input, out=out)


def gammaln(input, *, out=None):
    """``log |Gamma(x)|`` (alias of :func:`numtorch.lgamma`).

    Example:
        >>> torch.special.gammaln(torch.tensor([3.0]))
        tensor([0.6931])
    """
    return _ops.lgamma(input, out=out)


def expit(input, *, out=None):
    """The logistic sigmoid ``1 / (1 + exp(-x))`` (alias of :func:`numtorch.sigmoid`)."""
    _check_tensor("special_expit", input)
    return _out(_ops.sigmoid(input), out, "special_expit")


def ndtr(input, *, out=None):
    """The standard normal distribution function ``(1 + erf(x / sqrt(2))) / 2``.

    Example:
        >>> torch.special.ndtr(torch.tensor([0.0]))
        tensor([0.5000])
    """
    _check_tensor("special_ndtr", input)
    r = rename_node((1 + _ops.erf(input * math.sqrt(0.5))) * 0.5, "MulBackward1")  # torch's
    return _out(r, out, "special_ndtr")


def logit(input, eps=None, *, out=None):
    """Alias of :func:`numtorch.logit`."""
    return _ops.logit(input, eps, out=out)


def xlogy(input, other, *, out=None):
    """Alias of :func:`numtorch.xlogy`."""
    _pair("xlogy", input, other, True)
    return _ops.xlogy(input, other, out=out)


def round(input, *, decimals=0, out=None):  # noqa: A001 - torch's name
    """Alias of :func:`numtorch.round`."""
    return _ops.round(input, decimals=decimals, out=out)


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function (alias of :func:`numtorch.mvlgamma`)."""
    return _ops.mvlgamma(input, p, out=out)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim`` (alias of :func:`numtorch.logsumexp`)."""
    return _ops.logsumexp(input, dim, keepdim, out=out)


def softmax(input, dim, *, dtype=None):
    """Softmax over ``dim`` (alias of :func:`numtorch.softmax`); ``dtype`` casts the input
    first."""
    return _ops.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """Log-softmax over ``dim`` (alias of :func:`numtorch.log_softmax`)."""
    return _ops.log_softmax(input, dim, dtype=dtype)


def _pair(name, input, other, numbers_ok):
    fn = f"special_{name}"
    if numbers_ok:
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(f"{fn}() received an invalid combination of arguments - got "
                            f"({type_name(input)}, {type_name(other)}), but expected one of:\n"
                            f" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                            f" * (Number self, Tensor other, *, Tensor out = None)\n"
                            f" * (Tensor input, Number other, *, Tensor out = None)\n")
        _check_number_or_tensor(fn, input, "input", 1)
        _check_number_or_tensor(fn, other, "other", 2)
    else:
        _check_tensor(fn, input, "input", 1)
        _check_tensor(fn, other, "other", 2)


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, with 0 wherever ``input`` is 0 (unless ``other`` is NaN).

    Example:
        >>> torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 1.0]))
        tensor([0.0000, 1.3863])
    """
    _pair("xlog1py", input, other, True)
    return _out(_x.Xlog1py.apply(input, other), out, "special_xlog1py")


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function ``sum_k (other + k) ** -input`` (Riemann's for other=1).

    Example:
        >>> torch.special.zeta(torch.tensor([2.0]), torch.tensor([1.0]))
        tensor([1.6449])
    """
    _pair("zeta", input, other, True)
    return _out(_x.Zeta.apply(input, other), out, "special_zeta")


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function ``P(input, other)``.

    Example:
        >>> torch.special.gammainc(torch.tensor([1.0]), torch.tensor([1.0]))
        tensor([0.6321])
    """
    _pair("gammainc", input, other, False)
    _no_ints("igamma", input, other)
    return _out(_x.Igamma.apply(input, other, upper=False, node_name="IgammaBackward0"), out,
                "special_gammainc")


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``."""
    _pair("gammaincc", input, other, False)
    _no_ints("igammac", input, other)
    return _out(_x.Igamma.apply(input, other, upper=True, node_name="IgammacBackward0"), out,
                "special_gammaincc")


def _no_ints(kernel, a, b):
    from .. import _dtype

    dt = _dtype.promote_types(a.dtype, b.dtype)
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")


def _polynomial(name, summary):
    op = _poly.FAMILIES[name]

    def fn(input, n, *, out=None):
        _pair(name, input, n, True)
        return _out(op.apply(input, n), out, f"special_{name}")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\n    Args:\n        input (Tensor or Number): the points.\n"
                  f"        n (Tensor or Number): the degree (truncated to an integer; "
                  f"negative gives 0).\n        out (Tensor, optional): tensor to write the "
                  f"result into.\n\n    Note:\n        Not differentiable, as in torch.\n")
    return fn


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t",
                                     "The Chebyshev polynomial of the first kind T_n(x).")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u",
                                     "The Chebyshev polynomial of the second kind U_n(x).")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v",
                                     "The Chebyshev polynomial of the third kind V_n(x).")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w",
                                     "The Chebyshev polynomial of the fourth kind W_n(x).")
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t", "The shifted Chebyshev polynomial T*_n(x) = T_n(2x - 1).")
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u", "The shifted Chebyshev polynomial U*_n(x) = U_n(2x - 1).")
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v", "The shifted Chebyshev polynomial V*_n(x) = V_n(2x - 1).")
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w", "The shifted Chebyshev polynomial W*_n(x) = W_n(2x - 1).")
hermite_polynomial_h = _polynomial("hermite_polynomial_h",
                                   "The physicists' Hermite polynomial H_n(x).")
hermite_polynomial_he = _polynomial("hermite_polynomial_he",
                                    "The probabilists' Hermite polynomial He_n(x).")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", "The Laguerre polynomial L_n(x).")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", "The Legendre polynomial P_n(x).")


from .._builtin_names import name_as_builtins

name_as_builtins(globals(), "special_")
