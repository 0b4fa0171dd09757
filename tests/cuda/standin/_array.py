"""The stand-in's ``ndarray``: device data that NumPy cannot see.

An instance wraps a host ``numpy.ndarray`` in a slot NumPy never reads. Like a CuPy array it
refuses implicit conversion (``__array__`` raises), refuses plain ``numpy.ndarray`` operands in
arithmetic and in NumPy's dispatch protocols, answers ``.flags`` with CuPy's three flags only,
has no ``__index__``, returns 0-d arrays (never NumPy scalars) from reductions and indexing, and
offers exactly the methods ``cupy.ndarray`` offers (read from ``cupy_names.json``). Host
synchronisations (``item``, ``float``, ``bool``, ``get``...) are counted in ``STATS`` so tests
can assert that a training step makes none.
"""

import numpy as np

from . import _indexing
from ._names import NAMES

# host syncs, implicit host-to-device copies of index arrays, kernels launched
STATS = {"sync": 0, "h2d_index": 0, "kernels": 0}

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")
_UNSUPPORTED_KINDS = "OUSMm"  # object, str, void-structured, datetime: CuPy has no kernels
_BAD_DTYPES = {np.dtype(np.longdouble), np.dtype(np.clongdouble)} - \
    {np.dtype(np.float64), np.dtype(np.complex128)}

_NEW = object.__new__
_MODULE = None  # the stand-in cupy module (set by _module.build); ufuncs for the operators


def check_dtype(dt):
    """CuPy's dtype check at array creation: ValueError for what it cannot hold."""
    dt = np.dtype(dt)
    if dt.kind in _UNSUPPORTED_KINDS and dt.names is None or dt in _BAD_DTYPES:
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


def unsupported(x):
    """CuPy's error for an operand its kernels cannot take (``_scalar.CScalar``)."""
    return TypeError(f"Unsupported type {type(x)}")


def wrap(r, base=None):
    """Wrap a NumPy result as device data: arrays and NumPy scalars become ``ndarray``s,
    tuples and lists are wrapped element by element, anything else passes through."""
    t = type(r)
    if t is np.ndarray:
        out = _NEW(ndarray)
        out._d = r
        if r.base is None:
            out._base = None
            if r.nbytes and id(r) not in _TRACKED:
                _pool_track(r)
        else:
            out._base = base
            if not r.flags.writeable:
                _make_writeable(r)
        return out
    if isinstance(r, np.generic):
        out = _NEW(ndarray)
        out._d = np.asarray(r)
        out._base = None
        return out
    if t is tuple or t is list:
        return t(wrap(x) for x in r)
    if isinstance(r, tuple):  # NumPy's named results (SVDResult, EighResult...): CuPy gives
        return tuple(wrap(x) for x in r)  # plain tuples
    return r


def row_major(r):
    """``r`` (a new host result) laid out row-major, as CuPy allocates the outputs of its
    ufuncs, kernels, reductions, scans, sorts, joins and gathers (``_ndarray_init`` without an
    order, ``cupy/_core/_kernel.pyx``); NumPy's keep their operands' layout (order 'K')."""
    if type(r) is np.ndarray and not r.flags.c_contiguous:
        return r.copy(order="C")
    if type(r) is tuple:
        return tuple(row_major(v) for v in r)
    return r


def _make_writeable(view):
    """CuPy arrays have no read-only flag: a broadcast (zero-stride) view can be written, the
    write landing on the shared elements. NumPy hands such views back read-only."""
    try:
        view.flags.writeable = True
    except ValueError:  # memory that is really read-only (a bytes buffer)
        pass


def unwrap(x, what="argument"):
    """The host array behind a stand-in array; scalars pass; a plain ndarray is CuPy's error."""
    t = type(x)
    if t is ndarray:
        return x._d
    if t is np.ndarray:
        raise unsupported(x)
    if t is tuple or t is list:
        return t(unwrap(v, what) for v in x)
    return x


