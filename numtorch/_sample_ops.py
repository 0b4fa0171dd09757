"""The sampling ops behind numtorch's random functions, and the raw draws they make.

Each op draws its values with the generator it is given (the ``rng`` parameter, chosen by the
public functions in ``_sampling.py`` and ``_random_fills.py``) and is a graph node with zero
gradients, as torch's sampling functions are.
"""

import math

import numpy as np

from . import backend
from ._torch_rng import is_torch_stream as _torch_stream
from .autograd.graph import Op

_HALF_BELOW_ONE = np.float16(1.0 - 2.0 ** -11)  # the largest float16 below 1


def _xp(rng):
    """The array module ``rng`` draws into: NumPy's, or CuPy for a GPU generator
    (``backend.device_rng``), which draws on the device."""
    return getattr(rng, "xp", np)


def draws_below(rng, shape, p):
    """``rng.random(shape) < p`` for a number ``p`` (float64 uniforms, as torch's
    scalar-probability Bernoulli kernel compares them), as a bool array; torch's CPU stream
    decides it on the raw bits without making the uniforms."""
    if _torch_stream(rng):
        return rng.below(shape, p)
    return rng.random(shape) < p


def _uniform01(rng, shape, np_dtype):
    """Uniform samples in [0, 1) of a float or complex dtype (complex: both parts)."""
    if np_dtype.kind == "c" and _torch_stream(rng):
        # torch fills a complex tensor through its real view: real and imaginary alternate
        real = np.float32 if np_dtype == np.complex64 else np.float64
        return rng.random((*shape, 2), dtype=real).view(np_dtype).reshape(shape)
    if np_dtype.kind == "c":
        real = np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
        out = _xp(rng).empty(shape, dtype=np_dtype)
        out.real = rng.random(shape, dtype=real)
        out.imag = rng.random(shape, dtype=real)
        return out
    if np_dtype == np.float32 or np_dtype == np.float64:
        return rng.random(shape, dtype=np_dtype)
    # float16/bfloat16: round float32 draws, keeping them below 1 (rounding could reach 1.0)
    below_one = _HALF_BELOW_ONE if np_dtype == np.float16 else np.nextafter(
        np_dtype.type(1), np_dtype.type(0))
    return _xp(rng).minimum(rng.random(shape, dtype=np.float32).astype(np_dtype), below_one)


_BOX_MULLER_MIN = 4096  # below this many float32 samples NumPy's ziggurat costs fewer calls


def _normal32(rng, shape):
    """Standard normal float32 samples.

    Large draws use the Box-Muller transform on float32 uniforms (a radius ``sqrt(-2 log u)``
    and an angle ``2 pi v`` give two samples, ``r cos`` and ``r sin``): NumPy's float32 log,
    sqrt, sin and cos are vectorised, which makes this several times faster than its
    ziggurat, whose per-sample branches do not vectorise. The 24-bit uniforms bound the
    samples by 5.77 in absolute value (a tail of probability 8e-9), as torch's float sampler.
    """
    n = math.prod(shape)
    if n < _BOX_MULLER_MIN or _xp(rng) is not np:  # cuRAND draws float32 normals directly
        return rng.standard_normal(shape, dtype=np.float32)
    h = (n + 1) // 2
    u = rng.random(2 * h, dtype=np.float32)
    r, theta = u[:h], u[h:]
    np.subtract(np.float32(1), r, out=r)  # (0, 1]: the log stays finite
    np.log(r, out=r)
    r *= np.float32(-2)
    np.sqrt(r, out=r)
    theta *= np.float32(2 * math.pi)
    out = np.empty(n, dtype=np.float32)
    first, second = out[:h], out[h:]
    np.cos(theta, out=first)
    first *= r
    np.sin(theta[:n - h], out=second)
    second *= r[:n - h]
    return out.reshape(shape)


