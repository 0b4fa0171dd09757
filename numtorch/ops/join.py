"""Joining tensors: ``cat`` (with torch's dtype promotion) and the ``stack`` family."""

import numpy as np

from .. import _dtype, backend
from .._grad_state import _state
from .._required_dim import check_missing, missing_arg
from .._tensor import Tensor, _make
from .._sparse import is_sparse
from ..autograd import graph as _graph
from ..autograd._pointwise_layout import torch_order
from ..autograd.graph import Op, channels_last_layout, rename_node
from ._pointwise import _out, type_name
from ._util import canonical_dim, fmt_shape

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "atleast_1d",
           "atleast_2d", "atleast_3d"]


def _payload(a):
    """True for a meta or quantized payload, which joins itself (no flags or layouts)."""
    return type(a) is not np.ndarray and not backend.is_device_array(a)


def _concatenate(xp, parts, axis):
    """``xp.concatenate(parts, axis)`` in torch's layout: row-major unless the inputs are
    channels-last images, whose layout torch keeps. NumPy keeps its inputs' stride order
    (column-major for transposed matrices: copied row-major here); CuPy writes row-major
    whatever the inputs (``core.ndarray(shape)``), so channels-last device inputs get a
    channels-last array to be written into."""
    a0 = parts[0]
    if type(a0) is not np.ndarray and not _payload(a0) and a0.ndim in (4, 5) and \
            all(channels_last_layout(p) for p in parts):
        shape = list(a0.shape)
        shape[axis] = sum(p.shape[axis] for p in parts)
        out = xp.empty_like(a0, dtype=xp.result_type(*parts), shape=shape)
        return xp.concatenate(parts, axis=axis, out=out)
    r = xp.concatenate(parts, axis=axis)
    if _payload(r) or r.flags.c_contiguous:
        return r
    # channels-last only when every input is (NumPy may also pick that order for other
    # strides: a permuted einsum result joined to a row-major one)
    if channels_last_layout(r) and all(channels_last_layout(p) for p in parts):
        return r
    return xp.ascontiguousarray(r)


def _stack(xp, arrays, d):
    """``xp.stack(arrays, d)`` of arrays of one shape and dtype in torch's layout: row-major,
    unless the inputs are channels-last images, whose layout torch keeps (its strides for
    the new dim, see ``_stacked_like``). Meta and quantized payloads stack themselves."""
    a0 = arrays[0]
    if _payload(a0):
        return xp.stack(arrays, d)
    shape0, n = a0.shape, len(arrays)
    if channels_last_layout(a0) and all(channels_last_layout(a) for a in arrays):
        res = _stacked_like(xp, a0, n, d)
        xp.stack(arrays, d, out=res)
        return res
    res = xp.empty(shape0[:d] + (n,) + shape0[d:], dtype=a0.dtype)
    if d == 0 and shape0:  # one concatenate: a third of xp.stack's per-array overhead
        xp.concatenate(arrays, out=res.reshape((n * shape0[0],) + shape0[1:]))
    else:
        xp.stack(arrays, d, out=res)
    return res


def _stacked_like(xp, a0, n, d):
    """An empty stack of ``n`` channels-last arrays like ``a0`` along new dim ``d``: its dims
    ordered by torch's rule over ``a0``'s strides with the new dim's stride as torch's
    unsqueeze gives it (``torch.stack`` of channels-last images along dim 0 keeps each image
    channels-last, the new dim outermost, as NumPy's stack does)."""
    strides = list(a0.strides)
    strides.insert(d, a0.shape[d] * a0.strides[d] if d < a0.ndim else a0.itemsize)
    shape = a0.shape[:d] + (n,) + a0.shape[d:]
    outer_first = torch_order(shape, [strides])[::-1]
    buf = xp.empty([shape[k] for k in outer_first], dtype=a0.dtype)
    return buf.transpose(tuple(int(k) for k in np.argsort(outer_first)))


