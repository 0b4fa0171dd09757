"""Reducing scatters: ``scatter_reduce`` (sum, prod, mean, amax, amin) and ``index_reduce``.

Several source values may land on one output position; they are combined with each other and
(with ``include_self``) with the value already there. The forward flattens the target
positions into one index vector and makes a single unbuffered ufunc call (``ufunc.at``). The
gradients follow torch: the mean divides by the number of contributions, amax/amin share the
gradient evenly between tied winners, and prod gives every factor the product of the others
(computed without dividing by zero).
"""

import warnings

import numpy as np

from .. import _dtype
from ..backend import helpers_for
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ._accumulate import is_half
from ._util import canonical_dim, fmt_shape, refuse_dtype, user_stacklevel
from ._pointwise import _out
from .gather import OUT_DTYPE, _check_index_range, _check_index_tensor

__all__ = ["index_reduce", "scatter_reduce"]

_REDUCES = ("sum", "prod", "mean", "amax", "amin")
_ALIASES = {"max": "amax", "min": "amin"}


def _identity(reduce, dt):
    """The neutral start value of a reduction in dtype ``dt``."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dt.kind == "b":
        return reduce == "amin"
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return info.min if reduce == "amax" else info.max
    return -np.inf if reduce == "amax" else np.inf


def _flat_targets(xp, index, shape, dim):
    """Linear positions in an array of ``shape`` that ``index`` (along ``dim``) addresses."""
    grids = list(helpers_for(xp).open_grids(index.shape))
    grids[dim] = index
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    lin = 0
    for g, s in zip(grids, strides):
        lin = lin + g * s
    return xp.broadcast_to(lin, index.shape).reshape(-1)


class ScatterReduce(Op):
    """y = x with src values reduced into the positions ``index`` names along ``dim``.

    dx, dsrc: sum passes grad through; mean divides it by the contribution count; prod
    multiplies it by the product of the other factors; amax/amin split it between ties.
    """

    spelled = None  # 'max'/'min' when scatter_reduce was given torch's forward-only spellings
    index_op = False  # index_reduce (adds float16/bfloat16 in their own precision)

    def forward(self, x, index, src):
        xp, d, reduce = self.xp, self.dim, self.reduce
        if reduce in ("prod", "amax", "amin"):
            self.save_inputs(x, src)
        if x.ndim == 0:
            x, index, src = x.reshape(1), index.reshape(-1), src.reshape(-1)
        _check_index_range(index, x.shape[d], d)
        lin = _flat_targets(xp, index, x.shape, d)
        vals = src[tuple(slice(0, s) for s in index.shape)].reshape(-1)
        out = x.copy().reshape(-1)
        counts = xp.bincount(lin, minlength=out.size) if lin.size else \
            xp.zeros(out.size, dtype=np.int64)
        hit = counts > 0
        self.save(index=index.reshape(self.index_shape), hit=hit.reshape(self.x_shape))
        if not self.include_self:
            out[hit] = _identity(reduce, out.dtype)
        if out.dtype.kind == "b":
            ufunc = {"sum": "logical_or", "mean": "logical_or", "prod": "logical_and",
                     "amax": "logical_or", "amin": "logical_and"}[reduce]
        else:
            ufunc = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum",
                     "amin": "minimum"}[reduce]
        half = is_half(out.dtype)
        if half and reduce in ("sum", "mean") and not self.index_op:
            out = out.astype(np.float32)  # torch's scatter adds these in float32
        helpers_for(xp).ufunc_at(ufunc, out, lin, vals.astype(out.dtype, copy=False))
        if reduce == "mean":
            n = counts + (1 if self.include_self else 0)
            n = xp.where(n == 0, 1, n).astype(out.dtype)
            out = out / n if out.dtype.kind in "fc" or half else out // n
            self.save(count=n.astype(x.dtype, copy=False).reshape(self.x_shape))
        out = out.astype(x.dtype, copy=False).reshape(self.x_shape)
        return self.save_output(out) if reduce in ("prod", "amax", "amin") else out

    def backward(self, grad):
        d, reduce, inc = self.dim, self.reduce, self.include_self
        if self.spelled is not None:
            raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', "
                               f"'amin' but got {self.spelled}.")
        index = _make(self.saved("index"))
        hit = _make(self.saved("hit"))
        nx, _, ns = self.needs_input_grad
        x, src = self.saved_inputs() if reduce in ("prod", "amax", "amin") else (None, None)
        if src is not None:
            src = _src_region(src, index)
        if reduce == "sum":
            gx, gs_full = grad, grad
        elif reduce == "mean":
            gx = gs_full = grad / _make(self.saved("count"))
        elif reduce == "prod":
            gx, gs = _prod_grads(grad, x, self.saved_output(), index, src, d, inc)
        else:
            y = self.saved_output()
            x_won = (x == y).to(grad.dtype)
            s_won = (src == y.gather(d, index)).to(grad.dtype)
            # ties share the gradient; x counts as a winner even when not included (torch's rule)
            share = grad / x_won.scatter_add(d, index, s_won)
            gx, gs = x_won * share, s_won * share.gather(d, index)
        if reduce in ("sum", "mean"):
            gs = gs_full.gather(d, index) if ns else None
        if nx and not inc:
            gx = gx.masked_fill(hit, 0)
        if ns and gs is not None and tuple(gs.shape) != self.src_shape:
            gs = _pad_to(gs, self.src_shape)
        return (gx if nx else None), None, (gs if ns else None)


def _src_region(src, index):
    """The part of ``src`` that ``index`` reads (src may be larger than index)."""
    if tuple(src.shape) == tuple(index.shape):
        return src
    return src[tuple(slice(0, s) for s in index.shape)]


def _pad_to(g, shape):
    """``g`` placed at the start of zeros of ``shape`` (unread src elements get no gradient)."""
    from .indexing import SliceScatter

    return SliceScatter.apply(g, index=tuple(slice(0, s) for s in g.shape), in_shape=shape)


def _prod_grads(grad, x, y, index, src, d, include_self):
    """Gradients of a scattered product: each factor gets the product of the other factors of
    its group, computed without dividing by zero.

    ``x``'s is the product with ``x`` replaced by 1 (then divided by ``x`` where it is not 0);
    a source value's is ``y / v``, except for the only zero among its group's source values,
    which gets the product with the zero replaced by 1. Both forms stay exact when
    differentiated again, except with several zero source values in one group.
    """
    from .comparison import where

    one = _make(np.ones((), dtype=x._array.dtype))
    x_safe = where(x == 0, one, x)
    s_zero = src == 0
    s_safe = where(s_zero, one, src)

    def product(a, b):
        return ScatterReduce.apply(a, index, b, dim=d, reduce="prod", include_self=include_self,
                                   x_shape=tuple(x.shape), index_shape=tuple(index.shape),
                                   src_shape=tuple(src.shape))

    gx = grad * (product(x_safe, src) / x_safe) if include_self else grad
    n_zero = (x == 0).to(_dtype.int64).mul(0).scatter_add(d, index, s_zero.to(_dtype.int64))
    lone = s_zero & (n_zero.gather(d, index) == 1)
    others = where(lone, product(x, s_safe).gather(d, index), y.gather(d, index) / s_safe)
    return gx, grad.gather(d, index) * others


def _scatter_reduce(input, dim, index, src, reduce, include_self, fn):
    spelled = None
    if fn == "scatter_reduce" and reduce in _ALIASES:
        # torch's forward takes 'max'/'min' for amax/amin; its backward then refuses them
        spelled, reduce = reduce, _ALIASES[reduce]
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    d = canonical_dim(dim, input._array.ndim)
    _check_index_tensor("scatter", index, input, d, src)
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    # torch's CPU kernels have no bool mean and no complex amax/amin
    refuse_dtype(input, "b" if reduce == "mean" else "c" if reduce in ("amax", "amin") else "",
                 f"scatter_gather_tensor_cpu_reduce_{reduce}")
    return ScatterReduce.apply(input, index, src, dim=d, reduce=reduce, spelled=spelled,
                               include_self=bool(include_self),
                               x_shape=tuple(input._array.shape),
                               index_shape=tuple(index._array.shape),
                               src_shape=tuple(src._array.shape))


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Return a copy of ``input`` with the values of ``src`` reduced into the positions that
    ``index`` gives along ``dim``.

    Args:
        input (Tensor): the tensor to scatter into.
        dim (int): the dim ``index`` runs along.
        index (Tensor): int64 positions, with ``input``'s number of dims.
        src (Tensor): the values (same dtype as ``input``).
        reduce (str): ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self (bool): whether the values already in ``input`` take part at the
            positions that receive values. Default: True.

    Example:
        >>> torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]),
        ...                               torch.tensor([1., 2., 3.]), "amax")
        tensor([2., 0., 3.])
    """
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not "
                        f"{type(src).__name__}")
    r = _scatter_reduce(input, dim, index, src, reduce, include_self, "scatter_reduce")
    return _out(r, out, exact=OUT_DTYPE)


