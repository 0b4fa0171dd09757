"""Classical orthogonal polynomials of ``torch.special``: Chebyshev (T, U, V, W and their
shifted forms on [0, 1]), Hermite (physicists' H and probabilists' He), Laguerre and Legendre.

``p(x, n)`` is evaluated for every element with its own degree ``n`` (a tensor or a number,
truncated to an integer; negative degrees give 0). The three-term recurrences run for all
elements at once, one vectorised step per degree up to the largest degree still needing it;
for Chebyshev polynomials inside (-1, 1) and high degrees the trigonometric closed forms are
used instead, as torch does, which also keeps them accurate. As in torch these functions are
not differentiable: their outputs never require grad.
"""

import numpy as np

from ..autograd.graph import Op
from ._pointwise import _broadcast_error, _not_implemented

__all__ = []


def _parity(n, like):
    """+1 for even degrees, -1 for odd ones, in the dtype of ``like``."""
    return (1 - 2 * (n & 1)).astype(like.dtype)


class _Polynomial(Op):
    """y = p_n(x) for a family given by ``start`` (degrees 0 and 1), ``step`` (the
    recurrence) and ``special`` (closed forms on part of the domain)."""

    differentiable = False
    promote = "float"

    def forward(self, x, n):
        xp = self.xp
        x, n = xp.asarray(x), xp.asarray(n)
        if x.dtype.kind == "c" or x.dtype.itemsize == 2:
            raise _not_implemented(f"{self.family}_cpu", x.dtype)
        try:
            x, n = xp.broadcast_arrays(x, n)
        except ValueError as e:
            _broadcast_error(e, x, n)
        deg = xp.trunc(n).astype(np.int64)  # torch casts the degree to an integer
        dt = x.dtype.type
        out = xp.zeros(x.shape, dtype=x.dtype)
        done = deg < 0
        for mask, value in self.special(xp, x, deg, dt):
            mask = mask & ~done
            out = xp.where(mask, value, out)
            done = done | mask
        p, q = self.start(x, dt)
        out = xp.where(~done & (deg == 0), p, out)
        out = xp.where(~done & (deg == 1), q, out)
        rest = ~done & (deg >= 2)
        if rest.any():
            top = int(deg[rest].max())
            for k in range(1, top):
                p, q = q, self.step(x, k, p, q, dt)
                out = xp.where(rest & (deg == k + 1), q, out)
        return out

    def special(self, xp, x, n, dt):
        return ()


def _acos_inside(xp, t, dt):
    """acos(t) where |t| < 1 (0 elsewhere, so the closed forms stay finite there)."""
    inside = xp.abs(t) < 1
    return inside, xp.arccos(xp.where(inside, t, dt(0)))


class _ChebyshevBase(_Polynomial):
    """T, U, V and W (``shifted``: of 2x - 1) share the recurrence y_{k+1} = 2t y_k - y_{k-1};
    they differ in degree 1 and in their values at the ends of [-1, 1]."""

    shifted = False
    trig_from = 6

    def arg(self, x, dt):
        return x + x - dt(1) if self.shifted else x

    def start(self, x, dt):
        t = self.arg(x, dt)
        return dt(1), self.first(t, dt)

    def step(self, x, k, p, q, dt):
        t = self.arg(x, dt)
        return (t + t) * q - p

    def special(self, xp, x, n, dt):
        t = self.arg(x, dt)
        if self.shifted:
            hi, lo = x == 1, x == 0
        else:
            hi, lo = t == 1, t == -1
        inside, theta = _acos_inside(xp, t, dt)
        nf = n.astype(x.dtype)
        return ((hi, self.at_one(nf, dt)), (lo, self.at_minus_one(nf, n, dt)),
                (inside & (n > self.trig_from), self.closed(xp, nf, theta, dt)))


class ChebyshevT(_ChebyshevBase):
    """T_n(cos a) = cos(n a)."""

    family = "chebyshev_polynomial_t"

    def first(self, t, dt):
        return t

    def at_one(self, n, dt):
        return dt(1)

    def at_minus_one(self, nf, n, dt):
        return _parity(n, nf)

    def closed(self, xp, n, theta, dt):
        return xp.cos(n * theta)


