"""The stand-in's ``cupy.RawKernel``: a CUDA function launched on raw pointers and scalars.

As with ``ElementwiseKernel`` (``_kernels``), the launch runs the NumPy reference registered
under the kernel's function name (``REFERENCES``), and what is checked is the wiring as CuPy
and the driver see it. The kernel's C parameter list is read from its source (``extern "C"
__global__ void name(...)``, after the source's ``typedef``s), and each argument must be what
CuPy would pass for that parameter without corrupting it:

- a pointer ``T*``: a device array of T's dtype (CuPy passes its data pointer);
- ``long long``/``int64_t``/``ptrdiff_t``: a Python int or ``numpy.int64`` (CuPy passes a
  Python int as 8 bytes: to an ``int`` parameter it would be read as garbage, so an ``int``
  parameter takes only ``numpy.int32``), ``float`` only ``numpy.float32``, ``double`` a
  Python float or ``numpy.float64``, ``bool`` a Python or NumPy bool.

A kernel indexes its pointers' memory as it likes, with no idea of an array's strides: CuPy
passes a view's ``data.ptr`` (its first element's address) and nothing else. So a pointer's
array reaches the reference as the GPU sees it: the C-contiguous array of its shape that
starts at that address (``raw_view``) -- a transposed, sliced or expanded view gives the
reference the bytes the kernel would read, not its logical values, and a range that runs past
the end of the memory block raises as the out-of-bounds read it would be.

The reference gets the whole arrays (as host arrays) and the scalars in parameter order. float32
subnormals are flushed as CuPy's ``-ftz=true`` build treats them, as the ``ElementwiseKernel``
stand-in does: in copies of the ``const`` pointers' arrays before the call, in the others (the
outputs) after it. ``BUILT`` records each kernel's (code, name, options) for the NVRTC test.
"""

import ctypes
import re
import sys

import numpy as np

from . import _ftz
from ._array import STATS, _owner, ndarray
from ._kernels import BUILT_AT, REFERENCES

BUILT = set()  # (code, name, options) of every RawKernel made (tests/cuda/test_nvrtc_compile.py)

_SCALARS = {
    "long long": (np.int64, (int, np.int64)), "int64_t": (np.int64, (int, np.int64)),
    "ptrdiff_t": (np.int64, (int, np.int64)), "long": (np.int64, (int, np.int64)),
    "int": (np.int32, (np.int32,)), "int32_t": (np.int32, (np.int32,)),
    "unsigned int": (np.uint32, (np.uint32,)), "float": (np.float32, (np.float32,)),
    "double": (np.float64, (float, np.float64)), "bool": (np.bool_, (bool, np.bool_)),
}
_POINTEES = {"float": np.float32, "double": np.float64, "int": np.int32, "long long": np.int64,
             "int64_t": np.int64, "bool": np.bool_, "unsigned char": np.uint8}


def _signature(code, name):
    """[(is_pointer, is_const, dtype)] of function ``name``'s parameters in ``code``."""
    m = re.search(r'extern\s+"C"\s+__global__\s+void\s+' + re.escape(name) + r"\s*\(([^)]*)\)",
                  code)
    if m is None:
        raise RuntimeError(f"CUDA_ERROR_NOT_FOUND: named symbol not found ({name})")
    typedefs = {alias: real.strip() for real, alias in
                re.findall(r"typedef\s+([\w ]+?)\s+(\w+)\s*;", code)}
    params = []
    for p in (s.strip() for s in m.group(1).split(",")):
        if not p:
            continue
        p = re.sub(r"\b__restrict__\b", "", p)
        pointer = "*" in p
        const = re.search(r"\bconst\b", p.split("*")[0]) is not None
        words = re.sub(r"\bconst\b", "", p.replace("*", " ")).split()
        ctype = " ".join(words[:-1])  # the last word is the parameter's name
        ctype = typedefs.get(ctype, ctype)
        table = _POINTEES if pointer else _SCALARS
        if ctype not in table:
            raise NotImplementedError(f"stand-in RawKernel: parameter type {ctype!r} of {name}")
        params.append((pointer, const, table[ctype]))
    return params


def raw_view(a, name, k):
    """The host memory a kernel sees through the pointer of the stand-in array ``a``: ``a``'s
    own array when C-contiguous, else the C-contiguous array of its shape starting at its
    first element's address inside the same block (raises when that runs off the block)."""
    d = a._d
    if d.flags.c_contiguous:
        return d
    owner = _owner(d)
    start = owner.__array_interface__["data"][0]
    ptr = d.__array_interface__["data"][0]
    offset = ptr - start
    if offset < 0 or offset + d.nbytes > owner.nbytes:
        raise RuntimeError(
            f"stand-in RawKernel {name}: argument {k}, a non-contiguous view (shape "
            f"{d.shape}, strides {d.strides}), read as a contiguous array from its data "
            "pointer, runs outside its memory block: cudaErrorIllegalAddress")
    raw = np.frombuffer((ctypes.c_char * d.nbytes).from_address(ptr), dtype=d.dtype)
    return raw.reshape(d.shape)


class RawKernel:
    """``cupy.RawKernel`` running the NumPy reference registered under its function name."""

    def __init__(self, code, name, options=(), backend="nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups=False, jitify=None):
        if type(code) is not str or type(name) is not str:
            raise TypeError("Argument 'code' and 'name' must be str")
        if type(options) is not tuple:
            raise TypeError(f"Argument 'options' has incorrect type (expected tuple, got "
                            f"{type(options).__name__})")
        self.code, self.name, self.options = code, name, options
        self._params = None
        caller = sys._getframe(1)
        BUILT_AT.add((caller.f_code.co_filename, caller.f_lineno))
        BUILT.add((code, name, options))

    def __call__(self, grid, block, args, *, shared_mem=0):
        if self._params is None:  # CuPy compiles (and finds the function) at the first call
            self._params = _signature(self.code, self.name)
        fn = REFERENCES.get(self.name)
        if fn is None:
            raise NotImplementedError(f"stand-in: kernel {self.name!r} has no NumPy reference "
                                      "in tests/cuda/standin/_references.py")
        for dims in (grid, block):
            if not isinstance(dims, tuple) or not 1 <= len(dims) <= 3 or \
                    any(type(d) is not int or d < 1 for d in dims):
                raise ValueError(f"invalid launch dimensions {dims!r}")
        if not isinstance(args, (tuple, list)) or len(args) != len(self._params):
            raise TypeError(f"stand-in RawKernel {self.name}: {len(self._params)} parameters, "
                            f"{len(args) if isinstance(args, (tuple, list)) else args!r} given")
        host, outputs = [], []
        for k, ((pointer, const, dt), a) in enumerate(zip(self._params, args)):
            if pointer:
                if type(a) is not ndarray or a.dtype != dt:
                    raise TypeError(f"stand-in RawKernel {self.name}: argument {k} must be a "
                                    f"device array of {np.dtype(dt)}, got {a!r:.80}")
                d = raw_view(a, self.name, k)
                if const:
                    host.append(_ftz.flush(d))
                else:
                    host.append(d)
                    outputs.append(d)
            else:
                want, accepted = dt
                if type(a) not in accepted:
                    raise TypeError(f"stand-in RawKernel {self.name}: argument {k} "
                                    f"({np.dtype(want)}) given as {type(a).__name__}")
                host.append(want(a))
        STATS["kernels"] += 1
        STATS.setdefault("fused", []).append(self.name)
        fn(*host)
        for o in outputs:
            _ftz.flush_in_place(o)
