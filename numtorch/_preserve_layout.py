"""torch's ``preserve_format``: the memory layout of a new tensor made like another one.

``clone()``, ``to(dtype)``, ``empty_like``/``zeros_like``/``rand_like``... keep the source's
exact strides when it is dense and non-overlapping. Otherwise (a slice with gaps, an expanded
tensor) the new tensor is dense, with its dims ordered as the source's strides say. Dims with
stride 0 say nothing about where they belong, and torch's order then depends on how it ranks
dims: an insertion sort, innermost first, that walks past a dim it cannot compare with (stride
0 on either side) and ranks equal strides by size. NumPy's ``order="K"`` ranks stride-0 dims
otherwise, so the order is worked out here (checked on ~2000 random expanded, permuted,
sliced layouts against torch).
"""

import numpy as np

from .backend import helpers_for, is_device_array

__all__ = ["dense_strides", "preserved_strides", "empty_preserving", "copy_preserving"]


def dense_strides(shape, strides):
    """Whether element ``strides`` lay ``shape`` out densely without overlap (size-1 dims
    may have any stride)."""
    extent = 1
    for st, n in sorted((st, n) for st, n in zip(strides, shape) if n != 1):
        if st != extent:
            return False
        extent *= n
    return True


def _outer(a, b, shape, strides):
    """+1 if dim ``a`` belongs outside dim ``b``, -1 if inside, 0 if they cannot be ranked."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa != sb:
        return 1 if sa > sb else -1
    return (shape[a] > shape[b]) - (shape[a] < shape[b])


def preserved_strides(shape, strides):
    """The element strides torch gives a tensor made like one with ``shape`` and element
    ``strides`` (its own when dense, else a dense layout in the order described above)."""
    if dense_strides(shape, strides):
        return tuple(strides)
    inner_first = list(range(len(shape)))[::-1]
    for i in range(1, len(shape)):
        at = i
        for j in range(i - 1, -1, -1):
            c = _outer(inner_first[j], inner_first[at], shape, strides)
            if c > 0:
                inner_first[j], inner_first[at] = inner_first[at], inner_first[j]
                at = j
            elif c < 0:
                break
    out = [0] * len(shape)
    step = 1
    for d in inner_first:
        out[d] = step
        step *= shape[d]
    return tuple(out)


def empty_preserving(xp, like, dtype):
    """An uninitialised array of ``dtype`` with ``like``'s shape in torch's preserve_format
    layout (C order for a C-contiguous or empty ``like``; other array types, meta and
    quantized, keep their own order-K rule)."""
    if not (type(like) is np.ndarray or is_device_array(like)):
        return xp.empty_like(like, dtype=dtype, order="K")  # meta/quantized: their own
    if like.size == 0 or like.flags.c_contiguous and 1 not in like.shape:
        return xp.empty(like.shape, dtype=dtype)
    item = like.itemsize
    # (a row-major like with size-1 dims is dense: their strides are kept, as torch keeps them)
    strides = preserved_strides(like.shape, [st // item for st in like.strides])
    flat = xp.empty(like.size, dtype=dtype)
    size = flat.itemsize
    return helpers_for(xp).as_strided(flat, like.shape, tuple(st * size for st in strides))


def copy_preserving(xp, x, dtype=None):
    """A copy of array ``x`` (cast to ``dtype``) in torch's preserve_format layout."""
    dtype = x.dtype if dtype is None else dtype
    if x.flags.c_contiguous and 1 not in x.shape:
        return x.astype(dtype)  # the common case: row-major stays row-major
    y = empty_preserving(xp, x, dtype)
    y[...] = x
    return y
