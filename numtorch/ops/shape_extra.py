"""More shape functions, each composed from the view and copy ops of shape.py, join.py and
indexing.py: rot90, tensor_split and the h/v/dsplit family, dstack, column_stack, tile,
ravel, broadcasting helpers, diagflat, unravel_index, combinations, vander, sum_to_size.

None of them needs its own gradient: the ops they are built from carry it (and its second
order), so the gradients are those of torch's compositions.
"""

import itertools
import operator

import numpy as np

from .. import _dtype
from .._layout import contiguous_format
from .._size import Size, required_size_args
from .._tensor import Tensor, _make
from ..autograd.graph import rename_node
from ._util import canonical_dim, fmt_shape, shape_arg

__all__ = [
    "adjoint",
    "broadcast_shapes",
    "broadcast_tensors",
    "column_stack",
    "combinations",
    "diagflat",
    "dsplit",
    "dstack",
    "hsplit",
    "ravel",
    "rot90",
    "row_stack",
    "sum_to_size",
    "tensor_split",
    "tile",
    "unravel_index",
    "vander",
    "vsplit",
]


def _ops():
    from .. import ops

    return ops


def rot90(input, k=1, dims=(0, 1)):
    """Rotate ``input`` by ``k`` quarter turns in the plane of ``dims``, from the first dim
    towards the second.

    Example:
        >>> torch.rot90(torch.tensor([[1, 2], [3, 4]]))
        tensor([[2, 4],
                [1, 3]])
    """
    dims = list(dims)
    nd = input._array.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    raw0, raw1 = dims
    d0, d1 = canonical_dim(raw0, nd), canonical_dim(raw1, nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {raw0} and "
                           f"dim1 = {raw1}")
    k = operator.index(k) % 4
    if k == 1:
        out = input.flip(d1).transpose_(d0, d1)  # (in place: torch's result is no view)
    elif k == 2:
        out = input.flip(d0, d1)
    elif k == 3:
        out = input.flip(d0).transpose_(d0, d1)
    else:
        out = input.clone(memory_format=contiguous_format)
    return rename_node(out, "Rot90Backward0")  # (torch hands back the transposed flip)


def _split_points(n, indices_or_sections, fn):
    """Start/stop pairs of the pieces of a dim of size ``n``."""
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.dtype is not _dtype.int64:
            raise RuntimeError(f"{fn} expected tensor_indices_or_sections to have dtype of long,"
                               f" but got {t.dtype._legacy[:-len('Tensor')]}")
        if t._array.ndim > 1:
            raise RuntimeError(f"{fn} expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {t._array.ndim} dims")
        indices_or_sections = int(t._array) if t._array.ndim == 0 else t._array.tolist()
    if isinstance(indices_or_sections, (int, np.integer)):
        s = int(indices_or_sections)
        if s <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {s}")
        size, extra = divmod(n, s)
        bounds = np.cumsum([0] + [size + 1] * extra + [size] * (s - extra)).tolist()
        return list(zip(bounds[:-1], bounds[1:]))
    points = []
    start = 0
    for i in list(indices_or_sections) + [n]:
        i = int(i)
        stop = min(max(i + n if i < 0 else i, 0), n)
        points.append((start, max(stop, start)))
        start = stop
    return points


def tensor_split(input, indices_or_sections, dim=0):
    """Split ``input`` along ``dim`` into views: ``n`` nearly equal pieces for an int (the first
    ``size % n`` one longer), or pieces cut before each of the given indices.

    Example:
        >>> torch.tensor_split(torch.arange(7), 3)
        (tensor([0, 1, 2]), tensor([3, 4]), tensor([5, 6]))
    """
    nd = input._array.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = canonical_dim(dim, nd)
    n = input._array.shape[d]
    ops = _ops()
    return tuple(ops.narrow(input, d, a, b - a)
                 for a, b in _split_points(n, indices_or_sections, "tensor_split"))


def _named_split(name, input, indices_or_sections, dim, min_dims):
    nd = input._array.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {nd} dimensions!")
    if isinstance(indices_or_sections, (int, np.integer)):
        n = input._array.shape[dim]
        s = int(indices_or_sections)
        if s == 0 or n % s:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {n} is not divisible by the split_size "
                               f"{s}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """Split along dim 1 (dim 0 for a 1-D tensor); an int must divide the size evenly."""
    dim = 1 if input._array.ndim >= 2 else 0
    return _named_split("hsplit", input, indices_or_sections, dim, 1)


def vsplit(input, indices_or_sections):
    """Split along dim 0 of a tensor with at least two dims; an int must divide it evenly."""
    return _named_split("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """Split along dim 2 of a tensor with at least three dims; an int must divide it evenly."""
    return _named_split("dsplit", input, indices_or_sections, 2, 3)


def dstack(tensors, *, out=None):
    """Stack along the third dim, after making every tensor at least 3-D."""
    ops = _ops()
    tensors = ops.join.tensor_list("dstack", tensors, "dstack")
    return ops.cat([ops.atleast_3d(t) for t in tensors], 2, out=out)


def column_stack(tensors, *, out=None):
    """Stack 0-d and 1-d tensors as columns (and 2-d ones as they are) side by side."""
    tensors = _ops().join.tensor_list("column_stack", tensors, "column_stack")
    cols = [t.reshape(t._array.size, 1) if t._array.ndim <= 1 else t for t in tensors]
    return _ops().join.hstack(cols, out=out)


def row_stack(tensors, *, out=None):
    """Another name of :func:`vstack`."""
    return _ops().join.vstack(tensors, _fn="row_stack", out=out)


def tile(input, *args, **kwargs):
    """Repeat ``input`` ``dims[i]`` times along each dim; a short ``dims`` is padded with ones
    on the left, a short shape with ones on the left too."""
    (dims,) = required_size_args(args, kwargs, "dims", "tile")
    dims = tuple(dims) if not isinstance(dims, (int, np.integer)) else (int(dims),)
    pad = input._array.ndim - len(dims)
    if pad > 0:
        dims = (1,) * pad + dims
    return input.repeat(*dims) if dims else input.repeat(())


def ravel(input):
    """The elements as a 1-D tensor: a view when ``input`` is contiguous, else a copy."""
    return input.reshape(-1)


def _broadcast_two(a, b):
    """Broadcast of two shapes, with the error elementwise ops give."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(out)


