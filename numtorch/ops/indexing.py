"""Indexing: ``x[idx]``, ``x[idx] = v``, gather/scatter, index_select, masks, nonzero.

Basic indices (ints, slices, None, ...) give views; integer-tensor and boolean-mask indices give
copies, with NumPy's (= torch's) rules for where advanced dims land in the result.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from ..autograd.grad_mode import _state
from ..backend import helpers_for, to_device
from ._util import canonical_dim

__all__ = ["getitem", "setitem", "index_put", "gather", "scatter", "scatter_add",
           "index_select", "masked_fill", "masked_select", "nonzero", "take_along_dim",
           "argwhere", "copy_value", "full_like_value"]


def _index_error(e, shape):
    msg = str(e).replace("axis", "dimension")
    return IndexError(msg)


def convert_index(index, x):
    """Turn a user index into a tuple NumPy understands; report whether it is advanced."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    advanced = False
    xp = np if type(x._array) is np.ndarray else None
    for i in index:
        if isinstance(i, Tensor):
            if i._array.ndim == 0 and i.dtype._category == _dtype._INT:
                out.append(int(i.item()))
                continue
            if i.dtype._category not in (_dtype._INT, _dtype._BOOL):
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
            a = i._array
            if a.dtype == np.uint8:
                a = a.astype(bool)
            out.append(a if xp is np else to_device(a, x.device))
            advanced = True
        elif isinstance(i, (list, np.ndarray)) and not isinstance(i, str):
            a = np.asarray(i)
            if a.dtype == object or (a.size and a.dtype.kind not in "iub"):
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long "
                                 "or byte or bool tensors are valid indices (got "
                                 f"{type(i).__name__})")
            if a.size == 0:
                a = a.astype(np.int64)
            out.append(a)
            advanced = True
        elif i is None or i is Ellipsis or isinstance(i, (bool, np.bool_)):
            if isinstance(i, (bool, np.bool_)):
                advanced = True
            out.append(i)
        elif isinstance(i, slice):
            if i.step is not None and int(i.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(slice(*(None if v is None else int(v) for v in (i.start, i.stop,
                                                                       i.step))))
        elif isinstance(i, (int, np.integer)):
            out.append(int(i))
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                             "byte or bool tensors are valid indices (got "
                             f"{type(i).__name__})")
    if not advanced and Ellipsis not in out:
        out.append(Ellipsis)  # makes NumPy return 0-d views instead of scalars
    return tuple(out), advanced


class GetItem(Op):
    """y = x[basic index] (a view); dx = zeros with grad written into the indexed region."""

    is_view = True

    def forward(self, x):
        self.in_shape = x.shape
        try:
            return x[self.index]
        except IndexError as e:
            raise _index_error(e, x.shape) from None

    def backward(self, grad):
        return SliceScatter.apply(grad, index=self.index, in_shape=self.in_shape)


class SliceScatter(Op):
    """y = zeros(in_shape) with y[index] = g; dg = gg[index]."""

    def forward(self, g):
        out = self.xp.zeros(self.in_shape, dtype=g.dtype)
        out[self.index] = g
        return out

    def backward(self, gg):
        return GetItem.apply(gg, index=self.index)


class AdvGetItem(Op):
    """y = x[advanced index] (a copy); dx accumulates grad at the indexed positions."""

    def forward(self, x):
        self.in_shape = x.shape
        try:
            return x[self.index]
        except IndexError as e:
            raise _index_error(e, x.shape) from None

    def backward(self, grad):
        return IndexAccumulate.apply(grad, index=self.index, in_shape=self.in_shape)


