"""torch's ``preserve_format``: the memory layout of a new tensor made like another one.

``clone()``, ``to(dtype)``, ``empty_like``/``zeros_like``/``rand_like``... keep the source's
exact strides when it is dense and non-overlapping. Otherwise (a slice with gaps, an expanded
tensor) the new tensor is dense, with its dims ordered as the source's strides say. Dims with
stride 0 say nothing about where they belong, and torch's order then depends on how it ranks
dims (``backend/_layout_rank.py``, the rule of elementwise results with one operand). NumPy's
``order="K"`` ranks stride-0 dims otherwise (checked on ~2000 random expanded, permuted,
sliced layouts against torch).
"""

import numpy as np

from .backend import helpers_for, is_device_array
from .backend._layout_rank import dense_strides, strides_in_order, torch_order

__all__ = ["copy_preserving", "empty_preserving", "preserved_strides"]


def preserved_strides(shape, strides):
    """The element strides torch gives a tensor made like one with ``shape`` and element
    ``strides`` (its own when dense, else a dense layout in the order described above)."""
    if dense_strides(shape, strides):
        return tuple(strides)
    return tuple(strides_in_order(shape, torch_order(shape, [strides])))


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
