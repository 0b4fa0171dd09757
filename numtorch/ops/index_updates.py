"""Index-wise updates and flat indexing: index_add, index_copy, index_fill, masked_scatter,
put and take.

The forwards are single NumPy calls; the backwards are written with numtorch ops (each other's
adjoints: index_add's adjoint is index_select), so gradients of gradients work.
"""

import warnings

import numpy as np

from .. import _dtype
from .._creation import number_as
from .._tensor import Tensor, _make
from ..autograd._device_errors import check_same_device
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import Op, rename_node
from ..backend import helpers_for, xp_of
from ._accumulate import is_half
from ._pointwise import _out
from ._util import canonical_dim, user_stacklevel

__all__ = ["index_add", "index_copy", "index_fill", "masked_scatter", "take", "put"]


def _check_index(fn, index, allow_int32=True):
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    ok = (_dtype.int64, _dtype.int32) if allow_int32 else (_dtype.int64,)
    if index.dtype not in ok:
        got = _dtype._TYPE_DISPLAY.get(index.dtype.name, index.dtype.name)
        if fn == "index_fill_":
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        if not allow_int32:
            raise RuntimeError(f"{fn}(): Expected a long tensor for index, but got {got}")
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index but got: {got}")
    nd = index._array.ndim
    if nd > 1:  # each op words it its own way
        if fn == "index_fill_":
            raise RuntimeError("Index has to be a vector/scalar")
        if fn == "index_copy_":
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {nd})")
        sizes = ", ".join(str(n) for n in index._array.shape)
        raise IndexError(f"{fn}(): Index is supposed to be a vector, but got dim: {nd} with "
                         f"type: {_display(index.dtype)} and size: [{sizes}]")


def _display(dtype):
    """A dtype as torch's kernels name it in messages ("Float", "Long")."""
    return _dtype._TYPE_DISPLAY.get(dtype.name, dtype.name)


def _check_source(fn, input, d, index, source):
    """source must match input outside ``dim`` and have len(index) entries along it; the
    checks' order and wording are torch's, which differ between index_add_ and index_copy_."""
    xs, ss = input._array.shape, source._array.shape
    n = index._array.size
    rest_x, rest_s = xs[:d] + xs[d + 1:], ss[:d] + ss[d + 1:]
    if fn == "index_copy_":
        if xs and ss and len(xs) != len(ss):
            raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                             f"dimensionality must match. Source dimensionality ({len(ss)}), "
                             f"destination dimensionality ({len(xs)})")
        if rest_x != rest_s:
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                               f"shapes. Destination slice shape: "
                               f"{' '.join(map(str, rest_x))} at dimension {d} and source slice "
                               f"shape: {' '.join(map(str, rest_s))} at dimension 0.")
        if n != (ss[d] if ss else 1):
            raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                             f"source.size(dim) ({ss[d] if ss else 1})")
        return
    if d >= max(len(ss), 1):
        raise RuntimeError(f"{fn}(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {len(ss)}")
    sd = ss[d] if ss else 1
    if n != sd:
        raise RuntimeError(f"{fn}(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({sd}), for dim: {d}")
    if len(xs) != len(ss) or rest_x != rest_s:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(xs)} source.shape = "
                           f"{list(ss)}")


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
        if is_half(out.dtype) and x.ndim > 1 and self.dim in (0, x.ndim - 1) and \
                self.alpha == 1:
            # torch scatter-adds along an outer or inner dim, in float32 rounded once (a
            # middle dim, a vector, or an alpha adds slice by slice in the tensor's precision)
            acc = out.astype(np.float32)
            helpers_for(self.xp).scatter_add(acc, full, vals.astype(np.float32))
            return acc.astype(out.dtype)
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
        helpers_for(self.xp).write_last_wins(
            out, (slice(None),) * self.dim + (index.reshape(-1),), src)  # repeats: last wins
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
        if source.dtype is not input.dtype:  # torch casts neither way
            a, b = _display(input.dtype), _display(source.dtype)
            raise RuntimeError(f"index_add_(): self ({a}) and source ({b}) must have the same "
                               f"scalar type" if fn == "index_add_" else
                               f"{fn}(): self and source expected to have the same dtype, but "
                               f"got (self) {a} and (source) {b}")
        _check_source(fn, input, d, index, source)
    _check_range(fn, index._array, input._array.shape[d] if nd else 1, d, nd == 0)
    return d


