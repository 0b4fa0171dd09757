"""The stand-in ``cupy`` namespace: exactly CuPy 14's names, each running NumPy on host data.

Every function takes only the keywords CuPy's takes, refuses plain ``numpy.ndarray`` arguments
(CuPy's kernels cannot read host memory; only ``array``/``asarray``/``asanyarray`` copy host data
to the device) and, where CuPy's first parameter is the array itself (``a``, ``arr``...),
refuses scalars there. Ufuncs take Python and NumPy scalars as CuPy's do, and their methods
exist only where CuPy implements them: ``reduce``/``accumulate`` for add and multiply,
``reduceat`` for add, ``at`` for the scatter ops. Everything else raises as CuPy does on a GPU.
"""

import types

import numpy as np

from . import _array, _ftz, _indexing
from ._array import STATS, check_dtype, ndarray, row_major, unsupported, unwrap, unwrap_index, wrap
from ._names import NAMES

# CuPy's parameter names for "the array this function works on": CuPy calls its methods or
# passes it to Cython code typed as an ndarray, so a scalar or host array there fails on a GPU
_ARRAY_FIRST = frozenset({"a", "ar", "arr", "array", "ary", "m"})
# functions whose first argument CuPy converts (scalars welcome), despite its name
_SCALAR_OK = frozenset({"asarray", "array", "asanyarray", "ndim", "shape", "size", "isscalar",
                        "result_type", "can_cast", "min_scalar_type", "iscomplexobj",
                        "isrealobj", "atleast_1d", "atleast_2d", "atleast_3d", "around",
                        "round", "round_", "clip", "real", "imag", "copyto", "fill_diagonal",
                        "full_like", "zeros_like", "ones_like", "empty_like"})
_CONVERTERS = frozenset({"array", "asarray", "asanyarray"})


def _deep_unwrap(x):
    t = type(x)
    if t is ndarray:
        return x._d
    if t is np.ndarray:
        raise unsupported(x)
    if t is tuple or t is list:
        return t(_deep_unwrap(v) for v in x)
    return x


def _result(r, args):
    """Wrap ``r``; an array that is a view of an argument keeps that argument as its base."""
    if type(r) is np.ndarray and r.base is not None:
        for a in args:
            if type(a) is ndarray and (r.base is a._d or r.base is a._d.base):
                return wrap(r, a._root())
            if type(a) in (list, tuple):
                for b in a:
                    if type(b) is ndarray and (r.base is b._d or r.base is b._d.base):
                        return wrap(r, b._root())
    return wrap(r)