def _standard_normal(rng, shape, np_dtype):
    """Standard normal samples; complex samples have variance 1/2 in each part (as torch).

    Half types are drawn in float32 and rounded, float32 (and complex64) never go through
    float64.
    """
    if _torch_stream(rng):  # torch's CPU stream, half types too
        if np_dtype.kind != "c":
            return rng.standard_normal(shape, dtype=np_dtype)
        # through the real view (parts alternate), with the standard deviation sqrt(1/2)
        real = np.float32 if np_dtype == np.complex64 else np.float64
        pairs = rng.normal(0.0, math.sqrt(0.5), (*shape, 2), real)
        return pairs.view(np_dtype).reshape(shape)
    if np_dtype.kind == "c":
        real = np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
        out = _xp(rng).empty(shape, dtype=np_dtype)
        draw = _normal32 if real == np.float32 else (
            lambda g, s: g.standard_normal(s, dtype=np.float64))
        out.real = draw(rng, shape)
        out.imag = draw(rng, shape)
        out *= real.type(math.sqrt(0.5))
        return out
    if np_dtype == np.float64:
        return rng.standard_normal(shape, dtype=np_dtype)
    z = _normal32(rng, shape)
    return z if np_dtype == np.float32 else z.astype(np_dtype)


def _work_dtype(np_dtype):
    """The dtype samples of ``np_dtype`` are computed in: float32 for the half types."""
    if np_dtype == np.float16 or np_dtype.kind == "V":  # "V": ml_dtypes' bfloat16
        return np.dtype(np.float32)
    return np_dtype


def _like_input(arr, like):
    """``arr`` (drawn on the CPU) on the device of the array ``like``."""
    if type(like) is np.ndarray:
        return arr
    return backend.xp_of(like).asarray(arr)


def _in_memory_order(x, draw):
    """``draw(shape)``'s samples for refilling the array ``x``, laid so that they fill ``x`` in
    its memory order, as torch's fills walk a tensor (a transposed tensor gets its draws along
    its strides, not along its logical last dimension)."""
    if x.flags.c_contiguous or x.ndim < 2 or min(x.strides) <= 0:
        return _like_input(draw(x.shape), x)
    order = sorted(range(x.ndim), key=lambda d: -x.strides[d])
    y = draw(tuple(x.shape[d] for d in order))
    return _like_input(y.transpose(np.argsort(order)), x)


def _integers(rng, low, high, shape, np_dtype):
    """Integers uniform in ``[low, high)`` stored as ``np_dtype`` (float, int or bool)."""
    if high - 1 > np.iinfo(np.int64).max:
        vals = rng.integers(low, high, size=shape, dtype=np.uint64)
    else:
        vals = rng.integers(low, high, size=shape, dtype=np.int64)
    return vals.astype(np_dtype, copy=False)


class _Sample(Op):
    """Base of the random ops: y is a fresh draw, so every tensor input gets a zero gradient."""

    def backward(self, grad):
        from .ops import zeros_like

        zero = zeros_like(grad)
        return tuple(zero if e is not None else None for e in self._edges)


class Normal(_Sample):
    """y = mean + std * z, z ~ N(0, 1); dy/dmean = dy/dstd = 0 (as torch)."""

    def forward(self, mean, std):
        shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
        z = _standard_normal(self.rng, shape, self.dtype)
        z = _like_input(z, mean if not isinstance(mean, (int, float)) else std)
        return (z * std + mean).astype(self.dtype, copy=False)


class Bernoulli(_Sample):
    """y = 1 with probability p (``self.p``, or the input's values when None), else 0;
    dy/dp = 0."""

    def forward(self, x):
        if self.p is None:
            u = self.rng.random(x.shape, dtype=_bernoulli_draws(x.dtype, None))
            return (_like_input(u, x) < x).astype(x.dtype)
        return _like_input(draws_below(self.rng, x.shape, self.p), x).astype(x.dtype)


def _bernoulli_draws(dtype, p):
    """The uniforms a Bernoulli draw compares with ``p``, as torch's CPU kernels pick them:
    float64 for one probability (a number: dropout's masks) or float64 probabilities, float32
    for float32 and half probabilities."""
    if p is None or not isinstance(p, (int, float)):
        dtype = p.dtype if p is not None and hasattr(p, "dtype") else dtype
        return np.float64 if dtype == np.float64 else np.float32
    return np.float64


class Poisson(_Sample):
    """y ~ Poisson(rate); dy/drate = 0."""

    def forward(self, rate):
        # asarray: for a 0-d rate NumPy hands back a Python int
        xp = _xp(self.rng)
        y = xp.asarray(self.rng.poisson(rate if xp is not np else _host_array(rate)))
        y = y.astype(rate.dtype)
        return _like_input(y, rate)


