"""The stand-in ``cupy.random``: ``Generator`` over bit generators whose state is device data.

CuPy's bit generators (``XORWOW``, ``Philox4x3210``, ``MRG32k3a``) keep cuRAND states in an int8
device array (``bit_generator._state``) that every draw advances in place. The stand-in keeps a
NumPy PCG64 state in such an array (40 of its bytes), so code that saves and restores a
generator by copying ``_state`` behaves as on a GPU. ``Generator`` offers only CuPy's methods
(no ``normal``, ``permutation``, ``choice``...), with CuPy's keywords.
"""

import types

import numpy as np

from ._array import STATS, ndarray, unsupported, wrap
from ._names import NAMES

_STATE_BYTES = 48 * 64  # 64 "threads" of 48-byte states (a curandState is 48 bytes)


class BitGenerator:
    """A bit generator whose state lives in ``self._state`` (an int8 stand-in device array)."""

    def __init__(self, seed=None, *, size=-1):
        seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self._seed_seq = seq
        pcg = np.random.PCG64(seq)
        self._state = wrap(np.zeros(_STATE_BYTES, dtype=np.int8))
        self._store(pcg)

    def _store(self, pcg):
        s = pcg.state
        raw = np.zeros(40, dtype=np.uint8)
        raw[:16] = np.frombuffer(s["state"]["state"].to_bytes(16, "little"), np.uint8)
        raw[16:32] = np.frombuffer(s["state"]["inc"].to_bytes(16, "little"), np.uint8)
        raw[32:36] = np.frombuffer(np.uint32(s["has_uint32"]).tobytes(), np.uint8)
        raw[36:40] = np.frombuffer(np.uint32(s["uinteger"]).tobytes(), np.uint8)
        self._state._d[:40] = raw.view(np.int8)

    def _load(self):
        raw = self._state._d[:40].view(np.uint8).tobytes()
        pcg = np.random.PCG64()
        pcg.state = {"bit_generator": "PCG64",
                     "state": {"state": int.from_bytes(raw[:16], "little"),
                               "inc": int.from_bytes(raw[16:32], "little")},
                     "has_uint32": int(np.frombuffer(raw[32:36], np.uint32)[0]),
                     "uinteger": int(np.frombuffer(raw[36:40], np.uint32)[0])}
        return pcg

    def state(self):
        return self._state.data.ptr

    def random_raw(self, size=None, output=True):
        raise NotImplementedError("stand-in: random_raw is not faked")


class XORWOW(BitGenerator):
    pass


class MRG32k3a(BitGenerator):
    pass


class Philox4x3210(BitGenerator):
    pass


def _param(x):
    if type(x) is ndarray:
        return x._d
    if type(x) is np.ndarray:
        raise unsupported(x)
    return x


def _method(name, params):
    allowed = frozenset(params or ())

    def method(self, *args, **kwargs):
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        out = kwargs.pop("out", None)
        dtype = kwargs.pop("dtype", None)
        args = [_param(a) for a in args]
        kwargs = {k: _param(v) for k, v in kwargs.items()}
        pcg = self.bit_generator._load()
        g = np.random.Generator(pcg)
        if name in ("random", "standard_normal", "standard_exponential", "standard_gamma"):
            if dtype is not None and np.dtype(dtype) not in (np.float32, np.float64):
                raise TypeError(f"Unsupported dtype {np.dtype(dtype)} for {name}")
            r = getattr(g, name)(*args, dtype=np.float64 if dtype is None else dtype, **kwargs)
        elif name == "uniform":
            r = g.uniform(*args, **kwargs)
            if dtype is not None:
                r = np.asarray(r).astype(dtype)
        elif name == "integers":
            r = g.integers(*args, dtype=np.int64 if dtype is None else dtype, **kwargs)
        else:
            r = getattr(g, name)(*args, **kwargs)
            if dtype is not None:
                r = np.asarray(r).astype(dtype)
        self.bit_generator._store(pcg)
        STATS["kernels"] += 1
        r = np.asarray(r)
        if out is not None:
            if type(out) is not ndarray:
                raise TypeError("out must be a cupy.ndarray")
            out._d[...] = r
            return out
        return wrap(r.copy())

    method.__name__ = name
    return method


class Generator:
    """``cupy.random.Generator``: CuPy's methods only, drawn from ``bit_generator``'s state."""

    def __init__(self, bit_generator):
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("Generator takes a cupy.random BitGenerator")
        self.bit_generator = bit_generator


for _name, _info in NAMES["random.Generator"].items():
    if _info["kind"] == "method":
        setattr(Generator, _name, _method(_name, _info["params"]))


def default_rng(seed=None):
    return Generator(XORWOW(seed))


def _legacy(name):
    def function(*args, **kwargs):
        raise NotImplementedError(f"stand-in: cupy.random.{name} (the legacy cuRAND host API) "
                                  "is not faked; numtorch draws from cupy.random.Generator")

    function.__name__ = name
    return function


def build_module():
    m = types.ModuleType("cupy.random")
    m.BitGenerator, m.XORWOW, m.MRG32k3a, m.Philox4x3210 = (BitGenerator, XORWOW, MRG32k3a,
                                                            Philox4x3210)
    m.Generator, m.default_rng = Generator, default_rng
    for name in NAMES["random"]:
        if not hasattr(m, name):
            setattr(m, name, _legacy(name))
    return m