def broadcast_tensors(*tensors):
    """Expand every tensor to the shape they broadcast to (views, no copies).

    Example:
        >>> a, b = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
        >>> a.shape
        torch.Size([2, 3])
    """
    _ops().join.check_elements(tensors)  # a list is one bad element to torch, not unpacked
    shape = ()
    for t in tensors:
        shape = _broadcast_two(shape, t._array.shape)
    return tuple(t.expand(shape) for t in tensors)


def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to, without making tensors.

    Example:
        >>> torch.broadcast_shapes((2, 1), (3,))
        torch.Size([2, 3])
    """
    shapes = [(int(s),) if isinstance(s, (int, np.integer)) else tuple(int(x) for x in s)
              for s in shapes]
    for s in shapes:
        if any(x < 0 for x in s):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
    result = [1] * max((len(s) for s in shapes), default=0)
    for k, s in enumerate(shapes):
        for i in range(-1, -len(s) - 1, -1):
            if s[i] == 1 or s[i] == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at "
                                   f"{i}! Mismatching argument at index {k} had {s}; but "
                                   f"expected shape should be broadcastable to "
                                   f"{fmt_shape(result)}")
            result[i] = s[i]
    return Size(result)


def diagflat(input, offset=0):
    """A square matrix with the flattened ``input`` on diagonal ``offset``."""
    return rename_node(_ops().diag(input.reshape(-1), offset), "DiagEmbedBackward0")


def unravel_index(indices, shape):
    """Turn flat indices into coordinates of an array of ``shape`` (one tensor per dim).

    Like torch, out-of-range and negative indices wrap around (floor division).

    Example:
        >>> torch.unravel_index(torch.tensor([5, 1]), (2, 3))
        (tensor([1, 0]), tensor([2, 1]))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype.is_complex or \
            indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s)
                                                                             for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    rest = indices._array.astype(np.int64)
    xp = np if type(rest) is np.ndarray else __import__("numtorch").backend.xp_of(rest)
    coords = []
    for s in reversed(shape):
        if s == 0:
            coords.append(xp.zeros_like(rest))
            continue
        coords.append(rest % s)
        rest = rest // s
    return tuple(_make(xp.asarray(c)) for c in reversed(coords))


def adjoint(input):
    """The conjugate transpose of the last two dims (a view); see :meth:`Tensor.adjoint`."""
    return input.adjoint()


def combinations(input, r=2, with_replacement=False):
    """All length-``r`` combinations of the elements of a 1-D tensor, one per row, in
    lexicographic order of positions.

    Example:
        >>> torch.combinations(torch.tensor([1, 2, 3]))
        tensor([[1, 2],
                [1, 3],
                [2, 3]])
    """
    nd = input._array.ndim
    if nd != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {fmt_shape(input._array.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make(input._array[:0].copy())
    n = input._array.shape[0]
    if r == 2:  # the common case, without a Python loop over pairs
        rows, cols = np.triu_indices(n, 0 if with_replacement else 1)
        idx = np.stack([rows, cols], 1)
    else:
        gen = itertools.combinations_with_replacement if with_replacement else \
            itertools.combinations
        idx = np.array(list(gen(range(n), r)), dtype=np.int64).reshape(-1, r)
    xp = __import__("numtorch").backend.xp_of(input._array)
    index = _make(xp.asarray(idx.reshape(-1), dtype=np.int64))
    return input[index].reshape(idx.shape[0], r)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``: columns ``x**(N-1), ..., x, 1`` (reversed when
    ``increasing``). Integer and bool inputs give int64.
    """
    if x._array.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._array.shape[0]
    if N is None:
        N = n
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    ops = _ops()
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_dtype.int64)
    if N == 0:
        return x.reshape(n, 1)[:, :0].clone()
    # powers by a running product, as torch computes them (so x = 0 differentiates the same)
    from .._creation import ones_like

    ones = ones_like(x).reshape(n, 1)
    cols = ops.cat([ones, x.reshape(n, 1).expand(n, N - 1)], 1).cumprod(1)
    return cols if increasing else cols.flip(1)


def sum_to_size(input, *size):
    """Sum ``input`` down to ``size``, which must broadcast to ``input``'s shape."""
    size = shape_arg(size)
    shape = input._array.shape
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == t or s == 1 for s, t in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{fmt_shape(size)}}} is not expandable to size "
                           f"{{{fmt_shape(shape)}}}.")
    if tuple(size) == tuple(shape):
        return input
    out = input.sum(tuple(range(lead))) if lead else input
    keep = tuple(i for i, (s, t) in enumerate(zip(size, shape[lead:])) if s == 1 and t != 1)
    return out.sum(keep, keepdim=True) if keep else out
