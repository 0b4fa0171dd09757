"""Indexing along one dim: ``gather``, ``scatter``, ``scatter_add`` and ``take_along_dim``.

Unlike ``x[idx]``, these take an index tensor with the input's number of dims and only
non-negative indices, as torch's do.
"""

import numpy as np

from .. import _dtype
from .._creation import number_as
from .._required_dim import check_missing_call, missing_arg
from .._tensor import Tensor, _make
from ..autograd.graph import Op
from ..backend import helpers_for
from ._accumulate import is_half
from ._pointwise import _out
from ._util import canonical_dim, no_dims_error, user_stacklevel

__all__ = ["gather", "scatter", "scatter_add", "take_along_dim"]

# torch's message for an ``out=`` of another dtype (index and scatter kernels write only theirs)
OUT_DTYPE = "Expected out tensor to have dtype {want_c}, but got {got_c} instead"


class Gather(Op):
    """y[..i..] = x[.. index[..i..] ..] along ``dim``; dx scatters grad back (adding)."""
    out_layout = "contiguous"  # torch allocates the result row-major

    def forward(self, x, index):
        self.in_shape = x.shape
        self.save(index=index)
        d = self.dim
        if x.ndim == 0 or index.ndim == 0:
            # 0-d and 1-d tensors mix freely here, as in torch: only index 0 exists
            _check_index_range(index, x.size, d)
            return x.reshape(-1)[index.reshape(-1)].reshape(index.shape)
        _check_index_range(index, x.shape[d], d)
        if x.size == x.shape[d] and index.size == index.shape[d]:
            # one line along dim (a policy's log_prob for one state): a flat take
            return x.reshape(-1).take(index)
        return x[_along_dim_index(self.xp, index, d)]

    def backward(self, grad):
        idx = _make(self.saved("index"))
        return scatter_into_zeros(self.in_shape, self.dim, idx, grad,
                                  getattr(self, "selects", False)), None

    def backward_arrays(self, g):
        # GatherBackward's forward on the arrays (a policy's log_prob gathers on every step)
        return _scatter_into_zeros(self.xp, g, self.saved("index"), tuple(self.in_shape),
                                   self.dim, getattr(self, "selects", False)), None


def _scatter_into_zeros(xp, g, index, shape, d, selects=False):
    """zeros(shape) with ``g`` added at ``index`` along ``d``, on arrays. ``selects``: the
    indices are distinct (sort, topk, kthvalue...) and torch writes the gradient there, so a
    -0.0 stays; otherwise torch adds it to the zeros, which makes a -0.0 +0.0."""
    if not shape:  # a 0-d input: every gathered element was that one value
        return xp.asarray(g.sum(dtype=g.dtype)).reshape(())
    if index.ndim == 0:
        index, g = index.reshape(1), g.reshape(1)
    out = xp.zeros(shape, dtype=g.dtype)
    if not selects and g.dtype.kind in "fc":
        g = g + g.dtype.type(0)
    if index.size == 1 and g.size == 1 and out.size == shape[d]:
        out.reshape(-1)[index.reshape(-1)] = g.reshape(-1)  # one line, one entry: flat
        return out
    if selects or index.shape[d] == 1 and index.shape == g.shape and all(
            index.shape[k] == shape[k] for k in range(len(shape)) if k != d):
        out[_along_dim_index(xp, index, d)] = g  # one entry per line: no collisions
        return out
    full = _along_dim_index(xp, index, d)
    helpers_for(xp).scatter_add(out, full, g)
    return out


class GatherBackward(Op):
    """y = zeros(shape) with grad added at ``index`` along ``dim``; dg = gather(gg)."""

    def forward(self, g, index):
        self.save(index=index)
        return _scatter_into_zeros(self.xp, g, index, self.shape, self.dim, self.selects)

    def backward(self, gg):
        return Gather.apply(gg, _make(self.saved("index")), dim=self.dim), None


def _along_dim_index(xp, index, d):
    """Full NumPy index tuple addressing ``out[..., index, ...]`` position by position.

    One broadcastable ``arange`` per other dim: for the small index tensors of a policy's
    ``log_prob`` this costs a third of ``take_along_axis``'s own index building.
    """
    nd = index.ndim
    grids = [index if k == d else
             xp.arange(n).reshape((n,) + (1,) * (nd - k - 1)) if n != 1 else 0
             for k, n in enumerate(index.shape)]
    return tuple(grids)


