"""Sparse COO ops: construction, coalescing, densifying and sparse x dense products.

The products are segment sums: each stored entry ``(r, c, v)`` adds ``v * dense[c]`` to output
row ``r``. SciPy's CSR product does this in C when SciPy is importable; otherwise the
contributions are gathered in one NumPy call, sorted by row and summed with
``np.add.reduceat``. Autograd reaches the values (a dense Tensor inside the sparse tensor) and
the dense operand through two primitives, :class:`SparseMM` and :class:`SegmentSum`, whose
backwards are again written with numtorch ops.

Note: the sparse kernels run on the CPU (NumPy/SciPy) only.
"""

import numpy as np

import numtorch as _nt

from .. import _dtype
from .._dispatch_error import no_kernel
from .._sparse import _unsupported, is_sparse, make
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node

__all__ = ["sparse_coo_tensor", "spmm"]

_SCIPY = []


def _scipy_sparse():
    """``scipy.sparse`` when importable (the optional fast path), else None."""
    if not _SCIPY:
        try:
            from .._quiet_import import import_module

            sp = import_module("scipy.sparse")
        except ImportError:
            sp = None
        _SCIPY.append(sp)
    return _SCIPY[0]


def _linear(indices, sizes):
    """Row-major linear positions of the index columns within ``sizes``."""
    key = np.zeros(indices.shape[1], np.int64)
    for row, n in zip(indices, sizes):
        key *= n
        key += row
    return key


def _index_tensor(arr):
    return _make(np.ascontiguousarray(arr, dtype=np.int64))


class SegmentSum(Op):
    """Sums ``values[order]`` over runs starting at ``starts`` (coalescing duplicates).

    Why a primitive: one ``np.add.reduceat`` pass; the backward is a single gather.
    """

    def forward(self, values):
        if values.shape[0] == 0:
            return values.copy()
        if values.dtype.kind == "b":  # a bool sum is "any"
            return np.logical_or.reduceat(values[self.order], self.starts, axis=0)
        # (in the values' dtype: small integers wrap as torch's do, not widen to int64)
        return np.add.reduceat(values[self.order], self.starts, axis=0, dtype=values.dtype)

    def backward(self, grad):
        return _nt.index_select(grad, 0, _index_tensor(self.segment))


