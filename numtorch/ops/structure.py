"""Matrix structure and index-wise updates: diag, tril/triu, trace, dist, renorm,
index_add, index_copy, index_fill and masked_scatter.

The forwards are single NumPy calls; the backwards are written with numtorch ops (each other's
adjoints: a diagonal's adjoint embeds it, index_add's adjoint is index_select), so gradients of
gradients work.
"""

import numpy as np

from .. import _dtype
from .._creation import number_as
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for, xp_of
from ._lautil import Triangle
from ._pointwise import _out
from ._util import canonical_dim
from .comparison import where

__all__ = ["diag", "diagonal", "diag_embed", "tril", "triu", "trace", "dist", "renorm",
           "index_add", "index_copy", "index_fill", "masked_scatter", "tril_indices",
           "triu_indices", "take", "put", "repeat_interleave", "meshgrid", "block_diag", "cdist"]


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
    nd = input._array.ndim
    if nd == 1:
        n = input._array.shape[0] + abs(diagonal)
        return _out(DiagPut.apply(input, offset=diagonal, shape=(n, n)), out)
    if nd == 2:
        return _out(DiagGet.apply(input, offset=diagonal), out)
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
    d1, d2 = canonical_dim(dim1, nd), canonical_dim(dim2, nd)
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
    if input._array.ndim < 2:
        raise RuntimeError(f"{fn}: input tensor must have at least 2 dimensions (got "
                           f"{input._array.ndim})")
    return Triangle.apply(input, k=diagonal, upper=upper)


def tril(input, diagonal=0, *, out=None):
    """The lower triangle (column - row <= ``diagonal``) of the last two dims, zeros elsewhere.

    Example:
        >>> torch.tril(torch.ones(2, 2))
        tensor([[1., 0.],
                [1., 1.]])
    """
    return _out(_triangle("tril", input, diagonal, False), out)


def triu(input, diagonal=0, *, out=None):
    """The upper triangle (column - row >= ``diagonal``) of the last two dims, zeros elsewhere.

    Example:
        >>> torch.triu(torch.ones(2, 2))
        tensor([[1., 1.],
                [0., 1.]])
    """
    return _out(_triangle("triu", input, diagonal, True), out)