class ufunc:
    """A CuPy ufunc: scalars and device arrays in, device arrays out; CuPy's keywords only."""

    def __init__(self, name, fn, nin, nout):
        self.__name__ = self.name = name
        self._fn, self.nin, self.nout, self.nargs = fn, nin, nout, nin + nout

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    @staticmethod
    def _operand(x):
        t = type(x)
        if t is ndarray:
            return x._d
        if t in (int, float, bool, complex) or isinstance(x, np.generic):
            return x
        if isinstance(x, (int, float, complex)):
            return x
        raise unsupported(x)

    def __call__(self, *args, out=None, dtype=None, casting="same_kind", _where=None, **kw):
        if kw:
            raise TypeError(f"Wrong arguments {kw}")
        n = len(args)
        if not self.nin <= n <= self.nargs:
            raise TypeError(f"Wrong number of arguments for '{self.name}'. It must be either "
                            f"{self.nin} or {self.nargs} (with outputs), but given {n}.")
        ins = [self._operand(a) for a in args[:self.nin]]
        ftz = self.__name__ not in _ftz.EXEMPT and _ftz.computes_in_float32(ins, dtype)
        if ftz:
            ins = _ftz.flush_all(ins)
        outs = args[self.nin:]
        if out is not None:
            if outs:
                raise ValueError("Cannot specify 'out' as both a positional and keyword "
                                 "argument")
            outs = out if isinstance(out, tuple) else (out,)
        kwargs = {"casting": casting}
        if dtype is not None:
            kwargs["dtype"] = check_dtype(dtype)
        if _where is not None:
            kwargs["where"] = self._operand(_where)
        if outs:
            for o in outs:
                if type(o) is not ndarray:
                    raise TypeError("Output arguments must be cupy.ndarray")
            kwargs["out"] = tuple(o._d for o in outs)
            STATS["kernels"] += 1
            with np.errstate(all="ignore"):
                self._fn(*ins, **kwargs)
            if ftz:
                for o in outs:
                    _ftz.flush_in_place(o._d)
            return outs[0] if len(outs) == 1 else tuple(outs)
        STATS["kernels"] += 1
        with np.errstate(all="ignore"):  # a GPU raises no floating-point warnings
            r = self._fn(*ins, **kwargs)
        if ftz:
            r = tuple(_ftz.flush(v) for v in r) if type(r) is tuple else _ftz.flush(r)
        return wrap(row_major(r))  # CuPy allocates ufunc outputs row-major (NumPy: order K)

    def _supported(self, method):
        if self.__name__ not in NAMES["ufunc_methods"][method]:
            raise NotImplementedError(f"`cupy_{self.__name__}.{method}` is not supported yet")

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False):
        self._supported("reduce")
        return array.sum(axis, dtype, out, keepdims) if self.__name__ == "add" else \
            array.prod(axis, dtype, out, keepdims)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        self._supported("accumulate")
        return array.cumsum(axis, dtype, out) if self.__name__ == "add" else \
            array.cumprod(axis, dtype, out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        self._supported("reduceat")
        if type(array) is not ndarray:
            raise unsupported(array)
        return wrap(np.add.reduceat(array._d, unwrap_index(indices), axis=axis, dtype=dtype))

    def at(self, a, indices, b=None):
        self._supported("at")
        if type(a) is not ndarray:
            raise unsupported(a)
        _indexing.at(self.__name__, a._d, unwrap_index(indices), self._operand(b))

    def outer(self, A, B, **kwargs):
        A, B = MODULE.asarray(A), MODULE.asarray(B)
        return self(A.reshape(A.shape + (1,) * B.ndim), B.reshape((1,) * A.ndim + B.shape),
                    **kwargs)


def make_function(name, fn, params, qualname=None):
    """CuPy's ``name`` running NumPy's ``fn`` under CuPy's rules (see the module docstring)."""
    qualname = qualname or name
    allowed = None if params is None or "**" in params else \
        frozenset(p for p in params if p != "*")
    array_first = bool(params) and params[0] in _ARRAY_FIRST and name not in _SCALAR_OK
    converter = name in _CONVERTERS
    row = name in ROW_MAJOR_FUNCTIONS

    def function(*args, **kwargs):
        if allowed is not None:
            for k in kwargs:
                if k not in allowed:
                    raise TypeError(f"{qualname}() got an unexpected keyword argument '{k}'")
        if converter:
            return _convert(fn, *args, **kwargs)
        if array_first:
            first = args[0] if args else kwargs.get(params[0])
            if type(first) is not ndarray:
                raise unsupported(first)
        if "dtype" in kwargs and kwargs["dtype"] is not None:
            check_dtype(kwargs["dtype"])
        with np.errstate(all="ignore"):
            r = fn(*[_deep_unwrap(a) for a in args],
                   **{k: _deep_unwrap(v) for k, v in kwargs.items()})
        given = kwargs.get("out")
        if type(given) is ndarray and r is given._d:  # written into ``out``, which CuPy
            if name not in _NO_KERNEL:                  # hands back
                STATS["kernels"] += 1
            return given
        if row:
            r = row_major(r) if type(r) is not list else [row_major(v) for v in r]
        out = _result(r, args)
        if name not in _NO_KERNEL and (_launches(r, out) or name in _WRITES):
            STATS["kernels"] += 1
        return out

    function.__name__ = name
    function.__qualname__ = qualname
    return function


# functions whose CuPy results are new row-major arrays (NumPy's keep the operands' layout):
# joins (``concatenate`` allocates ``core.ndarray(shape)``; the stacks call it), ``where`` (a
# ufunc), reductions (``_reduction.pyx``), scans (``scan_core``), sorts (``a.copy()`` then an
# in-place sort), ufunc compositions (``diff``, ``nan_to_num``...) and gathers
ROW_MAJOR_FUNCTIONS = frozenset({
    "concatenate", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
    "where", "sort", "argsort", "cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum",
    "cumulative_prod", "sum", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "mean",
    "var", "std", "any", "all", "nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar",
    "nanstd", "nanargmax", "nanargmin", "count_nonzero", "ptp", "diff", "nan_to_num", "isclose",
    "round", "around", "round_", "take", "take_along_axis", "choose", "compress", "extract",
    "logsumexp", "angle", "real_if_close", "sinc", "i0", "heaviside"})

# functions that allocate or answer from metadata: no kernel on a GPU
_NO_KERNEL = frozenset({"empty", "empty_like", "result_type", "can_cast", "min_scalar_type",
                        "shape", "ndim", "size", "isscalar", "iscomplexobj", "isrealobj",
                        "may_share_memory", "shares_memory", "broadcast_shapes",
                        "as_strided"})


# functions that return nothing but write into an argument in one kernel
_WRITES = frozenset({"copyto"})


def _launches(r, wrapped):
    """Whether a function's NumPy result ``r`` (wrapped as ``wrapped``) stands for a kernel
    launch: a new array does; a view of an argument, or a Python value, does not."""
    if type(r) is np.ndarray:
        return not (type(wrapped) is ndarray and wrapped._base is not None)
    if isinstance(r, np.generic):
        return True
    if isinstance(r, (tuple, list)):
        return any(type(v) is np.ndarray and v.base is None for v in r)
    return False


def _convert(fn, obj, *args, **kwargs):
    """``cupy.array``/``asarray``: host data is copied to the device; device data kept."""
    if type(obj) is not ndarray:
        STATS["h2d"] = STATS.get("h2d", 0) + 1  # every host-to-device copy
        if not kwargs.pop("blocking", False):
            STATS["h2d_async"] = STATS.get("h2d_async", 0) + 1  # async unless the caller waits
    else:
        kwargs.pop("blocking", None)
    dtype = kwargs.get("dtype", args[0] if args else None)
    if dtype is not None:
        check_dtype(dtype)
    if type(obj) is ndarray:
        r = fn(obj._d, *args, **kwargs)
        return obj if r is obj._d else _result(r, (obj,))
    if isinstance(obj, (list, tuple)):
        obj = _deep_unwrap_mixed(obj)
    if hasattr(obj, "__cuda_array_interface__") and type(obj) is not ndarray:
        raise NotImplementedError("stand-in: foreign __cuda_array_interface__ objects")
    r = np.array(fn(obj, *args, **kwargs), copy=True)
    check_dtype(r.dtype)
    return wrap(r)


def _deep_unwrap_mixed(x):
    # cupy.array([...]) accepts device arrays inside a list (it stacks them on the device)
    if type(x) is ndarray:
        return x._d
    if type(x) in (list, tuple):
        return type(x)(_deep_unwrap_mixed(v) for v in x)
    return x


def _sub(name):
    m = types.ModuleType(name)
    m.__file__ = __file__
    return m


def _fill(mod, names, source, prefix):
    """Add every name CuPy's ``prefix`` namespace has, from NumPy's ``source``."""
    for n, info in names.items():
        if hasattr(mod, n):
            continue
        kind = info["kind"]
        obj = getattr(source, n, None)
        if kind == "ufunc":
            fn = obj if callable(obj) else _scipy_special(n)
            if fn is not None:
                setattr(mod, n, ufunc(n, fn, info["nin"], info["nout"]))
        elif kind == "function":
            if callable(obj):
                setattr(mod, n, make_function(n, obj, info.get("params"), f"{prefix}{n}"))
            else:
                setattr(mod, n, _not_faked(f"{prefix}{n}"))
        elif kind in ("type", "constant") and obj is not None:
            setattr(mod, n, obj)
        elif kind == "other" and obj is not None:
            setattr(mod, n, obj)


def _scipy_special(name):
    from scipy import special

    return getattr(special, name, None)


def _not_faked(qualname):
    def function(*args, **kwargs):
        raise NotImplementedError(f"stand-in: {qualname} exists in CuPy but is not faked")

    function.__name__ = qualname
    return function


def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """CuPy's windows are a plain ``as_strided`` view: writeable (CuPy arrays have no
    read-only flag), and asking for ``writeable=True`` is refused."""
    if writeable:
        raise NotImplementedError("Writeable views are not supported.")
    if type(x) is not ndarray:
        raise unsupported(x)
    return wrap(np.lib.stride_tricks.sliding_window_view(x._d, window_shape, axis,
                                                         writeable=True))


def _asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if type(a) is ndarray:
        return a.get(stream, order, out, blocking)
    return np.asarray(a, order=order)


def _get_array_module(*args):
    for a in args:
        if type(a) is ndarray:
            return MODULE
    return np


def build():
    """Make the ``cupy`` and ``cupyx`` stand-in modules."""
    from . import _cuda, _kernels, _linalg, _random, _raw, _special

    cp = _sub("cupy")
    cp.__version__ = NAMES["cupy_version"]
    cp.ndarray = ndarray
    cp.ufunc = ufunc
    cp.asnumpy = _asnumpy
    cp.get_array_module = _get_array_module
    cp.is_available = lambda: True
    cp.get_default_memory_pool = _cuda.get_default_memory_pool
    cp.get_default_pinned_memory_pool = _cuda.get_default_pinned_memory_pool
    cp.ElementwiseKernel = _kernels.ElementwiseKernel
    cp.ReductionKernel = _kernels.ReductionKernel
    cp.RawKernel = _raw.RawKernel
    cp.fuse = _kernels.fuse
    cp.cuda = _cuda.build_module()
    cp.random = _random.build_module()
    for n in ("float_", "complex_", "cfloat", "singlecomplex"):
        pass  # NumPy 2 dropped these aliases; CuPy keeps them (unused by numtorch)
    cp.bool_ = np.bool_
    _fill(cp, {k: v for k, v in NAMES["cupy"].items() if v["kind"] != "module"}, np, "")

    # CuPy's sorts are always stable (NumPy's default is not)
    cp.sort = make_function("sort", lambda a, axis=-1, kind=None: np.sort(a, axis, "stable"),
                            ["a", "axis", "kind"])
    cp.argsort = make_function("argsort", lambda a, axis=-1, kind=None: np.argsort(
        a, axis, "stable"), ["a", "axis", "kind"])
    # CuPy's take and take_along_axis wrap out-of-range indices (_indexing)
    cp.take = make_function("take", _indexing.take, ["a", "indices", "axis", "out"])
    cp.take_along_axis = make_function("take_along_axis", _indexing.take_along_axis,
                                       ["a", "indices", "axis"])

    cp.linalg = _sub("cupy.linalg")
    _fill(cp.linalg, NAMES["linalg"], np.linalg, "linalg.")
    cp.linalg.LinAlgError = np.linalg.LinAlgError
    cp.fft = _sub("cupy.fft")
    _fill(cp.fft, NAMES["fft"], np.fft, "fft.")
    cp.lib = _sub("cupy.lib")
    cp.lib.stride_tricks = _sub("cupy.lib.stride_tricks")
    _fill(cp.lib.stride_tricks, NAMES["lib.stride_tricks"], np.lib.stride_tricks,
          "lib.stride_tricks.")
    cp.lib.stride_tricks.sliding_window_view = _sliding_window_view

    cpx = _sub("cupyx")
    cpx.scatter_add = lambda a, slices, value: a.scatter_add(slices, value)
    cpx.scatter_max = lambda a, slices, value: a.scatter_max(slices, value)
    cpx.scatter_min = lambda a, slices, value: a.scatter_min(slices, value)
    cpx.empty_pinned = _cuda.empty_pinned
    cpx.zeros_pinned = _cuda.zeros_pinned
    cpx.empty_like_pinned = _cuda.empty_like_pinned
    cpx.zeros_like_pinned = _cuda.zeros_like_pinned
    _linalg.install(cp.linalg, cpx, make_function)  # no errors unless errstate says raise
    cpx.rsqrt = ufunc("rsqrt", lambda x, **kw: np.divide(1.0, np.sqrt(x), **kw), 1, 1)
    cpx.scipy = _sub("cupyx.scipy")
    cpx.scipy.special = _sub("cupyx.scipy.special")
    from scipy import special

    _fill(cpx.scipy.special, NAMES["cupyx.scipy.special"], special, "cupyx.scipy.special.")
    _special.install(cp, cpx, ufunc, make_function)  # CuPy's math where it is not NumPy's
    from . import _types

    _types.install(cp, cpx, ufunc)  # CuPy's result dtypes (its ufuncs' type loops)
    cp._cupyx = cpx
    return cp, cpx


MODULE, CUPYX = None, None


def get():
    """The stand-in modules (built once)."""
    global MODULE, CUPYX
    if MODULE is None:
        MODULE, CUPYX = build()
        _array._MODULE = MODULE
    return MODULE, CUPYX