_INDEX_REDUCE_WARNED = []


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """Return a copy of ``input`` with slice ``i`` of ``source`` along ``dim`` reduced into
    slice ``index[i]`` (``reduce``: "prod", "mean", "amax" or "amin").

    Example:
        >>> torch.ones(2).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2., 3.]), "prod")
        tensor([6., 1.])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):  # checked before torch's warning
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if not _INDEX_REDUCE_WARNED:
        _INDEX_REDUCE_WARNED.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=user_stacklevel())
    nd = input._array.ndim
    d = canonical_dim(dim, nd)
    if index.dtype is not _dtype.int64 and index.dtype is not _dtype.int32:
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype._legacy[:-len('Tensor')]}")
    n_idx = index._array.size
    s_shape, x_shape = source._array.shape, input._array.shape
    s_dim = s_shape[d] if source._array.ndim else 1
    if index._array.ndim > 1 or n_idx != s_dim:
        raise RuntimeError(f"index_reduce_(): Number of indices ({n_idx}) should be equal to "
                           f"source.size(dim): ({s_dim}), for dim: {dim}")
    if len(s_shape) != len(x_shape) or any(a != b for k, (a, b) in
                                           enumerate(zip(s_shape, x_shape)) if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {fmt_shape(x_shape)} "
                           f"source.shape = {fmt_shape(s_shape)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype._legacy[:-len('Tensor')]}) and "
                           f"source ({source.dtype._legacy[:-len('Tensor')]}) must have the "
                           f"same scalar type")
    # no complex kernels, and for bool only the include_self ones on two or more dims
    # (prod/amax/amin: logical and/or; its mean has no bool floor division; torch's 1-d
    # kernel has no bool at all); dispatched before the indices are read
    if input.dtype is _dtype.bool and include_self and nd >= 2:
        if reduce == "mean":
            raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
        res = index_reduce(input.to(_dtype.uint8), dim, index, source.to(_dtype.uint8), reduce)
        return _out(res.to(_dtype.bool), out, exact=OUT_DTYPE)
    refuse_dtype(input, "bc", "index_func_" if include_self else
                 "index_reduce_func_exclude_input_init")
    idx = index._array.reshape(-1).astype(np.int64)
    size = x_shape[d] if nd else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx[(idx >= size) | (idx < -size)]
        if not include_self and bad.size:  # torch's first pass (resetting the targets)
            raise IndexError(f"index {int(bad[0])} is out of bounds for dimension {d} with "
                             f"size {size}")
        raise IndexError("index out of range in self")
    view = [1] * max(nd, 1)
    view[d] = idx.size
    full = _make(idx.reshape(view)).expand(*(s_shape if nd else (idx.size,)))
    res = ScatterReduce.apply(input, full, source, dim=d, reduce=reduce, index_op=True,
                              include_self=bool(include_self), x_shape=tuple(x_shape),
                              index_shape=tuple(full._array.shape), src_shape=tuple(s_shape))
    return _out(rename_node(res, "IndexReduceBackward0"), out, exact=OUT_DTYPE)