def unwrap_index(key):
    """An index as CuPy takes it: device arrays, and host arrays/lists copied to the device."""
    t = type(key)
    if t is ndarray:
        return key._d
    if t is tuple:
        return tuple(unwrap_index(k) for k in key)
    if t is np.ndarray or t is list:
        STATS["h2d_index"] += 1
        a = np.asarray(key)
        if a.dtype.kind not in "biu" and a.size:
            raise IndexError("arrays used as indices must be of integer or boolean type "
                             f"(actual: {a.dtype.type})")
        return a if a.size or t is np.ndarray else a.astype(np.int32)
    return key


class Flags:
    """``cupy.ndarray.flags``: C/F contiguity and ownership, nothing else (no ``writeable``)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, c, f, own):
        self.c_contiguous, self.f_contiguous, self.owndata = c, f, own

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    @property
    def fnc(self):
        return self.f_contiguous and not self.c_contiguous

    def __getitem__(self, name):
        if name == "C_CONTIGUOUS":
            return self.c_contiguous
        if name == "F_CONTIGUOUS":
            return self.f_contiguous
        if name == "OWNDATA":
            return self.owndata
        raise KeyError(f"{name} is not defined for cupy.ndarray.flags")


class Memory:
    """``MemoryPointer.mem``: the pool block an array lives in (CuPy's ``PooledMemory``):
    its start address and its size, rounded up to the pool's 512-byte unit as CuPy's is."""

    __slots__ = ("ptr", "size", "device_id")

    def __init__(self, ptr, nbytes):
        self.ptr, self.size, self.device_id = ptr, -(-nbytes // 512) * 512, 0


class MemoryPointer:
    """``ndarray.data``: an address on device 0, inside the block ``mem``."""

    __slots__ = ("ptr", "device_id", "mem")

    def __init__(self, ptr, mem=None):
        self.ptr, self.device_id, self.mem = ptr, 0, mem

    @property
    def device(self):
        from ._cuda import Device

        return Device(0)


def _check_kwargs(name, kwargs, allowed):
    for k in kwargs:
        if k not in allowed:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")


class ndarray:
    """A stand-in for ``cupy.ndarray`` (see the module docstring)."""

    __slots__ = ("_d", "_base", "__weakref__")
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        dt = check_dtype(dtype)
        self._d = np.empty(shape, dtype=dt, order=order)
        self._base = None
        _pool_track(self._d)

    # -- what NumPy must not do -------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(_IMPLICIT)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        for x in inputs + tuple(kwargs.get("out", ())):
            if type(x) is np.ndarray:
                raise unsupported(x)
        f = getattr(_MODULE, ufunc.__name__, None)
        if f is None:
            special = _MODULE._cupyx.scipy.special
            f = getattr(special, ufunc.__name__, None)
        if f is None:
            return NotImplemented
        if "out" in kwargs:
            (kwargs["out"],) = kwargs["out"]
        return f(*inputs, **kwargs) if method == "__call__" else \
            getattr(f, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        mod = _MODULE
        for part in func.__module__.split(".")[1:]:
            mod = getattr(mod, part, None)
            if mod is None:
                return NotImplemented
        f = getattr(mod, func.__name__, None)
        if f is None:
            return NotImplemented
        for t in types:
            if t is np.ndarray:
                raise TypeError(f"Unsupported type {t} (a host array mixed with device "
                                f"arrays in numpy.{func.__name__})")
        return f(*args, **kwargs)

    # -- attributes -------------------------------------------------------------------------
    @property
    def shape(self):
        return self._d.shape

    @shape.setter
    def shape(self, value):
        self._d.shape = value

    @property
    def dtype(self):
        return self._d.dtype

    @property
    def ndim(self):
        return self._d.ndim

    @property
    def size(self):
        return self._d.size

    @property
    def strides(self):
        return self._d.strides

    @property
    def itemsize(self):
        return self._d.itemsize

    @property
    def nbytes(self):
        return self._d.nbytes

    @property
    def T(self):
        return wrap(self._d.T, self._root())

    @property
    def mT(self):
        return wrap(self._d.mT, self._root())

    @property
    def real(self):
        return wrap(self._d.real, self._root())

    @real.setter
    def real(self, value):
        self._d.real = unwrap(value)

    @property
    def imag(self):
        return wrap(self._d.imag, self._root())

    @imag.setter
    def imag(self, value):
        self._d.imag = unwrap(value)

    @property
    def flags(self):
        f = self._d.flags
        return Flags(f.c_contiguous, f.f_contiguous, self._base is None)

    @property
    def _c_contiguous(self):
        """CuPy's readonly C attribute behind ``flags.c_contiguous`` (cupy/_core/core.pxd),
        which numtorch reads on hot device paths (``flags`` makes a Python object)."""
        return self._d.flags.c_contiguous

    @property
    def base(self):
        return self._base

    # CuPy's ndarray exposes its contiguity bits as read-only attributes (core.pxd), a
    # cheaper test than ``flags`` (which builds a Flags object per call)
    @property
    def _c_contiguous(self):
        return self._d.flags.c_contiguous

    @property
    def _f_contiguous(self):
        return self._d.flags.f_contiguous

    @property
    def data(self):
        owner = _owner(self._d)
        return MemoryPointer(self._d.__array_interface__["data"][0],
                             Memory(owner.__array_interface__["data"][0], owner.nbytes))

    @property
    def device(self):
        from ._cuda import Device

        return Device(0)

    @property
    def flat(self):
        raise NotImplementedError("stand-in: cupy.ndarray.flat is not faked")

    @property
    def cstruct(self):
        raise NotImplementedError("stand-in: cupy.ndarray.cstruct is not faked")

    @property
    def __cuda_array_interface__(self):
        d = self._d
        return {"shape": d.shape, "typestr": d.dtype.str, "version": 3,
                "data": (d.__array_interface__["data"][0], False),
                "strides": None if d.flags.c_contiguous else d.strides}

    def _root(self):
        return self if self._base is None else self._base

    # -- host transfers (explicit, counted) -------------------------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True):
        """Copy to a host ``numpy.ndarray`` (a device synchronisation)."""
        STATS["sync"] += 1
        if out is not None:
            out[...] = self._d
            return out
        return np.array(self._d, order=order, copy=True)

    def set(self, arr, stream=None):
        """Copy host array ``arr`` into this array."""
        if type(arr) is not np.ndarray:
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if arr.shape != self._d.shape or arr.dtype != self._d.dtype:
            raise ValueError("Shape or dtype mismatch")
        self._d[...] = arr

    def item(self):
        STATS["sync"] += 1
        return self._d.item()

    def tolist(self):
        STATS["sync"] += 1
        return self._d.tolist()

    def tobytes(self, order="C"):
        STATS["sync"] += 1
        return self._d.tobytes(order)

    def __bool__(self):
        STATS["sync"] += 1
        return bool(self._d)

    def __int__(self):
        STATS["sync"] += 1
        return int(self._d)

    def __float__(self):
        STATS["sync"] += 1
        return float(self._d)

    def __complex__(self):
        STATS["sync"] += 1
        return complex(self._d)

    def __repr__(self):
        return repr(self._d).replace("array(", "array(", 1)

    def __str__(self):
        return str(self._d)

    def __format__(self, spec):
        STATS["sync"] += 1
        return format(self._d.item() if self._d.ndim == 0 else self._d, spec)

    def __reduce__(self):
        return (_rebuild, (self.get(),))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        raise NotImplementedError("stand-in: DLPack export is not faked")

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0

    # -- sequence protocol ------------------------------------------------------------------
    def __len__(self):
        return len(self._d)

    def __iter__(self):
        if self._d.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        root = self._root()
        return (wrap(self._d[i], root) for i in range(len(self._d)))

    def __getitem__(self, key):
        key = unwrap_index(key)
        if type(key) is not slice:  # CuPy's rules for scalars and index arrays (_indexing)
            key = _indexing.cupy_key(self._d.shape, key)[0]
        r = self._d[key]
        if not np.may_share_memory(r, self._d):
            STATS["kernels"] += 1  # advanced indexing gathers in a kernel
            return wrap(row_major(r))  # into a new row-major array (_routines_indexing.pyx)
        return wrap(r, self._root())

    def __setitem__(self, key, value):
        if type(value) is ndarray:
            value = value._d
        elif type(value) is np.ndarray or type(value) is list:
            STATS["h2d_index"] += 1
        STATS["kernels"] += 1  # a copy, fill or scatter kernel
        _indexing.setitem(self._d, unwrap_index(key), value)

    # -- methods with CuPy's keywords -------------------------------------------------------
    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        dt = check_dtype(dtype)
        kw = {} if casting is None else {"casting": casting}
        r = self._d.astype(dt, order=order, copy=copy, **kw)
        if r is self._d:
            return self
        STATS["kernels"] += 1
        return wrap(r)

    def reshape(self, *shape, order="C", copy=None):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        for s in shape:
            if type(s) is ndarray:
                raise TypeError("'cupy.ndarray' object cannot be interpreted as an integer")
        r = self._d.reshape(shape, order=order, copy=copy)
        # a reshape that had to copy is a new array (base None), as CuPy's
        if np.may_share_memory(r, self._d):
            return wrap(r, self._root())
        STATS["kernels"] += 1
        return wrap(r)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return wrap(self._d.transpose(*axes), self._root())

    def view(self, dtype=None, type=None):
        if type is not None:
            raise NotImplementedError("stand-in: view(type=) is not faked")
        if dtype is None:
            return wrap(self._d.view(), self._root())
        return wrap(self._d.view(check_dtype(dtype)), self._root())

    def copy(self, order="C"):
        r = self._d.copy(order=order)
        STATS["kernels"] += 1
        _pool_track(r)
        return wrap(r)

    def dot(self, b, out=None):
        if type(b) is not ndarray:
            raise TypeError(f"Argument 'b' has incorrect type (expected cupy._core.core."
                            f"_ndarray_base, got {type(b).__name__})")
        return _MODULE.dot(self, b, out=out)

    def fill(self, value):
        if type(value) is np.ndarray:
            raise unsupported(value)
        STATS["kernels"] += 1
        self._d.fill(unwrap(value))

    # CuPy sorts with a stable radix sort whatever ``kind`` says (NumPy's default is not stable)
    def sort(self, axis=-1, kind=None):
        self._d.sort(axis=axis, kind="stable")

    def argsort(self, axis=-1, kind=None):
        return wrap(row_major(self._d.argsort(axis=axis, kind="stable")))

    def nonzero(self):
        return wrap(self._d.nonzero())

    def scatter_add(self, slices, value):
        _indexing.scatter_method("add", self._d, unwrap_index(slices), unwrap(value))

    def scatter_max(self, slices, value):
        _indexing.scatter_method("maximum", self._d, unwrap_index(slices), unwrap(value))

    def scatter_min(self, slices, value):
        _indexing.scatter_method("minimum", self._d, unwrap_index(slices), unwrap(value))

    def take(self, indices, axis=None, out=None):
        if out is not None:
            raise NotImplementedError("stand-in: take(out=) is not faked")
        return wrap(_indexing.take(self._d, unwrap(indices), axis))

    def reduced_view(self, dtype=None):
        return self

    def toDlpack(self):
        raise NotImplementedError("stand-in: DLPack export is not faked")


def _owner(arr):
    """The host array owning ``arr``'s memory (through views and stride-trick holders)."""
    owner, base = arr, arr.base
    while base is not None:
        if isinstance(base, np.ndarray):
            owner = base
        base = getattr(base, "base", None)
    return owner


def _rebuild(host):
    from ._module import MODULE

    return MODULE.asarray(host)


# methods whose CuPy results are new row-major arrays: reductions (``_reduction.pyx``), scans
# (``scan_core``: ``astype(order='C')``), ufunc-based methods
ROW_MAJOR_METHODS = frozenset({"sum", "prod", "max", "min", "argmax", "argmin", "mean", "var",
                               "std", "any", "all", "cumsum", "cumprod", "conj", "conjugate",
                               "round", "ptp", "trace", "nonzero", "dot"})


def _delegate(name, params):
    """A method calling the NumPy method of the same name, with CuPy's keywords only."""
    allowed = frozenset(p for p in (params or ()) if p not in ("*", "**"))
    check = params is not None and "**" not in params

    def method(self, *args, **kwargs):
        if check and kwargs:
            _check_kwargs(name, kwargs, allowed)
        if args:
            args = tuple(unwrap(a) for a in args)
        if kwargs:
            kwargs = {k: unwrap(v) for k, v in kwargs.items()}
            if "out" in kwargs and kwargs["out"] is None:
                del kwargs["out"]
        r = getattr(self._d, name)(*args, **kwargs)
        if type(r) is np.ndarray and r.base is not None and \
                (r.base is self._d or r.base is self._d.base):
            return wrap(r, self._root())
        if type(r) is np.ndarray or isinstance(r, np.generic):
            STATS["kernels"] += 1  # a reduction, copy or elementwise method
        if row:
            r = row_major(r)
        return wrap(r)

    row = name in ROW_MAJOR_METHODS
    method.__name__ = name
    return method


_OWN = set(ndarray.__dict__)
for _name, _info in NAMES["ndarray"].items():
    if _info["kind"] != "method" or _name in _OWN or not hasattr(np.ndarray, _name):
        continue
    setattr(ndarray, _name, _delegate(_name, _info["params"]))


def _binary(op, reflected=False):
    def method(self, other):
        t = type(other)
        if t is not ndarray and t is not np.ndarray and not isinstance(
                other, (int, float, complex, bool, np.generic)):
            return NotImplemented
        f = getattr(_MODULE, op)
        return f(other, self) if reflected else f(self, other)

    return method


def _inplace(op):
    def method(self, other):
        getattr(_MODULE, op)(self, other, out=self)
        return self

    return method


for _dunder, _op in {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
                     "floordiv": "floor_divide", "mod": "remainder", "pow": "power",
                     "matmul": "matmul", "and": "bitwise_and", "or": "bitwise_or",
                     "xor": "bitwise_xor", "lshift": "left_shift",
                     "rshift": "right_shift", "divmod": "divmod"}.items():
    setattr(ndarray, f"__{_dunder}__", _binary(_op))
    setattr(ndarray, f"__r{_dunder}__", _binary(_op, reflected=True))
    if _dunder not in ("divmod", "matmul"):
        setattr(ndarray, f"__i{_dunder}__", _inplace(_op))
for _dunder, _op in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                     "gt": "greater", "ge": "greater_equal"}.items():
    setattr(ndarray, f"__{_dunder}__", _binary(_op))
