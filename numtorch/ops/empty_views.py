"""Empty views placed where torch places them.

NumPy leaves the data pointer where it was when a slice selects nothing along a dim
(``arange(6)[6:]`` starts at element 0), while torch still moves the view's storage offset
(6). The offset shows in ``storage_offset()`` and in what ``torch.save`` records, so empty
views are rebuilt here at torch's address; no element is ever read through them.
"""

import numpy as np


def empty_view_at(src, elem_offset, shape, strides):
    """An empty NumPy view of ``src``'s memory ``elem_offset`` elements after ``src``'s first
    element, with ``strides`` in bytes, whose ``base`` is the array owning the memory (so the
    storage it reports is that array's). None where it cannot be built so (CuPy, meta and
    quantized arrays, an owner that is not one block, an address outside it)."""
    if type(src) is not np.ndarray:
        return None
    from ..backend import helpers_for

    root = helpers_for(np).storage_root(src)
    if not (isinstance(root, np.ndarray) and root.flags.c_contiguous):
        return None
    at = (src.__array_interface__["data"][0] - root.__array_interface__["data"][0]
          + elem_offset * src.itemsize)
    if not 0 <= at <= root.nbytes:
        return None
    return np.ndarray(tuple(shape), src.dtype, buffer=root, offset=at, strides=tuple(strides))


def basic_index_offset(x, index):
    """Torch's element offset of ``x[index]`` from ``x``'s first element, for a converted
    basic index (ints, positive-step slices, None, Ellipsis); None for anything else."""
    n_used = sum(1 for i in index if i is not None and i is not Ellipsis)
    item = x.itemsize
    pos = off = 0
    for i in index:
        if i is None:
            continue
        if i is Ellipsis:
            pos += x.ndim - n_used
            continue
        if pos >= x.ndim:
            return None
        n, st = x.shape[pos], x.strides[pos] // item
        if isinstance(i, slice):
            start, _, step = i.indices(n)
            if step <= 0:
                return None
            off += start * st
        elif isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)):
            off += (i + n if i < 0 else i) * st
        else:
            return None
        pos += 1
    return off
