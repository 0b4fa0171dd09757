"""Random numbers drawn on the GPU: one ``cupy.random.Generator`` per numtorch generator.

:class:`DeviceRng` answers the NumPy ``Generator`` methods numtorch's samplers call
(``random``, ``standard_normal``, ``integers``, ``permutation``, ``poisson``...) with CuPy
arrays drawn by cuRAND on the device, so sampling code written against NumPy's generator fills
CUDA tensors without a host draw or a host-to-device copy. Its state is the bit generator's
device state (``bit_generator._state``, the per-thread cuRAND states), which
:func:`get_state` copies to the host and :func:`set_state` copies back.
"""

import math

import numpy as np

from . import _cupy

_DEFAULTS = {}  # device index -> the default DeviceRng (made on first draw)
_PENDING = {}  # device index -> seed given before that device's generator was made
_ALL = [None]  # the seed of every device not seeded on its own (manual_seed_all)


def reset():
    _DEFAULTS.clear()
    _PENDING.clear()
    _ALL[0] = None


class DeviceRng:
    """NumPy-``Generator``-like draws on GPU ``index`` from a CuPy generator seeded ``seed``."""

    on_device = True

    def __init__(self, seed, index):
        cp = _cupy.cp
        self.index = index
        with cp.cuda.Device(index):
            self._gen = cp.random.Generator(cp.random.XORWOW(int(seed) % (1 << 64)))
        self.xp = cp

    # -- the NumPy Generator methods numtorch's samplers use ------------------------------------
    def random(self, size=None, dtype=np.float64):
        dtype = np.dtype(dtype)
        with self.xp.cuda.Device(self.index):
            if dtype in (np.float32, np.float64):
                return self._gen.random(size, dtype=dtype)
            return self._gen.random(size, dtype=np.float32).astype(dtype)

    def standard_normal(self, size=None, dtype=np.float64):
        dtype = np.dtype(dtype)
        with self.xp.cuda.Device(self.index):
            if dtype in (np.float32, np.float64):
                return self._gen.standard_normal(size, dtype=dtype)
            return self._gen.standard_normal(size, dtype=np.float32).astype(dtype)

    def standard_exponential(self, size=None, dtype=np.float64):
        with self.xp.cuda.Device(self.index):
            return self._gen.standard_exponential(size, dtype=dtype)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        dtype = np.dtype(dtype)
        with self.xp.cuda.Device(self.index):
            if high - low <= (1 << 62):
                return self._gen.integers(low, high, size=size, dtype=np.int64,
                                          endpoint=endpoint).astype(dtype, copy=False)
            # spans beyond 2**62: two 32-bit halves, reduced modulo the span (bias < 2**-2)
            hi = self._gen.integers(0, 1 << 32, size=size, dtype=np.int64).astype(np.uint64)
            lo = self._gen.integers(0, 1 << 32, size=size, dtype=np.int64).astype(np.uint64)
            span = np.uint64(high - low + (1 if endpoint else 0))
            return ((hi << np.uint64(32) | lo) % span + np.uint64(low)).astype(dtype)

    def permutation(self, n):
        """A random permutation of ``range(n)``: the order of ``n`` uniform float64 keys."""
        with self.xp.cuda.Device(self.index):
            return self.xp.argsort(self._gen.random(n, dtype=np.float64))

    def uniform(self, low=0.0, high=1.0, size=None):
        return self.random(size) * (high - low) + low

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self.standard_normal(size) * scale + loc

    def exponential(self, scale=1.0, size=None):
        return self.standard_exponential(size) * scale

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        return self.xp.exp(self.normal(mean, sigma, size))

    def standard_cauchy(self, size=None):
        return self.xp.tan(math.pi * (self.random(size) - 0.5))

    def geometric(self, p, size=None):
        with self.xp.cuda.Device(self.index):
            return self._gen.geometric(p, size)

    def poisson(self, lam=1.0, size=None):
        with self.xp.cuda.Device(self.index):
            return self._gen.poisson(lam, size)

    def binomial(self, n, p, size=None):
        with self.xp.cuda.Device(self.index):
            return self._gen.binomial(n, p, size)

    def standard_gamma(self, shape, size=None, dtype=np.float64):
        with self.xp.cuda.Device(self.index):
            return self._gen.standard_gamma(shape, size, dtype=dtype)

    def gamma(self, shape, scale=1.0, size=None):
        return self.standard_gamma(shape, size) * scale

    def beta(self, a, b, size=None):
        with self.xp.cuda.Device(self.index):
            return self._gen.beta(a, b, size)

    # -- state ----------------------------------------------------------------------------------
    def get_state(self):
        """The device state as host bytes (a device-to-host copy)."""
        return self._gen.bit_generator._state.get().view(np.uint8).copy()

    def set_state(self, data):
        """Restore a state from :meth:`get_state`; ValueError if ``data`` does not fit."""
        state = self._gen.bit_generator._state
        if data.dtype != np.uint8 or data.size != state.nbytes:
            raise ValueError(f"a CUDA generator state is {state.nbytes} bytes, got {data.size}")
        state[...] = self.xp.asarray(data.view(np.int8))


def default_rng(index):
    """The default generator of GPU ``index`` (made on first use, with the pending seed)."""
    rng = _DEFAULTS.get(index)
    if rng is None:
        from .._random import _DEFAULT_SEED

        seed = _PENDING.pop(index, _DEFAULT_SEED if _ALL[0] is None else _ALL[0])
        rng = _DEFAULTS[index] = DeviceRng(seed, index)
        rng.initial = seed
    return rng


def seed_default(index, seed):
    """Seed GPU ``index``'s default generator (lazily: no CUDA work until it draws)."""
    _DEFAULTS.pop(index, None)
    _PENDING[index] = seed


def seed_all(seed):
    """Seed every GPU's default generator (lazily)."""
    _DEFAULTS.clear()
    _PENDING.clear()
    _ALL[0] = seed


def initial_seed(index):
    rng = _DEFAULTS.get(index)
    if rng is not None:
        return rng.initial
    from .._random import _DEFAULT_SEED

    return _PENDING.get(index, _DEFAULT_SEED if _ALL[0] is None else _ALL[0])
