"""torch's CPU random stream, reproduced, behind the interface of a NumPy ``Generator``.

torch's CPU generator is a 32-bit Mersenne Twister (MT19937) seeded from the low 32 bits of
the seed, and each sampler turns its raw words into values in a fixed way. Measured against
torch 2.13 (same seed, same calls, same values):

- a float32 (or half) uniform takes one word, keeps its low 24 bits and scales by 2**-24; a
  float64 uniform takes two words, the first as the high half of a 64-bit number, keeps 53
  bits and scales by 2**-53;
- integers in ``[low, low + range)`` are ``low + word % range``, with a 64-bit number instead
  of a word when the range reaches 2**32;
- a permutation is Fisher-Yates: for ``i = 0 .. n-2`` swap ``a[i]`` with
  ``a[i + word % (n - i)]``;
- normal samples: fewer than 16 come one at a time from two float64 uniforms by Box-Muller,
  ``sqrt(-2 log1p(-u2)) * cos(2 pi u1)``, keeping the ``sin`` partner for the next one; 16
  or more are first all drawn as uniforms of their dtype, then turned in blocks of 16 (the
  first 8 give the radii from ``1 - u``, the last 8 the angles), and a tail that does not fill
  a block takes 16 fresh uniforms for the last 16 places;
- exponential, geometric and Cauchy samples transform float64 uniforms, and scalar-probability
  Bernoulli draws (dropout) compare float64 uniforms.

So ``torch.manual_seed(s)`` then ``randn``/``rand``/``randint``/``randperm``, module
initialisation, dropout masks and shuffled DataLoader orders give torch's values. Float32
normals in blocks go through torch's vectorised kernel's own float32 log, sin and cos
(``_normal_kernel32``), so they equal torch's bit for bit too. Gamma, Poisson and
binomial draws follow torch's rejection samplers (float64 uniforms, one value at a time).
Samplers not covered draw from the same stream with NumPy's algorithms: reproducible under a
seed, not torch's values.
"""

import math

import numpy as np

from ._normal_ahead32 import MAX_SIZE as AHEAD_SIZE
from ._normal_ahead32 import Ahead
from ._normal_kernel32 import box_muller_blocks32
from ._normal_small32 import MAX_BLOCKS, box_muller_small32

_N = 624
_MASK53 = np.uint64((1 << 53) - 1)
_STATE_BYTES = 5056  # the size of torch's CPU generator state
_MASK24_32 = np.uint32((1 << 24) - 1)
_FULL32, _FULL64 = 1 << 32, 1 << 64
_SCALE24 = np.float32(2.0 ** -24)
_SCALE53 = 2.0 ** -53
_BIG = 1 << 20
_SMALL = 4096  # below this, raw words beat Generator.integers' fixed cost
_MASK24_64 = np.uint64((1 << 24) - 1)
_MASK21 = (1 << 21) - 1