def scatter_into_zeros(shape, dim, index, grad, selects=False):
    """zeros(shape) with ``grad`` added at ``index`` along ``dim`` (differentiable in grad);
    ``selects`` as for ``_scatter_into_zeros``."""
    return GatherBackward.apply(grad, index, shape=tuple(shape), dim=dim, selects=selects)


class Scatter(Op):
    """y = x with y[.. index ..] = src along ``dim``; dx = grad outside the written positions,
    dsrc = gather(grad)."""

    def forward(self, x, index, src):
        xp, d = self.xp, self.dim
        self.save(index=index)
        self.src_shape = getattr(src, "shape", ())
        out = x.copy()
        if index.size == 0:
            return out
        if x.ndim == 0 or index.ndim == 0:  # 0-d mixed with 1-d: work on 1-element vectors
            out, index = out.reshape(-1), index.reshape(-1)
            src = src.reshape(-1) if getattr(src, "ndim", 0) else src
        _check_index_range(index, out.shape[d], d)
        full = _along_dim_index(xp, index, d)
        if not hasattr(src, "shape") or src.ndim == 0:
            vals = xp.broadcast_to(xp.asarray(src, dtype=x.dtype), index.shape)
        else:
            vals = src[tuple(slice(0, s) for s in index.shape)].astype(x.dtype, copy=False)
        if self.reduce == "add" and is_half(out.dtype):  # torch adds in float32, rounds once
            acc = out.astype(np.float32)
            helpers_for(xp).scatter_add(acc, full, vals.astype(np.float32))
            out = acc.astype(out.dtype)
        elif self.reduce == "add":
            helpers_for(xp).scatter_add(out, full, vals)
        elif self.reduce == "multiply":
            helpers_for(xp).ufunc_at("multiply", out, full, vals)
        else:
            helpers_for(xp).write_last_wins(out, full, vals)
        return out.reshape(x.shape)

    def backward(self, grad):
        if self.reduce is not None and not self.__dict__.get("is_add", False):
            raise RuntimeError("derivative for aten::scatter is not implemented")
        idx = _make(self.saved("index"))
        na, _, ns = self.needs_input_grad
        ga = gs = None
        if na:
            ga = grad if self.reduce == "add" else grad.scatter(self.dim, idx, 0.0)
        if ns:
            gs = grad.gather(self.dim, idx)
            if tuple(gs.shape) != tuple(self.src_shape):
                # src may be larger than index: its unread part gets no gradient
                region = tuple(slice(0, n) for n in idx.shape)
                from .indexing import SliceScatter

                gs = SliceScatter.apply(gs, index=region, in_shape=self.src_shape)
        return ga, None, gs


# ---------------------------------------------------------------------------------------------
# public functions


def gather(input=missing_arg, dim=missing_arg, index=missing_arg, *, sparse_grad=False, out=None):
    """Collect values along ``dim`` at the positions in ``index`` (int64)."""
    try:
        d = canonical_dim(dim, input._array.ndim)
        _check_index_tensor("gather", index, input, d)
        return _out(Gather.apply(input, index, dim=d), out, exact=True, over=(input, index))
    except Exception:
        check_missing_call(input=input, dim=dim, index=index)
        raise


def take_along_dim(input, indices, dim=None, *, out=None):
    """Pick values of ``input`` at ``indices`` along ``dim``, like NumPy's take_along_axis.

    ``input`` and ``indices`` broadcast against each other in every dim but ``dim``; with
    ``dim=None`` both are flattened first.
    """
    if not isinstance(indices, Tensor) or indices.dtype is not _dtype.int64:
        got = indices.dtype._legacy[:-len("Tensor")] if isinstance(indices, Tensor) else \
            type(indices).__name__
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{got}")
    if out is not None:
        return _out(take_along_dim(input, indices, dim), out, exact=OUT_DTYPE)
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = canonical_dim(dim, input._array.ndim)
    xs, js = input._array.shape, indices._array.shape
    if len(xs) != len(js):
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {len(xs)} dimensions for input, and "
                           f"{len(js)} dimensions for indices")
    if not xs:
        raise no_dims_error(d)
    j_shape = _broadcast_shapes(xs[:d] + (js[d],) + xs[d + 1:], js)
    x_shape = _broadcast_shapes(js[:d] + (xs[d],) + js[d + 1:], xs)
    if j_shape != js:
        indices = indices.expand(j_shape)
    if x_shape != xs:
        input = input.expand(x_shape)
    j = indices._array
    n = x_shape[d]
    if j.size and (j.min() < 0 or j.max() >= n) and n:
        indices = _make(j % n)  # along a named dim torch reads every index modulo the size
    return gather(input, d, indices)


