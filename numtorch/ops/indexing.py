"""Indexing: ``x[idx]``, ``x[idx] = v``, index_put, index_select, masks, nonzero.

Basic indices (ints, slices, None, ...) give views; integer-tensor and boolean-mask indices give
copies. Where the advanced dims land follows torch, which differs from NumPy for indices that
mix ints with tensors (see :func:`split_mixed_index`). gather/scatter live in gather.py.
"""

import operator
import re
import warnings

import numpy as np

from .. import _dtype
from .._creation import number_as
from .._sparse import is_sparse
from .._required_dim import check_missing_call, missing_arg
from .._tensor import Tensor, _make
from ..autograd import graph as _graph
from ..autograd._device_errors import check_same_device
from ..autograd.graph import Op, _track_view, rename_node
from ..autograd.inplace import apply_inplace
from ..autograd.grad_mode import _state
from ..backend import helpers_for, is_writeable, to_device, xp_of
from ._pointwise import _out
from ._util import canonical_dim, restride, row_major_result
from ._adv_index_layout import adv_index_result
from .empty_views import basic_index_offset, empty_view_at
from .cast import copy_shape_error, real_part_for, warn_complex_cast
from ._index_args import (
    _BAD_INDEX, _FITS, _I64, _list_as_tuple, _sequence_to_index_array, _setitem_number,
    _type_name,
)
from .inplace_writes import (OVERLAP, check_partial_overlap, write_indexed, writeable_alias,
                             zero_stride_overlap)
from .gather import (  # noqa: F401  (re-exported; reduction uses scatter_into_zeros)
    gather, scatter, scatter_add, scatter_into_zeros, take_along_dim,
)
from .comparison import where

__all__ = ["getitem", "setitem", "index_put", "gather", "scatter", "scatter_add",
           "index_select", "masked_fill", "masked_select", "nonzero", "take_along_dim",
           "argwhere", "copy_value", "full_like_value", "zero_value"]


def _basic_index_error(e, ndim, index):
    """:func:`_index_error` for a basic index (ints, slices, None, ...): an int out of range
    names its place in the index as torch does (``x[None, 5]``: dimension 1), where NumPy
    names the input axis. Error path only."""
    m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)$", str(e))
    if m and isinstance(index, tuple):
        axis, pos = int(m.group(2)), 0
        taking = sum(1 for i in index if i is not None and i is not Ellipsis)
        for place, i in enumerate(index):
            width = 0 if i is None else (ndim - taking if i is Ellipsis else 1)
            if i is not Ellipsis and width and pos == axis:
                return IndexError(f"index {m.group(1)} is out of bounds for dimension {place} "
                                  f"with size {m.group(3)}")
            pos += width
    return _index_error(e, None)


def _index_error(e, shape, index=None):
    """NumPy's IndexError in torch's words. With the advanced ``index``, an entry out of range
    names its dimension as torch does: the place of its index tensor among the tensors (a
    mask counting one per dim), not the input dim NumPy names."""
    msg = str(e)
    m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)$", msg)
    if m and index is not None:
        axis, pos, nth = int(m.group(2)), 0, 0
        for i in index:
            if _is_array(i):
                width = i.ndim if i.dtype == np.bool_ else 1
                if pos <= axis < pos + width:
                    return IndexError(f"index {m.group(1)} is out of bounds for dimension "
                                      f"{nth + axis - pos} with size {m.group(3)}")
                pos, nth = pos + width, nth + width
            elif i is not None and not isinstance(i, (bool, np.bool_)):
                pos += 1
    m = re.match(r"shape mismatch: indexing arrays could not be broadcast together with shapes "
                 r"(.*)$", msg)
    if m:
        shapes = re.findall(r"\(([^)]*)\)", m.group(1))
        shapes = ["[" + ", ".join(d for d in sh.split(",") if d.strip()) + "]" for sh in shapes]
        return IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                          "shapes " + ", ".join(shapes))
    m = re.match(r"too many indices for array: array is (\d+)-dimensional", msg)
    if m:
        return IndexError(f"too many indices for tensor of dimension {m.group(1)}")
    if msg.startswith("Index ") and " is out of bounds for axis " in msg:
        msg = "i" + msg[1:]  # CuPy's wording of NumPy's message
    return IndexError(msg.replace("axis", "dimension"))


