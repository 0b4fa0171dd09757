"""The window functions of ``torch.signal.windows``.

Each is evaluated in float64 on the points of a symmetric window of ``M`` points (``sym=True``)
or of ``M + 1`` points with the last one dropped (``sym=False``, periodic), then cast to the
requested float32 or float64 dtype. Bad arguments raise ``ValueError`` as torch's do.
"""

import math

import numpy as np

from ... import _dtype
from ..._creation import _finish, dtype_arg

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _check(fn, M, dtype):
    if M < 0:
        raise ValueError(f"{fn} requires non-negative window length, got M={M}")
    dt = _dtype.get_default_dtype() if dtype is None else dtype_arg(dtype, fn)
    if dt not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{fn} expects float32 or float64 dtypes, got: {dt}")
    return dt


def _make(values, dt, device, requires_grad):
    return _finish(np.asarray(values, dtype=np.float64).astype(dt.np), device, requires_grad)


def _points(M, sym):
    """Offsets from the window's centre: ``n - (N - 1) / 2`` for ``N = M`` (symmetric) or
    ``M + 1`` (periodic), at ``n = 0 .. M - 1``."""
    n = M if sym else M + 1
    return np.arange(M, dtype=np.float64) - (n - 1) / 2


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """A sum of cosines ``sum_k (-1)^k a_k cos(2 pi k n / (N - 1))``.

    Args:
        M (int): the number of points.
        a (list or tuple of floats): the coefficients.
        sym (bool): symmetric (True) or periodic (False). Default: True.
        dtype (dtype, optional): float32 or float64. Default: the default float dtype.

    Example:
        >>> torch.signal.windows.general_cosine(3, a=[0.5, 0.5])
        tensor([0., 1., 0.])
    """
    dt = _check("general_cosine", M, dtype)
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if M == 0:
        return _make([], dt, device, requires_grad)
    if M == 1:
        return _make([1.0], dt, device, requires_grad)
    n = M if sym else M + 1
    k = np.arange(M, dtype=np.float64)
    out = np.zeros(M)
    for j, c in enumerate(a):
        out += (-1) ** j * float(c) * np.cos(2 * np.pi * j * k / (n - 1))
    return _make(out, dt, device, requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The generalised Hamming window ``alpha - (1 - alpha) cos(2 pi n / (N - 1))``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hamming window (generalised Hamming with ``alpha = 0.54``)."""
    return general_hamming(M, sym=sym, dtype=dtype, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hann window (generalised Hamming with ``alpha = 0.5``).

    Example:
        >>> torch.signal.windows.hann(5)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Blackman window (cosine sum with ``a = [0.42, 0.5, 0.08]``)."""
    _check("blackman", M, dtype)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, device=device, requires_grad=requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The cosine (sine) window ``sin(pi (n + 1/2) / N)``."""
    dt = _check("cosine", M, dtype)
    if M == 1:
        return _make([1.0], dt, device, requires_grad)
    n = M if sym else M + 1
    return _make(np.sin(np.pi * (np.arange(M) + 0.5) / n), dt, device, requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangular Bartlett window, zero at both ends of the symmetric form."""
    dt = _check("bartlett", M, dtype)
    if M <= 1:
        return _make(np.ones(M), dt, device, requires_grad)
    n = M if sym else M + 1
    return _make(1 - np.abs(2 * np.arange(M) / (n - 1) - 1), dt, device, requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """The Gaussian window ``exp(-x^2 / (2 std^2))``, ``x`` the offset from the centre."""
    dt = _check("gaussian", M, dtype)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 1:
        return _make([1.0], dt, device, requires_grad)
    x = _points(M, sym)
    return _make(np.exp(-x * x / (2.0 * std * std)), dt, device, requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``.

    Args:
        center (float, optional): only for ``sym=False``. Default: the window's centre.
        tau (float): the decay length. Default: 1.0.
    """
    dt = _check("exponential", M, dtype)
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if center is None:
        if M == 1:
            return _make([1.0], dt, device, requires_grad)
        x = _points(M, sym)
    else:
        x = np.arange(M, dtype=np.float64) - float(center)
    return _make(np.exp(-np.abs(x) / tau), dt, device, requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - (2 x / (N - 1))^2)) / I0(beta)``."""
    dt = _check("kaiser", M, dtype)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _make(np.ones(M), dt, device, requires_grad)
    n = M if sym else M + 1
    r = 2 * _points(M, sym) / (n - 1)
    vals = np.i0(beta * np.sqrt(np.maximum(1 - r * r, 0))) / np.i0(float(beta))
    return _make(vals, dt, device, requires_grad)


del math