class Cat(Op):
    """y = concatenation along ``dim``; each input's gradient is its slice of grad."""

    def forward(self, *xs):
        d, nd = self.dim, xs[0].ndim
        for x in xs:
            if x.ndim != nd:
                break
        else:  # one rank throughout (the usual case): nothing to skip
            self.sizes = [x.shape[d] for x in xs]
            return _concatenate(self.xp, xs, d)
        # torch skips legacy 1-d empty tensors when the others have more dims
        nd = max(x.ndim for x in xs)
        skip = [x.ndim == 1 and x.shape[0] == 0 and nd > 1 for x in xs]
        self.sizes = [None if s else x.shape[self.dim] for x, s in zip(xs, skip)]
        parts = [x for x, s in zip(xs, skip) if not s] or list(xs)
        return _concatenate(self.xp, parts, self.dim)

    def backward(self, grad):
        out, start = [], 0
        for n, needs in zip(self.sizes, self.needs_input_grad):
            if n is None:
                out.append(None)
                continue
            out.append(grad.narrow(self.dim, start, n) if needs else None)
            start += n
        return tuple(out)

    def backward_arrays(self, g):
        # the slices ``backward`` narrows out, as views of the gradient (a long list of small
        # pieces, a loss made of per-step terms, pays no op dispatch per piece)
        out, start = [], 0
        lead = (slice(None),) * self.dim
        for n, e in zip(self.sizes, self._edges):
            if n is None:
                out.append(None)
                continue
            out.append(g[lead + (slice(start, start + n),)] if e is not None else None)
            start += n
        return tuple(out)


class Stack(Op):
    """y = the inputs stacked along a new ``dim``; each input's gradient is its slice of grad.

    Why a primitive: stacking many small tensors that need gradients (per-step losses) as
    one node, instead of an unsqueeze node per input and a cat.
    """

    node_name = "StackBackward0"

    def forward(self, *xs):
        return _stack(self.xp, xs, self.dim)

    def backward(self, grad):
        return tuple(grad.select(self.dim, i) if e is not None else None
                     for i, e in enumerate(self._edges))

    def backward_arrays(self, g):
        lead = (slice(None),) * self.dim
        return tuple(g[lead + (i,)] if e is not None else None
                     for i, e in enumerate(self._edges))


# ---------------------------------------------------------------------------------------------
# argument checks with torch's wording


def check_elements(tensors):
    """Raise torch's TypeError when an element of a tensor sequence is not a Tensor."""
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type_name(x)}")


def tensor_list(fn, tensors, empty=None):
    """``tensors`` (a list or tuple of Tensors) as a list, else torch's TypeError naming
    ``fn``; an empty one raises ``empty`` expects a non-empty TensorList when given (a
    Tensor is refused, not iterated: ``torch.stack(t)`` is an error in torch)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        check_missing(fn, tensors=tensors)
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    check_elements(tensors)
    if empty and not tensors:
        raise RuntimeError(f"{empty} expects a non-empty TensorList")
    return list(tensors)


# ---------------------------------------------------------------------------------------------
# public functions


def _refuse_cat_overlap(out, tensors):
    """torch's cat refuses an ``out=`` sharing any memory with an input (the same elements
    included, unlike the elementwise ops): the input itself, or a dense block that meets
    out's dense block (strided views torch cannot judge pass)."""
    from .inplace_writes import PARTIAL, _dense_span

    dst = out._array
    if type(dst) is not np.ndarray:
        return
    span = _dense_span(dst) if dst.size else None
    for t in tensors:
        if t is out:
            raise RuntimeError(PARTIAL)
        src = getattr(t, "_array", None)
        if span is None or type(src) is not np.ndarray or not src.size or \
                not np.may_share_memory(dst, src):
            continue
        other = _dense_span(src)
        if other is not None and span[0] < other[1] and other[0] < span[1]:
            raise RuntimeError(PARTIAL)