def _seed_key(seed32):
    """The MT19937 state vector for a 32-bit seed (Matsumoto and Nishimura's seeding)."""
    key = [seed32]
    x = seed32
    for j in range(1, _N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key.append(x)
    return np.array(key, dtype=np.uint32)


def _count(size):
    if size is None:
        return 1
    if size.__class__ is int:
        return size
    if isinstance(size, np.integer):
        return int(size)
    return math.prod(size)


def _shaped(values, size):
    if size is None:
        return values[0].item() if values.dtype.kind != "f" else float(values[0])
    if size.__class__ is tuple and len(size) != 1:
        return values.reshape(size)
    return values


def is_torch_stream(rng):
    """Whether ``rng`` is torch's CPU stream itself (not a GPU generator, nor a wrapper such as
    vmap's, which must see the plain draws it can share across a batch)."""
    return type(rng) is TorchStream


class TorchStream:
    """torch's CPU random stream: an MT19937 with torch's seeding and samplers.

    Offers the methods of ``numpy.random.Generator`` numtorch's samplers call (``random``,
    ``standard_normal``, ``integers``, ``permutation``, ``standard_exponential``, ...) with
    torch's algorithms; any other attribute is NumPy's generator on the same bits.

    Args:
        seed (int): a seed in ``[0, 2**64)``; only its low 32 bits reach the Mersenne Twister,
            as in torch.
    """

    def __init__(self, seed):
        self.bit_generator = np.random.MT19937()
        self._numpy = np.random.Generator(self.bit_generator)
        self.seed = 0
        self.reseed(seed)

    def reseed(self, seed):
        """Start over from ``seed`` (forgetting a cached normal sample)."""
        self.seed = int(seed)
        self._fresh_key = _seed_key(self.seed & 0xFFFFFFFF)
        self._set_words(self._fresh_key, _N)
        self.normal_cache = None  # the second value of the last scalar Box-Muller pair
        self._float_cache = None  # torch's float twin of it: kept only for its state format

    def _set_words(self, key, pos):
        self.bit_generator.state = {"bit_generator": "MT19937",
                                    "state": {"key": key, "pos": int(pos)}}

    def __getattr__(self, name):  # NumPy's samplers for what torch's algorithms don't cover
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._numpy, name)

    # -- raw words ---------------------------------------------------------------------------
    def words(self, n):
        """``n`` raw 32-bit words (as uint64)."""
        return self.bit_generator.random_raw(n)

    def words64(self, n):
        """``n`` 64-bit numbers, each from two words (the first is the high half)."""
        if n < _SMALL:
            words = self.bit_generator.random_raw(2 * n)
            high = words[0::2] << np.uint64(32)
            high |= words[1::2]
            return high
        # NumPy's full-range uint64 integers on an MT19937 are exactly these pairs, made in
        # one C loop (no strided shift-and-or over twice as many raw words)
        return self._numpy.integers(0, _FULL64, size=n, dtype=np.uint64)

    def below(self, size, p):
        """``random(size) < p`` for a number ``p`` (torch's scalar-probability Bernoulli
        draw, dropout's mask) as a bool array, without the float64 uniforms: a 53-bit
        uniform ``b * 2**-53`` is below ``p`` exactly when ``b < ceil(p * 2**53)``."""
        n = _count(size)
        if n > _BIG:
            np.empty(n, dtype=np.float64)  # a size past memory fails where random()'s would
        bits = self.words64(n)
        bits &= _MASK53
        limit = min(max(math.ceil(float(p) * 2.0 ** 53), 0), 1 << 53) if p == p else 0
        mask = np.less(bits, np.uint64(limit))
        if size is None:
            return bool(mask[0])
        return mask.reshape(size) if size.__class__ is tuple and len(size) != 1 else mask

    # -- NumPy Generator interface -----------------------------------------------------------
    def random(self, size=None, dtype=np.float64, out=None):
        """Uniform samples in [0, 1) of float32 (24 bits) or float64 (53 bits)."""
        n = _count(size)
        single = dtype is np.float32 or dtype is not np.float64 and np.dtype(dtype) == np.float32
        if n > _BIG:  # the result first: a size past memory fails there, naming its bytes
            np.empty(n, dtype=np.float32 if single else np.float64)
        if single and n < _SMALL:
            bits = self.bit_generator.random_raw(n)
            bits &= _MASK24_64
            values = bits.astype(np.float32)
            values *= _SCALE24
        elif single:
            bits = self._numpy.integers(0, _FULL32, size=n, dtype=np.uint32)
            bits &= _MASK24_32
            values = np.multiply(bits, _SCALE24, dtype=np.float32)
        else:
            bits = self.words64(n)
            bits &= _MASK53
            values = np.multiply(bits, _SCALE53)
        if out is not None:
            out[...] = values.reshape(out.shape)
            return out
        return _shaped(values, size)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normal samples, drawn as torch draws them (see the module docstring);
        ``dtype`` may also be a half type."""
        storage = np.dtype(dtype)
        values = self._normals(_count(size), storage).astype(storage, copy=False)
        if out is not None:
            out[...] = values.reshape(out.shape)
            return out
        return _shaped(values, size)

    def _normals(self, n, storage):
        """``n`` standard normals: float64 below 16 (torch's scalar path, to be rounded once
        to ``storage``), else in the working dtype of ``storage``."""
        if n < 16:
            return np.array(self._scalar_normals(n), dtype=np.float64)
        work = _work(storage)
        whole = n - n % 16
        if whole <= 16 * MAX_BLOCKS:
            return self._few_normals(n, whole, storage, work)
        # torch draws every uniform before the blocks for float32/float64, and only the
        # whole blocks' for the half types; the tail's 16 always come fresh, after
        values = self.random(n if work == storage else whole, dtype=work)
        # float32 has its own kernel in torch (with its own log/sin/cos); the half types go
        # through float32 with the C library's functions, float64 with its own
        blocks = box_muller_blocks32 if storage == np.float32 else _box_muller_blocks
        blocks(values[:whole])
        if whole != n:
            tail = self.random(16, dtype=work)
            blocks(tail)
            if work != storage:
                values = np.concatenate([values, tail[16 - n % 16:]])
            values[n - 16:] = tail
        return values

    def _few_normals(self, n, whole, storage, work):
        """``_normals`` for a few blocks: the tail's fresh 16 uniforms come in the same draw
        (they follow the others in the stream) and go through the kernel in the same call."""
        drawn = n if work == storage else whole
        kernel = box_muller_small32 if storage == np.float32 else _box_muller_blocks
        if whole == n and n <= AHEAD_SIZE and storage == np.float32:
            # a loop's repeated small draws: computed ahead in one pass (``_normal_ahead32``)
            ahead = self.__dict__.get("_ahead")
            if ahead is None:
                ahead = self._ahead = Ahead(self.bit_generator)
            values = ahead.take(n)
            if values is None:
                values = self.random(n, dtype=work)
                kernel(values)
                ahead.drew(n)
            return values
        if whole == n:
            values = self.random(n, dtype=work)
            kernel(values)
            return values
        values = self.random(drawn + 16, dtype=work)
        joined = values if drawn == whole else np.concatenate((values[:whole], values[drawn:]))
        kernel(joined)
        out = np.empty(n, dtype=work)
        out[:whole] = joined[:whole]
        out[n - 16:] = joined[whole:]
        return out

    def normal(self, loc, scale, size, dtype):
        """torch's ``normal_(loc, scale)`` for a float dtype: fewer than 16 samples scale in
        float64, blocks in their working dtype (float32 for the half types) with one rounding
        (torch fuses the multiply-add). Returns ``dtype`` values."""
        storage = np.dtype(dtype)
        n = _count(size)
        z = self._normals(n, storage)
        y = z * scale + loc if n < 16 else _fused(z, scale, loc)
        return _shaped(y.astype(storage, copy=False), size)

    def normal_serial(self, loc, scale, size, dtype):
        """torch's ``normal_`` of a tensor that is not contiguous: one float64 sample at a
        time whatever the size (the scalar path, cache included), scaled in float64."""
        n = _count(size)
        z = np.array(self._scalar_normals(n), dtype=np.float64)
        return _shaped((z * scale + loc).astype(dtype), size)

    def uniform(self, low, high, size, dtype):
        """torch's ``uniform_(low, high)``: ``u * (high - low) + low`` in the dtype (float32
        for the half types, the bounds as float32), one rounding; a half-type result that
        rounds up to ``high`` becomes ``low`` (torch's [from, to) rule). Returns ``dtype``
        values for the half types, the working dtype's otherwise."""
        storage = np.dtype(dtype)
        dtype = _work(storage)
        lo, hi = dtype.type(low), dtype.type(high)
        u = self.random(_count(size), dtype=dtype)
        y = _fused(u, hi - lo, lo)
        if storage != dtype:
            y = y.astype(storage)
            top = storage.type(high)
            y[y >= top] = storage.type(low)
        return _shaped(y, size)

    def _scalar_normals(self, n):
        """``n`` values of ``_scalar_normal`` in a list, their uniforms drawn in one call."""
        out = []
        if n and self.normal_cache is not None:
            out.append(self.normal_cache)
            self.normal_cache = None
        pairs = (n - len(out) + 1) // 2
        if not pairs:
            return out
        words = self.bit_generator.random_raw(4 * pairs).tolist()
        log1p, sqrt, cos, sin, tau = math.log1p, math.sqrt, math.cos, math.sin, 2.0 * math.pi
        for i in range(0, 4 * pairs, 4):  # two float64 uniforms from two words each
            u1 = ((words[i] & _MASK21) << 32 | words[i + 1]) * _SCALE53
            u2 = ((words[i + 2] & _MASK21) << 32 | words[i + 3]) * _SCALE53
            radius = sqrt(-2.0 * log1p(-u2))
            theta = tau * u1
            out.append(radius * cos(theta))
            out.append(radius * sin(theta))
        if len(out) > n:
            self.normal_cache = out.pop()
        return out

    def _scalar_normal(self):
        if self.normal_cache is not None:
            value, self.normal_cache = self.normal_cache, None
            return value
        u1, u2 = self.random(2)
        radius = math.sqrt(-2.0 * math.log1p(-u2))  # (not log(1 - u2): the low bits differ)
        theta = 2.0 * math.pi * u1
        self.normal_cache = radius * math.sin(theta)
        return radius * math.cos(theta)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers uniform in ``[low, high)`` (``[0, low)`` without ``high``)."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + bool(endpoint)
        span = high - low
        if span <= 0:
            raise ValueError("high <= low")
        n = _count(size)
        if span == 1 << 64:
            draws = self.words64(n)
        elif span >= 1 << 32:
            draws = self.words64(n) % np.uint64(span)
        else:
            draws = self.words(n) % np.uint64(span)
        dtype = np.dtype(dtype)
        if dtype == np.uint64 or high - 1 > np.iinfo(np.int64).max:
            values = (draws + np.uint64(low)).astype(dtype, copy=False)
        else:
            values = draws.astype(np.int64)  # wraps for spans past 2**63: adding low unwraps
            values += np.int64(low)
            values = values.astype(dtype, copy=False)
        return _shaped(values, size)

    def permutation(self, x):
        """A random order of ``range(x)`` (torch's randperm), or of an array's first axis."""
        if not isinstance(x, (int, np.integer)):
            x = np.asarray(x)
            return x[self.permutation(len(x))]
        n = int(x)
        if n < 2:
            return np.arange(n, dtype=np.int64)
        spans = np.arange(n, 1, -1, dtype=np.uint64)
        draws = self.words64(n - 1) if n > 1 << 32 else self.words(n - 1)
        targets = (draws % spans).astype(np.int64)
        targets += np.arange(n - 1, dtype=np.int64)
        if n >= 1024:
            return _swaps_result(targets, n)
        order = list(range(n))
        for i, j in enumerate(targets.tolist()):  # few swaps: the plain loop is quickest
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)

    def standard_exponential(self, size=None, dtype=np.float64):
        values = -np.log1p(-self.random(_count(size)))
        return _shaped(values.astype(dtype, copy=False), size)

    def exponential(self, scale=1.0, size=None):
        values = self.standard_exponential(_count(size))
        values *= scale
        return _shaped(values, size)

    def geometric(self, p, size=None):
        values = np.ceil(np.log(self.random(_count(size))) / math.log1p(-p))
        return _shaped(values, size)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        """exp(mean + sigma * z) in float64, one scalar normal per element (torch's
        log_normal_ takes the one-at-a-time path whatever the size, cache included)."""
        z = np.array(self._scalar_normals(_count(size)), dtype=np.float64)
        return _shaped(np.exp(mean + sigma * z), size)

    def standard_cauchy(self, size=None):
        u = self.random(_count(size))
        u -= 0.5
        u *= math.pi
        return _shaped(np.tan(u), size)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        """Gamma(shape, 1) samples, one per element of ``shape`` in C order, by torch's
        Marsaglia-Tsang rejection (float64 uniforms and scalar normals, the normal cache
        shared; shapes below 1 boosted by ``(1 - u) ** (1 / shape)``)."""
        values = self._per_value(shape, size, "gamma", 6).astype(dtype, copy=False)
        if out is not None:
            out[...] = values
            return out
        return values

    def poisson(self, lam=1.0, size=None):
        """Poisson(lam) samples, one per element in C order, as torch draws them: a product
        of float64 uniforms below 10, Hormann's transformed rejection (PTRS) from 10 on."""
        return self._per_value(lam, size, "poisson", 4)

    def binomial(self, n, p, size=None):
        """Binomial(n, p) samples, one per element of the broadcast parameters in C order, as
        torch draws them (float64 uniforms): counting geometric waiting times while the mean
        of the rarer outcome is below 10, Hormann's BTRS from 10 on; p above 1/2 draws the
        complement."""
        n, p = np.broadcast_arrays(np.asarray(n, np.float64), np.asarray(p, np.float64))
        if size is not None:
            n, p = np.broadcast_to(n, size), np.broadcast_to(p, size)
        reader = _WordReader(self, 4 * n.size + 8)
        values = np.array([reader.binomial(c, q) for c, q in
                           zip(n.ravel().tolist(), p.ravel().tolist())], dtype=np.float64)
        reader.finish()
        return values.reshape(n.shape)

    def _per_value(self, params, size, sampler, words_each):
        """One rejection draw per parameter (broadcast to ``size``), in C order, through a
        :class:`_WordReader`; float64, in the parameters' shape."""
        params = np.asarray(params, dtype=np.float64)
        if size is not None:
            params = np.broadcast_to(params, size)
        reader = _WordReader(self, words_each * params.size + 8)
        draw = getattr(reader, sampler)
        values = np.array([draw(v) for v in params.ravel().tolist()], dtype=np.float64)
        reader.finish()
        return values.reshape(params.shape)

    # -- torch's state format ----------------------------------------------------------------
    def state_bytes(self):
        """The state as torch's 5056-byte CPU generator state (so states move both ways)."""
        st = self.bit_generator.state["state"]
        pos = int(st["pos"])
        if pos == _N and np.array_equal(st["key"], self._fresh_key):
            pos = 0  # seeded, nothing drawn: torch says "next word 0, regenerate first"
        buf = bytearray(_STATE_BYTES)
        header = np.array([self.seed & 0xFFFFFFFFFFFFFFFF], np.uint64).tobytes()
        buf[0:8] = header
        buf[8:16] = np.array([_N + 1 - pos if pos else 1, 1], np.int32).tobytes()  # left, seeded
        buf[16:24] = np.array([pos], np.uint64).tobytes()
        buf[24:24 + 8 * _N] = st["key"].astype(np.uint64).tobytes()
        tail = 24 + 8 * _N
        cached = self.normal_cache
        buf[tail:tail + 24] = np.array([0.0, cached or 0.0, 0.0], np.float64).tobytes()
        buf[tail + 24:tail + 28] = np.array([cached is not None], np.int32).tobytes()
        if self._float_cache is not None:
            buf[tail + 32:tail + 36] = np.array([self._float_cache], np.float32).tobytes()
            buf[tail + 36] = 1
        return bytes(buf)

    def set_state_bytes(self, data):
        """Restore a state in torch's format (from :meth:`state_bytes` or from torch)."""
        if len(data) != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {len(data)}")
        seed = int(np.frombuffer(data, np.uint64, 1, 0)[0])
        left, _ = np.frombuffer(data, np.int32, 2, 8)
        pos = int(np.frombuffer(data, np.uint64, 1, 16)[0])
        if not 1 <= left <= _N or pos > _N:
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(data, np.uint64, _N, 24).astype(np.uint32)
        tail = 24 + 8 * _N
        normal_y = float(np.frombuffer(data, np.float64, 1, tail + 8)[0])
        normal_valid = int(np.frombuffer(data, np.int32, 1, tail + 24)[0])
        self.seed = seed
        self._fresh_key = key if left == 1 and pos == 0 else None
        self._set_words(key, _N if left == 1 else pos)
        self.normal_cache = normal_y if normal_valid else None
        self._float_cache = float(np.frombuffer(data, np.float32, 1, tail + 32)[0]) \
            if data[tail + 36] else None