class SparseMM(Op):
    """out = S @ dense for S given by (rows, cols, values) with ``m`` rows.

    Why a primitive: a gathered segment sum (or SciPy's CSR product) instead of a dense
    ``m x k`` matrix; d dense = S^T @ g is the same op with rows and cols swapped,
    d values[e] = <g[rows[e]], dense[cols[e]]>.
    """

    def forward(self, values, dense, src=None):
        self.save_inputs(values, dense)
        rows, cols, m = self.rows, self.cols, self.m
        sp = _scipy_sparse()
        if sp is not None and values.dtype.kind in "fc" and dense.dtype == values.dtype and \
                values.dtype.itemsize >= 4:  # (SciPy has no float16 matrices)
            csr = sp.csr_matrix((values, (rows, cols)), shape=(m, dense.shape[0]))
            return np.ascontiguousarray(csr @ dense, dtype=dense.dtype)
        out = np.zeros((m,) + dense.shape[1:], np.result_type(values, dense))
        if rows.shape[0] == 0:
            return out
        if self.__dict__.get("rows_sorted"):  # coalesced: rows already ascend
            r, c, v = rows, cols, values
        else:
            order = np.argsort(rows, kind="stable")
            r, c, v = rows[order], cols[order], values[order]
        contrib = dense[c] * v.reshape((-1,) + (1,) * (dense.ndim - 1))
        first = np.empty(r.shape[0], bool)
        first[0] = True
        np.not_equal(r[1:], r[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        out[r[starts]] = np.add.reduceat(contrib, starts, axis=0)
        return out

    def backward(self, grad):
        values, dense = self.saved_inputs()
        need_values, need_dense = self.needs_input_grad[:2]
        g_values = g_dense = g_src = None
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            batch = self.__dict__.get("batch")  # (nb, m, k): a block-diagonal bmm batch
            if batch is None:
                g_src = grad @ dense.t()  # the whole matrix's (dense) gradient, as torch.mm
            else:
                nb, m, k = batch
                g_src = grad.reshape(nb, m, -1) @ dense.reshape(nb, k, -1).transpose(1, 2)
        if need_dense:
            g_dense = SparseMM.apply(values, grad, rows=self.cols, cols=self.rows,
                                     m=dense.shape[0])
        if need_values:
            g_rows = _nt.index_select(grad, 0, _index_tensor(self.rows))
            d_rows = _nt.index_select(dense, 0, _index_tensor(self.cols))
            g_values = (g_rows * d_rows).sum(1)
        if g_src is not None:
            return g_values, g_dense, g_src
        return g_values, g_dense


class ToDense(Op):
    """Scatters the values of a coalesced sparse tensor into a zero dense array.

    Why a primitive: a single assignment at unique linear positions; backward gathers them.
    """

    def forward(self, values):
        shape = self.shape
        out = np.zeros(shape, values.dtype)
        flat = out.reshape((-1,) + tuple(shape[self.sparse_dim:]))
        flat[self.linear] = values
        return out

    def backward(self, grad):
        flat = grad.reshape((-1,) + tuple(self.shape[self.sparse_dim:]))
        return _nt.index_select(flat, 0, _index_tensor(self.linear))


# -- construction --------------------------------------------------------------------------------
def _as_indices(indices):
    if isinstance(indices, Tensor):
        if is_sparse(indices):
            raise _unsupported("_sparse_coo_tensor_with_dims_and_tensors")
        arr = indices._array
    else:
        arr = np.asarray(indices)
    return np.ascontiguousarray(arr, dtype=np.int64)


def _check_size_len(size, sparse_dim, dense_dim):
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                           f"len(size) = {len(size)}, sparse_dim = {sparse_dim}, "
                           f"dense_dim = {dense_dim}")


def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values[k]`` at position ``indices[:, k]``.

    Args:
        indices: ``(sparse_dim, nnz)`` integers (Tensor, NumPy array or nested lists); stored
            as int64.
        values: ``(nnz,) + dense_shape`` values (Tensor or data); gradients flow back to a
            Tensor given here.
        size: the full shape; inferred from the largest index per sparse dimension when None.
        dtype, device, requires_grad: as for :func:`numtorch.tensor`.
        is_coalesced: declare the indices sorted and unique.

    ``sparse_coo_tensor(size)`` (or ``size=`` alone) is an empty tensor of that shape.

    Example:
        >>> torch.sparse_coo_tensor([[0, 1], [1, 0]], [2., 3.], (2, 2)).to_dense()
        tensor([[0., 2.],
                [3., 0.]])
    """
    if values is None and size is None and indices is not None:  # sparse_coo_tensor(size)
        indices, size = None, indices
    if indices is None and values is None and size is not None:
        dims = tuple(int(n) for n in size)
        dt = _dtype.as_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
        indices, values = np.zeros((len(dims), 0), np.int64), _nt.empty(0, dtype=dt)
        is_coalesced = True if is_coalesced is None else is_coalesced
    idx = _as_indices(indices)
    from ..sparse._invariants import checks_for  # (numtorch.sparse imports this module)

    check = checks_for(check_invariants)
    if device is not None and str(device).startswith("cuda"):
        raise RuntimeError("numtorch: sparse COO tensors are CPU-only (their kernels are "
                           "NumPy/SciPy); keep them on the CPU")
    if not isinstance(values, Tensor):
        values = _nt.tensor(values, dtype=dtype)
    if dtype is not None or device is not None:
        values = values.to(dtype=dtype, device=device)
    if idx.ndim != 2:
        if idx.ndim == 1 and size is not None and values.dim() > 0:
            # torch reads a 1-d index list's length as sparse_dim and checks size against it first
            _check_size_len(tuple(size), idx.shape[0], values.dim() - 1)
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    sparse_dim, nnz = idx.shape
    if values.dim() == 0:
        raise RuntimeError("values must be at least 1-dimensional")
    if size is not None:
        _check_size_len(tuple(size), sparse_dim, values.dim() - 1)
    if values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {values.shape[0]}")
    dense_shape = tuple(values.shape[1:])
    if nnz and (check or size is None):  # torch's checks (negative indices: always)
        _check_indices(idx, None if size is None else tuple(int(s) for s in size))
    if size is None:
        size = tuple(int(m) + 1 for m in idx.max(1)) if nnz else (0,) * sparse_dim
        size += dense_shape
    else:
        size = tuple(int(s) for s in size)
        if size[sparse_dim:] != dense_shape:
            raise RuntimeError(f"values has incorrect size, expected "
                               f"{[nnz, *size[sparse_dim:]]}, got {list(values.shape)}")
    origin = None
    if requires_grad:
        # a tensor of its own (the caller's values tensor stays as it was; memory is shared)
        values = _nt.tensor(values._array) if values._array.base is not None else \
            values.detach()
        values.requires_grad_(True)
        origin = _make(np.broadcast_to(np.zeros((), values._array.dtype), size))
        origin.requires_grad_(True)
    elif values.requires_grad:
        # not itself a leaf even when built from one, with torch's node name
        values = rename_node(values.view(values.shape),
                             "SparseCooTensorWithDimsAndTensorsBackward0")
    return make(idx, values, size, bool(is_coalesced) if is_coalesced is not None else nnz < 2,
                origin)


def _check_indices(idx, size):
    """torch's errors for a negative index, or (``size`` given) one past its dimension."""
    low, high = idx.min(1), idx.max(1)
    for d in range(idx.shape[0]):
        if low[d] < 0:
            raise RuntimeError(f"found negative index {int(low[d])} for dim {d}")
        if size is not None and d < len(size) and high[d] >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {int(high[d])}")


def _rebuild(indices, values, shape, coalesced):
    """Unpickling helper: a sparse tensor from its parts."""
    return make(indices._array, values, shape, coalesced)


def _rebuild_sparse_tensor(layout, data):
    """``torch._utils._rebuild_sparse_tensor`` in checkpoints: a COO tensor from
    ``(indices, values, size, is_coalesced)``."""
    if layout in (_nt.sparse_csr, _nt.sparse_csc, _nt.sparse_bsr, _nt.sparse_bsc):
        from ..sparse._compressed import sparse_compressed_tensor

        compressed, plain, values, size = data[:4]
        return sparse_compressed_tensor(compressed, plain, values, size, layout=layout,
                                        check_invariants=True)
    if layout is not _nt.sparse_coo:
        raise RuntimeError(f"rebuilding sparse tensors of layout {layout} is not supported "
                           "by numtorch")
    indices, values, size, coalesced = data[:4]
    # a checkpoint is untrusted: an index outside the size would read or drop the wrong
    # element later (torch's load leaves that to a later check; NumPy wraps negative ones)
    return sparse_coo_tensor(indices, values, size, is_coalesced=bool(coalesced),
                             check_invariants=True)


def to_sparse(input, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse()``: the non-zero entries of ``input`` as a coalesced COO tensor.

    With ``sparse_dim`` < ``input.dim()``, the trailing dimensions stay dense and a slice is
    stored when any of its elements is non-zero.
    """
    if layout is not None and layout is not _nt.sparse_coo:
        from ..sparse import _compressed

        if layout not in _compressed._INFO:
            raise RuntimeError(f"to_sparse for {layout} layout is not supported by numtorch")
        if is_sparse(input):
            return _compressed.coo_to_compressed(input, layout, blocksize, dense_dim)
        return _compressed.dense_to_compressed(input, layout, blocksize, dense_dim)
    if is_sparse(input):
        if sparse_dim is not None and sparse_dim != input.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim "
                               "argument != self.sparse_dim() is not supported")
        return input
    nd = input.dim()
    sd = nd if sparse_dim is None else int(sparse_dim)
    if sd > nd or sd < 0:
        raise RuntimeError(f"sparse_dim argument must be in [0,{nd}] but got {sd}")
    arr = input._array
    shape = tuple(arr.shape)
    mask = arr != 0
    if sd < nd:
        mask = mask.reshape(shape[:sd] + (-1,)).any(-1) if arr.size else \
            np.zeros(shape[:sd], bool)
    idx = np.stack(np.nonzero(mask)) if sd else np.zeros((0, int(mask)), np.int64)
    idx = idx.astype(np.int64, copy=False).reshape(sd, -1)
    linear = _linear(idx, shape[:sd])
    flat = input.reshape((-1,) + shape[sd:])
    values = _nt.index_select(flat, 0, _index_tensor(linear))
    return make(idx, values, shape, True, input if input.requires_grad else None)


def _coalesce_plan(s):
    """For storage ``s``: the sort order of its entries, where each run of equal indices
    starts in that order, and each entry's run number."""
    sd = s.indices.shape[0]
    key = _linear(s.indices, s.shape[:sd])
    order = np.argsort(key, kind="stable")
    ks = key[order]
    first = np.ones(ks.shape[0], bool)
    if ks.shape[0]:
        np.not_equal(ks[1:], ks[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    segment = np.empty(ks.shape[0], np.int64)
    segment[order] = np.cumsum(first) - 1
    return order, starts, segment


def leaf_grad(input, grad_values):
    """A sparse leaf's ``.grad``: the gradient at each distinct index (duplicates of an index
    all carry it), over the coalesced indices, as torch.sparse.mm reports it."""
    s = input._array
    if s.coalesced:
        return make(s.indices, grad_values, s.shape, True)
    order, starts, _ = _coalesce_plan(s)
    pick = order[starts]
    return make(np.ascontiguousarray(s.indices[:, pick]),
                _nt.index_select(grad_values, 0, _index_tensor(pick)), s.shape, True)


def coalesce(input):
    """Sorted, duplicate-free indices with duplicate entries summed (``self`` if already so)."""
    s = input._array
    if s.coalesced:
        return input
    order, starts, segment = _coalesce_plan(s)
    values = SegmentSum.apply(s.values, order=order, starts=starts, segment=segment,
                              node_name="CoalesceBackward0")  # torch's node
    return make(np.ascontiguousarray(s.indices[:, order[starts]]), values, s.shape, True)


def to_dense(input, dtype=None):
    """The dense tensor with the (summed) values at their indices; differentiable."""
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    c = coalesce(input)._array
    sd = c.indices.shape[0]
    if c.indices.shape[1]:
        # an index past its dimension (built without check_invariants): torch's invariant
        # error rather than a scatter out of bounds
        _check_indices(c.indices, c.shape[:sd])
    out = ToDense.apply(c.values, shape=c.shape, sparse_dim=sd,
                        linear=_linear(c.indices, c.shape[:sd]))
    return out


# -- arithmetic --------------------------------------------------------------------------------
def add(input, other):
    """``dense + sparse`` (dense result) or ``sparse + sparse`` (sparse; coalesced when both
    operands are)."""
    if is_sparse(input) and not is_sparse(other):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    if not isinstance(input, Tensor):
        raise _unsupported("add")
    if input.shape != other.shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has "
                           f"size {list(input.shape)} but other has size {list(other.shape)}")
    if not is_sparse(input):
        return input + to_dense(other)
    a, b = input._array, other._array
    if a.values.dtype is _dtype.bool and b.values.dtype is _dtype.bool:
        raise NotImplementedError("\"cadd_sparse\" not implemented for 'Bool'")
    values = _nt.cat([a.values, b.values])
    indices = np.concatenate([a.indices, b.indices], 1)
    flag = a.coalesced and b.coalesced
    plan = _merge_plan(a, b)
    if plan is None:  # entries in no order: they stack (values equal, nnz may exceed torch's)
        out = make(indices, values, a.shape, False)
    else:
        order, starts, segment = plan
        values = SegmentSum.apply(values, order=order, starts=starts, segment=segment)
        out = make(np.ascontiguousarray(indices[:, order[starts]]), values, a.shape, flag)
    rename_node(out._array.values, "AddBackward0")
    return out


def _merge_plan(a, b):
    """The entries of ``a + b`` as torch's kernel merges two index lists in step (an index
    in both is summed, else the smaller one comes first): for lists in ascending order (maybe
    with repeats, the k-th repeat in ``a`` meeting the k-th in ``b``), a SegmentSum plan over
    the concatenated entries; None when a list is out of order."""
    sd = a.indices.shape[0]
    ka, kb = _linear(a.indices, a.shape[:sd]), _linear(b.indices, a.shape[:sd])
    if ka.shape == kb.shape and (ka == kb).all():  # one list twice: summed entry by entry
        n = ka.size
        return (np.arange(2 * n).reshape(2, n).T.reshape(-1), np.arange(0, 2 * n, 2),
                np.concatenate([np.arange(n), np.arange(n)]))
    if (ka.size > 1 and (ka[1:] < ka[:-1]).any()) or (kb.size > 1 and (kb[1:] < kb[:-1]).any()):
        return None
    key = np.concatenate([ka, kb])
    # repeat number of each entry within its own list
    rank = np.concatenate([np.arange(ka.size) - np.searchsorted(ka, ka, "left"),
                           np.arange(kb.size) - np.searchsorted(kb, kb, "left")])
    order = np.lexsort((rank, key))  # stable: a's entry before b's on a tie
    ks, rs = key[order], rank[order]
    first = np.ones(ks.shape[0], bool)
    if ks.shape[0]:
        first[1:] = (ks[1:] != ks[:-1]) | (rs[1:] != rs[:-1])
    starts = np.flatnonzero(first)
    segment = np.empty(ks.shape[0], np.int64)
    segment[order] = np.cumsum(first) - 1
    return order, starts, segment


def mul(input, other):
    """``sparse * scalar`` (or a 0-d tensor): the values scaled, indices kept;
    ``sparse * sparse``: the entries both store (torch's intersection); ``sparse * dense`` (in
    either order): the values times the dense entries at their positions (the dense operand
    broadcast to the sparse shape)."""
    if isinstance(input, Tensor) and not is_sparse(input):
        input, other = other, input  # dense * sparse: the same product
    s = input._array
    if not isinstance(other, Tensor) or (not is_sparse(other) and other.dim() == 0):
        return make(s.indices, s.values * other, s.shape, s.coalesced)
    if is_sparse(other):
        return _mul_sparse(input, other)
    dense = other.expand(s.shape)
    at = dense[tuple(_index_tensor(row) for row in s.indices)]  # (nnz, *dense dims)
    return make(s.indices, s.values * at, s.shape, s.coalesced)


def _mul_sparse(a, b):
    """The product of two sparse tensors of one shape: the entries stored in both (duplicates
    summed first), the values multiplied."""
    sa, sb = a._array, b._array
    sd = sa.indices.shape[0]
    if tuple(sa.shape) != tuple(sb.shape) or sd != sb.indices.shape[0]:
        raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with "
                           "equal dimensionality, number of sparse dimensions, and shape of "
                           "sparse dimensions")
    flag = sa.coalesced and sb.coalesced
    ca, cb = coalesce(a)._array, coalesce(b)._array
    ka, kb = _linear(ca.indices, sa.shape[:sd]), _linear(cb.indices, sa.shape[:sd])
    _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    values = ca.values[_index_tensor(ia)] * cb.values[_index_tensor(ib)]
    return make(np.ascontiguousarray(ca.indices[:, ia]), values, sa.shape, flag)


def index_select(input, dim, index):
    """The slices at ``index`` along ``dim`` (repeats allowed, negative indices wrap): along a
    sparse dim the entries stored there, renumbered; along a dense dim the values' slices."""
    s = input._array
    sd, nd = s.indices.shape[0], len(s.shape)
    d = _nt.ops.canonical_dim(dim, nd)
    idx = index._array.reshape(-1).astype(np.int64) if isinstance(index, Tensor) else \
        np.asarray(index, np.int64).reshape(-1)
    size = s.shape[d]
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise IndexError(f"index_select(): index contains {int(idx[bad][0])} that is out of "
                         f"range for tensor of size {list(s.shape)} at dimension {d}")
    idx = idx % size if size else idx
    shape = list(s.shape)
    shape[d] = idx.shape[0]
    if d >= sd:
        values = s.values.index_select(d - sd + 1, _index_tensor(idx))
        return make(s.indices, values, shape, s.coalesced)
    order = np.argsort(s.indices[d], kind="stable")
    ordered = s.indices[d][order]
    lo = np.searchsorted(ordered, idx, "left")
    count = np.searchsorted(ordered, idx, "right") - lo
    starts = np.cumsum(count) - count
    within = np.arange(int(count.sum())) - np.repeat(starts, count)
    picked = order[np.repeat(lo, count) + within]
    indices = s.indices[:, picked]
    indices[d] = np.repeat(np.arange(idx.shape[0]), count)
    return make(np.ascontiguousarray(indices), s.values[_index_tensor(picked)], shape,
                picked.size <= 1)


def div(input, other):
    """``sparse / scalar``: the values divided, indices kept."""
    if isinstance(other, Tensor) and (is_sparse(other) or other.dim() != 0):
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor "
                           f"divisor (got shape {list(other.shape)} for divisor)")
    s = input._array
    return make(s.indices, s.values / other, s.shape, s.coalesced)


def transpose(input, dim0, dim1):
    """Swap two sparse dimensions (the result is not coalesced)."""
    s = input._array
    sd = s.indices.shape[0]
    d0, d1 = _nt.ops.canonical_dim(dim0, len(s.shape)), _nt.ops.canonical_dim(dim1, len(s.shape))
    if d0 >= sd or d1 >= sd:
        raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got "
                           f"sparse_dim: {sd}, d0: {d0}, d1: {d1}")
    perm = list(range(sd))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    shape = list(s.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    origin = None if s.origin is None else s.origin.transpose(d0, d1)
    return make(np.ascontiguousarray(s.indices[perm]), s.values, shape, d0 == d1 and s.coalesced,
                origin)


def sparse_sum(input, dim=None, dtype=None, merge_first=False):
    """``torch.sparse.sum``: all values (a dense 0-d tensor), or over ``dim`` (sparse result
    while sparse dimensions remain, else dense). ``merge_first``: torch.sparse.sum's form,
    which coalesces first (``Tensor.sum`` does not)."""
    s = input._array
    if merge_first and not s.coalesced and s.values.dtype._category < _dtype._FLOAT:
        # torch coalesces first: duplicates of bool values merge ("any") and small integers
        # wrap in their own dtype before the (int64) sum
        s = coalesce(input)._array
    values = s.values if dtype is None else s.values.to(dtype)
    if dim is None:
        return values.sum()
    nd = len(s.shape)
    dims = {_nt.ops.canonical_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)}
    sd = s.indices.shape[0]
    dense_dims = sorted(d - sd + 1 for d in dims if d >= sd)
    if dense_dims:
        values = values.sum(dense_dims)
    keep = [d for d in range(sd) if d not in dims]
    if not keep:
        return values.sum(0)
    shape = [s.shape[d] for d in keep] + [n for d, n in enumerate(s.shape) if d >= sd and
                                          d not in dims]
    return coalesce(make(np.ascontiguousarray(s.indices[keep]), values, shape, False))