def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Return ``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeated
    indices add up).

    Example:
        >>> torch.zeros(3).index_add(0, torch.tensor([0, 0]), torch.ones(2))
        tensor([2., 0., 0.])
    """
    d = _index_op("index_add_", input, dim, index, source)
    if out is not None:
        from .gather import OUT_DTYPE

        return _out(index_add(input, d, index, source, alpha=alpha), out, exact=OUT_DTYPE)
    if input._array.ndim == 0:
        return IndexAdd.apply(input.reshape(1), index, source.reshape(1), dim=0,
                              alpha=alpha).reshape(())
    return IndexAdd.apply(input, index, source, dim=d, alpha=alpha)


def index_copy(input, dim, index, source, *, out=None):
    """Return ``input`` with ``source``'s slices written at ``index`` along ``dim``.

    Example:
        >>> torch.zeros(3).index_copy(0, torch.tensor([2]), torch.ones(1))
        tensor([0., 0., 1.])
    """
    d = _index_op("index_copy_", input, dim, index, source, allow_int32=False)
    if out is not None:
        from .gather import OUT_DTYPE

        return _out(index_copy(input, d, index, source), out, exact=OUT_DTYPE)
    if input._array.ndim == 0:
        return IndexCopy.apply(input.reshape(1), index, source.reshape(1), dim=0).reshape(())
    if source._array.ndim == 0:  # a scalar into a 1-d input
        source = source.reshape(1)
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
        if value.requires_grad and _grad_state.enabled:
            return _index_fill_tensor(input, d, index, value)
        value = value.item()
    if isinstance(value, complex) and input.dtype._category != _dtype._COMPLEX:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")
    value = number_as(value, input.dtype)
    if input._array.ndim == 0:
        return IndexFill.apply(input.reshape(1), index, dim=0, value=value).reshape(())
    return IndexFill.apply(input, index, dim=d, value=value)


def _index_fill_tensor(input, d, index, value):
    """index_fill with a value that requires grad: a masked fill (the value's gradient is the
    sum of the gradient over the filled positions)."""
    from .indexing import masked_fill

    if input.dtype._category < _dtype._FLOAT:
        raise RuntimeError(f"Autograd not support dtype: {_display(input.dtype)}")
    if value.dtype._category == _dtype._COMPLEX and input.dtype._category != _dtype._COMPLEX:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not "
                           "supported")
    xp = xp_of(input._array)
    shape = input._array.shape or (1,)
    mask = _make(xp.zeros(shape, dtype=np.bool_))
    mask = IndexFill.apply(mask, index, dim=d if input._array.ndim else 0, value=True)
    return rename_node(masked_fill(input, mask.reshape(input.shape), value), "IndexFillBackward1")


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
    if isinstance(mask, Tensor) and mask.dtype is not _dtype.bool:
        if mask.dtype is _dtype.uint8:  # torch warns about the old byte masks, then refuses
            warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this "
                          "behavior is now deprecated,please use a mask with dtype torch.bool "
                          "instead.", UserWarning, stacklevel=user_stacklevel())
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_display(mask.dtype)}")
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_scatter(): argument 'mask' (position 1) must be Tensor, not "
                        f"{type(mask).__name__}")
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, not "
                        f"{type(source).__name__}")
    if source.dtype is not input.dtype:
        # (torch's text runs "got" into the first name)
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes "
                           f"but got{_display(input.dtype)} and {_display(source.dtype)}")
    xp = xp_of(input._array)
    try:
        shape = np.broadcast_shapes(input._array.shape, mask._array.shape)
    except ValueError:
        from .cast import copy_shape_error  # torch's text (the mask is its tensor a)

        raise copy_shape_error(mask._array.shape, input._array.shape) from None
    if tuple(shape) != tuple(input._array.shape):
        input = input.expand(shape)
    m = xp.broadcast_to(mask._array, shape)
    if int(m.sum()) > source._array.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return MaskedScatter.apply(input, _make(xp.ascontiguousarray(m)), source)


def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source`` written at the flat positions ``index`` (added when
    ``accumulate``); negative indices wrap. ``Tensor.put_`` is the in-place form."""
    from .indexing import index_put

    if isinstance(index, Tensor):
        check_same_device("put_", ("self", input), ("index", index), ("source", source))
    if not isinstance(index, Tensor) or index.dtype is not _dtype.int64:
        got = _display(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {got}")
    if isinstance(source, Tensor) and source.dtype is not input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_display(input.dtype)} and source.dtype = "
                           f"{_display(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    n = input._array.size
    idx = index._array.reshape(-1)
    if idx.size and not n:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = int(idx.max() if idx.max() >= n else idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         f"elements.")
    flat = index_put(input.reshape(-1), (index.reshape(-1),), source.reshape(-1).to(input.dtype),
                     accumulate)
    return rename_node(flat.reshape(input.shape), "PutBackward0")  # torch's node name


def take(input, index, *, out=None):
    """Entries of ``input`` read as a flat vector at ``index`` (negative wraps); the result has
    ``index``'s shape.

    Example:
        >>> torch.take(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([0, 3]))
        tensor([1., 4.])
    """
    if isinstance(index, Tensor) and isinstance(input, Tensor):
        check_same_device("take", ("self", input), ("index", index))
    if not isinstance(index, Tensor) or index.dtype is not _dtype.int64:
        got = _display(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {got}")
    n = input._array.size
    idx = index._array
    if idx.size and not n:
        raise IndexError("take(): tried to take from an empty tensor")
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         f"elements.")
    flat = input.reshape(-1)
    wrapped = _make(xp_of(idx).where(idx < 0, idx + n, idx).reshape(-1))
    r = rename_node(index_select_flat(flat, wrapped).reshape(tuple(idx.shape)),
                    "TakeBackward0")  # torch's node name
    return _out(r, out, exact="take(): self and out expected to have the same dtype, but got "
                              "self.dtype = {want} and out.dtype = {got}")


def index_select_flat(flat, idx):
    from .indexing import index_select

    return index_select(flat, 0, idx)
