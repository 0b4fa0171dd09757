"""Private ops for the von Mises distribution: ``log I0(x)`` and the ratio ``I1(x) / I0(x)``
of modified Bessel functions, accurate for any ``x`` (``I0`` itself overflows past ~700).

Values: the power series for ``|x| <= 20``; beyond, Hankel's asymptotic expansion of
``I_nu(x) e^-x sqrt(2 pi x)`` (its terms keep shrinking until ``k ~ 2x``, so 30 of them reach
double precision). Derivatives close the set: ``d log I0 / dx = I1/I0 = r`` and
``dr/dx = 1 - r/x - r^2``.
"""

import math

import numpy as np

from ..autograd.graph import Op

_SERIES_MAX = 20.0
_SERIES_TERMS = 70
_ASYMPTOTIC_TERMS = 30


def _scaled_series(x, order):
    """``I_order(x) e^-x`` from the power series (``x >= 0``, moderate)."""
    q = (x * 0.5) ** 2
    term = np.ones_like(x) if order == 0 else x * 0.5
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + order))
        total = total + term
    return total * np.exp(-x)


def _scaled_asymptotic(x, order):
    """``I_order(x) e^-x`` from the large-argument expansion (``x`` large)."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total = total + term
    return total / np.sqrt(2 * math.pi * x)


def _scaled(x, order):
    """``I_order(|x|) e^-|x|`` for an array ``x`` (float64)."""
    ax = np.abs(x)
    small = ax <= _SERIES_MAX
    out = np.empty_like(ax)
    if small.any():
        out[small] = _scaled_series(ax[small], order)
    if (~small).any():
        out[~small] = _scaled_asymptotic(ax[~small], order)
    return out


def _host64(a):
    return np.asarray(a if type(a) is np.ndarray else a.get(), dtype=np.float64)


class LogI0(Op):
    """y = log I0(x); dy/dx = I1(x) / I0(x)."""

    def forward(self, x):
        self.save_inputs(x)
        x64 = _host64(x)
        y = np.log(_scaled(x64, 0)) + np.abs(x64)
        return self.xp.asarray(y).astype(x.dtype, copy=False)

    def backward(self, grad):
        return grad * I1OverI0.apply(self.saved_inputs())


class I1OverI0(Op):
    """y = I1(x) / I0(x); dy/dx = 1 - y/x - y^2 (1/2 at x = 0)."""

    def forward(self, x):
        self.save_inputs(x)
        x64 = _host64(x)
        y = np.sign(x64) * _scaled(x64, 1) / _scaled(x64, 0)
        return self.save_output(self.xp.asarray(y).astype(x.dtype, copy=False))

    def backward(self, grad):
        x = self.saved_inputs()
        y = self.saved_output()
        safe = x.masked_fill(x == 0, 1.0)
        slope = 1 - y / safe - y * y
        return grad * slope.masked_fill(x == 0, 0.5)


def log_i0(x):
    """``log I0(x)`` elementwise, differentiable to any order."""
    return LogI0.apply(x)


def i1_over_i0(x):
    """``I1(x) / I0(x)`` elementwise, differentiable to any order."""
    return I1OverI0.apply(x)

