"""``torch.sparse``: products and reductions of sparse COO tensors (see ``numtorch._sparse``)
and of the compressed layouts CSR/CSC/BSR/BSC (see ``_compressed``)."""

from ..ops.sparse_ops import mm as _mm
from ..ops.sparse_ops import sparse_softmax as _sparse_softmax
from ..ops.sparse_ops import sparse_sum as _sparse_sum
from ..autograd.graph import rename_node as _rename
from . import (
    _compressed,
    _compressed_tensor,  # noqa: F401  (CSR/CSC/BSR/BSC tensors)
)
from ._compressed import compressed_mm as _compressed_mm
from ._compressed import is_compressed as _is_compressed
from ._invariants import check_sparse_tensor_invariants  # noqa: F401
from ._legacy import (  # noqa: F401  (the 0.x names torch.sparse.FloatTensor & co)
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)

__all__ = ["addmm", "mm", "sum", "softmax", "log_softmax", "check_sparse_tensor_invariants"]


def mm(mat1, mat2, reduce=None):
    """Matrix product of a sparse COO matrix with a dense one (or the reverse); the result is
    dense and gradients reach the dense operand and the sparse values.

    Example:
        >>> s = torch.eye(2).to_sparse()
        >>> torch.sparse.mm(s, torch.ones(2, 3)).shape
        torch.Size([2, 3])
    """
    if _is_compressed(mat1) or _is_compressed(mat2):
        if reduce is not None:
            return _compressed.mm_reduce(mat1, mat2, reduce)
        return _compressed_mm(mat1, mat2, dense_grad=False, name="SparseAddmmBackward0")
    if reduce is not None:
        from .._sparse import _unsupported

        raise _unsupported("_sparse_mm_reduce_impl")
    return _mm(mat1, mat2, dense_grad=False)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse and ``mat`` dense."""
    if _is_compressed(mat1) or _is_compressed(mat2):
        return beta * mat + alpha * _compressed_mm(mat1, mat2, dense_grad=False)
    return _rename(beta * mat + alpha * _mm(mat1, mat2, dense_grad=False), "SparseAddmmBackward0")


def sum(input, dim=None, dtype=None):
    """Sum of a sparse tensor's values: a dense 0-d tensor, or over ``dim`` (sparse while
    sparse dimensions remain)."""
    return _sparse_sum(input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    """Softmax of a sparse COO tensor along ``dim`` over its specified entries (the others
    count as -inf): a coalesced sparse tensor with the same pattern."""
    return _sparse_softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """Log-softmax of a sparse COO tensor along ``dim`` over its specified entries."""
    return _sparse_softmax(input, dim, dtype, log=True)