def _check_device_index(items, shape):
    """Torch's errors for index arrays on the GPU, where CuPy wraps out-of-range entries
    instead of raising and reports arrays that do not broadcast with its own ValueError.

    Reading whether an entry is out of range is a host sync per index array (torch's CUDA
    kernels check on the device too; its CPU path, the oracle, raises at once).
    """
    arrays = [i for i in items if _is_array(i)]
    if len(arrays) > 1:
        shapes = [(int(i.sum()),) if i.dtype == np.bool_ else i.shape for i in arrays]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             "with shapes " + ", ".join(str(list(sh)) for sh in shapes)) from None
    pos = 0
    for i in items:
        if _is_array(i) and i.dtype != np.bool_:
            n = shape[pos]
            if i.size:
                bad = (i >= n) | (i < -n)
                if bad.any():
                    raise IndexError(f"index {int(i[bad].ravel()[0])} is out of bounds for "
                                     f"dimension {pos} with size {n}")
            pos += 1
        elif _is_array(i):
            pos += i.ndim
        elif i is not None and not isinstance(i, (bool, np.bool_)):
            pos += 1


_PLAIN_BOUNDS = (int, type(None))
# torch indexes with long, int, byte (a mask) and bool tensors, no other dtype
_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.bool_))


def _is_array(i):
    return hasattr(i, "dtype") and hasattr(i, "ndim")


def _slice_bound(v):
    """A slice bound as an int (or None): integers and what has ``__index__`` (integer or
    bool tensors), as torch; a float is refused, never truncated."""
    if v is None or type(v) is int:
        return v
    if type(v) is Tensor and type(v._array) is np.ndarray and v._array.ndim == 0 and \
            v._array.dtype.kind in "iu":
        return int(v._array)  # x[i:i + n] in a get_batch loop: no __index__ checks needed
    if isinstance(v, Tensor):
        return v.__index__()  # torch's own message for float tensors
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ "
                        "method") from None


def convert_index(index, x):
    """Turn a user index into a tuple NumPy understands; report whether it is advanced.

    Checks what NumPy would report differently from torch (too many indices, mask shapes)
    before NumPy sees the index.
    """
    shape = x._array.shape
    kind = type(index)
    if shape and (kind is int or kind is slice and index.step is None and
                  type(index.start) in _PLAIN_BOUNDS and type(index.stop) in _PLAIN_BOUNDS):
        return (index, Ellipsis), False  # the common x[i] and x[a:b]
    if shape and kind is slice and index.step is None:  # x[i:i + n], tensor or odd bounds
        return (slice(_slice_bound(index.start), _slice_bound(index.stop)), Ellipsis), False
    if kind is tuple and shape:
        plain = _plain_basic(index)  # x[:, i, :], x[..., :k], x[None, :, 0]
        if plain is not None:
            return plain, False
    if not isinstance(index, tuple):
        if not shape and isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        index = (index,)
    elif sum(1 for i in index if i is Ellipsis) > 1:
        index = _spell_out_ellipses(index, len(shape))
    out = []
    advanced = False
    xp = np if type(x._array) is np.ndarray else None
    for i in index:
        if isinstance(i, Tensor):
            a = i._array
            if a.ndim == 0 and i.dtype._category == _dtype._INT and a.dtype != np.uint8:
                out.append(int(i.item()))
                continue
            if a.dtype not in _INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
            if a.dtype == np.uint8 and a.ndim:  # (a 0-d byte tensor is a mask too, silently)
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use "
                              "a dtype torch.bool instead.", UserWarning, stacklevel=4)
            if a.dtype == np.uint8:
                a = a.astype(bool)
            out.append(a if xp is np else to_device(a, x.device))
            advanced = True
        elif isinstance(i, (list, np.ndarray, range, tuple)):
            a = _sequence_to_index_array(i)
            out.append(a if xp is np else to_device(a, x.device))
            advanced = True
        elif i is None or i is Ellipsis or isinstance(i, (bool, np.bool_)):
            if isinstance(i, (bool, np.bool_)):
                advanced = True
            out.append(i)
        elif isinstance(i, slice):
            if not shape:
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            i = slice(*(_slice_bound(v) for v in (i.start, i.stop, i.step)))
            if i.step == 0:  # Python's own slice message, as torch's
                raise ValueError("slice step cannot be zero")
            if i.step is not None and i.step < 0:
                raise ValueError("step must be greater than zero")
            out.append(i)
        elif isinstance(i, (int, np.integer)):
            out.append(int(i))
        elif isinstance(i, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(i).__name__}'")
        else:
            raise IndexError(_BAD_INDEX.format(_type_name(i)))
    if not advanced:  # NumPy's own errors are translated by _index_error
        if Ellipsis not in out:
            out.append(Ellipsis)  # makes NumPy return 0-d views instead of scalars
    else:
        used = _check_index_dims(out, shape)
        for k, i in enumerate(out):
            if i is Ellipsis:
                # spelled out: NumPy counts an ellipsis between tensor indices as separating
                # them even when it stands for no dims; torch does not
                out[k:k + 1] = [slice(None)] * (len(shape) - used)
                break
        if xp is not np:
            _check_device_index(out, shape)
    return tuple(out), advanced


