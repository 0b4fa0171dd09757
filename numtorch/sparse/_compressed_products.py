"""Products of compressed sparse matrices with dense ones (``torch.mm``/``matmul``/``addmm``,
``@``, ``torch.sparse.mm`` with and without ``reduce``).

Blocks are expanded into element coordinates (one ``np.repeat`` of the compressed counts and a
broadcast over the block), and the product is the COO primitive
:class:`numtorch.ops.sparse_ops.SparseMM` on those coordinates: a segment sum over rows in
NumPy, or SciPy's CSR kernel when SciPy is importable. Gradients reach the values and the
dense operand as torch gives them (the whole dense gradient for a ``to_sparse_csr()`` input or
a ``requires_grad=True`` leaf under ``torch.mm``, the stored entries' under ``torch.sparse.mm``).
"""

import numpy as np

import numtorch as _nt

from .. import _dtype, _layout
from .._tensor import Tensor, _make
from ..autograd.graph import rename_node
from ._compressed import (
    _INFO,
    _coords,
    _unsupported,
    dense_to_compressed,
    is_compressed,
    to_dense,
)

__all__ = ["compressed_matmul", "compressed_mm", "mm_reduce"]


def _elements(s):
    """Element-level (rows, cols) of every stored value (blocks expanded row-major), in the
    order of ``values.reshape(-1)``, for an unbatched tensor without dense dimensions."""
    _, br, bc, (_, _, _, r, c) = _coords(s)
    ii, jj = np.meshgrid(np.arange(r), np.arange(c), indexing="ij")
    rows = (br[:, None] * r + ii.reshape(1, -1)).reshape(-1)
    cols = (bc[:, None] * c + jj.reshape(1, -1)).reshape(-1)
    return rows, cols


def _check_dtypes(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[a.dtype.name]} but "
                           f"found {_dtype._TYPE_DISPLAY[b.dtype.name]}")


def compressed_mm(input, mat2, dense_grad=True, name="MmBackward0"):
    """Compressed x dense or dense x compressed matrix product (dense result)."""
    from ..ops.sparse_ops import SparseMM

    for t in (input, mat2):
        if not isinstance(t, Tensor):
            raise TypeError(f"mm(): argument 'mat2' (position 2) must be Tensor, not "
                            f"{type(t).__name__}")
    if is_compressed(input) and is_compressed(mat2):
        return compressed_sparse_sparse(input, mat2)
    sp, dense = (input, mat2) if is_compressed(input) else (mat2, input)
    s = sp._array
    _check_blocked_product(s, sp is input, dense.dim() == 1)
    if s.batch_dim:
        raise RuntimeError(f"expand is unsupported for {_INFO[s.layout][0]} tensors")
    if s.dense_dim:  # (torch's kernels look for strides on hybrid tensors)
        raise RuntimeError("Sparse CSR tensors do not have strides")
    if dense.dim() != 2:
        if is_compressed(input) and dense.dim() == 1:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but "
                             "got 1)")
        raise RuntimeError("mat2 must be a matrix" if sp is input else "self must be a matrix")
    a_shape, b_shape = tuple(input.shape), tuple(mat2.shape)
    if a_shape[1] != b_shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a_shape[0]}x"
                           f"{a_shape[1]} and {b_shape[0]}x{b_shape[1]})")
    _check_dtypes(input, mat2)
    if s.values.dtype.is_floating_point is False and not s.values.dtype.is_complex:
        raise NotImplementedError(f"\"addmm_out_sparse_csr_impl_mkl\" not implemented for "
                                  f"'{_dtype._TYPE_DISPLAY[s.values.dtype.name]}'")
    rows, cols = _elements(s)
    values = s.values.reshape(-1)
    m, n = s.shape
    if sp is input:
        if dense_grad and s.origin is not None and s.values.requires_grad:
            out = SparseMM.apply(values.detach(), dense, s.origin, rows=rows, cols=cols, m=m)
        else:
            out = SparseMM.apply(values, dense, rows=rows, cols=cols, m=m,
                                 rows_sorted=_INFO[s.layout][3] and not s.blocked)
    else:  # D @ S = (S^T @ D^T)^T
        if dense_grad and s.origin is not None and s.values.requires_grad:
            out = SparseMM.apply(values.detach(), dense.t(), s.origin.t(), rows=cols,
                                 cols=rows, m=n).t()
        else:
            out = SparseMM.apply(values, dense.t(), rows=cols, cols=rows, m=n).t()
    return rename_node(out, name)


