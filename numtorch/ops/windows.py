"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window`` and ``kaiser_window`` (torch's top-level names).

A *periodic* window of length ``L`` is the first ``L`` points of the symmetric window of
length ``L + 1``: it tiles without a seam, which is what a short-time Fourier transform wants.
Each step is rounded to the requested dtype, as torch computes them in that dtype.
"""

import numpy as np

from .. import _dtype
from .._alloc_errors import result_alloc_error
from .._creation import _finish, check_pin_memory, dtype_arg
from ._pointwise import type_name

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]

# the C++ spelling torch prints for a dtype inside its TensorOptions message
_C_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


def window_dtype(fn, dtype, requires_grad=False):
    """The float dtype of a window (the default float dtype when None); torch's error for
    others."""
    dt = _dtype.get_default_dtype() if dtype is None else dtype_arg(dtype, fn)
    if not dt.is_floating_point:
        # (torch checks the options before requires_grad is set: always its default here)
        raise RuntimeError(f"{fn} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_C_NAMES.get(dt.name, dt.name)}, device=cpu, layout=Strided "
                           f"(default), requires_grad=false (default), pinned_memory=false, "
                           f"memory_format=(nullopt))")
    return dt


def window_length(fn, n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{fn}(): argument 'window_length' (position 1) must be int, not "
                        f"{type_name(n)}")
    n = int(n)
    if n < 0:
        raise RuntimeError(f"{fn} requires non-negative window_length, got window_length={n}")
    return n


def _window(fn, length, periodic, dtype, device, requires_grad, values, pin_memory=False):
    """``values(n, N, rnd)``: the symmetric window of ``N + 1`` points evaluated at ``n``,
    every intermediate passed through ``rnd`` (rounding to the result's dtype)."""
    n = window_length(fn, length)
    check_pin_memory(pin_memory)
    dt = window_dtype(fn, dtype, requires_grad)
    if n <= 1:
        arr = np.ones(n, dtype=dt.np)
    else:
        span = n if periodic else n - 1  # a periodic window is a symmetric one of n + 1 points
        try:
            rnd = _rounding(dt.np)
            arr = values(rnd(np.arange(n, dtype=np.float64)), float(span), rnd).astype(dt.np)
        except (MemoryError, ValueError) as e:
            # torch allocates the n + 1 points of a periodic window (its size check sees n)
            m = n + 1 if periodic and (n + 1) * dt.itemsize < 1 << 63 else n
            raise result_alloc_error(e, (m,), dt.itemsize) from None
    return _finish(arr, device, requires_grad)


def _rounding(dt):
    """Each step of torch's window kernels runs in the result's dtype: values are kept in
    float64 (cosines evaluated there) and rounded to ``dt`` after every step, which gives
    float32 windows torch's bits (e.g. -1.5e-8, not 0, at a float32 Blackman window's ends)
    where a float64 evaluation rounded once differed in the last bit for most points."""
    if dt == np.float64:
        return lambda a: a
    return lambda a: np.asarray(a, dtype=np.float64).astype(dt).astype(np.float64)


def _cosine_sum(coeffs, half_turns=False):
    """``sum_j (-1)^j a_j cos(2 pi j n / N)``, rounded as torch rounds it: the highest
    harmonic first and the constant last (in float64 a Blackman window's ends are then 0,
    not -1.4e-17); ``half_turns`` forms the phase as ``(n * pi / N) * 2j`` (torch's Blackman)
    instead of ``n * (2 pi / N) * j``."""
    def values(k, span, rnd):
        step = rnd(np.pi / span if half_turns else 2 * np.pi / span)
        base = rnd(k * step)
        out = np.zeros_like(k)
        for j in range(len(coeffs) - 1, 0, -1):
            c = rnd(np.cos(rnd(base * (2 * j if half_turns else j))))
            out = rnd(out + rnd(c * rnd((-1) ** j * coeffs[j])))
        return rnd(out + rnd(coeffs[0]))
    return values


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False, pin_memory=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / N)``.

    Args:
        window_length (int): the number of points.
        periodic (bool): the first ``window_length`` points of a window one point longer (for
            spectral analysis) when True, else a symmetric window. Default: True.
        dtype (dtype, optional): a float dtype. Default: the default float dtype.
        device (device, optional): where to put the result.
        requires_grad (bool): whether autograd records operations on the result.

    Example:
        >>> torch.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.5, 0.5)), pin_memory)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False, pin_memory=False):
    """The generalised Hamming window ``alpha - beta cos(2 pi n / N)``.

    Args:
        window_length (int): the number of points.
        periodic (bool): see :func:`hann_window`. Default: True.
        alpha (float): the constant term. Default: 0.54.
        beta (float): the cosine coefficient. Default: 0.46.

    Example:
        >>> torch.hamming_window(3, periodic=False)
        tensor([0.0800, 1.0000, 0.0800])
    """
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((float(alpha), float(beta))), pin_memory)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)``.

    Example:
        >>> torch.blackman_window(3, periodic=False).round(decimals=4)
        tensor([-0., 1., -0.])
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_sum((0.42, 0.5, 0.08), half_turns=True), pin_memory)


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False):
    """The triangular Bartlett window ``1 - |2 n / N - 1|``.

    Example:
        >>> torch.bartlett_window(5, periodic=False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   _triangle, pin_memory)


def _triangle(k, span, rnd):
    """``2 n / N`` up to the middle and ``2 - 2 n / N`` after it, each rounded as torch's."""
    out = rnd(k * rnd(2.0 / span))
    late = k > span // 2
    out[late] = rnd(2 - out[late])
    return out


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False, pin_memory=False):
    """The Kaiser window ``I0(beta sqrt(1 - (2 n / N - 1)^2)) / I0(beta)``.

    Args:
        window_length (int): the number of points.
        periodic (bool): see :func:`hann_window`. Default: True.
        beta (float): the shape parameter; larger values give a narrower window.
            Default: 12.0.

    Example:
        >>> torch.kaiser_window(3, periodic=False, beta=0.0)
        tensor([1., 1., 1.])
    """
    beta = float(beta)

    def values(k, span, rnd):
        if window_dtype("kaiser_window", dtype, requires_grad).np == np.float32:
            # torch's float32 kernel: r = (k - span/2) / (span/2) in float32, 1 - r^2 rounded
            # once, float32 I0 (83-92% of points differed by a bit when rounded from float64)
            from .special import _i0_float32
            half = np.float32(span / 2)
            r = (k.astype(np.float32) - half) / half
            s = np.maximum(1 - r.astype(np.float64) ** 2, 0).astype(np.float32)
            b = np.float32(beta)
            return _i0_float32(np, b * np.sqrt(s)) / _i0_float32(np, np.array([b]))
        r = 2 * k / span - 1
        return np.i0(beta * np.sqrt(np.maximum(1 - r * r, 0))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   values, pin_memory)