def _plain_basic(index):
    """``index`` (a tuple) with an ellipsis appended, as ``convert_index`` would return it,
    when every entry is a Python int, None, one ellipsis at most or a slice of int/None bounds
    and a positive or absent step (nothing to convert or check before NumPy); else None."""
    ellipsis = False
    for i in index:
        t = type(i)
        if t is int or i is None:
            continue
        if t is slice:
            if type(i.start) in _PLAIN_BOUNDS and type(i.stop) in _PLAIN_BOUNDS and \
                    (i.step is None or type(i.step) is int and i.step > 0):
                continue
            return None
        if i is Ellipsis and not ellipsis:
            ellipsis = True
            continue
        return None
    return index if ellipsis else index + (Ellipsis,)


def _spell_out_ellipses(index, ndim):
    """Torch takes several ellipses, each standing for the dims no other entry indexes (so
    only the first can be followed by more indices)."""
    named = 0
    for i in index:
        if isinstance(i, Tensor) and i.dtype in (_dtype.bool, _dtype.uint8):
            named += i.dim()
        elif not (i is None or i is Ellipsis or isinstance(i, (bool, np.bool_))):
            named += 1
    out = []
    for i in index:
        out.extend([slice(None)] * max(ndim - named, 0) if i is Ellipsis else [i])
    while out and type(out[-1]) is slice and out[-1] == slice(None):  # trailing whole-dim slices index nothing
        out.pop()
    return tuple(out)


def _check_index_dims(items, shape):
    """Torch's errors for indices that use more dims than ``shape`` has or masks that do not
    fit the dims they cover; returns the number of dims the index uses."""
    used = 0
    masks = False
    for i in items:
        if _is_array(i):
            if i.dtype == np.bool_:
                used += i.ndim
                masks = True
            else:
                used += 1
        elif i is not None and i is not Ellipsis and not isinstance(i, (bool, np.bool_)):
            used += 1
    if used > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    if not masks:
        return used
    pos = 0
    for i in items:
        if i is Ellipsis:
            pos += len(shape) - used
        elif _is_array(i) and i.dtype == np.bool_:
            for j, n in enumerate(i.shape):
                if n != shape[pos + j]:
                    raise IndexError(f"The shape of the mask {list(i.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {list(shape)} "
                                     f"at index {pos + j}")
            pos += i.ndim
        elif i is not None and not isinstance(i, (bool, np.bool_)):
            pos += 1
    return used


_APPLY = Op.__dict__["apply"]  # the ONNX exporter swaps Op.apply while it traces


class GetItem(Op):
    """y = x[basic index] (a view); dx = zeros with grad written into the indexed region."""

    is_view = True

    def forward(self, x):
        self.in_shape = x.shape
        try:
            y = x[self.index]
        except IndexError as e:
            raise _basic_index_error(e, x.ndim, self.index) from None
        if None in self.index and y.size:
            y = restride(self.xp, y, _none_strides(x, y, self.index))
        elif not y.size and x.ndim:
            off = basic_index_offset(x, self.index)  # NumPy keeps the pointer: torch's offset
            moved = empty_view_at(x, off, y.shape, y.strides) if off else None
            y = y if moved is None else moved
        return y

    def backward(self, grad):
        return SliceScatter.apply(grad, index=self.index, in_shape=self.in_shape)


