"""Views by explicit strides (``as_strided``) and the scatters that write a view's worth of
values into a copy: ``as_strided_scatter``, ``select_scatter``, ``slice_scatter`` and
``diagonal_scatter``.

``as_strided`` reads memory the way torch does: sizes, strides and the offset count elements
of the storage under the tensor (the memory block its base array owns), not of the tensor
itself. Its gradient goes through that storage: the output's gradient is added into a
storage-sized buffer and read back with the input's own geometry, averaged where the input
sees one storage element several times (an expanded input), as torch does.
"""

import numpy as np

from .. import backend
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ._util import canonical_dim, elem_strides, fmt_shape, shape_arg, storage_offset
from .empty_views import empty_view_at

__all__ = [
    "as_strided",
    "as_strided_scatter",
    "diagonal_scatter",
    "select_scatter",
    "slice_inverse",
    "slice_scatter",
]


def _owner(arr):
    """The array that owns ``arr``'s memory (torch's storage under it)."""
    return backend.helpers_for(backend.xp_of(arr)).storage_root(arr)


def _storage_size(arr):
    """Elements in the storage under ``arr`` (torch's ``untyped_storage().size() / itemsize``)."""
    owner = _owner(arr)
    if owner is arr and arr.base is None:
        return arr.size
    return owner.size if owner.dtype == arr.dtype else owner.nbytes // arr.itemsize


def _flat_storage(xp, arr):
    """A 1-D view of the whole storage under ``arr``, in ``arr``'s dtype."""
    owner = _owner(arr)
    helpers = backend.helpers_for(xp)
    n = _storage_size(arr)
    start = arr if owner is arr else owner
    if start.dtype != arr.dtype:
        start = start.view(arr.dtype) if start.flags.c_contiguous else start
    return helpers.as_strided(start, (n,), (arr.itemsize,))


def _positions(xp, shape, strides, offset):
    """Storage position of every element of a (shape, strides, offset) geometry, row-major."""
    pos = xp.full(tuple(shape), offset, dtype=np.int64)
    for k, (n, s) in enumerate(zip(shape, strides)):
        view = [1] * len(shape)
        view[k] = n
        pos = pos + (xp.arange(n, dtype=np.int64) * s).reshape(view)
    return pos.reshape(-1)


def _last_position(shape, strides, offset):
    """The largest entry of ``_positions(shape, strides, offset)`` (-1 when empty), from the
    geometry alone: no reduction over device data, no host synchronisation."""
    if any(n == 0 for n in shape):
        return -1
    return offset + sum((n - 1) * s for n, s in zip(shape, strides))  # strides are >= 0


def _check_geometry(size, stride, offset, storage_numel, itemsize):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={fmt_shape(size)} "
                           f"and strides={fmt_shape(stride)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {fmt_shape(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if 0 in size:
        return
    need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > storage_numel:
        raise RuntimeError(f"setStorage: sizes {fmt_shape(size)}, strides {fmt_shape(stride)}, "
                           f"storage offset {offset}, and itemsize {itemsize} requiring a "
                           f"storage size of {need * itemsize} are out of bounds for storage of "
                           f"size {storage_numel * itemsize}")


class AsStrided(Op):
    """y = the storage under x read with (size, stride, storage_offset);
    dx = (grad added into the storage) read with x's geometry, / x's own overlap count."""

    is_view = True

    def forward(self, x):
        xp = self.xp
        self.in_geometry = (x.shape, elem_strides(x), _array_offset(x))
        flat = _flat_storage(xp, x)
        _check_geometry(self.size, self.stride, self.storage_offset, flat.size, x.itemsize)
        item = x.itemsize
        if 0 in self.size:
            y = empty_view_at(flat, self.storage_offset, self.size,
                              tuple(s * item for s in self.stride))
            return xp.empty(self.size, dtype=x.dtype) if y is None else y
        return backend.helpers_for(xp).as_strided(
            flat[self.storage_offset:], self.size, tuple(s * item for s in self.stride))

    def backward(self, grad):
        xp = self.xp
        shape, strides, offset = self.in_geometry
        p_in = _positions(xp, shape, strides, offset)
        p_out = _positions(xp, self.size, self.stride, self.storage_offset)
        n = max(_last_position(shape, strides, offset),
                _last_position(self.size, self.stride, self.storage_offset)) + 1
        buf = grad.new_zeros((n,)).index_add(0, _make(p_out), grad.reshape(-1))
        g = buf[_make(p_in)]
        count = xp.bincount(p_in, minlength=n)[p_in] if p_in.size else p_in
        if p_in.size and count.max() > 1:  # x sees a storage element more than once
            g = g / _make(count.astype(grad._array.dtype))
        return g.reshape(shape)


def _array_offset(arr):
    return storage_offset(_make(arr))


def _geometry_args(input, size, stride, storage_offset):
    size = shape_arg((size,), "as_strided", "size") if isinstance(size, (tuple, list)) \
        else tuple(int(s) for s in size)
    stride = shape_arg((stride,), "as_strided", "stride") if isinstance(stride, (tuple, list)) \
        else tuple(int(s) for s in stride)
    if storage_offset is None:
        storage_offset = _array_offset(input._array)
    return size, stride, int(storage_offset)