class _WordReader:
    """Words of a stream read ahead in bulk for samplers that take a varying number per
    value (rejection): :meth:`finish` rewinds the stream and advances it by exactly the words
    used, so the stream ends where torch's would."""

    def __init__(self, stream, expected):
        self.stream = stream
        self.start = stream.bit_generator.state
        self.words = stream.words(expected).tolist()
        self.used = 0

    def word(self):
        if self.used == len(self.words):
            self.words += self.stream.words(len(self.words) + 8).tolist()
        self.used += 1
        return self.words[self.used - 1]

    def uniform(self):
        hi = self.word()
        return (((hi << 32) | self.word()) & ((1 << 53) - 1)) * 2.0 ** -53

    def normal(self):
        stream = self.stream
        if stream.normal_cache is not None:
            value, stream.normal_cache = stream.normal_cache, None
            return value
        u1 = self.uniform()
        u2 = self.uniform()
        radius = math.sqrt(-2.0 * math.log1p(-u2))  # (not log(1 - u2): the low bits differ)
        theta = 2.0 * math.pi * u1
        stream.normal_cache = radius * math.sin(theta)
        return radius * math.cos(theta)

    def gamma(self, alpha):
        if not alpha > 0:  # 0 gives 0 (after the boost's draw), NaN stays NaN
            if alpha == 0:
                self.uniform()
                return 0.0
            return math.nan
        scale = 1.0
        if alpha < 1:
            scale = (1.0 - self.uniform()) ** (1.0 / alpha)
            alpha += 1.0
        d = alpha - _THIRD
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            y = 1.0 + c * x
            while y <= 0:
                x = self.normal()
                y = 1.0 + c * x
            v = y * y * y
            u = 1.0 - self.uniform()
            xx = x * x
            if u < 1.0 - 0.0331 * xx * xx or \
                    math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
                return scale * d * v

    def poisson(self, lam):
        if lam >= 10:
            return self._transformed_rejection(lam)
        if not lam > 0:
            return 0.0 if lam == 0 else math.nan
        limit = math.exp(-lam)
        count, product = 0, self.uniform()
        while product > limit:
            count += 1
            product *= self.uniform()
        return float(count)

    def _transformed_rejection(self, lam):
        """Hormann (1993), "The transformed rejection method for generating Poisson random
        variables", algorithm PTRS."""
        root, log_lam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = self.uniform() - 0.5
            v = self.uniform()
            u_s = 0.5 - abs(u)
            k = math.floor((2 * a / u_s + b) * u + lam + 0.43)
            if u_s >= 0.07 and v <= v_r:
                return float(k)
            if k < 0 or (u_s < 0.013 and v > u_s):
                continue
            if math.log(v) + math.log(inv_alpha) - math.log(a / (u_s * u_s) + b) <= \
                    -lam + k * log_lam - math.lgamma(k + 1):
                return float(k)

    def binomial(self, count, prob):
        if count <= 0 or prob <= 0:
            return 0.0
        if prob >= 1:
            return count
        if prob <= 0.5:
            return self._binomial_rare(count, prob)
        if prob > 0.5:
            return count - self._binomial_rare(count, 1.0 - prob)
        return math.nan

    def _binomial_rare(self, count, prob):
        if count * prob >= 10:
            return self._btrs(count, prob)
        # inversion by geometric waiting times: how many successes fit in ``count`` trials
        log_q = math.log1p(-prob)
        total, successes = 0.0, 0.0
        while True:
            u = self.uniform()
            total += math.ceil(math.log(u) / log_q) if u > 0 else math.inf
            if total > count:
                return successes
            successes += 1

    def _btrs(self, count, prob):
        """Hormann (1993), "The generation of binomial random variates", algorithm BTRS."""
        spread = math.sqrt(count * prob * (1 - prob))
        b = 1.15 + 2.53 * spread
        a = -0.0873 + 0.0248 * b + 0.01 * prob
        c = count * prob + 0.5
        v_r = 0.92 - 4.2 / b
        r = prob / (1 - prob)
        alpha = (2.83 + 5.1 / b) * spread
        m = math.floor((count + 1) * prob)
        while True:
            u = self.uniform() - 0.5
            v = self.uniform()
            u_s = 0.5 - abs(u)
            k = math.floor((2 * a / u_s + b) * u + c)
            if k < 0 or k > count:
                continue
            if u_s >= 0.07 and v <= v_r:
                return float(k)
            v = math.log(v * alpha / (a / (u_s * u_s) + b))
            bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                     + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                     + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                     + _stirling_tail(m) + _stirling_tail(count - m)
                     - _stirling_tail(k) - _stirling_tail(count - k))
            if v <= bound:
                return float(k)

    def finish(self):
        self.stream.bit_generator.state = self.start
        self.stream.words(self.used)