def _none_strides(x, y, index):
    """Torch's strides (bytes) for ``x[index]`` with None entries (NumPy gives new dims
    stride 0).

    Torch applies the index left to right; None inserts a dim before the next unindexed input
    dim, with that dim's extent (size * stride) as its stride, or 1 at the end.
    """
    xs, ys = x.strides, list(y.strides)
    n_used = sum(1 for i in index if i is not None and i is not Ellipsis)
    pos = out = 0  # next input dim, next output dim
    for item in index:
        if item is None:
            ys[out] = x.shape[pos] * xs[pos] if pos < x.ndim else x.itemsize
            out += 1
        elif item is Ellipsis:
            k = x.ndim - n_used
            pos += k
            out += k
        else:
            pos += 1
            out += isinstance(item, slice)
    return ys


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
            y = x[self.index]
        except IndexError as e:
            raise _index_error(e, x.shape, self.index) from None
        return adv_index_result(x, self.index, y)

    def backward(self, grad):
        # masked_select's gradient is scattered into zeros (a -0.0 stays), indexing's added
        return IndexAccumulate.apply(grad, index=self.index, in_shape=self.in_shape,
                                     scatter=getattr(self, "node_name", None) ==
                                     "MaskedSelectBackward0")


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
            # masks and basic parts never repeat a position; + 0 as torch's sum into zeros
            # makes a -0.0 +0.0
            out[idx] = g if getattr(self, "scatter", False) or g.dtype.kind not in "fc" \
                else g + g.dtype.type(0)
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
        try:
            if self.accumulate:
                helpers_for(self.xp).scatter_add(out, self.index, self.xp.broadcast_to(
                    v, out[self.index].shape))
            else:
                helpers_for(self.xp).write_last_wins(out, self.index, v)
        except IndexError as e:
            raise _index_error(e, x.shape, self.index) from None
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


# ---------------------------------------------------------------------------------------------
# public functions


def split_mixed_index(idx):
    """Split an advanced index holding ints into a basic and an advanced part, applied one
    after the other.

    Torch applies ints, slices and None first and only then the tensor indices, so in
    ``x[0, :, [0, 1]]`` the tensor dims land where the remaining dims are (shape ``(3, 2)``
    for a ``(2, 3, 4)`` x); NumPy counts the int as an advanced index and moves the result
    to the front. Returns ``(None, idx)`` when the two agree.
    """
    if not any(isinstance(i, int) and not isinstance(i, bool) for i in idx):
        return None, idx
    basic, adv = [], []
    for i in idx:  # convert_index has already spelled out any ellipsis
        if _is_array(i):
            k = i.ndim if i.dtype == np.bool_ else 1
            basic.extend([slice(None)] * k)
            adv.append(i)
        elif isinstance(i, (bool, np.bool_)):  # a 0-d mask: advanced, as in torch
            adv.append(np.asarray(i))
        else:
            basic.append(i)
            if not isinstance(i, int) or isinstance(i, bool):  # ints remove their dim
                adv.append(slice(None))
    if Ellipsis not in basic:
        basic.append(Ellipsis)  # keeps 0-d results as views
    return tuple(basic), tuple(adv)


def rows(input):
    """The items of ``iter(input)``: ``unbind(input, 0)``'s views (1-D or more).

    Outside any graph each row is the basic-index view ``input[i]`` marked as an output of
    unbind, made straight rather than through select's argument checks: iterating a tensor of
    returns or rewards is a per-element loop in many training scripts. In a graph, unbind's
    one node.
    """
    a = input._array
    root = input._base if input._base is not None else input
    if input._grad_fn is None and not input._requires_grad and root._grad_fn is None and \
            not root._requires_grad and input._extra is None and type(a) is np.ndarray and \
            _graph._hook is None and Op.__dict__["apply"] is _APPLY:
        return _plain_rows(input, a)
    from .multi_view import unbind_pieces

    return list(unbind_pieces(input, 0))  # one UnbindBackward0 for all rows, as torch's


def _plain_rows(input, a):
    """rows() of a CPU tensor outside any graph: the views unbind would make (the same view
    tracking, by autograd's own function), without its node and apply's dispatch."""
    from .multi_view import _Piece, stamp_multi_view

    n = a.shape[0]
    if not n:
        return []
    r = _make(a[0, ...])
    _track_view(_Piece, input, r, {"index": (0, Ellipsis)})
    stamp_multi_view(r)
    out = [r]
    # every other row gets the same base, counter and view source; only its index differs
    base, vc, src, view_fn = r._base, r._vc, r._view_src, r._view_fn
    parent = None if view_fn is None else view_fn[2]
    for i in range(1, n):
        r = _make(a[i, ...])
        r._base = base
        r._vc = vc
        r._view_fn = None if view_fn is None else (_Piece, {"index": (i, Ellipsis)}, parent)
        r._view_src = src
        out.append(r)
    return out