def _broadcast_shapes(a, b):
    """The broadcast of two same-length shapes; torch's error when they clash."""
    for i in range(len(a) - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                               f"({b[i]}) at non-singleton dimension {i}")
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _check_index_tensor(fn, index, input, dim, src=None):
    """gather/scatter index checks: an int32/int64 tensor with input's number of dims that is
    no larger than input outside ``dim`` (and, for scatter, no larger than ``src``)."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype is not _dtype.int64 and index.dtype is not _dtype.int32:
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index")
    ishape, xshape = index._array.shape, input._array.shape
    what = "input" if fn == "gather" else "self"
    if len(ishape) != len(xshape) and not (len(ishape) <= 1 and len(xshape) <= 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} "
                           "tensor")
    sshape = src._array.shape if isinstance(src, Tensor) else None
    if sshape is not None and len(sshape) != len(ishape) and not (len(ishape) <= 1 and
                                                                  len(sshape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if not index._array.size:
        return
    too_big = [] if ishape == xshape else \
        [k for k, (a, b) in enumerate(zip(ishape, xshape)) if k != dim and a > b]
    if sshape is not None:
        if too_big or any(a > b for a, b in zip(ishape, sshape)):
            raise RuntimeError(f"Expected index {list(ishape)} to be no larger than self "
                               f"{list(xshape)} apart from dimension {dim} and to be no larger "
                               f"size than src {list(sshape)}")
    elif too_big and fn != "gather":  # scatter of a number
        raise RuntimeError(f"Expected index {list(ishape)} to be no larger than self "
                           f"{list(xshape)} apart from dimension {dim}")
    elif too_big:
        raise RuntimeError(f"Size does not match at dimension {too_big[0]} expected index "
                           f"{list(ishape)} to be no larger than self {list(xshape)} apart "
                           f"from dimension {dim}")


_UNSIGNED = {np.dtype(np.int64): np.dtype(np.uint64), np.dtype(np.int32): np.dtype(np.uint32),
             np.dtype(np.int16): np.dtype(np.uint16), np.dtype(np.int8): np.dtype(np.uint8)}


def _check_index_range(index, size, dim):
    """gather/scatter take indices in ``[0, size)`` only (no negative indices, unlike x[i])."""
    if index.size == 1:  # a policy's one action: a Python compare beats a reduction
        first = index.item()
        if first < 0 or first >= size:
            raise RuntimeError(f"index {first} is out of bounds for dimension {dim} with size "
                               f"{size}")
        return
    # one reduction: negative indices read as unsigned are larger than any size
    if index.size and index.view(_UNSIGNED.get(index.dtype, index.dtype)).max() >= size:
        bad = (index < 0) | (index >= size)
        if bad.any():
            first = int(index.reshape(-1)[int(bad.reshape(-1).argmax())])
            raise RuntimeError(f"index {first} is out of bounds for dimension {dim} with size "
                               f"{size}")


def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    """Return a copy of ``input`` with ``src`` (or ``value``) written at ``index`` along
    ``dim``; ``reduce`` may be 'add' or 'multiply'."""
    if src is None and value is None:  # (torch's parser: none of its forms; error path)
        from ._util import invalid_combination

        forms = [f"(int dim, Tensor index, {v}{r})" for v in ("Tensor src", "Number value")
                 for r in ("", ", *, str reduce")]
        raise invalid_combination(
            [f"(Tensor input, int dim, Tensor index, {v}, *, {r}Tensor out = None)"
             for v in ("Tensor src", "Number value") for r in ("", "str reduce, ")], forms)
    if src is None:
        src = value
    if reduce is not None and isinstance(src, Tensor):  # (torch warns before any check)
        from .._warn_once import warn_once

        warn_once("scatter_reduce_src", "The reduce argument of torch.scatter with Tensor "
                  "src is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.scatter_reduce instead for more reduction options.", UserWarning,
                  stacklevel=user_stacklevel())
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    d = canonical_dim(dim, input._array.ndim)
    _check_index_tensor("scatter", index, input, d, src)
    if isinstance(src, Tensor):
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    else:
        src = number_as(src, input.dtype)
    return _out(Scatter.apply(input, index, src, dim=d, reduce=reduce), out, exact=OUT_DTYPE)


def scatter_add(input, dim, index, src, *, out=None):
    """Return a copy of ``input`` with ``src`` added at ``index`` along ``dim``."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    d = canonical_dim(dim, input._array.ndim)
    _check_index_tensor("scatter", index, input, d, src)
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return _out(Scatter.apply(input, index, src, dim=d, reduce="add", is_add=True), out,
                exact=OUT_DTYPE)