def _check_blocked_product(s, sparse_left, vector):
    """torch's CPU refusals for blocked operands (BSC on the left, BSR on the right,
    non-square blocks)."""
    if not s.blocked:
        return
    name = _INFO[s.layout][0]
    if sparse_left and s.layout is _layout.sparse_bsc:
        if vector:
            raise RuntimeError(f"torch.addmv: operation not supported for mat with {name} "
                               "layout")
        raise RuntimeError(f"addmm: computation on CPU is not implemented for Strided + {name} "
                           "@ Strided")
    if not sparse_left and s.layout is _layout.sparse_bsr:
        raise RuntimeError(f"addmm: computation on CPU is not implemented for Strided + "
                           f"Strided @ {name}")
    r, c = s.blocksize
    if r != c:
        raise RuntimeError("MKL Sparse doesn't support matrices with non-square blocks.")


_REDUCE_NODE = "SparseMmReduceImplBackward0"


def mm_reduce(input, mat2, reduce):
    """``torch.sparse.mm(csr, dense, reduce)``: per row, the products of its stored entries
    with the matching rows of ``mat2`` reduced by "sum", "mean", "amax"/"max" or "amin"
    (rows without entries give 0); differentiable in the values and ``mat2``."""
    s = input._array
    if s.layout is not _layout.sparse_csr:
        raise RuntimeError(f"sparse_mm_reduce: expect self to be SparseCsr, got "
                           f"{_INFO[s.layout][0]}")
    if reduce not in ("sum", "mean", "amax", "amin", "max", "min"):
        raise RuntimeError(f"sparse_mm_reduce: reduce type of {reduce} has not been enabled.")
    if reduce == "sum":
        return rename_node(compressed_mm(input, mat2, dense_grad=False), _REDUCE_NODE)
    rows, cols = _elements(s)
    m = s.shape[0]
    contrib = s.values.reshape(-1, 1) * _nt.index_select(mat2, 0, _make(cols))
    if reduce == "mean":
        total = compressed_mm(input, mat2, dense_grad=False)
        counts = np.maximum(np.diff(s.compressed.astype(np.int64)), 1)
        out = total / _nt.tensor(counts.astype(total._array.dtype)).reshape(-1, 1)
    else:
        how = "amax" if reduce in ("amax", "max") else "amin"
        index = _make(np.ascontiguousarray(np.broadcast_to(rows[:, None], contrib.shape)))
        out = _nt.zeros((m, mat2.shape[1]), dtype=contrib.dtype).scatter_reduce(
            0, index, contrib, how, include_self=False)
    return rename_node(out, _REDUCE_NODE)


def compressed_sparse_sparse(a, b):
    """Product of two compressed matrices: torch gives a CSR result (computed densely here
    from the two operands' values, so gradients still reach them)."""
    la, lb = a._array.layout, b._array.layout
    if la not in (_layout.sparse_csr, _layout.sparse_csc) or \
            lb not in (_layout.sparse_csr, _layout.sparse_csc):
        raise _unsupported("mm", la)
    prod = compressed_mm(a, to_dense(b))
    out = dense_to_compressed(prod.detach(), _layout.sparse_csr)
    return out


def compressed_matmul(input, other):
    """``@``/``matmul``: a 1-D dense right operand is a vector (1-D result)."""
    if is_compressed(input) and isinstance(other, Tensor) and not is_compressed(other) and \
            other.dim() == 1:
        _check_blocked_product(input._array, True, True)
        return rename_node(compressed_mm(input, other.unsqueeze(1)).squeeze(1), "MvBackward0")
    if is_compressed(other) and isinstance(input, Tensor) and input.dim() == 1:
        return compressed_mm(input.unsqueeze(0), other).squeeze(0)
    return compressed_mm(input, other)