def getitem(input, index):
    """``input[index]``: views for basic indices, copies for tensor/list/mask indices."""
    if index.__class__ is slice and index.step is None and type(input) is Tensor and \
            input._extra is None:
        out = _plain_slice(input, index)
        if out is not None:
            return out
    if type(index) is list or type(index) is str:
        index = _list_as_tuple(index)
    idx, advanced = convert_index(index, input)
    if advanced:
        basic, idx = split_mixed_index(idx)
        if basic is not None:
            input = GetItem.apply(input, index=basic)
        return AdvGetItem.apply(input, index=idx)
    return GetItem.apply(input, index=idx)


def _plain_slice(input, index):
    """``input[a:b]`` of a CPU tensor outside any graph (``data[i:i + block_size]`` in a
    get_batch loop): the view GetItem's apply makes, tracked the same way, without its node
    and dispatch; None where that path has more to do (a graph, an empty result)."""
    a = input._array
    if type(a) is not np.ndarray or not a.ndim or _graph._hook is not None or \
            Op.__dict__["apply"] is not _APPLY:
        return None
    if input._base is None:
        if input._requires_grad and _state.enabled:
            return None
    elif not _graph._edgeless_view(input):
        return None
    start, stop = index.start, index.stop
    if start is not None and type(start) is not int:
        start = _slice_bound(start)
    if stop is not None and type(stop) is not int:
        stop = _slice_bound(stop)
    idx = (slice(start, stop), Ellipsis)
    y = a[idx]
    if not y.size:
        return None  # an empty view's storage offset: GetItem's forward
    out = _make(y)
    _track_view(GetItem, input, out, {"index": idx, "in_shape": a.shape})
    return out


def setitem(input, index, value):
    """``input[index] = value`` in place, recording the write for autograd when needed."""
    if not isinstance(value, Tensor):
        tv = type(value)
        lim = _FITS.get(input._array.dtype) if tv is float or tv is int else None
        if lim is None or not (lim[0] <= value <= lim[1] and (
                tv is float and lim[2] or tv is int and _I64[0] <= value <= _I64[1])):
            value = _setitem_number(input, value)  # (a fitting number goes in as it is)
    if type(index) is list or type(index) is str:
        index = _list_as_tuple(index)
    _refuse_byte_mask_fill(input, index, value)
    idx, advanced = convert_index(index, input)
    if advanced:
        _check_put_dtype(input, idx, value, True)
        basic, idx = split_mixed_index(idx)
        if basic is not None:  # write through the basic view (see split_mixed_index)
            input = GetItem.apply(input, index=basic)
    if isinstance(value, Tensor) and value.dtype._category == _dtype._COMPLEX and \
            input.dtype._category != _dtype._COMPLEX:
        value = _complex_into_real(input, value, advanced)
    if isinstance(value, Tensor) and value.dtype is not input.dtype and \
            input.dtype in _dtype._FLOAT8:
        value = value.to(input.dtype)  # torch's float8 conversion (saturation, NaN bits)
    v_req = isinstance(value, Tensor) and value.requires_grad
    if not (_state.enabled and (input.requires_grad or v_req)):
        dst = input._array
        if not (dst.flags.writeable if type(dst) is np.ndarray else is_writeable(dst)):
            # expanded (read-only) memory: torch writes through tensor indices (with a
            # warning) and through a basic index whose target does not repeat elements
            if advanced:
                _check_put_shape(dst, idx, value)
                write_indexed(writeable_alias(dst), idx, value)
                input._vc[0] += 1
                return
            if zero_stride_overlap(_basic_target(dst, idx)):
                raise RuntimeError(OVERLAP)
            dst = writeable_alias(dst)
        v = value._array if isinstance(value, Tensor) else value
        try:
            if advanced:
                helpers_for(xp_of(dst)).write_last_wins(dst, idx, v)
            else:
                if v.__class__ is np.ndarray and (v.base is not None or dst.base is not None) \
                        and np.may_share_memory(dst, v):  # (two owners never share memory)
                    _check_setitem_overlap(dst[idx], v)
                dst[idx] = v
        except IndexError as e:
            if advanced:
                raise _index_error(e, dst.shape, idx) from None
            raise _basic_index_error(e, dst.ndim, idx) from None
        except ValueError as e:
            target = dst[idx].shape
            if not advanced and isinstance(value, Tensor):
                from .shape import expand

                while value.dim() and value.shape[0] == 1:  # torch drops leading ones first
                    value = value[0]
                expand(value, target)  # raises torch's copy_ error for the shapes
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(np.shape(v))} "
                               f"cannot be broadcast to indexing result of shape "
                               f"{list(target)}") from e
        input._vc[0] += 1
        return
    if not advanced:
        view = GetItem.apply(input, index=idx)
        apply_inplace(view, copy_value, value)
    else:
        apply_inplace(input, _index_put_converted, idx, value, False)