def trace(input):
    """The sum of the main diagonal of a matrix (integers sum as int64, as torch's).

    Example:
        >>> torch.trace(torch.eye(3))
        tensor(3.)
    """
    nd = input._array.ndim
    if nd != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {nd}")
    d = DiagGet.apply(input, offset=0)
    if input.dtype.np.kind in "biu":
        return d.to(_dtype.int64).sum()
    return rename_node(d.sum(), "TraceBackward0")


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), as a 0-d tensor.

    Example:
        >>> torch.dist(torch.tensor([3., 0.]), torch.tensor([0., 4.]))
        tensor(5.)
    """
    from ._statistics import norm

    return norm(input - other, p)


def renorm(input, p, dim, maxnorm):
    """Rescale each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` to norm
    ``maxnorm`` (about: the divisor gets 1e-7 added, as in torch); others are unchanged."""
    from ._statistics import norm

    nd = input._array.ndim
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (got p={p})")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = canonical_dim(dim, nd)
    others = tuple(k for k in range(nd) if k != d)
    n = norm(input, p, dim=others, keepdim=True)
    factor = where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)
    return input * factor.to(input.dtype)


# -- index-wise updates along one dim ------------------------------------------------------------

def _check_index(fn, index, allow_int32=True):
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    ok = (_dtype.int64, _dtype.int32) if allow_int32 else (_dtype.int64,)
    if index.dtype not in ok:
        if not allow_int32:
            raise IndexError(f"{fn}(): Expected dtype int64 for index (got {index.dtype}).")
        names = {"float32": "Float", "float64": "Double", "bool": "Bool"}
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index but got: "
                           f"{names.get(index.dtype.name, index.dtype.name)}")
    if index._array.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector (got {index._array.ndim} "
                         f"dims)")


def _check_source(fn, input, d, index, source):
    """source must match input outside ``dim`` and have len(index) entries along it."""
    xs, ss = input._array.shape, source._array.shape
    n = index._array.size
    sd = ss[d] if source._array.ndim else 1
    if n != sd:
        raise RuntimeError(f"{fn}(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({sd}), for dim: {d}")
    if len(xs) != len(ss) or any(a != b for k, (a, b) in enumerate(zip(xs, ss)) if k != d):
        raise RuntimeError(f"{fn}(): Source/destination tensor must have same slice shapes. "
                           f"Destination shape {tuple(xs)}, source shape {tuple(ss)} "
                           f"(dim {d}).")


def _check_range(fn, idx, size, d, scalar):
    # torch's rules differ per op: index_add_ and index_copy_ take no negative indices,
    # index_fill_ wraps them; the exception class and wording differ too
    low = -size if fn == "index_fill_" else 0
    if idx.size and (idx.max() >= size or idx.min() < low):
        bad = idx.max() if idx.max() >= size else idx.min()
        if fn == "index_add_":
            if scalar:
                raise IndexError("index out of range in self")
            raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {size}")
        prefix = "index_copy_(): " if fn == "index_copy_" else ""
        raise IndexError(f"{prefix}index {bad} is out of bounds for dimension {d} with size "
                         f"{size}")


class IndexAdd(Op):
    """y = x with alpha * src added at ``index`` along ``dim``; dx = g, dsrc = alpha *
    index_select(g)."""

    def forward(self, x, index, src):
        self.save(index=index)
        out = x.copy()
        full = (slice(None),) * self.dim + (index.reshape(-1),)
        vals = src if self.alpha == 1 else src * src.dtype.type(self.alpha)
        helpers_for(self.xp).scatter_add(out, full, vals.astype(x.dtype, copy=False))
        return out

    def backward(self, grad):
        from .indexing import index_select

        gs = index_select(grad, self.dim, _make(self.saved("index")))
        return grad, None, gs if self.alpha == 1 else gs * self.alpha


class IndexCopy(Op):
    """y = x with src written at ``index`` along ``dim``; dx = g zeroed there, dsrc =
    index_select(g)."""

    def forward(self, x, index, src):
        self.save(index=index)
        out = x.copy()
        out[(slice(None),) * self.dim + (index.reshape(-1),)] = src
        return out

    def backward(self, grad):
        from .indexing import index_select

        idx = _make(self.saved("index"))
        gx = IndexFill.apply(grad, idx, dim=self.dim, value=0)
        return gx, None, index_select(grad, self.dim, idx)


class IndexFill(Op):
    """y = x with ``value`` at ``index`` along ``dim``; dx = g zeroed there."""

    def forward(self, x, index):
        self.save(index=index)
        out = x.copy()
        out[(slice(None),) * self.dim + (index.reshape(-1),)] = self.value
        return out

    def backward(self, grad):
        return IndexFill.apply(grad, _make(self.saved("index")), dim=self.dim, value=0), None


def _index_op(fn, input, dim, index, source=None, allow_int32=True):
    _check_index(fn, index, allow_int32)
    nd = input._array.ndim
    d = canonical_dim(dim, nd)
    if source is not None:
        if not isinstance(source, Tensor):
            raise TypeError(f"{fn}(): argument 'source' must be Tensor, not "
                            f"{type(source).__name__}")
        _check_source(fn, input, d, index, source)
    _check_range(fn, index._array, input._array.shape[d] if nd else 1, d, nd == 0)
    return d


def index_add(input, dim, index, source, *, alpha=1):
    """Return ``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeated
    indices add up).

    Example:
        >>> torch.zeros(3).index_add(0, torch.tensor([0, 0]), torch.ones(2))
        tensor([2., 0., 0.])
    """
    d = _index_op("index_add_", input, dim, index, source)
    if input._array.ndim == 0:
        return IndexAdd.apply(input.reshape(1), index, source.reshape(1), dim=0,
                              alpha=alpha).reshape(())
    return IndexAdd.apply(input, index, source, dim=d, alpha=alpha)


def index_copy(input, dim, index, source):
    """Return ``input`` with ``source``'s slices written at ``index`` along ``dim``.

    Example:
        >>> torch.zeros(3).index_copy(0, torch.tensor([2]), torch.ones(1))
        tensor([0., 0., 1.])
    """
    d = _index_op("index_copy_", input, dim, index, source, allow_int32=False)
    if input._array.ndim == 0:
        return IndexCopy.apply(input.reshape(1), index, source.reshape(1), dim=0).reshape(())
    return IndexCopy.apply(input, index, source, dim=d)


def index_fill(input, dim, index, value):
    """Return ``input`` with ``value`` at ``index`` along ``dim``.

    Note:
        A tensor ``value`` is read as a number: no gradient flows to it.

    Example:
        >>> torch.zeros(3).index_fill(0, torch.tensor([1]), 5.)
        tensor([0., 5., 0.])
    """
    d = _index_op("index_fill_", input, dim, index, allow_int32=False)
    if isinstance(value, Tensor):
        if value._array.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value._array.ndim} dimension(s).")
        value = value.item()
    value = number_as(value, input.dtype)
    if input._array.ndim == 0:
        return IndexFill.apply(input.reshape(1), index, dim=0, value=value).reshape(())
    return IndexFill.apply(input, index, dim=d, value=value)


class MaskedScatter(Op):
    """y = x with the True positions of ``mask`` filled, in order, from src's first entries;
    dx = g zeroed there, dsrc = g's masked entries followed by zeros."""

    def forward(self, x, mask, src):
        self.save(mask=mask)
        self.src_shape = src.shape
        out = x.copy()
        m = int(mask.sum())
        out[mask] = src.reshape(-1)[:m]
        return out

    def backward(self, grad):
        from .indexing import masked_fill, masked_select
        from .join import cat

        mask = _make(self.saved("mask"))
        gx = masked_fill(grad, mask, 0.0)
        picked = masked_select(grad, mask)
        total = int(np.prod(self.src_shape))
        rest = total - picked.shape[0]
        if rest:
            zeros = _make(self.xp.zeros(rest, dtype=grad._array.dtype))
            picked = cat([picked, zeros])
        return gx, None, picked.reshape(self.src_shape)


def masked_scatter(input, mask, source):
    """Fill the positions where the bool ``mask`` (broadcast to ``input``) is True with
    ``source``'s entries, in row-major order.

    Example:
        >>> torch.zeros(3).masked_scatter(torch.tensor([True, False, True]), torch.ones(2))
        tensor([1., 0., 1.])
    """
    if not isinstance(mask, Tensor) or mask.dtype is not _dtype.bool:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_scatter_: expected BoolTensor for mask (got {got})")
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes "
                           f"but got {input.dtype} and {source.dtype}")
    xp = xp_of(input._array)
    shape = np.broadcast_shapes(input._array.shape, mask._array.shape)
    if tuple(shape) != tuple(input._array.shape):
        input = input.expand(shape)
    m = xp.broadcast_to(mask._array, shape)
    if int(m.sum()) > source._array.size:
        raise RuntimeError(f"masked_scatter: Number of elements of source ({source._array.size})"
                           f" < number of ones in mask ({int(m.sum())})")
    return MaskedScatter.apply(input, _make(xp.ascontiguousarray(m)), source)


def _tri_indices(fn, row, col, offset, upper, dtype, device):
    from .._creation import tensor

    r, c = np.indices((row, col)).reshape(2, -1)
    keep = (c - r >= offset) if upper else (c - r <= offset)
    out = np.stack([r[keep], c[keep]])
    return tensor(out, dtype=dtype or _dtype.int64, device=device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the lower triangle of a ``row`` x ``col`` matrix,
    row by row.

    Example:
        >>> torch.tril_indices(2, 2)
        tensor([[0, 1, 1],
                [0, 0, 1]])
    """
    return _tri_indices("tril_indices", row, col, offset, False, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the upper triangle of a ``row`` x ``col`` matrix,
    row by row."""
    return _tri_indices("triu_indices", row, col, offset, True, dtype, device)


def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source`` written at the flat positions ``index`` (added when
    ``accumulate``); negative indices wrap. ``Tensor.put_`` is the in-place form."""
    from .indexing import index_put

    if not isinstance(index, Tensor) or index.dtype is not _dtype.int64:
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {got}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    n = input._array.size
    idx = index._array.reshape(-1)
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max() if idx.max() >= n else idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         f"elements.")
    flat = index_put(input.reshape(-1), (index.reshape(-1),), source.reshape(-1).to(input.dtype),
                     accumulate)
    return flat.reshape(input.shape)


def take(input, index):
    """Entries of ``input`` read as a flat vector at ``index`` (negative wraps); the result has
    ``index``'s shape.

    Example:
        >>> torch.take(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([0, 3]))
        tensor([1., 4.])
    """
    if not isinstance(index, Tensor) or index.dtype is not _dtype.int64:
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {got}")
    n = input._array.size
    idx = index._array
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         f"elements.")
    flat = input.reshape(-1)
    wrapped = _make(np.where(idx < 0, idx + n, idx).reshape(-1))
    return index_select_flat(flat, wrapped).reshape(tuple(idx.shape))


def index_select_flat(flat, idx):
    from .indexing import index_select

    return index_select(flat, 0, idx)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each entry (or each slice along ``dim``) ``repeats`` times in place.

    ``repeats`` is an int or a 1-D int64 tensor with one count per entry; without ``dim`` the
    input is flattened first. ``repeat_interleave(counts)`` alone repeats ``arange(len)``.

    Example:
        >>> torch.tensor([1, 2]).repeat_interleave(2)
        tensor([1, 1, 2, 2])
    """
    if repeats is None:  # the one-argument form: indices repeated by the counts given
        from .._creation import arange

        counts = input
        if counts._array.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        return repeat_interleave(arange(counts._array.shape[0]), counts, 0)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = canonical_dim(dim, input._array.ndim)
    n = input._array.shape[d] if input._array.ndim else 1
    if isinstance(repeats, Tensor):
        if repeats.dtype not in (_dtype.int64, _dtype.int32):
            raise RuntimeError(f"repeat_interleave: repeats has to be Long or Int tensor "
                               f"(got {repeats.dtype})")
        if repeats._array.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        reps = repeats._array.reshape(-1)
        if reps.size == 1:
            reps = np.repeat(reps, n)
        if reps.size != n:
            raise RuntimeError(f"repeat_interleave: repeats must have the same size as input "
                               f"along dim, but got repeats.size(0) = {reps.size} and "
                               f"input.size({d}) = {n}")
    else:
        reps = np.full(n, int(repeats))
    if reps.size and reps.min() < 0:
        raise RuntimeError("Repeats must be non-negative")
    idx = _make(np.repeat(np.arange(n), reps).astype(np.int64))
    if input._array.ndim == 0:
        input = input.reshape(1)
    from .indexing import index_select

    return index_select(input, d, idx)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: output ``k`` repeats ``tensors[k]`` along its own dim
    (views). ``indexing="xy"`` swaps the first two dims, as NumPy's default does.

    Example:
        >>> [g.shape for g in torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")]
        [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings

        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument (using indexing='ij').", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                         f"received: {indexing}")
    for t in tensors:
        if t._array.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t._array.ndim}D")
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._array.shape[0] for t in ts)
    n = len(ts)
    out = [t.reshape(tuple(-1 if j == k else 1 for j in range(n))).expand(*shape)
           for k, t in enumerate(ts)]
    if swap:  # the grids of the swapped inputs, handed back in the inputs' order
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def block_diag(*tensors):
    """A block-diagonal matrix with the given 0-, 1- or 2-D tensors as its blocks (1-D ones are
    rows), in the promoted dtype.

    Example:
        >>> torch.block_diag(torch.ones(1, 1), torch.full((1, 2), 2.))
        tensor([[1., 0., 0.],
                [0., 2., 2.]])
    """
    from .._creation import zeros
    from .join import cat

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
    return cat(rows, 0)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M), shape (..., P, R).

    Note:
        Computed from the pairwise differences (memory P * R * M), never with the
        matrix-product shortcut, so the results are exact but large inputs cost memory.
    """
    from ._statistics import norm

    if x1._array.ndim < 2 or x2._array.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: "
                           f"{x1._array.ndim}D, X2 got: {x2._array.ndim}D")
    if x1._array.shape[-1] != x2._array.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1._array.shape[-1]} X2: {x2._array.shape[-1]}")
    for x, name in ((x1, "X1"), (x2, "X2")):
        if x.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.bfloat16):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_dtype._TYPE_DISPLAY[x.dtype.name]}")
    if x1.dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f'"cdist" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[x1.dtype.name]}'")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values (got {p})")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return norm(diff, p, dim=-1)


def fill_diagonal(input, fill_value, wrap=False):
    """``input`` with ``fill_value`` on its main diagonal (all dims equal, or any 2-D shape;
    ``wrap`` restarts the diagonal below a tall matrix). The function behind
    ``Tensor.fill_diagonal_``."""
    from .indexing import masked_fill

    shape = input._array.shape
    if len(shape) < 2:
        raise RuntimeError(f"dimensions must larger than 1 (got {len(shape)})")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError(f"all dimensions of input must be of equal length (got "
                           f"{tuple(shape)})")
    return masked_fill(input, _make(diagonal_mask(shape, wrap)), fill_value)


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