def as_strided(input, size, stride, storage_offset=None):
    """A view of the memory under ``input`` with the given sizes, strides and offset (all in
    elements of the underlying storage; the offset defaults to ``input``'s own).

    Example:
        >>> torch.arange(6.).as_strided((2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
    """
    size, stride, offset = _geometry_args(input, size, stride, storage_offset)
    return AsStrided.apply(input, size=size, stride=stride, storage_offset=offset)


class SliceInverse(AsStrided):
    """y = the storage under x (a slice of some base) read with src's geometry: the base back;
    dx = grad[start:end:step] along dim (the slice that made x), dsrc = grad with that slice
    zeroed (src stands for the rest of the base)."""

    def forward(self, x, src):
        return super().forward(x)

    def backward(self, grad):
        nx, ns = self.needs_input_grad
        d, start, end, step = self.slice_args
        key = (slice(None),) * d + (slice(start, end, step),)
        gx = grad[key] if nx else None
        gs = slice_scatter(grad, grad[key].new_zeros(()).expand(grad[key].shape), d, start,
                           end, step) if ns else None
        return gx, gs


def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The view that ``input[..., start:end:step]`` (along ``dim``) was taken from, given a
    tensor ``src`` shaped and strided like it: the storage under ``input`` read with ``src``'s
    sizes, strides and offset.

    Example:
        >>> base = torch.arange(6.).reshape(2, 3)
        >>> torch.slice_inverse(base[:, 1:], base, 1, 1)
        tensor([[0., 1., 2.],
                [3., 4., 5.]])
    """
    d = canonical_dim(dim, src._array.ndim)
    size, stride, offset = _geometry_args(src, src._array.shape, elem_strides(src._array), None)
    return SliceInverse.apply(input, src, size=size, stride=stride, storage_offset=offset,
                              slice_args=(d, start, end, step))


def as_strided_(input, size, stride, storage_offset=None):
    """Give ``input`` itself the geometry of :func:`as_strided` (in place)."""
    from .shape import restride_

    return restride_(input, as_strided, size, stride, storage_offset)


def _check_src_shape(src, want):
    if tuple(src._array.shape) != tuple(want):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{fmt_shape(src._array.shape)}, slice size = {fmt_shape(want)}")


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride,
    storage_offset)`` would look (positions outside ``input``'s own elements are dropped)."""
    size, stride, offset = _geometry_args(input, size, stride, storage_offset)
    _check_src_shape(src, size)
    arr = input._array
    xp = backend.xp_of(arr)
    _check_geometry(size, stride, offset, _storage_size(arr), arr.itemsize)
    p_in = _positions(xp, arr.shape, elem_strides(arr), _array_offset(arr))
    p_out = _positions(xp, size, stride, offset)
    n = max(_last_position(arr.shape, elem_strides(arr), _array_offset(arr)),
            _last_position(size, stride, offset)) + 1
    buf = input.new_zeros((n,)).index_put((_make(p_in),), input.reshape(-1))
    buf = buf.index_put((_make(p_out),), src.to(input.dtype).reshape(-1))
    out = buf[_make(p_in)].reshape(arr.shape)
    return rename_node(out, "AsStridedScatterBackward0")


class EmbedView(Op):
    """y = x with one view of it (a selected slice, a slice range, a diagonal) set to src;
    dx = grad with that view zeroed, dsrc = grad's view."""

    def forward(self, x, src):
        out = x.copy()
        target = self.view(self.xp, out)
        target[...] = src
        return out

    def backward(self, grad):
        nx, ns = self.needs_input_grad
        gx = gs = None
        if nx:
            gx = EmbedView.apply(grad, grad.new_zeros(self.src_shape), view=self.view,
                                 read=self.read, src_shape=self.src_shape,
                                 node_name=self.node_name)
        if ns:
            gs = self.read(grad)
        return gx, gs


def _embed(input, src, view, read, name):
    want = tuple(read(_make(backend.xp_of(input._array).empty(input._array.shape,
                                                                  dtype=np.int8))).shape)
    _check_src_shape(src, want)
    if src.dtype is not input.dtype:
        src = src.to(input.dtype)
    return EmbedView.apply(input, src, view=view, read=read, src_shape=want, node_name=name)


def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written into the slice ``index`` of ``dim``."""
    nd = input._array.ndim
    d = canonical_dim(dim, nd)
    n = input._array.shape[d] if nd else 1
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{fmt_shape(input._array.shape)} at dimension {dim}")
    i = index + n if index < 0 else index
    key = (slice(None),) * d + (i,)
    return _embed(input, src, lambda xp, a: a[key], lambda g: g.select(d, i),
                  "SelectScatterBackward0")


def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    """A copy of ``input`` with ``src`` written into ``[start:end:step]`` along ``dim``."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = canonical_dim(dim, input._array.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    r = _embed(input, src, lambda xp, a: a[key], lambda g: g[key], "SliceScatterBackward0")
    if out is None:
        return r
    from ._pointwise import _out
    from .gather import OUT_DTYPE

    return _out(r, out, exact=OUT_DTYPE)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written on its ``offset`` diagonal over ``dim1`` and
    ``dim2`` (the diagonal runs along the last dim of ``src``)."""
    from .structure import _diag_view

    nd = input._array.ndim
    d1, d2 = canonical_dim(dim1, nd), canonical_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _embed(input, src, lambda xp, a: _diag_view(xp, a, offset, d1, d2),
                  lambda g: g.diagonal(offset, d1, d2), "DiagonalScatterBackward0")


def _is_tensor(x):
    return isinstance(x, Tensor)