def _complex_into_real(input, value, advanced):
    """A complex value written into a real tensor: through a mask (torch's masked_fill of
    one number) only a number without imaginary part fits; elsewhere the imaginary part is
    dropped with torch's once-a-process warning. Into a bool tensor a complex value is true
    when either part is nonzero (no warning)."""
    if input.dtype._category == _dtype._BOOL:
        return value != 0
    if advanced:
        if bool((value._array.imag != 0).any()):
            from .._creation import _C_TYPE

            raise RuntimeError(f"value cannot be converted to type "
                               f"{_C_TYPE.get(input.dtype.name, input.dtype.name)} without "
                               f"overflow")
    else:
        warn_complex_cast(4)  # (from Tensor.__setitem__: the user's line)
    return value.real


def _check_setitem_overlap(target, v):
    """Torch expands the value to the target's shape before it checks the two for overlap (an
    expanded value repeats elements, so only an unexpanded one can overlap partially)."""
    if v.shape != target.shape:
        try:
            v = np.broadcast_to(v, target.shape)
        except ValueError:
            return  # the write raises torch's shape error
    check_partial_overlap(target, v)


def _refuse_byte_mask_fill(input, index, value):
    """Torch writes a one-element value through a lone mask tensor with masked_fill_, which
    takes no uint8 mask (reading one, or writing through it with other indices, works)."""
    items = index if type(index) is tuple else (index,)
    tensors = [i for i in items if isinstance(i, (Tensor, list, np.ndarray, range))]
    if not (len(tensors) == 1 and isinstance(tensors[0], Tensor) and
            tensors[0].dtype is _dtype.uint8 and tensors[0].dim() and
            (not isinstance(value, Tensor) or value._array.size == 1)):
        return
    mask, shape = tensors[0], input.shape
    spelled = _spell_out_ellipses(items, len(shape)) if any(i is Ellipsis for i in items) \
        else items
    pos = 0
    for i in spelled:
        if i is mask:
            break
        if i is not None and not isinstance(i, (bool, np.bool_)):
            pos += 1
    for j, n in enumerate(mask.shape):  # torch checks the mask's shape first
        if pos + j < len(shape) and n != shape[pos + j]:
            raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not "
                             f"match the shape of the indexed tensor {list(shape)} at index "
                             f"{pos + j}")
    raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                       "unsigned char")


def _basic_target(dst, idx):
    try:
        return dst[idx]
    except IndexError as e:
        raise _index_error(e, dst.shape) from None


def _check_put_shape(dst, idx, value):
    target = _basic_target(dst, idx).shape
    shape = value._array.shape if isinstance(value, Tensor) else ()
    try:
        np.broadcast_shapes(shape, target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}") from None


def _check_put_dtype(input, idx, value, fill_ok):
    """Torch writes through tensor indices only from a value of the same dtype; a write (not
    accumulating) through one boolean mask with a one-element value is a masked fill, which
    casts."""
    if not isinstance(value, Tensor) or value.dtype is input.dtype:
        return
    arrays = [i for i in idx if _is_array(i)]
    if not arrays:
        return
    if fill_ok and len(arrays) == 1 and arrays[0].dtype == np.bool_ and \
            value._array.size == 1:
        return
    raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                       f"{input.dtype._legacy[:-6]} for the destination and "
                       f"{value.dtype._legacy[:-6]} for the source.")