class IndexAccumulate(Op):
    """y = zeros(in_shape); y[index] += g (repeated indices add up); dg = gg[index]."""

    def forward(self, g):
        xp = self.xp
        idx = self.index
        first = idx[0] if idx else None
        if (len(idx) <= 2 and isinstance(first, xp.ndarray) and first.dtype != np.bool_
                and (len(idx) == 1 or idx[1] is Ellipsis)):
            # x[int_tensor] on dim 0: sort-and-reduce beats the general scatter by far
            n = self.in_shape[0]
            rows = xp.where(first < 0, first + n, first).reshape(-1)
            vals = g.reshape((rows.shape[0],) + tuple(self.in_shape[1:]))
            return helpers_for(xp).index_add_rows(n, rows, vals)
        out = xp.zeros(self.in_shape, dtype=g.dtype)
        if all(not isinstance(i, xp.ndarray) or i.dtype == np.bool_ for i in idx):
            out[idx] = g  # masks and basic parts never repeat a position
        else:
            helpers_for(xp).scatter_add(out, idx, g)
        return out

    def backward(self, gg):
        return AdvGetItem.apply(gg, index=self.index)


class IndexPut(Op):
    """y = x with y[index] = v (or += v); dx = grad outside the index (all of it if
    accumulating), dv = grad[index]."""

    advanced = True

    def forward(self, x, v):
        out = x.copy()
        v = v.astype(x.dtype, copy=False) if hasattr(v, "astype") else v
        if self.accumulate:
            helpers_for(self.xp).scatter_add(out, self.index, self.xp.broadcast_to(
                v, out[self.index].shape))
        else:
            try:
                out[self.index] = v
            except IndexError as e:
                raise _index_error(e, x.shape) from None
            except ValueError as e:
                raise RuntimeError(f"shape mismatch: value tensor of shape "
                                   f"{list(np.shape(v))} cannot be broadcast to indexing result "
                                   f"of shape {list(out[self.index].shape)}") from e
        return out

    def backward(self, grad):
        na, nv = self.needs_input_grad
        ga = gv = None
        if na:
            ga = grad if self.accumulate else IndexPut.apply(grad, 0.0, index=self.index,
                                                             accumulate=False)
        if nv:
            gv = AdvGetItem.apply(grad, index=self.index) if self.advanced else \
                GetItem.apply(grad, index=self.index)
        return ga, gv


class Gather(Op):
    """y[..i..] = x[.. index[..i..] ..] along ``dim``; dx scatters grad back (adding)."""

    def forward(self, x, index):
        self.in_shape = x.shape
        self.save(index=index)
        d = self.dim
        if index.ndim != x.ndim and not (index.ndim <= 1 and x.ndim <= 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as input "
                               "tensor")
        if x.ndim == 0:
            return x.reshape(index.shape).copy() if index.size else x.reshape(index.shape)
        src = x[tuple(slice(0, s) if k != d else slice(None) for k, s in enumerate(index.shape))]
        if index.size and (index.max() >= x.shape[d] or index.min() < -x.shape[d]):
            raise RuntimeError(f"index {int(index.max())} is out of bounds for dimension {d} "
                               f"with size {x.shape[d]}")
        return self.xp.take_along_axis(src, index, axis=d)

    def backward(self, grad):
        idx = _make(self.saved("index"))
        return scatter_into_zeros(self.in_shape, self.dim, idx, grad), None


class GatherBackward(Op):
    """y = zeros(shape) with grad added at ``index`` along ``dim``; dg = gather(gg)."""

    def forward(self, g, index):
        xp, d = self.xp, self.dim
        self.save(index=index)
        out = xp.zeros(self.shape, dtype=g.dtype)
        if not self.shape:
            return g.reshape(()).copy()
        if index.shape[d] == 1 and index.shape == g.shape and all(
                index.shape[k] == self.shape[k] for k in range(len(self.shape)) if k != d):
            xp.put_along_axis(out, index, g, axis=d)  # one entry per line: no collisions
            return out
        full = _along_dim_index(xp, index, d)
        helpers_for(xp).scatter_add(out, full, g)
        return out

    def backward(self, gg):
        return Gather.apply(gg, _make(self.saved("index")), dim=self.dim), None


def _along_dim_index(xp, index, d):
    """Full NumPy index tuple addressing ``out[..., index, ...]`` position by position."""
    grids = list(xp.indices(index.shape, sparse=True))
    grids[d] = index
    return tuple(grids)


def scatter_into_zeros(shape, dim, index, grad):
    """zeros(shape) with ``grad`` added at ``index`` along ``dim`` (differentiable in grad)."""
    return GatherBackward.apply(grad, index, shape=tuple(shape), dim=dim)