# -- products ----------------------------------------------------------------------------------
def _check_pair(fn, a, b):
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument must be Tensor, not {type(t).__name__}")
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError(f"{fn}: matrices expected, got {a.dim()}D, {b.dim()}D tensors")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[a.dtype.name]} but "
                           f"found {_dtype._TYPE_DISPLAY[b.dtype.name]}")


def _sparse_dense(sparse, dense, dense_grad):
    s = sparse._array
    if s.indices.shape[0] != 2:
        raise RuntimeError("mm: sparse tensors with dense dimensions are not supported")
    if dense.shape[0] != s.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, "
                           f"got {dense.shape[0]}")
    params = {"rows": s.indices[0], "cols": s.indices[1], "m": s.shape[0],
              "rows_sorted": s.coalesced}
    if dense_grad and s.origin is not None and s.values.requires_grad:
        # the gradient goes to the whole matrix (origin), not entry by entry to the values
        return SparseMM.apply(s.values.detach(), dense, s.origin, **params)
    return SparseMM.apply(s.values, dense, **params)


def mm(input, mat2, dense_grad=True):
    """Sparse x dense or dense x sparse matrix product (dense result).

    Gradients reach the dense operand and the sparse operand: with ``dense_grad`` (torch.mm,
    matmul, spmm, ``@``) a sparse leaf or the input of ``to_sparse()`` gets the whole dense
    gradient; otherwise (torch.sparse.mm) only its stored entries do.
    """
    _check_pair("mm", input, mat2)
    if is_sparse(input) and is_sparse(mat2):
        return _sparse_sparse(input, mat2)
    if not is_sparse(input) and not is_sparse(mat2):  # torch.sparse.mm of two dense matrices
        return _nt.mm(mat2.t(), input.t()).t()  # torch's operand order (and shape error)
    if is_sparse(input):
        out = _sparse_dense(input, mat2, dense_grad)
        return rename_node(out, "MmBackward0" if dense_grad else "SparseAddmmBackward0")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x"
                           f"{input.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    # D @ S = (S^T @ D^T)^T
    out = _sparse_dense(transpose(mat2, 0, 1), input.t(), dense_grad).t()
    return rename_node(out, "MmBackward0" if dense_grad else "TransposeBackward0")