def cat(tensors=missing_arg, dim=0, *extra, out=None, _fn="cat"):
    """Concatenate tensors along an existing dim (dtypes are promoted as in torch)."""
    if extra:
        raise _too_many(_fn, extra)
    if out is None and (tensors.__class__ is list or tensors.__class__ is tuple) and tensors:
        # the usual call: NumPy arrays of one shape and one dtype, nothing to check or promote
        r = _plain_cat(tensors, dim)
        if r is not None:
            return r
        a0 = getattr(tensors[0], "_array", None)
        if type(a0) is np.ndarray and a0.ndim and a0.shape != (0,):
            plain = True  # False once an input may join a graph
            rec = _state.enabled
            nd, dt0 = a0.ndim, a0.dtype
            for x in tensors:
                # one rank and dtype (no shape tuples: NumPy checks the other dims, and its
                # ValueError sends the call to the general path for torch's message)
                if not isinstance(x, Tensor) or type(a := x._array) is not np.ndarray or \
                        a.ndim != nd or a.dtype is not dt0:
                    break
                if rec and plain and (x._requires_grad or x._extra is not None or
                                      x._base is not None and not _graph._edgeless_view(x)):
                    plain = False
            else:
                if type(dim) is int and -nd <= dim < nd:
                    try:
                        if plain and not _watched():  # regression's features: no record
                            return _make(_concatenate(np, [x._array for x in tensors],
                                                      dim % nd))
                        return Cat.apply(*tensors, dim=dim % nd)
                    except ValueError:
                        pass
    tensors = tensor_list(_fn, tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    if out is None and tensors[0].__class__ is not Tensor and is_sparse(tensors[0]):
        from .sparse_ops import cat as sparse_cat

        return sparse_cat(tensors, dim)
    legacy = False  # torch skips legacy 1-d empty tensors
    zero = None  # the first 0-d tensor's position (torch refuses it before any other check)
    for i, x in enumerate(tensors):
        if not isinstance(x, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type_name(x)}")
        s = x._array.shape
        if s == (0,):
            legacy = True
        elif not s and zero is None:
            zero = i
    if zero is not None:
        raise RuntimeError(f"zero-dimensional tensor (at position {zero}) cannot be "
                           f"concatenated")
    real = [x for x in tensors if x._array.shape != (0,)] if legacy else tensors
    ref = real[0] if real else tensors[0]
    nd = ref._array.ndim
    d = canonical_dim(dim, nd)
    shape0 = ref._array.shape
    for i, x in enumerate(tensors):
        s = x._array.shape
        if s == shape0 or (legacy and s == (0,)):  # nothing to check (the usual case)
            continue
        if x._array.ndim != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                               f"{x._array.ndim}")
        for k in range(nd):
            if k != d and x._array.shape[k] != ref._array.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref._array.shape[k]} but got size {x._array.shape[k]} for tensor "
                    f"number {i} in the list.")
    if out is not None:
        _refuse_cat_overlap(out, tensors)
    if not _one_dtype(tensors):
        dt = _dtype.result_type(*[_NdTag(x) for x in tensors])
        tensors = [x if x.dtype is dt else x.to(dt) for x in tensors]
    if out is not None and not _dtype.can_cast(tensors[0].dtype, out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{_dtype._TYPE_DISPLAY[out.dtype.name]}")
    r = Cat.apply(*tensors, dim=d)
    return _out(r, out, over=tuple(tensors))


def _plain_cat(tensors, dim):
    """``cat`` of a non-empty list or tuple of tensors that records nothing (grad mode off, or
    no input needs a gradient, has extras or is a view) and holds NumPy arrays of one dtype
    and rank >= 1, along an int ``dim``: one pass that only reads slots and compares the
    dtype by identity (no shape tuples: NumPy checks the other dims itself; an object that is
    no Tensor lacks these slots and goes to the general path's TypeError), then one
    concatenate; None for everything else, an error NumPy raises included (the general path
    then gives torch's message). Many small inputs (a list of per-step values) pay ~0.1 us
    each here instead of ~0.2."""
    try:
        a0 = tensors[0]._array
        if a0.__class__ is not np.ndarray or type(dim) is not int:
            return None
        nd = a0.ndim
        if not -nd <= dim < nd or a0.shape == (0,) or _watched():
            return None
        d0 = a0.dtype
        rec = _state.enabled
        arrays = []
        for x in tensors:
            a = x._array
            if a.__class__ is not np.ndarray or a.dtype is not d0 or rec and (
                    x._requires_grad or x._extra is not None or x._base is not None):
                return None
            arrays.append(a)
        return _make(_concatenate(np, arrays, dim % nd))
    except (AttributeError, ValueError):
        return None


def _one_dtype(tensors):
    """True when every tensor has the first one's dtype (nothing to promote)."""
    dt0 = tensors[0]._array.dtype
    for x in tensors:
        if x._array.dtype != dt0:
            return False
    return True


class _NdTag:
    """Makes every cat input count as a dimensioned tensor for promotion (as torch does)."""

    def __init__(self, t):
        self._array = t._array if t._array.ndim else t._array.reshape(1)


def concat(tensors=missing_arg, dim=0, *extra, out=None):
    """Another name of :func:`cat`."""
    if extra:
        raise _too_many("concat", extra)
    return cat(tensors, dim, out=out, _fn="concat")


def concatenate(tensors=missing_arg, dim=0, *extra, out=None):
    """Another name of :func:`cat` (NumPy's; ``axis=`` works too, as for cat)."""
    if extra:
        raise _too_many("concatenate", extra)
    return cat(tensors, dim, out=out, _fn="concatenate")


def _too_many(fn, extra):
    """torch's error for more than (tensors, dim) given by position (the required ``tensors``
    has a stand-in default here, which Python's own message would count as optional)."""
    return TypeError(f"{fn}() takes from 1 to 2 positional arguments but {2 + len(extra)} "
                     f"were given")


def stack(tensors=missing_arg, dim=0, *extra, out=None):
    """Join same-shaped tensors along a new dim ``dim``."""
    if extra:
        raise _too_many("stack", extra)
    if out is None and (tensors.__class__ is list or tensors.__class__ is tuple) and tensors:
        arrays = _plain_arrays(tensors)
        if arrays is not None:  # get_batch's stack of data slices: one pass, one array call
            d = canonical_dim(dim, arrays[0].ndim + 1)
            try:
                return _make(_stack(np, arrays, d))
            except ValueError:  # shapes that differ: the general path's error below
                pass
    tensors = tensor_list("stack", tensors, "stack")
    if out is None and tensors and tensors[0].__class__ is not Tensor and is_sparse(tensors[0]):
        d = canonical_dim(dim, len(tensors[0].shape) + 1)
        return cat([x.unsqueeze(d) for x in tensors], d)
    shape0 = tensors[0]._array.shape
    for i, x in enumerate(tensors):
        if x._array.shape != shape0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{fmt_shape(shape0)} at entry 0 and "
                               f"{fmt_shape(x._array.shape)} at entry {i}")
    d = canonical_dim(dim, len(shape0) + 1)
    if out is None and _plain_stack(tensors):
        # nothing to record (default_collate's case): one array stack, no per-input nodes
        a0 = tensors[0]._array
        return _make(_stack(backend.xp_of(a0), [x._array for x in tensors], d))
    if out is None and _one_dtype(tensors) and not _watched():
        return Stack.apply(*tensors, dim=d)
    return rename_node(cat([x.unsqueeze(d) for x in tensors], d, out=out), "StackBackward0")