class Scatter(Op):
    """y = x with y[.. index ..] = src along ``dim``; dx = grad outside the written positions,
    dsrc = gather(grad)."""

    def forward(self, x, index, src):
        xp, d = self.xp, self.dim
        self.save(index=index)
        out = x.copy()
        if index.size == 0:
            return out
        if index.max() >= x.shape[d] or index.min() < -x.shape[d]:
            raise RuntimeError(f"index {int(index.max())} is out of bounds for dimension {d} "
                               f"with size {x.shape[d]}")
        full = _along_dim_index(xp, index, d)
        if not hasattr(src, "shape") or src.ndim == 0:
            vals = xp.broadcast_to(xp.asarray(src, dtype=x.dtype), index.shape)
        else:
            vals = src[tuple(slice(0, s) for s in index.shape)].astype(x.dtype, copy=False)
        if self.reduce == "add":
            helpers_for(xp).scatter_add(out, full, vals)
        elif self.reduce == "multiply":
            xp.multiply.at(out, full, vals)
        else:
            out[full] = vals
        return out

    def backward(self, grad):
        idx = _make(self.saved("index"))
        na, _, ns = self.needs_input_grad
        ga = gs = None
        if na:
            ga = grad if self.reduce == "add" else grad.scatter(self.dim, idx, 0.0)
        if ns:
            gs = grad.gather(self.dim, idx)
        return ga, None, gs


# ---------------------------------------------------------------------------------------------
# public functions


def getitem(input, index):
    """``input[index]``: views for basic indices, copies for tensor/list/mask indices."""
    idx, advanced = convert_index(index, input)
    if advanced:
        return AdvGetItem.apply(input, index=idx)
    return GetItem.apply(input, index=idx)


def setitem(input, index, value):
    """``input[index] = value`` in place, recording the write for autograd when needed."""
    from ..autograd.inplace import apply_inplace

    idx, advanced = convert_index(index, input)
    v_req = isinstance(value, Tensor) and value.requires_grad
    if not (_state.enabled and (input.requires_grad or v_req)):
        dst = input._array
        if not dst.flags.writeable:
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")
        v = value._array if isinstance(value, Tensor) else value
        try:
            dst[idx] = v
        except IndexError as e:
            raise _index_error(e, dst.shape) from None
        except ValueError as e:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(np.shape(v))} "
                               f"cannot be broadcast to indexing result of shape "
                               f"{list(dst[idx].shape)}") from e
        input._vc[0] += 1
        return
    if not advanced:
        view = GetItem.apply(input, index=idx)
        apply_inplace(view, copy_value, value)
    else:
        apply_inplace(input, _index_put_converted, idx, value, False)


def _index_put_converted(input, idx, value, accumulate):
    if isinstance(value, Tensor):
        value = value.to(input.dtype)
    else:
        value = input.dtype.np.type(value)
    return IndexPut.apply(input, value, index=idx, accumulate=accumulate, advanced=True)


def index_put(input, indices, values, accumulate=False):
    """Return a copy of ``input`` with ``values`` put at ``indices`` (a tuple of tensors)."""
    idx, _ = convert_index(tuple(indices), input)
    return _index_put_converted(input, idx, values, accumulate)


def copy_value(self, src):
    """The value ``self.copy_(src)`` writes: ``src`` broadcast to self's shape and dtype."""
    if not isinstance(src, Tensor):
        return _make(np.full(self._array.shape, src, dtype=self._array.dtype))
    src = src.to(self.dtype, self.device)
    if src._array.shape != self._array.shape:
        src = src.expand(self._array.shape)
    return src


def full_like_value(self, value):
    """The value ``self.fill_(value)`` writes (``value`` a number or a 0-d tensor)."""
    if isinstance(value, Tensor):
        if value._array.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._array.ndim} dimensions.")
        return value.to(self.dtype).expand(self._array.shape)
    xp = np if type(self._array) is np.ndarray else __import__("numtorch").backend.xp_of(
        self._array)
    return _make(xp.full(self._array.shape, value, dtype=self._array.dtype))