def _sparse_sparse(a, b):
    """The product of two 2-D sparse matrices as a coalesced sparse matrix: every stored
    ``a[i, p]`` meets every stored ``b[p, j]`` (pairs found by sorting b's rows, no dense
    operand), the products summed per ``(i, j)``; gradients reach both value tensors."""
    sa, sb = coalesce(a)._array, coalesce(b)._array
    if sa.indices.shape[0] != 2 or sb.indices.shape[0] != 2 or len(sa.shape) != 2 or \
            len(sb.shape) != 2:
        raise _unsupported("_sparse_sparse_matmul")
    m, k = sa.shape
    k2, n = sb.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})")
    brow = sb.indices[0]  # (coalesced: sorted by row)
    lo = np.searchsorted(brow, sa.indices[1], "left")
    count = np.searchsorted(brow, sa.indices[1], "right") - lo
    starts = np.cumsum(count) - count
    ia = np.repeat(np.arange(count.shape[0]), count)
    ib = np.repeat(lo, count) + (np.arange(int(count.sum())) - np.repeat(starts, count))
    values = sa.values[_index_tensor(ia)] * sb.values[_index_tensor(ib)]
    indices = np.stack([sa.indices[0][ia], sb.indices[1][ib]])
    return coalesce(make(indices, values, (m, n), ia.size <= 1))


