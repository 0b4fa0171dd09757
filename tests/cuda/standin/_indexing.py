"""CuPy 14's rules for advanced indexing and ``ufunc.at``, as the stand-in's arrays follow them.

Read from CuPy's ``cupy/_core/_routines_indexing.pyx`` and ``include/cupy/atomics.cuh``:

- an integer *array* index is never checked: the take and scatter kernels wrap it
  (``i % n``), so ``a[cupy.array([5])]`` on 2 rows reads row 1 and ``a[[5]] = v`` writes it;
  an integer *scalar* out of range raises ``IndexError("Index 5 is out of bounds for axis 0
  with size 2")`` (capital I, NumPy's is lower case);
- several index arrays that do not broadcast raise CuPy's ``ValueError("operands could not be
  broadcast together with shapes(2,) (3,)")`` (NumPy's is an IndexError);
- ``a[idx] = v`` with a position named twice is a race between GPU threads; the stand-in lets
  the first write win, the outcome the H100 showed (NumPy's last write wins, as torch's);
- ``ufunc.at`` with an array index runs an atomic kernel that takes only some dtypes
  (``TypeError`` otherwise), and ``maximum.at``/``minimum.at`` on floats use ``fmaxf``/``fminf``:
  NaN loses, and float64 values go through float32 (``atomicMax(double*)`` calls the float
  function), so every element they touch is rounded to float32.
"""

import operator
import warnings

import numpy as np

_ATOMIC_INT = (np.int32, np.int64, np.uint32, np.uint64)
# what the atomic kernel behind ``<name>.at`` takes (the target's dtype); others: TypeError
AT_DTYPES = {
    "add": _ATOMIC_INT + (np.float16, np.float32, np.float64),
    "subtract": (np.int32, np.uint32),
    "maximum": _ATOMIC_INT + (np.float32, np.float64),
    "minimum": _ATOMIC_INT + (np.float32, np.float64),
    "bitwise_and": _ATOMIC_INT, "bitwise_or": _ATOMIC_INT, "bitwise_xor": _ATOMIC_INT,
}
_AT_NAMES = {"add": "int32, int64, float16, float32, float64, uint32, uint64",
             "subtract": "int32, uint32,",
             "maximum": "int32, int64, float32, float64, uint32, uint64",
             "minimum": "int32, int64, float32, float64, uint32, uint64",
             "bitwise_and": "int32, int64, uint32, uint64",
             "bitwise_or": "int32, int64, uint32, uint64",
             "bitwise_xor": "int32, int64, uint32, uint64"}
DEPRECATED = {"add": "`ndarray.scatter_add` is deprecated. Please use `cupy.add.at` instead.",
              "maximum": "`ndarray.scatter_max` is deprecated Please use `cupy.maximum.at` "
                         "instead.",
              "minimum": "`ndarray.scatter_min` is deprecated Please use `cupy.minimum.at` "
                         "instead."}


def _is_int_array(k):
    return type(k) is np.ndarray and k.dtype.kind in "iu"


def cupy_key(shape, key):
    """``key`` (host arrays already) as CuPy reads it for an array of ``shape``: scalars
    checked with CuPy's message, integer arrays wrapped, index arrays broadcast with CuPy's
    error. Returns ``(key, has_integer_array)``."""
    items = key if type(key) is tuple else (key,)
    used = 0
    for k in items:
        if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)):
            continue
        used += k.ndim if type(k) is np.ndarray and k.dtype.kind == "b" else 1
    out, axis, int_shapes, n_arrays = [], 0, [], 0
    for k in items:
        if k is Ellipsis:
            axis += max(len(shape) - used, 0)
        elif k is None or isinstance(k, (bool, np.bool_)) or isinstance(k, slice):
            axis += isinstance(k, slice)
        elif type(k) is np.ndarray:
            n_arrays += 1
            if k.dtype.kind == "b":
                axis += k.ndim
            else:
                if axis < len(shape) and shape[axis]:
                    k = k % shape[axis]  # the kernels' wrap (Python's mod: always >= 0)
                int_shapes.append(k.shape)
                axis += 1
        else:
            i = operator.index(k)
            if axis < len(shape) and not -shape[axis] <= i < shape[axis]:
                raise IndexError(f"Index {k} is out of bounds for axis {axis} with size "
                                 f"{shape[axis]}")
            axis += 1
        out.append(k)
    if len(int_shapes) > 1:
        try:
            np.broadcast_shapes(*int_shapes)
        except ValueError:
            raise ValueError("operands could not be broadcast together with shapes" +
                             " ".join(str(s) for s in int_shapes)) from None
    key = tuple(out) if type(key) is tuple else out[0]
    return key, bool(int_shapes)


def _positions(shape, key):
    """The coordinates, in an array of ``shape``, of each element ``a[key]`` names."""
    grids = np.indices(shape, sparse=True)
    return [np.broadcast_to(g, shape)[key] for g in grids]


def _addresses(d, coords):
    off = np.zeros(coords[0].shape if coords else (), dtype=np.int64)
    for c, s in zip(coords, d.strides):
        off = off + c * s
    return off


def setitem(d, key, value):
    """``d[key] = value`` as CuPy's scatter-update kernel does it (see the module docstring)."""
    key, has_int = cupy_key(d.shape, key)
    if not has_int or not d.size:
        d[key] = value
        return
    coords = _positions(d.shape, key)
    addr = _addresses(d, coords)
    if addr.size < 2 or np.unique(addr.reshape(-1)).size == addr.size:
        d[key] = value
        return
    vals = np.broadcast_to(np.asarray(value, dtype=d.dtype), addr.shape).reshape(-1)[::-1]
    # reversed, so that the first write wins (copies: NumPy may reorder strided operands)
    d[tuple(c.reshape(-1)[::-1].copy() for c in coords)] = vals.copy()


def at(name, d, key, values):
    """``<name>.at(d, key, values)`` as CuPy's scatter kernels do it (module docstring)."""
    key, has_int = cupy_key(d.shape, key)
    if has_int:
        if not issubclass(d.dtype.type, AT_DTYPES.get(name, ())):
            raise TypeError(f"cupy.{name}.at only supports {_AT_NAMES[name]} as data type")
        if name in ("maximum", "minimum") and d.dtype.kind == "f":
            fn = np.fmax if name == "maximum" else np.fmin
            if d.dtype == np.float64:  # atomicMax(double*) computes in float32
                tmp = d.astype(np.float32)
                touched = np.zeros(d.shape, dtype=bool)
                touched[key] = True
                with np.errstate(all="ignore"):
                    fn.at(tmp, key, np.asarray(values).astype(np.float32))
                d[touched] = tmp[touched]
            else:
                fn.at(d, key, values)
            return
    with np.errstate(all="ignore"):
        getattr(np, name).at(d, key, values)


def scatter_method(name, d, key, values):
    """``ndarray.scatter_add``/``scatter_max``/``scatter_min``: deprecated in CuPy 14."""
    warnings.warn(DEPRECATED[name], DeprecationWarning, stacklevel=3)
    at(name, d, key, values)


def take(d, indices, axis=None, out=None):
    """``cupy.take``: out-of-range indices wrap (CuPy's take has no ``mode``)."""
    return np.take(d, indices, axis=axis, out=out, mode="wrap")


def take_along_axis(d, indices, axis):
    """``cupy.take_along_axis``: fancy indexing underneath, so indices wrap."""
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        d, axis = d.reshape(-1), 0
    axis = axis % d.ndim if d.ndim else 0
    if d.shape[axis]:
        indices = indices % d.shape[axis]
    return np.take_along_axis(d, indices, axis)