ndarray.__neg__ = lambda self: _MODULE.negative(self)
ndarray.__pos__ = lambda self: _MODULE.positive(self)
ndarray.__abs__ = lambda self: _MODULE.absolute(self)
ndarray.__invert__ = lambda self: _MODULE.invert(self)


# -- the memory pool's bookkeeping --------------------------------------------------------------
class _Pool:
    """One memory pool's counters (the default pool's is ``POOL``)."""

    def __init__(self):
        self.used = 0
        self.total = 0


POOL = _Pool()
_TRACKED = {}
# set by _cuda: the current stream, the allocator installed by cupy.cuda.set_allocator, and
# the default pool's malloc (used when no allocator is installed)
HOOKS = {"stream": lambda: None, "allocator": lambda: None, "malloc": None}


def _released(key, nbytes, counter):
    _TRACKED.pop(key, None)
    counter.used -= nbytes


def _pool_track(arr):
    """Count ``arr``'s bytes as allocated from a device pool until it is freed: CuPy asks the
    installed allocator (default: the default pool) on the current stream, and a pool's
    limit makes it raise ``OutOfMemoryError`` before anything is counted."""
    import weakref

    if arr.base is None and id(arr) not in _TRACKED and arr.nbytes:
        n = arr.nbytes
        STATS["last_stream"] = HOOKS["stream"]()
        allocator = HOOKS["allocator"]() or HOOKS["malloc"]
        mem = allocator(n) if allocator is not None else None
        pool = getattr(mem, "pool", None)
        counter = POOL if pool is None else pool._counter
        if pool is None:  # a pool's malloc counts its bytes itself, as CuPy's does
            counter.used += n
            counter.total = max(counter.total, counter.used)
        _TRACKED[id(arr)] = weakref.finalize(arr, _released, id(arr), n, counter)