def cat(tensors, dim=0):
    """``torch.cat`` of sparse COO tensors along a sparse dim: the entries of each, their index
    along ``dim`` shifted past the tensors before it (the result is not coalesced)."""
    for i, x in enumerate(tensors):
        if not is_sparse(x):
            raise RuntimeError(f"Concatenating sparse tensors, but a dense tensor was found at "
                               f"position {i}.")
    shape0 = tuple(tensors[0].shape)
    d = _nt.ops.canonical_dim(dim, len(shape0))
    for i, x in enumerate(tensors):
        s = tuple(x.shape)
        if len(s) != len(shape0) or s[:d] + s[d + 1:] != shape0[:d] + shape0[d + 1:]:
            raise RuntimeError(f"All tensors must have the same shape: {list(shape0)} (except in "
                               f"the concatenating dimension), but found shape: {list(s)} at "
                               f"position {i}.")
    sd = tensors[0].sparse_dim()
    if any(x.sparse_dim() != sd for x in tensors):
        raise _unsupported("cat")
    if d >= sd:
        return _cat_dense_dim(tensors, d, sd, shape0)
    parts, offset = [], 0
    for x in tensors:
        idx = x._array.indices.copy()
        idx[d] += offset
        offset += x.shape[d]
        parts.append(idx)
    shape = shape0[:d] + (offset,) + shape0[d + 1:]
    values = _nt.cat([x._array.values for x in tensors])
    return make(np.concatenate(parts, 1), values, shape, False)