_THIRD = float(np.float32(1.0 / 3.0))  # torch's constant is the float32 third
# log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2 for k < 10 (Stirling's error)
_STIRLING = [math.lgamma(k + 1) - (k + 0.5) * math.log(k + 1) + (k + 1)
             - 0.5 * math.log(2 * math.pi) for k in range(10)]


def _stirling_tail(k):
    """The error of Stirling's formula for log(k!), from a table below 10, else its series."""
    if k <= 9:
        return _STIRLING[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _work(dtype):
    dtype = np.dtype(dtype)
    return dtype if dtype == np.float64 else np.dtype(np.float32)


def _fused(x, scale, shift):
    """``x * scale + shift`` rounded once to x's dtype, as a fused multiply-add gives it: a
    float32 product is exact in float64; float64 goes through the x87 long double, which
    agrees with a true fused result but for rare double roundings."""
    if x.dtype == np.float32:
        y = x.astype(np.float64)
        y *= float(np.float32(scale))
        y += float(np.float32(shift))
        return y.astype(np.float32)
    y = x.astype(np.longdouble)
    y *= np.longdouble(scale)
    y += np.longdouble(shift)
    return y.astype(np.float64)


def _box_muller_blocks(values):
    """Turn uniforms into normals in place, 16 at a time: radii from the first 8 of a block,
    angles from the last 8, in the values' own dtype."""
    blocks = values.reshape(-1, 2, 8)
    one = values.dtype.type(1)
    radius = one - blocks[:, 0]
    np.log(radius, out=radius)
    radius *= values.dtype.type(-2)
    np.sqrt(radius, out=radius)
    theta = blocks[:, 1] * values.dtype.type(2 * math.pi)
    np.cos(theta, out=blocks[:, 0])
    blocks[:, 0] *= radius
    np.sin(theta, out=blocks[:, 1])
    blocks[:, 1] *= radius


def _swaps_result(j, n):
    """The array ``range(n)`` after the swaps ``a[k], a[j[k]]`` for k = 0 .. n-2 in order
    (``j[k] >= k``), computed without a loop over the swaps.

    Position p is written only by step p and by earlier steps whose target is p, so the value
    a step k moves out of position k is what the last earlier step aimed at k put there, which
    is in turn what that step moved out of its own position, and so on back to a position no
    step wrote (whose value is its index): a forest whose roots are found by pointer jumping.
    Step k leaves in position k what was at j[k] then: the value the previous step aimed at
    j[k] brought (found the same way), or j[k] itself if none did.
    """
    m = n - 1
    steps = np.arange(m, dtype=np.int64)
    order = np.argsort(j, kind="stable")  # steps grouped by target, in time order
    js = j[order]
    same = js[1:] == js[:-1]
    pred = np.full(m, -1, dtype=np.int64)  # the previous step with the same target
    pred[order[1:][same]] = order[:-1][same]
    ends = np.ones(m, dtype=bool)
    ends[:-1] = ~same
    writer = np.full(n, -1, dtype=np.int64)  # the last step aimed at each position ...
    writer[js[ends]] = order[ends]
    self_aimed = j == steps
    writer[:m][self_aimed] = pred[self_aimed]  # ... before that position's own step
    root = np.where(writer >= 0, writer, np.arange(n, dtype=np.int64))
    while True:  # about log(depth) rounds; the chains are short (6 rounds at n = 10**6)
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    out = np.empty(n, dtype=np.int64)
    out[m] = root[m]
    moved_in = np.where(pred >= 0, root[np.maximum(pred, 0)], j)
    out[:m] = np.where(self_aimed, root[:m], moved_in)
    return out
