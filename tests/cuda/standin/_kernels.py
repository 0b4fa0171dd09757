"""The stand-in's ``ElementwiseKernel``, ``ReductionKernel`` and ``fuse``.

A CUDA kernel cannot run on the CPU, so a kernel here runs a NumPy reference registered under
the kernel's name in ``REFERENCES`` (written for the stand-in from the math each kernel
computes, not from its CUDA source). What is exercised is the wiring: the parameter lists are
parsed as CuPy parses them (``T x, raw float32 y``), every parameter must appear in the kernel
body, arguments are counted and type-checked against them, type placeholders are bound from the
arguments, outputs are allocated with the broadcast shape and bound dtype (or taken from the
call), and the reference writes into the outputs. A kernel whose name has no reference raises.

Rounding as NVRTC compiles it: CuPy passes no ``--fmad`` option, and NVRTC's default
(``--fmad=true``) contracts a product feeding an addition (``a * b + c``, also across
statements) into one fused multiply-add, rounded once. A reference registered with
``fmad=True`` receives ``fmad=`` (True unless the kernel was built with ``--fmad=false`` among
its ``options``) and rounds its contractible expressions through :func:`fma` when it is set.
"""

import re
import sys

import numpy as np

from . import _ftz
from ._array import STATS, ndarray, wrap

REFERENCES = {}  # kernel name -> fn(*inputs, *outputs) writing into the outputs (NumPy)
REDUCTIONS = {}  # kernel name -> fn(*inputs, axis, keepdims) -> tuple of outputs (NumPy)
# What a real NVRTC has to compile (tests/cuda/test_nvrtc_compile.py): the keyword arguments
# each ElementwiseKernel was built with -> the argument signatures it was launched with, and
# the numtorch source lines that built kernels.
LAUNCHED = {}
BUILT_AT = set()
_PARAM = re.compile(r"^(raw\s+)?(\w+)\s+(\w+)$")
_TYPE_NAMES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64", "complex64", "complex128"}


def reference(name, reduction=False, fmad=False):
    """Register the NumPy reference of kernel ``name`` (a decorator); with ``fmad`` the
    reference takes the keyword ``fmad`` (whether NVRTC would contract ``a * b + c``)."""
    def register(fn):
        fn._takes_fmad = fmad
        (REDUCTIONS if reduction else REFERENCES)[name] = fn
        return fn
    return register


_NO_FMAD = frozenset({"--fmad=false", "-fmad=false"})


def _split(x):
    """Veltkamp's split of float64 ``x`` into two halves of 26 bits (their product is exact)."""
    t = x * 134217729.0  # 2**27 + 1
    hi = t - (t - x)
    return hi, x - hi