def _cat_dense_dim(tensors, d, sd, shape0):
    """``cat`` along a dense dim, as torch: the entries of every tensor kept (indices side by
    side, not coalesced), each value block zero-padded to the joined size at its own offset."""
    vd = d - sd + 1  # the dim in the values tensor
    total = sum(x.shape[d] for x in tensors)
    dtype = tensors[0].dtype
    for x in tensors[1:]:
        dtype = _nt.promote_types(dtype, x.dtype)
    blocks, offset = [], 0
    for x in tensors:
        v = x._array.values.to(dtype)
        size = x.shape[d]
        parts = []
        for n in (offset, None, total - offset - size):
            if n is None:
                parts.append(v)
            elif n:
                zshape = list(v.shape)
                zshape[vd] = n
                parts.append(v.new_zeros(zshape))
        blocks.append(_nt.cat(parts, vd) if len(parts) > 1 else v)
        offset += size
    indices = np.concatenate([x._array.indices for x in tensors], 1)
    shape = shape0[:d] + (total,) + shape0[d + 1:]
    return make(indices, _nt.cat(blocks), shape, False)


def matmul(input, other):
    """``@``, ``matmul`` and ``mv`` with a sparse matrix: a 1-D dense operand is a vector, as
    in torch (the result is 1-D); otherwise :func:`mm`."""
    if is_sparse(input) and not is_sparse(other) and isinstance(other, Tensor) and \
            other.dim() == 1:
        return rename_node(mm(input, other.unsqueeze(1)).squeeze(1), "MvBackward0")
    if is_sparse(other) and not is_sparse(input) and isinstance(input, Tensor) and \
            input.dim() == 1:
        return mm(input.unsqueeze(0), other).squeeze(0)
    return mm(input, other)


def bmm(input, mat2):
    """``torch.bmm`` of a 3-D sparse COO batch (three sparse dims) and a dense batch: one
    block-diagonal sparse matrix (batch ``b``'s rows and columns shifted by ``b`` blocks) times
    the stacked dense matrices, so it is one sparse product; a sparse leaf's gradient is
    dense, as in torch.
    """
    s = input._array
    if len(s.shape) != 3 or s.indices.shape[0] != 3:
        raise RuntimeError(f"bmm_sparse: Tensor 'self' must have 3 sparse dims, but has "
                           f"{s.indices.shape[0]}")
    if not isinstance(mat2, Tensor) or is_sparse(mat2):
        raise RuntimeError("bmm_sparse: Tensor 'mat2' must be dense")
    if mat2.dim() != 3:
        raise RuntimeError(f"bmm_sparse: Tensor 'mat2' must have 3 dims, but has {mat2.dim()}")
    nb, m, k = s.shape
    if mat2.shape[0] != nb:
        raise RuntimeError("bmm_sparse: 'self.size(0)' and 'mat2.size(0)' must match")
    if mat2.shape[1] != k:
        raise RuntimeError("bmm_sparse: 'self.size(2)' and 'mat2.size(1)' must match")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[input.dtype.name]} but "
                           f"found {_dtype._TYPE_DISPLAY[mat2.dtype.name]}")
    idx, n = s.indices, mat2.shape[2]
    params = {"rows": idx[0] * m + idx[1], "cols": idx[0] * k + idx[2], "m": nb * m,
              "rows_sorted": s.coalesced}
    dense = mat2.reshape(nb * k, n)
    if s.origin is not None and s.values.requires_grad:
        # a sparse leaf (or to_sparse()'s input) gets the whole dense gradient, as in torch
        out = SparseMM.apply(s.values.detach(), dense, s.origin, batch=(nb, m, k), **params)
    else:
        out = SparseMM.apply(s.values, dense, **params)
    return rename_node(out.reshape(nb, m, n), "BmmBackward0")