class ChebyshevU(_ChebyshevBase):
    """U_n(cos a) = sin((n + 1) a) / sin(a)."""

    family = "chebyshev_polynomial_u"
    trig_from = 8

    def first(self, t, dt):
        return t + t

    def at_one(self, n, dt):
        return n + dt(1)

    def at_minus_one(self, nf, n, dt):
        return (nf + dt(1)) * _parity(n, nf)

    def closed(self, xp, n, theta, dt):
        s = xp.sin(theta)
        return xp.sin((n + dt(1)) * theta) / xp.where(s == 0, dt(1), s)


class ChebyshevV(_ChebyshevBase):
    """V_n(cos a) = cos((n + 1/2) a) / cos(a / 2)."""

    family = "chebyshev_polynomial_v"
    trig_from = 8

    def first(self, t, dt):
        return t + t - dt(1)

    def at_one(self, n, dt):
        return dt(1)

    def at_minus_one(self, nf, n, dt):
        return (nf + nf + dt(1)) * _parity(n, nf)

    def closed(self, xp, n, theta, dt):
        c = xp.cos(theta / dt(2))
        return xp.cos((n + dt(0.5)) * theta) / xp.where(c == 0, dt(1), c)


class ChebyshevW(_ChebyshevBase):
    """W_n(cos a) = sin((n + 1/2) a) / sin(a / 2)."""

    family = "chebyshev_polynomial_w"
    trig_from = 8

    def first(self, t, dt):
        return t + t + dt(1)

    def at_one(self, n, dt):
        return n + n + dt(1)

    def at_minus_one(self, nf, n, dt):
        return _parity(n, nf)

    def closed(self, xp, n, theta, dt):
        s = xp.sin(theta / dt(2))
        return xp.sin((n + dt(0.5)) * theta) / xp.where(s == 0, dt(1), s)


def _shifted(base, name):
    return type("Shifted" + base.__name__, (base,), {
        "family": name, "shifted": True, "trig_from": 6,
        "__doc__": f"{base.__doc__[:-1]}, evaluated at 2x - 1 (orthogonal on [0, 1])."})


ShiftedChebyshevT = _shifted(ChebyshevT, "shifted_chebyshev_polynomial_t")
ShiftedChebyshevU = _shifted(ChebyshevU, "shifted_chebyshev_polynomial_u")
ShiftedChebyshevV = _shifted(ChebyshevV, "shifted_chebyshev_polynomial_v")
ShiftedChebyshevW = _shifted(ChebyshevW, "shifted_chebyshev_polynomial_w")


class HermiteH(_Polynomial):
    """H_{k+1} = 2x H_k - 2k H_{k-1} (physicists')."""

    family = "hermite_polynomial_h"

    def start(self, x, dt):
        return dt(1), x + x

    def step(self, x, k, p, q, dt):
        return (x + x) * q - dt(2 * k) * p


class HermiteHe(_Polynomial):
    """He_{k+1} = x He_k - k He_{k-1} (probabilists')."""

    family = "hermite_polynomial_he"

    def start(self, x, dt):
        return dt(1), x

    def step(self, x, k, p, q, dt):
        return x * q - dt(k) * p


class LaguerreL(_Polynomial):
    """(k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; L_n(0) = 1."""

    family = "laguerre_polynomial_l"

    def start(self, x, dt):
        return dt(1), dt(1) - x

    def step(self, x, k, p, q, dt):
        return ((dt(2 * k + 1) - x) * q - dt(k) * p) / dt(k + 1)

    def special(self, xp, x, n, dt):
        return ((x == 0, dt(1)),)


class LegendreP(_Polynomial):
    """(k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; P_n(+-1) = (+-1)^n."""

    family = "legendre_polynomial_p"

    def start(self, x, dt):
        return dt(1), x

    def step(self, x, k, p, q, dt):
        return (dt(2 * k + 1) * x * q - dt(k) * p) / dt(k + 1)

    def special(self, xp, x, n, dt):
        return ((x == 1, dt(1)), (x == -1, _parity(n, x)))


FAMILIES = {cls.family: cls for cls in (
    ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, ShiftedChebyshevT, ShiftedChebyshevU,
    ShiftedChebyshevV, ShiftedChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP)}