def gather(input, dim, index, *, sparse_grad=False):
    """Collect values along ``dim`` at the positions in ``index`` (int64)."""
    _check_index_tensor("gather", index)
    d = canonical_dim(dim, input._array.ndim)
    return Gather.apply(input, index, dim=d)


def take_along_dim(input, indices, dim=None):
    """Like NumPy's take_along_axis (``dim`` None flattens ``input`` first)."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    return gather(input, dim, indices.expand(*[
        i if k != canonical_dim(dim, input.dim()) else -1
        for k, i in enumerate(input.shape)]) if indices.dim() == input.dim() else indices)


def _check_index_tensor(fn, index):
    if not isinstance(index, Tensor) or index.dtype is not _dtype.int64:
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index, but got {got}")


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """Return a copy of ``input`` with ``src`` (or ``value``) written at ``index`` along
    ``dim``; ``reduce`` may be 'add' or 'multiply'."""
    _check_index_tensor("scatter", index)
    if src is None and value is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    if src is None:
        src = value
    d = canonical_dim(dim, input._array.ndim)
    if isinstance(src, Tensor):
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    else:
        src = input.dtype.np.type(src)
    return Scatter.apply(input, index, src, dim=d, reduce=reduce)


def scatter_add(input, dim, index, src):
    """Return a copy of ``input`` with ``src`` added at ``index`` along ``dim``."""
    return scatter(input, dim, index, src, reduce="add")


def index_select(input, dim, index):
    """Select entries along ``dim`` at the 1-D (or 0-D) ``index`` (a copy)."""
    if not isinstance(index, Tensor) or index.dtype._category != _dtype._INT:
        raise RuntimeError("index_select(): Expected dtype int32/int64 for index")
    if index._array.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = canonical_dim(dim, input._array.ndim)
    idx = index._array.reshape(-1)
    if idx.size and (idx.max() >= input._array.shape[d] or idx.min() < -input._array.shape[d]):
        raise IndexError("index out of range in self")
    if input._array.ndim == 0:
        return input.reshape(-1)[_make(idx)].reshape(())
    return AdvGetItem.apply(input, index=(slice(None),) * d + (idx, Ellipsis))


def masked_fill(input, mask, value):
    """Return ``input`` with ``value`` where the bool ``mask`` (broadcast) is True."""
    from .elementwise import where

    if not isinstance(mask, Tensor) or mask.dtype is not _dtype.bool:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{str(got).replace('torch.', '')}")
    if isinstance(value, Tensor):
        if value._array.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value._array.ndim} dimension(s).")
        value = value.to(input.dtype)
    else:
        value = input.dtype.np.type(value)
    out = where(mask, value, input)
    if out._array.shape != input._array.shape:
        raise RuntimeError(f"masked_fill: the mask of shape {list(mask.shape)} cannot be "
                           f"broadcast to the input of shape {list(input.shape)}")
    return out


def masked_select(input, mask):
    """Return the 1-D tensor of elements where the bool ``mask`` (broadcast) is True."""
    if mask.dtype is not _dtype.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = np.broadcast_shapes(input._array.shape, mask._array.shape)
    x = input.expand(shape) if input._array.shape != shape else input
    m = mask._array if mask._array.shape == shape else np.broadcast_to(mask._array, shape)
    return AdvGetItem.apply(x, index=(m,))


def nonzero(input, *, as_tuple=False):
    """Indices of nonzero elements: an (n, ndim) int64 tensor, or a tuple of 1-D tensors."""
    a = input._array
    xp = np if type(a) is np.ndarray else __import__("numtorch").backend.xp_of(a)
    idx = xp.nonzero(a) if a.ndim else xp.nonzero(a.reshape(1))
    if as_tuple:
        return tuple(_make(i.astype(np.int64)) for i in idx)
    if a.ndim == 0:
        return _make(xp.zeros((int(bool(a)), 0), dtype=np.int64))
    return _make(xp.stack(idx, axis=1).astype(np.int64) if idx else
                 xp.zeros((0, 0), dtype=np.int64))


def argwhere(input):
    """Same as ``nonzero(input)``."""
    return nonzero(input)