def spmm(input, mat2):
    """``torch.spmm``: :func:`mm` with a sparse first operand; two dense operands are a plain
    ``torch.mm`` (row-major result, unlike torch.sparse.mm's transposed one: the layout decides
    which elements a later dropout mask hits, as in gcn's dense adjacency)."""
    if isinstance(input, Tensor) and isinstance(mat2, Tensor) and not is_sparse(input) \
            and not is_sparse(mat2):
        return _nt.mm(input, mat2)
    return mm(input, mat2)



def sparse_softmax(input, dim, dtype=None, log=False):
    """Softmax (or log-softmax) of a sparse COO tensor along ``dim`` over its specified
    entries only (unspecified ones count as -inf, so the pattern is kept); the result is
    coalesced and differentiable through the values."""
    c = coalesce(input)._array
    vals = c.values if dtype is None else c.values.to(dtype)
    sd = c.indices.shape[0]
    d = _nt.ops.canonical_dim(dim, len(c.shape))
    if d >= sd:  # a dense dimension: an ordinary softmax of the values
        fn = _nt.nn.functional.log_softmax if log else _nt.nn.functional.softmax
        out = fn(vals, d - sd + 1)
    else:  # entries that differ only in index ``d`` form one group
        narrow = vals.dtype if log and vals.dtype is _dtype.float32 else None
        if narrow is not None:  # torch's sparse log-softmax computes float32 in double
            vals = vals.to(_dtype.float64)
        keep = [k for k in range(sd) if k != d]
        key = _linear(c.indices[keep], [c.shape[k] for k in keep])
        _, group = np.unique(key, return_inverse=True)
        n = int(group.max()) + 1 if group.size else 0
        g = _index_tensor(group.reshape(-1))
        top = _nt.full((n,) + tuple(vals.shape[1:]), -np.inf, dtype=vals.dtype)
        gx = g.view((-1,) + (1,) * (vals.dim() - 1)).expand(vals.shape)
        top = top.scatter_reduce(0, gx, vals.detach(), "amax").index_select(0, g)
        shifted = vals - top
        e = shifted.exp()
        total = _nt.zeros((n,) + tuple(vals.shape[1:]), dtype=vals.dtype).index_add(0, g, e)
        total = total.index_select(0, g)
        out = shifted - total.log() if log else e / total
        if narrow is not None:
            out = out.to(narrow)
    name = "LogSoftmaxBackward0" if log else "SoftmaxBackward0"
    return make(c.indices, rename_node(out, "Sparse" + name), c.shape, True)


# -- shape: unsqueeze, select, integer indexing, pow ---------------------------------------------
def unsqueeze(input, dim):
    """A size-1 dim at ``dim``: a zero index row among the sparse dims, else a dense dim of the
    values (torch marks the result uncoalesced either way)."""
    s = input._array
    sd = s.indices.shape[0]
    d = _nt.ops.canonical_dim(dim, len(s.shape) + 1)
    shape = s.shape[:d] + (1,) + s.shape[d:]
    if d <= sd:
        zero = np.zeros((1, s.indices.shape[1]), dtype=s.indices.dtype)
        indices = np.concatenate([s.indices[:d], zero, s.indices[d:]])
        return make(indices, s.values, shape, False)
    return make(s.indices, s.values.unsqueeze(d - sd + 1), shape, False)


def select(input, dim, index, getitem=False):
    """The slice at ``index`` along ``dim``: the entries stored there, with that index row
    dropped (a dense scalar once no dim is left); along a dense dim, the values' slice."""
    s = input._array
    sd = s.indices.shape[0]
    d = _nt.ops.canonical_dim(dim, len(s.shape))
    size = s.shape[d]
    if not -size <= index < size:
        if getitem:
            raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(s.shape)} at dimension {d}")
    index %= size
    shape = s.shape[:d] + s.shape[d + 1:]
    nnz = s.indices.shape[1]
    if d >= sd:  # (torch calls the result coalesced only when it has at most one entry)
        return make(s.indices, s.values.select(d - sd + 1, index), shape, nnz <= 1)
    keep = np.flatnonzero(s.indices[d] == index)
    values = s.values[_make(keep)]
    if sd == 1:  # nothing sparse left: the stored values (duplicates summed) or zeros
        return values.sum(0)
    indices = np.delete(s.indices[:, keep], d, axis=0)
    return make(indices, values, shape, keep.size <= 1)


