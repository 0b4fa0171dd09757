"""``torch.sparse``: products and reductions of sparse COO tensors (see ``numtorch._sparse``)
and of the compressed layouts CSR/CSC/BSR/BSC (see ``_compressed``)."""

from ..ops.sparse_ops import mm as _mm
from ..ops.sparse_ops import sparse_softmax as _sparse_softmax
from ..ops.sparse_ops import sparse_sum as _sparse_sum
from ..autograd.graph import Op as _Op
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

__all__ = ["addmm", "mm", "sum", "softmax", "log_softmax", "check_sparse_tensor_invariants",
           "sampled_addmm", "spdiags"]


class _SpdiagsValues(_Op):
    """The entries spdiags takes from its diagonals (``diags[which, col]``); torch defines no
    derivative for spdiags, so backward raises its error."""

    def forward(self, diags):
        return diags[self.xp.asarray(self.which), self.xp.asarray(self.col)]

    def backward(self, grad):
        raise RuntimeError("derivative for aten::_spdiags is not implemented")


def spdiags(diagonals, offsets, shape, layout=None):
    """A sparse 2-D tensor of ``shape`` with row ``i`` of ``diagonals`` on diagonal
    ``offsets[i]`` (0 main, > 0 above, < 0 below): element ``diagonals[i, j]`` goes to
    ``(j - offsets[i], j)`` where that lies inside. COO (uncoalesced) by default, or
    ``torch.sparse_csr``/``torch.sparse_csc``; differentiable in ``diagonals``.

    Example:
        >>> torch.sparse.spdiags(torch.ones(2, 3), torch.tensor([0, 1]), (3, 3)).to_dense()
        tensor([[1., 1., 0.],
                [0., 1., 1.],
                [0., 0., 1.]])
    """
    import numpy as np

    from .. import _dtype, _layout
    from .._from_data import tensor as _tensor
    from .._tensor import Tensor

    for pos, (name, t) in enumerate((("diagonals", diagonals), ("offsets", offsets)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"_spdiags(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(t).__name__}")
    kinds = {_layout.sparse_coo: "Sparse", _layout.sparse_csr: "SparseCsr",
             _layout.sparse_csc: "SparseCsc"}
    if layout is not None and layout not in kinds:
        word = {_layout.strided: "Strided", _layout.sparse_bsr: "SparseBsr",
                _layout.sparse_bsc: "SparseBsc"}.get(layout, str(layout))
        raise RuntimeError(f"Only output layouts (Sparse, SparseCsc, SparseCsr) are supported, "
                           f"got {word}")
    shape = tuple(shape)
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if diagonals.dim() > 2:
        raise RuntimeError("Diagonals must be vector or matrix")
    if offsets.dim() > 1:
        raise RuntimeError("Offsets must be scalar or vector")
    if offsets.dtype is not _dtype.int64:
        show = _dtype._TYPE_DISPLAY
        raise RuntimeError(f"Offset Tensor must have dtype Long but got "
                           f"{show[offsets.dtype.name]}")
    diags = diagonals.reshape(1, -1) if diagonals.dim() < 2 else diagonals
    offs = offsets.detach().cpu().numpy().reshape(-1).astype(np.int64)
    if diags.shape[0] != offs.size:
        raise RuntimeError(f"Number of diagonals ({diags.shape[0]}) does not match the number "
                           f"of offsets ({offs.size})")
    if np.unique(offs).size != offs.size:
        raise RuntimeError("Offset tensor contains duplicate values")
    rows, cols = shape
    j = np.arange(min(cols, diags.shape[1]))[None, :]
    o = offs[:, None]
    inside = (j >= o) & (j - o < rows)  # (row j - o in [0, rows)): diagonal by diagonal
    which, col = np.nonzero(inside)
    dev = diagonals.device
    idx = _tensor(np.stack([col - offs[which], col]), device=dev)
    values = _SpdiagsValues.apply(diags, which=which, col=col, node_name="SpdiagsBackward0")
    from .. import sparse_coo_tensor

    out = sparse_coo_tensor(idx, values, shape, check_invariants=False)
    if layout is _layout.sparse_csr:
        return out.to_sparse_csr()
    if layout is _layout.sparse_csc:
        return out.to_sparse_csc()
    return out


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
    return _sparse_sum(input, dim, dtype, merge_first=True)


def softmax(input, dim, *, dtype=None):
    """Softmax of a sparse COO tensor along ``dim`` over its specified entries (the others
    count as -inf): a coalesced sparse tensor with the same pattern."""
    return _sparse_softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    """Log-softmax of a sparse COO tensor along ``dim`` over its specified entries."""
    return _sparse_softmax(input, dim, dtype, log=True)


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):
    """``beta * input + alpha * (mat1 @ mat2)`` computed only at the entries ``input`` (a CSR
    matrix) stores: a CSR matrix with ``input``'s pattern. Each stored ``(i, j)`` takes the
    dot product of row ``i`` of ``mat1`` and column ``j`` of ``mat2`` (no full product);
    gradients reach ``input``'s values, ``mat1`` and ``mat2``.

    Example:
        >>> s = torch.eye(2).to_sparse_csr()
        >>> torch.sparse.sampled_addmm(s, torch.ones(2, 3), torch.ones(3, 2)).values()
        tensor([4., 4.])
    """
    from .. import _dtype, _layout
    from .._dispatch_error import no_kernel
    from .._sparse import is_sparse
    from ._compressed import _coords, _new

    if not _is_compressed(input) or input.layout is not _layout.sparse_csr:
        raise no_kernel("sparse_sampled_addmm", "SparseCPU" if is_sparse(input) or
                        _is_compressed(input) else "CPU")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.dim() != 2:
            raise RuntimeError(f"sampled_addmm: Expected {name} to be a matrix, got "
                               f"{m.dim()}-D tensor")
    if mat1.dtype is not mat2.dtype:
        disp = _dtype._TYPE_DISPLAY
        raise RuntimeError(f"sampled_addmm: Expected mat1 and mat2 to have the same dtype, but "
                           f"got {disp[mat1.dtype.name]} and {disp[mat2.dtype.name]}")
    (m, k), (k2, n) = tuple(mat1.shape), tuple(mat2.shape)
    if k != k2:
        raise RuntimeError(f"sampled_addmm: mat1 and mat2 shapes cannot be multiplied "
                           f"({m}x{k} and {k2}x{n})")
    s = input._array
    if s.batch_dim or s.dense_dim or tuple(s.shape) != (m, n):
        raise RuntimeError(f"sampled_addmm: Expected input to be a {m}x{n} matrix without "
                           f"batch or dense dimensions, got {list(s.shape)}")
    _, rows, cols, _ = _coords(s)
    picked = (mat1.index_select(0, _idx(rows)) * mat2.t().index_select(0, _idx(cols))).sum(-1)
    values = _rename(beta * s.values + alpha * picked, "SparseSampledAddmmBackward0")
    if out is not None:
        raise RuntimeError("sampled_addmm: out= is not supported by numtorch")
    return _new(s.compressed.copy(), s.plain.copy(), values, s.shape, s.layout)


def _idx(arr):
    import numpy as np

    from .._tensor import _make

    return _make(np.ascontiguousarray(arr, dtype=np.int64))