def _index_put_converted(input, idx, value, accumulate):
    if isinstance(value, Tensor):
        value = value.to(input.dtype)
    else:
        value = number_as(value, input.dtype)
    return IndexPut.apply(input, value, index=idx, accumulate=accumulate, advanced=True)


def index_put(input, indices, values, accumulate=False):
    """Return a copy of ``input`` with ``values`` put at ``indices`` (a tuple of tensors)."""
    _check_put_indices(indices, input._array.ndim)
    idx, _ = convert_index(tuple(indices), input)
    if input.is_quantized:  # float values quantized onto input's grid
        if isinstance(values, Tensor) and values.is_quantized:
            raise RuntimeError("Value argument for quantized input_put should not be "
                               "quantized")
        if accumulate:
            raise RuntimeError("index_put for quantized tensors is currently only supported "
                               "for accumulate=False")
        if input._array.quantizer.per_channel:
            raise RuntimeError("index_put for quantized tensors is currently only supported "
                               "for per tensor quantized tensors")
        out = input.clone()
        out._array[idx] = values.detach()._array if isinstance(values, Tensor) else values
        return out
    _check_put_dtype(input, idx, values, not accumulate)
    return _index_put_converted(input, idx, values, accumulate)


def check_put_sequence(indices, fn="index_put", pos=2):
    """torch's error for ``indices`` that are not a tuple or list (``pos``: 1 for the
    Tensor methods, 2 for the torch functions)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'indices' (position {pos}) must be tuple of "
                        f"Tensors, not {type(indices).__name__}")


def _check_put_indices(indices, nd):
    """index_put takes a tuple or list of tensors only (no ints, slices or None), and words
    too many of them differently from ``x[...]``."""
    check_put_sequence(indices)
    for k, i in enumerate(indices):
        if not isinstance(i, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{type(i).__name__}")
    if len(indices) > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd} (got {len(indices)})")
    used = sum(i.dim() if i.dtype in (_dtype.bool, _dtype.uint8) else 1 for i in indices)
    if used > nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {nd})")


class Overwrite(Op):
    """y = v broadcast into x's shape and dtype (x's values are discarded); dx = 0, dv = grad.

    The value written by ``copy_``/``fill_``/``zero_``: it stays joined to x's history (with a
    zero gradient), so the overwritten tensor still requires grad, as in torch.
    """

    def forward(self, x, v):
        out = self.xp.empty(x.shape, dtype=x.dtype)
        try:
            out[...] = real_part_for(x.dtype, v)
        except ValueError:
            raise copy_shape_error(x.shape, self.xp.shape(v)) from None
        return out

    def backward(self, grad):
        nx, nv = self.needs_input_grad
        return (grad * 0 if nx else None), (grad if nv else None)


def copy_value(self, src):
    """The value ``self.copy_(src)`` writes: ``src`` broadcast to self's shape and dtype."""
    if isinstance(src, Tensor) and src.device != self.device:
        src = src.to(device=self.device)
    if isinstance(src, Tensor) and src.dtype is not self.dtype and self.dtype in _dtype._FLOAT8:
        src = src.to(self.dtype)  # torch's float8 conversion (saturation, NaN bits)
    return rename_node(Overwrite.apply(self, src), "torch::autograd::CopyBackwards")


def full_like_value(self, value):
    """The value ``self.fill_(value)`` writes (``value`` a number or a 0-d tensor)."""
    if isinstance(value, Tensor) and value._array.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                           f"with {value._array.ndim} dimensions.")
    name = "FillBackward3" if isinstance(value, Tensor) else "FillBackward2"
    if not isinstance(value, Tensor):
        value = number_as(value, self.dtype)
    return rename_node(Overwrite.apply(self, value), name)


def zero_value(self):
    """The value ``self.zero_()`` writes."""
    return rename_node(Overwrite.apply(self, number_as(0, self.dtype)), "ZeroBackward0")