def fma(a, b, c):
    """``a * b + c`` rounded once, as a GPU's fused multiply-add: float32 (and float16) work
    in float64, where the product is exact; float64 adds the product's exact error (Dekker's
    two-product) and the sum's (two-sum) before the one rounding."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dt = np.result_type(a, b, c)
    with np.errstate(all="ignore"):
        if dt != np.float64:
            w = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
            return w.astype(dt)
        p = a * b
        (ah, al), (bh, bl) = _split(a), _split(b)
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        z = s - p
        r = s + (((p - (s - z)) + (c - z)) + e)
        return np.where(np.isfinite(r), r, p + c)


def _parse(params):
    out = []
    for p in (s.strip() for s in params.split(",")):
        if not p:
            continue
        m = _PARAM.match(p)
        if m is None:
            raise ValueError(f"Invalid parameter: {p!r}")
        raw, typ, name = m.groups()
        # CuPy's type names; any other name is a type placeholder such as T (NumPy would read
        # "T" as its string dtype)
        dt = np.dtype(typ) if typ in _TYPE_NAMES else None
        out.append((bool(raw), typ, dt, name))
    return out


def _check_body(name, params, *bodies):
    text = " ".join(bodies)
    for _, _, _, p in params:
        if not re.search(rf"\b{p}\b", text):
            raise ValueError(f"kernel {name}: parameter {p} is not used in its body")


def _bind(params, args, types):
    for (raw, typ, dt, pname), a in zip(params, args):
        if dt is None:
            if type(a) is ndarray:
                got = a.dtype
                if typ in types and types[typ] != got:
                    raise TypeError(f"Type is mismatched. {pname} {got} {types[typ]}")
                types[typ] = got
        elif type(a) is ndarray and a.dtype != dt and not raw:
            pass  # CuPy casts arrays to an explicit parameter type
    return types


class ElementwiseKernel:
    """``cupy.ElementwiseKernel`` running the NumPy reference registered under ``name``."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, loop_prep="", after_loop="",
                 options=()):
        self.in_params, self.out_params = _parse(in_params), _parse(out_params)
        self.name, self.no_return, self.return_tuple = name, no_return, return_tuple
        self.options = options
        self.fmad = not _NO_FMAD.intersection(options)
        _check_body(name, self.in_params + self.out_params, operation, loop_prep, after_loop)
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.built_with = (("in_params", in_params), ("out_params", out_params),
                           ("operation", operation), ("name", name),
                           ("reduce_dims", reduce_dims), ("preamble", preamble),
                           ("no_return", no_return), ("return_tuple", return_tuple),
                           ("loop_prep", loop_prep), ("after_loop", after_loop),
                           ("options", options))
        caller = sys._getframe(1)
        BUILT_AT.add((caller.f_code.co_filename, caller.f_lineno))

    def _record(self, args, types, shape, size):
        """Note the launch's argument signature: per parameter ``("array", dtype, ndim,
        c_contiguous)`` (a non-raw array as CuPy passes it after broadcasting) or
        ``("scalar", dtype)``, then the type placeholders' dtypes and the loop's ndim."""
        sig = []
        for (raw, typ, dt, _), a in zip(self.in_params + self.out_params, args):
            if type(a) is ndarray:
                full = raw or a.shape == shape
                sig.append(("array", a.dtype.str, a.ndim if raw else len(shape),
                            bool(full and a.flags.c_contiguous)))
            else:
                sig.append(("scalar", (dt if dt is not None else types[typ]).str))
        bound = tuple(sorted((k, v.str) for k, v in types.items()))
        ndim = 1 if size is not None else len(shape)
        LAUNCHED.setdefault(self.built_with, set()).add((tuple(sig), bound, ndim))

    def __call__(self, *args, size=None, block_size=None):
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be either "
                            f"{self.nin} or {self.nargs} (with outputs), but given {len(args)}.")
        fn = REFERENCES.get(self.name)
        if fn is None:
            raise NotImplementedError(f"stand-in: kernel {self.name!r} has no NumPy reference "
                                      "in tests/cuda/standin/_references.py")
        if type(self.options) is not tuple:  # CuPy's compile step (at the first call)
            raise TypeError(f"Argument 'options' has incorrect type (expected tuple, got "
                            f"{type(self.options).__name__})")
        for a in args:
            if type(a) is np.ndarray:
                raise TypeError(f"Unsupported type {type(a)}")
        ins, outs = args[:self.nin], list(args[self.nin:])
        types = _bind(self.in_params + self.out_params, args, {})
        shapes = [a.shape for a, p in zip(ins, self.in_params) if type(a) is ndarray and not p[0]]
        shape = np.broadcast_shapes(*shapes) if shapes else ()
        if not outs:
            for raw, typ, dt, pname in self.out_params:
                dt = dt if dt is not None else types.get(typ)
                if dt is None:
                    raise TypeError(f"Cannot determine the type of output {pname}")
                outs.append(wrap(np.empty(shape, dtype=dt)))
        else:
            for o, (raw, typ, dt, pname) in zip(outs, self.out_params):
                if type(o) is not ndarray:
                    raise TypeError("Output arguments must be cupy.ndarray")
                if not raw and shapes and o.shape != shape:
                    np.broadcast_shapes(o.shape, shape)
        self._record(args[:self.nin] + tuple(outs), types, shape, size)
        STATS["kernels"] += 1
        STATS.setdefault("fused", []).append(self.name)
        kw = {"fmad": self.fmad} if fn._takes_fmad else {}
        # float32 subnormals read and written as zeros (CuPy's -ftz=true, see _ftz)
        fn(*[_ftz.flush(a._d) if type(a) is ndarray else a for a in ins],
           *[o._d for o in outs], **kw)
        for o in outs:
            _ftz.flush_in_place(o._d)
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return outs[0]
        return tuple(outs)


class ReductionKernel:
    """``cupy.ReductionKernel`` running the NumPy reference registered under ``name``."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="",
                 options=()):
        self.in_params, self.out_params = _parse(in_params), _parse(out_params)
        self.name = name
        _check_body(name, self.in_params, map_expr)
        _check_body(name, self.out_params, post_map_expr)
        self.nin, self.nout = len(self.in_params), len(self.out_params)

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        if len(args) != self.nin:
            raise TypeError(f"Wrong number of arguments for {self.name!r}")
        fn = REDUCTIONS.get(self.name)
        if fn is None:
            raise NotImplementedError(f"stand-in: reduction {self.name!r} has no NumPy "
                                      "reference")
        for a in args:
            if type(a) is np.ndarray:
                raise TypeError(f"Unsupported type {type(a)}")
        types = _bind(self.in_params, args, {})
        STATS["kernels"] += 1
        STATS.setdefault("fused", []).append(self.name)
        r = fn(*[a._d if type(a) is ndarray else a for a in args], axis=axis, keepdims=keepdims)
        (raw, typ, dt, _), = self.out_params
        r = np.asarray(r).astype(dt if dt is not None else types[typ], copy=False)
        if out is not None:
            out._d[...] = r
            return out
        return wrap(np.array(r, order="C"))  # a new row-major array, as CuPy's


class RawKernel:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("stand-in: RawKernel cannot run without a GPU")


def fuse(*args, **kwargs):
    """``cupy.fuse``: the stand-in runs the Python function itself, op by op."""
    def deco(fn):
        return fn

    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return deco