_APPLY = Op.__dict__["apply"]  # the ONNX exporter swaps Op.apply while it traces


def _watched():
    """True while a profiler, vmap or exporter records the ops (they know unsqueeze and cat,
    not the one-node stack)."""
    return _graph._hook is not None or Op.__dict__["apply"] is not _APPLY


def _plain_arrays(tensors):
    """The NumPy arrays of ``tensors`` when they are plain Tensors of one size, rank and dtype
    that stacking would record nothing for (``_plain_stack``), in one pass; else None (the
    checks and their errors are the general path's)."""
    if _watched():
        return None
    x = tensors[0]
    if x.__class__ is not Tensor:
        return None
    a0 = x._array
    # one size instead of one shape (no tuple per input): with NumPy's own checks of the
    # ranks and of the other dims (``_stack``) that makes the shapes equal; an empty one
    # takes the general path
    size0, dt0 = a0.size, a0.dtype
    if not size0:
        return None
    grad = _state.enabled
    arrays = []
    for x in tensors:
        if x.__class__ is not Tensor:
            return None
        a = x._array
        if a.__class__ is not np.ndarray or a.size != size0 or a.dtype is not dt0:
            return None
        if grad and (x._requires_grad or x._base is not None and x._base._requires_grad
                     and x.requires_grad):
            return None
        arrays.append(a)
    return arrays


