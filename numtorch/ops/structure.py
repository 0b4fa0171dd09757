"""Matrix structure: diagonals (diag, diagonal, diag_embed, fill_diagonal), triangles (tril,
triu and their index lists), trace and block_diag.

The forwards are single NumPy calls; the backwards are written with numtorch ops (each other's
adjoints: a diagonal's adjoint embeds it), so gradients of gradients work. Index-wise updates
live in ``index_updates.py``, distances in ``distances.py``, repeat_interleave and meshgrid in
``repetition.py``.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for, to_device
from ._lautil import Triangle
from ._pointwise import _out
from ._util import as_index, canonical_dim, check_int

__all__ = ["diag", "diagonal", "diag_embed", "tril", "triu", "trace", "tril_indices",
           "triu_indices", "block_diag"]


class DiagGet(Op):
    """y = the ``offset`` diagonal of the matrix x; dx = that diagonal embedded in zeros."""

    def forward(self, x):
        self.in_shape = x.shape
        return self.xp.diagonal(x, self.offset).copy()

    def backward(self, grad):
        return DiagPut.apply(grad, offset=self.offset, shape=self.in_shape)


class DiagPut(Op):
    """y = a zero matrix of ``shape`` with v on its ``offset`` diagonal; dv = that diagonal."""

    def forward(self, v):
        out = self.xp.zeros(self.shape, dtype=v.dtype)
        k, n = self.offset, v.shape[0]
        rows = self.xp.arange(n) + max(-k, 0)
        out[rows, rows + k] = v
        return out

    def backward(self, grad):
        return DiagGet.apply(grad, offset=self.offset)


def diag(input, diagonal=0, *, out=None):
    """A 1-D input becomes a square matrix with it on the ``diagonal``-th diagonal; a 2-D input
    gives back its ``diagonal``-th diagonal (a copy).

    Example:
        >>> torch.diag(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([1., 4.])
    """
    if isinstance(diagonal, Tensor) and not diagonal._array.ndim and \
            diagonal.dtype._category == _dtype._INT:
        diagonal = int(diagonal.item())  # torch's parser reads a 0-d integer tensor
    if isinstance(diagonal, bool) or not isinstance(diagonal, (int, np.integer)):
        what = "Tensor" if isinstance(diagonal, Tensor) else type(diagonal).__name__
        raise TypeError(f"diag(): argument 'diagonal' (position 2) must be int, not {what}")
    nd = input._array.ndim
    if nd == 1:
        n = input._array.shape[0] + abs(diagonal)
        return _out(DiagPut.apply(input, offset=diagonal, shape=(n, n)), out, exact=True)
    if nd == 2:
        return _out(DiagGet.apply(input, offset=diagonal), out, exact=True)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


def _diag_view(xp, x, offset, d1, d2):
    """A writable view of the ``offset`` diagonal of ``x`` over dims ``d1``, ``d2`` (last)."""
    d = xp.diagonal(x, offset, d1, d2)  # read-only in NumPy: rebuild it from a sliced view
    start = [slice(None)] * x.ndim
    start[d1] = slice(min(max(-offset, 0), x.shape[d1]), None)
    start[d2] = slice(min(max(offset, 0), x.shape[d2]), None)
    return helpers_for(xp).as_strided(x[tuple(start)], d.shape, d.strides)


class Diagonal(Op):
    """y = a diagonal of x over dims (d1, d2), as a view; dx = g placed on it in zeros."""

    is_view = True

    def forward(self, x):
        self.in_shape = x.shape
        return _diag_view(self.xp, x, self.offset, self.d1, self.d2)

    def backward(self, grad):
        return DiagonalScatter.apply(grad, shape=self.in_shape, offset=self.offset, d1=self.d1,
                                     d2=self.d2)


class DiagonalScatter(Op):
    """y = zeros(shape) with v on the (offset, d1, d2) diagonal; dv = that diagonal of g."""

    def forward(self, v):
        out = self.xp.zeros(self.shape, dtype=v.dtype)
        _diag_view(self.xp, out, self.offset, self.d1, self.d2)[...] = v
        return out

    def backward(self, grad):
        return Diagonal.apply(grad, offset=self.offset, d1=self.d1, d2=self.d2)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the ``offset`` diagonal over ``dim1`` and ``dim2``, which move to the end.

    Example:
        >>> torch.arange(4.).reshape(2, 2).diagonal()
        tensor([0., 3.])
    """
    nd = input._array.ndim
    offset = as_index(offset)
    if offset.__class__ is not int:
        from ._util import arg_type_error

        raise arg_type_error(offset, "offset", index=1)
    d1, d2 = canonical_dim(dim1, nd, "dim1", 2), canonical_dim(dim2, nd, "dim2", 3)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, offset=offset, d1=d1, d2=d2)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices over the new dims ``dim1``, ``dim2`` with the last dim of ``input`` on their
    ``offset`` diagonal (zeros elsewhere).

    Example:
        >>> torch.diag_embed(torch.tensor([1., 2.]))
        tensor([[1., 0.],
                [0., 2.]])
    """
    nd = input._array.ndim + 1
    d1, d2 = canonical_dim(dim1, nd), canonical_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input._array.shape[-1] + abs(offset)
    rest = list(input._array.shape[:-1])
    shape = []
    for k in range(nd):
        shape.append(n if k in (d1, d2) else rest.pop(0))
    return DiagonalScatter.apply(input, shape=tuple(shape), offset=offset, d1=d1, d2=d2,
                                 node_name="DiagEmbedBackward0")


def _triangle(fn, input, diagonal, upper):
    diagonal = check_int(fn, "diagonal", diagonal, 1)
    if input._array.ndim < 2:
        raise RuntimeError(f"{fn}: input tensor must have at least 2 dimensions")
    return Triangle.apply(input, k=diagonal, upper=upper)


def tril(input, diagonal=0, *, out=None):
    """The lower triangle (column - row <= ``diagonal``) of the last two dims, zeros elsewhere.

    Example:
        >>> torch.tril(torch.ones(2, 2))
        tensor([[1., 0.],
                [1., 1.]])
    """
    return _out(_triangle("tril", input, diagonal, False), out, exact=True)


def triu(input, diagonal=0, *, out=None):
    """The upper triangle (column - row >= ``diagonal``) of the last two dims, zeros elsewhere.

    Example:
        >>> torch.triu(torch.ones(2, 2))
        tensor([[1., 1.],
                [0., 1.]])
    """
    return _out(_triangle("triu", input, diagonal, True), out, exact=True)


def trace(input):
    """The sum of the main diagonal of a matrix (integers sum as int64, as torch's).

    Example:
        >>> torch.trace(torch.eye(3))
        tensor(3.)
    """
    nd = input._array.ndim
    if nd != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {nd}")
    if input.dtype.np.kind == "b":  # (torch's kernel has no bool)
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    d = DiagGet.apply(input, offset=0)
    if input.dtype.np.kind in "iu":
        return d.to(_dtype.int64).sum()
    return rename_node(d.sum(), "TraceBackward0")


# -- index-wise updates along one dim ------------------------------------------------------------


def _tri_indices(fn, row, col, offset, upper, dtype, device, pin_memory=False):
    from .._alloc_errors import result_alloc_error
    from .._creation import _finish, check_pin_memory, dtype_arg

    row, col, offset = as_index(row), as_index(col), as_index(offset)
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{name} must be non-negative, got{v}")
    dt = dtype_arg(dtype, fn) or _dtype.int64
    if dt not in (_dtype.int32, _dtype.int64):
        raise NotImplementedError(f'"{fn}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    check_pin_memory(pin_memory)
    # per row, the kept columns form one run [first, first + count): the indices are built
    # in O(N) from the run lengths (never the row x col grid)
    r = np.arange(row, dtype=np.int64)
    if upper:
        first = np.clip(r + offset, 0, col)
        count = col - first
    else:
        first = np.zeros(row, dtype=np.int64)
        count = np.clip(r + offset + 1, 0, col)
    n = int(count.sum())
    try:
        out = np.empty((2, n), dtype=dt.np)
        out[0] = np.repeat(r, count)
        starts = np.cumsum(count) - count
        out[1] = np.arange(n, dtype=np.int64) - np.repeat(starts - first, count)
    except (MemoryError, ValueError) as e:
        raise result_alloc_error(e, (2, n), dt.itemsize) from None
    return _finish(out, device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """The (2, N) row and column indices of the lower triangle of a ``row`` x ``col`` matrix,
    row by row.

    Example:
        >>> torch.tril_indices(2, 2)
        tensor([[0, 1, 1],
                [0, 0, 1]])
    """
    return _tri_indices("tril_indices", row, col, offset, False, dtype, device, pin_memory)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """The (2, N) row and column indices of the upper triangle of a ``row`` x ``col`` matrix,
    row by row."""
    return _tri_indices("triu_indices", row, col, offset, True, dtype, device, pin_memory)


def block_diag(*tensors):
    """A block-diagonal matrix with the given 0-, 1- or 2-D tensors as its blocks (1-D ones are
    rows), in the promoted dtype.

    Example:
        >>> torch.block_diag(torch.ones(1, 1), torch.full((1, 2), 2.))
        tensor([[1., 0., 0.],
                [0., 2., 2.]])
    """
    from .._creation import zeros
    from .join import cat, check_elements

    check_elements(tensors)
    blocks = []
    for k, t in enumerate(tensors):
        nd = t._array.ndim
        if nd > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {k} has {nd} dimensions")
        blocks.append(t.reshape(1, 1) if nd == 0 else t.reshape(1, -1) if nd == 1 else t)
    if not blocks:
        return zeros(1, 0)
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = _dtype.promote_types(dt, b.dtype)
    total = sum(b._array.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b._array.shape
        parts = [zeros(r, left, dtype=dt), b.to(dt), zeros(r, total - left - c, dtype=dt)]
        rows.append(cat(parts, 1))
        left += c
    return rename_node(cat(rows, 0), "BlockDiagBackward0")  # torch's node name


def fill_diagonal(input, fill_value, wrap=False):
    """``input`` with ``fill_value`` on its main diagonal (all dims equal, or any 2-D shape;
    ``wrap`` restarts the diagonal below a tall matrix). The function behind
    ``Tensor.fill_diagonal_``."""
    from .indexing import masked_fill

    shape = input._array.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    mask = to_device(diagonal_mask(shape, wrap), input.device)  # built on the host
    return masked_fill(input, _make(mask), fill_value)


def diagonal_mask(shape, wrap):
    """The bool mask of the main diagonal :func:`fill_diagonal` writes."""
    size = int(np.prod(shape))
    step = int(sum(np.cumprod((1,) + shape[:0:-1])))  # sum of the C-order element strides
    pos = np.arange(0, size, step)
    if not wrap:
        pos = pos[:min(shape)]
    mask = np.zeros(size, dtype=bool)
    mask[pos] = True
    return mask.reshape(shape)