def index_select(input=missing_arg, dim=missing_arg, index=missing_arg, *, out=None):
    """Select entries along ``dim`` at the 1-D (or 0-D) ``index`` (a copy)."""
    try:
        if out is not None:
            return _out(index_select(input, dim, index), out,
                        exact="index_select(): self and result must have the same scalar type",
                        over=(input,))
        if not isinstance(index, Tensor):
            raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, not "
                            f"{type(index).__name__}")
        check_same_device("index_select", ("self", input), ("index", index))
        if index.dtype is not _dtype.int64 and index.dtype is not _dtype.int32:
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        if index._array.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        if input.__class__ is not Tensor and is_sparse(input):
            from .sparse_ops import index_select as sparse_index_select

            return sparse_index_select(input, dim, index)
        d = canonical_dim(dim, input._array.ndim)
        idx = index._array.reshape(-1)
        n = input._array.shape[d] if input._array.ndim else 1
        if idx.size and not n and input._array.ndim > 1:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if idx.size and (idx.max() >= n or idx.min() < 0):  # torch takes no negative indices here
            if input._array.ndim > 1 and (d == 1 or not input._array.size):
                # torch's dim-1 (and empty-input) kernel words it differently
                bad = int(idx[(idx >= n) | (idx < 0)][0])
                raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
            raise IndexError("index out of range in self")
        if input._array.ndim == 0:
            if idx.size != 1:
                raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                                   f"{idx.size} value(s)")
            return input.reshape(-1)[_make(idx)].reshape(())
        return AdvGetItem.apply(input, index=(slice(None),) * d + (idx, Ellipsis),
                                node_name="IndexSelectBackward0")
    except Exception:
        check_missing_call(input=input, dim=dim, index=index)
        raise


def masked_fill(input, mask, value):
    """Return ``input`` with ``value`` where the bool ``mask`` (broadcast) is True."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill(): argument 'mask' must be Tensor, not "
                        f"{type(mask).__name__}")
    if mask.dtype is not _dtype.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_dtype._CPP_TYPE.get(mask.dtype.name, mask.dtype.name)}")
    if isinstance(value, Tensor):
        if value._array.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value._array.ndim} dimension(s).")
        value = value.to(input.dtype)
    else:
        # as a Python number: where() promotes a NumPy bool scalar like a float one
        value = number_as(value, input.dtype).item()
    node = "MaskedFillBackward1" if isinstance(value, Tensor) else "MaskedFillBackward0"
    # a larger mask broadcasts the result, as in torch
    return rename_node(row_major_result(where(mask, value, input)), node)


def masked_select(input, mask, *, out=None):
    """Return the 1-D tensor of elements where the bool ``mask`` (broadcast) is True."""
    if out is not None:
        return _out(masked_select(input, mask), out,
                    exact="masked_select(): self and result must have the same scalar type")
    check_same_device("masked_select", ("self", input), ("mask", mask))
    if mask.dtype is not _dtype.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    try:
        shape = np.broadcast_shapes(input._array.shape, mask._array.shape)
    except ValueError:
        from .cast import copy_shape_error  # torch's text (the mask is its tensor a)

        raise copy_shape_error(mask._array.shape, input._array.shape) from None
    x = input.expand(shape) if input._array.shape != shape else input
    m = mask._array if mask._array.shape == shape else \
        xp_of(mask._array).broadcast_to(mask._array, shape)
    return AdvGetItem.apply(x, index=(m,), node_name="MaskedSelectBackward0")


def nonzero(input, *, as_tuple=False, out=None):
    """Indices of nonzero elements: an (n, ndim) int64 tensor, or a tuple of 1-D tensors."""
    if out is not None and not as_tuple:
        return _out(nonzero(input), out, exact="nonzero: Expected out tensor to have scalar "
                                               "type {want} but got scalar type{got}")
    a = input._array
    xp = np if type(a) is np.ndarray else __import__("numtorch").backend.xp_of(a)
    idx = xp.nonzero(a) if a.ndim else xp.nonzero(a.reshape(1))
    if as_tuple:
        return tuple(_make(i.astype(np.int64)) for i in idx)
    if a.ndim == 0:
        return _make(_column_major(xp, xp.zeros((0, int(bool(a))), dtype=np.int64)))
    # torch fills the (count, ndim) result column by column: strides (1, count)
    return _make(_column_major(xp, xp.stack(idx).astype(np.int64, copy=False)))


def _column_major(xp, rows):
    """The transpose of the C-ordered ``rows`` (ndim, count), with torch's strides (1, count)
    also when empty."""
    n = rows.shape[1]
    return helpers_for(xp).as_strided(rows, rows.shape[::-1], (rows.itemsize,
                                                               rows.itemsize * n))


def argwhere(input):
    """Same as ``nonzero(input)``."""
    return nonzero(input)