def _plain_stack(tensors):
    """True when stacking records nothing and needs no promotion: no input wants a gradient
    (or grad mode is off), one dtype and array type, and no profiler, vmap or exporter
    watching the ops."""
    if _watched():
        return False
    a0 = tensors[0]._array
    t0, dt0 = type(a0), a0.dtype
    grad = _state.enabled
    for x in tensors:
        a = x._array
        if type(a) is not t0 or a.dtype != dt0:
            return False
        # a view can need a gradient through its base alone (requires_grad_ on the base later)
        if grad and (x._requires_grad or x._base is not None and x._base._requires_grad
                     and x.requires_grad):
            return False
    return True


def hstack(tensors=missing_arg, *, out=None):
    """Stack horizontally (along dim 1, or dim 0 for 1-d tensors)."""
    tensors = tensor_list("hstack", tensors, "hstack")
    ts = atleast_1d(*tensors) if len(tensors) > 1 else [atleast_1d(tensors[0])]
    return cat(ts, 0 if ts[0].dim() == 1 else 1, out=out)


def vstack(tensors=missing_arg, _fn="vstack", *, out=None):
    """Stack vertically (along dim 0 after making inputs at least 2-d)."""
    tensors = tensor_list(_fn, tensors, "vstack")
    ts = [atleast_2d(x) for x in tensors]
    return cat(ts, 0, out=out)


def _sequence_arg(tensors):
    """(the tensors, whether they came as one list) of ``f(a, b)`` or ``f([a, b])`` (torch's
    atleast_* take either; a list always gives a tuple back)."""
    listed = len(tensors) == 1 and isinstance(tensors[0], (list, tuple))
    if listed:
        tensors = tuple(tensors[0])
    check_elements(tensors)
    return tensors, listed


def atleast_1d(*tensors):
    """Return each tensor with at least one dim (0-d ones become shape ``(1,)``)."""
    tensors, listed = _sequence_arg(tensors)
    r = [x if x.dim() >= 1 else x.reshape(1) for x in tensors]
    return r[0] if len(r) == 1 and not listed else tuple(r)


def atleast_2d(*tensors):
    """Return each tensor with at least two dims (leading size-1 dims are added)."""
    tensors, listed = _sequence_arg(tensors)
    r = [x if x.dim() >= 2 else x.reshape(1, -1) for x in tensors]
    return r[0] if len(r) == 1 and not listed else tuple(r)


def atleast_3d(*tensors):
    """Return each tensor with at least three dims, placed as NumPy's ``atleast_3d`` does."""
    tensors, listed = _sequence_arg(tensors)

    def f(x):
        if x.dim() == 0:
            return x.reshape(1, 1, 1)
        if x.dim() == 1:
            return x.reshape(1, -1, 1)
        if x.dim() == 2:
            return x.unsqueeze(-1)
        return x

    r = [f(x) for x in tensors]
    return r[0] if len(r) == 1 and not listed else tuple(r)
