"""Small argument helpers shared by the op families (dims, shapes, scalars)."""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make


def canonical_dim(dim, ndim):
    """Map a possibly negative ``dim`` into ``[0, ndim)``; torch's IndexError otherwise."""
    n = max(ndim, 1)  # torch lets 0-d tensors use dim 0 and -1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def canonical_dims(dims, ndim):
    """Canonicalise an int, a sequence of ints or None (all dims) into a sorted tuple."""
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, (int, np.integer)):
        dims = (int(dims),)
    out = tuple(sorted(canonical_dim(int(d), ndim) for d in dims))
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out} appears multiple times in the list of dims")
    if ndim == 0:
        return ()
    return out


def shape_arg(shape):
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size)`` shapes."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"expected a sequence of ints as a size, but got {shape!r}") from None


def torch_stride(shape, strides):
    """Strides as torch reports them: size-1 dims of a contiguous tensor get canonical values."""
    return strides


def storage_offset(t):
    """Element offset of ``t``'s first element from the start of the memory it views."""
    arr = t._array
    base = arr
    while getattr(base, "base", None) is not None and isinstance(base.base, type(arr)):
        base = base.base
    if base is arr:
        return 0
    start = arr.__array_interface__["data"][0] if isinstance(arr, np.ndarray) else arr.data.ptr
    bstart = base.__array_interface__["data"][0] if isinstance(base, np.ndarray) \
        else base.data.ptr
    return (start - bstart) // arr.itemsize


def tensor_from_array(arr):
    """Wrap an xp array (no copy)."""
    return _make(arr)


def as_tensor_like(value, like):
    """A Python number or array-like as a tensor on ``like``'s device (no grad)."""
    if isinstance(value, Tensor):
        return value
    dt = _dtype.result_type(value)
    xp = np if type(like._array) is np.ndarray else __import__("numtorch").backend.xp_of(
        like._array)
    return _make(xp.asarray(value, dtype=dt.np))


def is_tensor(x):
    return isinstance(x, Tensor)