def narrow_copy(input, dim, start, length):
    """``length`` entries of ``dim`` from ``start`` as a new sparse tensor: the stored entries
    in that range (their index shifted) or, along a dense dim, the values' slice; the input's
    coalesced flag is kept. torch takes no negative dim or start here."""
    s = input._array
    nd = len(s.shape)
    if not 0 <= dim < nd:
        raise RuntimeError(f"Dimension {dim} out of range. Expecting 0 <= dim < {nd}.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    size = s.shape[dim]
    if start < 0 or start + length > size:
        raise RuntimeError(f"Invalid range to narrow. range(start, start+length) must be a "
                           f"subset of range(0, {size}).")
    sd = s.indices.shape[0]
    shape = s.shape[:dim] + (length,) + s.shape[dim + 1:]
    if dim >= sd:
        indices = s.indices.copy()
        values = s.values.narrow(dim - sd + 1, start, length).clone()
    else:
        row = s.indices[dim]
        keep = np.flatnonzero((row >= start) & (row < start + length))
        indices = s.indices[:, keep]  # (a fancy-indexed copy: shifted in place below)
        indices[dim] -= start
        values = s.values[_make(keep)]
    if values.grad_fn is not None:
        rename_node(values, "NarrowCopyBackward0")
    return make(indices, values, shape, s.coalesced)


def getitem(input, index):
    """``t[i]``, ``t[i, j, ...]`` and ``t[:, j]``: integers select, full slices keep a dim;
    other indices have no sparse kernel."""
    items = index if isinstance(index, tuple) else (index,)
    full = slice(None)

    def plain_int(i):
        return isinstance(i, int) and not isinstance(i, bool)

    if not items or not all(plain_int(i) or i == full for i in items) or \
            not any(plain_int(i) for i in items):
        raise _unsupported("index")
    out, d = input, 0
    for i in items:  # ``:`` keeps a dim, an integer selects along it (t[:, 1])
        if plain_int(i):
            out = select(out, d, i, getitem=True)
        else:
            d += 1
    return out


def pow(input, exponent):
    """``sparse ** exponent`` for a positive number: the coalesced values raised."""
    if isinstance(exponent, Tensor):
        raise _unsupported("pow.Tensor_Tensor" if exponent.dim() else "pow.Tensor_Scalar")
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make "
                           "the result tensor dense")
    s = coalesce(input)._array
    return make(s.indices, s.values.pow(exponent), s.shape, True)


def permute(input, dims):
    """Sparse dims reorder their index rows, dense dims the values' dims (torch keeps the two
    groups apart)."""
    s = input._array
    sd = s.indices.shape[0]
    if len(dims) != len(s.shape):  # before the dims are checked, as torch
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {len(s.shape)} is not equal to len(dims) = "
                           f"{len(dims)}")
    perm = [_nt.ops.canonical_dim(d, len(s.shape)) for d in dims]
    if sorted(perm) != list(range(len(s.shape))):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if sorted(perm[:sd]) != list(range(sd)):
        raise RuntimeError("permute(sparse_coo): transpositions between sparse and dense "
                           "dimensions are not allowed.Only transpositions within sparse and "
                           "dense dimensions are supported.")
    values = s.values.permute([0] + [d - sd + 1 for d in perm[sd:]])
    shape = [s.shape[d] for d in perm]
    coalesced = s.coalesced and perm[:sd] == list(range(sd))
    return make(np.ascontiguousarray(s.indices[perm[:sd]]), values, shape, coalesced)


def _row_product(fn, input, mat2):
    """The rows of ``input @ mat2`` that ``input`` stores entries in (sorted, unique), and
    those rows' products; shared by :func:`smm` and :func:`hspmm` (no gradient, as torch)."""
    if not is_sparse(input):
        if fn == "hspmm":
            raise no_kernel("hspmm", "CPU")
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    if not isinstance(mat2, Tensor):
        raise TypeError(f"{fn}(): argument 'mat2' (position 2) must be Tensor, not "
                        f"{type(mat2).__name__}")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[input.dtype.name]} but "
                           f"found {_dtype._TYPE_DISPLAY[mat2.dtype.name]}")
    name = "sspaddmm" if fn == "smm" else fn
    if mat2.dim() != 2:
        raise RuntimeError(f"{name}: Argument #3: matrices expected, got {mat2.dim()}D tensor")
    s = input._array
    if len(s.shape) != 2 or s.indices.shape[0] != 2:
        raise RuntimeError(f"{name}: Argument #2: matrices expected, got {len(s.shape)}D "
                           f"tensor")
    if mat2.shape[0] != s.shape[1]:
        raise RuntimeError(f"{name}: Argument #3: Expected dim 0 size {s.shape[1]}, got "
                           f"{mat2.shape[0]}")
    with _nt.no_grad():
        prod = mm(input.detach(), mat2.detach())
    rows = np.unique(s.indices[0])
    return rows, prod[_index_tensor(rows)], (s.shape[0], mat2.shape[1])


def smm(input, mat2):
    """``torch.smm``: sparse @ dense as a sparse COO matrix that stores every column of each
    row the sparse operand has entries in (not flagged coalesced unless empty)."""
    rows, vals, shape = _row_product("smm", input, mat2)
    n = shape[1]
    indices = np.stack([np.repeat(rows, n), np.tile(np.arange(n, dtype=np.int64), rows.size)])
    return make(indices, vals.reshape(-1), shape, rows.size * n == 0)


def hspmm(input, mat2):
    """``torch.hspmm``: sparse @ dense as a hybrid COO tensor (one sparse dim: the rows the
    sparse operand has entries in; each value a dense row of the product)."""
    rows, vals, shape = _row_product("hspmm", input, mat2)
    return make(rows[None].astype(np.int64), vals, shape, rows.size == 0)