def normal_fill(rng, shape, np_dtype, mean, std):
    """N(mean, std**2) samples of a real float dtype, half types in float32 (not rounded)."""
    work = _work_dtype(np_dtype)  # scaled in place, in float32 for float32 and half types
    if _torch_stream(rng):  # torch's CPU stream: its arithmetic too
        return rng.normal(mean, std, shape, np_dtype)
    z = _standard_normal(rng, shape, work)
    if std != 1:
        z *= work.type(std)
    if mean != 0:
        z += work.type(mean)
    return z


class Uniform(_Sample):
    """Refill x with samples uniform in [low, high); dy/dx = 0."""

    def forward(self, x):
        work = _work_dtype(x.dtype)  # float32 draws and arithmetic stay float32
        span = self.high - self.low
        if x.dtype.kind == "c":
            u = _uniform01(self.rng, x.shape, work)
            y = (u.real * span + self.low) + 1j * (u.imag * span + self.low)
            return _like_input(y.astype(x.dtype, copy=False), x)
        return _in_memory_order(x, lambda shape: self._draw(shape, x.dtype, work, span))

    def _draw(self, shape, dtype, work, span):
        if _torch_stream(self.rng):  # torch's CPU stream and arithmetic (and its rounding)
            return self.rng.uniform(self.low, self.high, shape, dtype).astype(dtype, copy=False)
        y = _uniform01(self.rng, shape, work)
        if span != 1:
            y *= work.type(span)
        if self.low != 0:
            y += work.type(self.low)
        if work != dtype:  # rounding to a half type may reach ``high``: torch's never do
            top = dtype.type(self.high)
            if float(top) >= self.high:
                top = np.nextafter(top, dtype.type(-np.inf))
            return np.minimum(y.astype(dtype), top)
        return y.astype(dtype, copy=False)


class NormalFill(_Sample):
    """Refill x with samples from N(mean, std**2); dy/dx = 0."""

    def forward(self, x):
        if not x.flags.c_contiguous and _torch_stream(self.rng):  # torch's scalar path
            return _in_memory_order(x, lambda shape: self.rng.normal_serial(
                self.mean, self.std, shape, x.dtype))
        z = normal_fill(self.rng, x.shape, x.dtype, self.mean, self.std)
        return _like_input(z.astype(x.dtype, copy=False), x)

    def name(self):
        return "NormalBackward0"


class BernoulliFill(_Sample):
    """Refill x with 0/1 draws of probability p (a number or a tensor); dy/dx = dy/dp = 0."""

    def forward(self, x, p):
        if isinstance(p, (int, float)):
            draws = _in_memory_order(x, lambda shape: draws_below(self.rng, shape, p))
            return draws.astype(x.dtype)
        u = self.rng.random(x.shape, dtype=_bernoulli_draws(x.dtype, p))
        return (_like_input(u, x) < p).astype(x.dtype)

    def name(self):
        # (the in-place overloads have nodes of their own: bernoulli_values names them)
        return self.__dict__.get("node_name", "BernoulliBackward0")


class Random(_Sample):
    """Refill x with integers uniform in [low, high); dy/dx = 0."""

    def forward(self, x):
        return _in_memory_order(
            x, lambda shape: _integers(self.rng, self.low, self.high, shape, x.dtype))


class Exponential(_Sample):
    """Refill x with Exponential(lambd) samples; dy/dx = 0."""

    def forward(self, x):
        y = self.rng.exponential(1.0 / self.lambd, size=x.shape)
        return _like_input(y.astype(x.dtype), x)


class Geometric(_Sample):
    """Refill x with Geometric(p) samples (the trial of the first success, >= 1); dy/dx = 0."""

    def forward(self, x):
        return _like_input(self.rng.geometric(self.p, size=x.shape).astype(x.dtype), x)


class LogNormal(_Sample):
    """Refill x with exp(N(mean, std**2)) samples; dy/dx = 0."""

    def forward(self, x):
        y = self.rng.lognormal(self.mean, self.std, size=x.shape)
        return _like_input(y.astype(x.dtype), x)


class Cauchy(_Sample):
    """Refill x with Cauchy(median, sigma) samples; dy/dx = 0."""

    def forward(self, x):
        y = self.median + self.sigma * self.rng.standard_cauchy(size=x.shape)
        return _like_input(y.astype(x.dtype), x)


def _host_array(a):
    return a if type(a) is np.ndarray or not hasattr(a, "get") else a.get()
