"""Shape ops. Views (``is_view = True``) share memory with their input exactly when torch's do.

``squeeze``, ``unsqueeze``, ``flatten``, ``unflatten`` and ``view`` are ``Reshape``; ``transpose``,
``t`` and ``movedim`` are ``Permute``; ``narrow`` and ``select`` are basic indexing (``GetItem``
in indexing.py); ``split``, ``chunk`` and ``unbind`` are one node per call (multi_view.py); the
copying ones (``flip``, ``roll``, ``repeat``) and ``unfold`` are in rearrange.py. Views also get torch's strides, including the
free ones of size-1 dims, so ``stride()`` reports torch's numbers. ``cat``/``stack`` live in
join.py and ``clone``/``contiguous``/``to`` in cast.py.
"""

import math

import numpy as np

from .. import _dtype, backend
from ..backend import helpers_for
from ..backend._run_copy import copy_c
from .._required_dim import check_missing_call, missing_arg
from .._tensor import Tensor, _make
from ..autograd.graph import Op, _track_view, direct_view_source, rename_node
from ._util import (
    as_index, canonical_dim, canonical_dims, check_int, contiguous_strides, elem_strides,
    fmt_shape, restride, shape_arg, torch_stride, view_strides,
)
from .._size import Size, required_size_args
from .._sparse import SparseCOO
from ._util import arg_type_error, no_dims_error

__all__ = ["reshape", "view", "permute", "transpose", "t", "expand", "squeeze", "unsqueeze",
           "flatten", "unflatten", "movedim", "split", "chunk", "narrow", "select", "unbind",
           "restride_", "swapaxes", "swapdims", "moveaxis", "broadcast_to"]


_SHAPE_SEQ = (tuple, list, Size)


def _plain_shape(shape, numel):
    """``shape`` (a ``*shape`` argument) as a tuple when it holds only non-negative Python ints
    whose product is ``numel``: the usual call (``view(B, T, C)``, a backward's reshape to the
    input's shape), where parsing, inferring and checking find nothing. None otherwise."""
    if len(shape) == 1 and type(shape[0]) in _SHAPE_SEQ:
        shape = shape[0]
    n = 1
    for s in shape:
        if type(s) is not int or s < 0:
            break
        n *= s
    else:
        return tuple(shape) if n == numel else None
    # one -1 beside positive ints (``view(-1, C)``, ``view(B, -1)``): resolved here when it
    # fits exactly; anything else (two -1s, a zero size, a misfit) takes ``infer_shape``,
    # which raises torch's errors
    n = 1
    free = None
    for i, s in enumerate(shape):
        if type(s) is not int:
            return None
        if s == -1 and free is None:
            free = i
        elif s > 0:
            n *= s
        else:
            return None
    if free is None or numel % n:
        return None
    out = list(shape)
    out[free] = numel // n
    return tuple(out)


def infer_shape(shape, numel):
    """Resolve one -1 in ``shape``; torch's RuntimeError when the sizes do not fit."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape "
                               f"[{', '.join(map(str, shape))}]")
    known = math.prod(s for s in shape if s != -1)
    if neg:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                               f"{fmt_shape(shape)} because the unspecified dimension size -1 "
                               "can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{fmt_shape(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


class Reshape(Op):
    """y = x with a new shape (a view when the strides allow); dx = grad reshaped back.

    ``kind`` picks torch's stride rule for the view: "view" (view/reshape/flatten),
    "squeeze" (the kept dims keep their strides) or "unsqueeze" (at ``dim``).
    """

    is_view = True

    def forward(self, x):
        self.in_shape = x.shape
        if type(x) is np.ndarray and x.nbytes >= _RUN_COPY_MIN and not x.flags.c_contiguous \
                and _RESHAPE_NO_COPY:
            y = _reshape_copying_runs(x, self.shape)
        else:
            y = x.reshape(self.shape)
        if type(x) is np.ndarray and self.__dict__.get("kind") == "unsqueeze":
            # a size-1 dim inserted: NumPy's reshape always views (no _shares test), only the
            # new dim's stride may differ from torch's (empty tensors' strides too)
            strides = self._torch_strides(x)
            return y if y.strides == strides else restride(np, y, strides)
        if not y.size:
            return y
        strides = None
        if _shares(y, x):
            if 1 not in self.shape:  # only size-1 dims can get a stride other than torch's
                return y
            if "kind" not in self.__dict__ and x.flags.c_contiguous and x.ndim and (
                    x.shape[-1] != 1 or x.strides[-1] == x.itemsize):
                # one contiguous chunk: torch and NumPy both give row-major strides
                return y
            strides = self._torch_strides(x)
        if strides is None:
            if self.must_view:
                raise RuntimeError("view size is not compatible with input tensor's size and "
                                   "stride (at least one dimension spans across two contiguous "
                                   "subspaces). Use .reshape(...) instead.")
            self.is_view = False
            return y if not _shares(y, x) else y.copy()
        return restride(self.xp, y, strides)

    def _torch_strides(self, x):
        """Torch's strides (in bytes) for this view of ``x``."""
        st = x.strides
        kind = self.__dict__.get("kind", "view")
        if kind == "unsqueeze":
            d = self.dim
            return st[:d] + ((x.shape[d] * st[d]) if d < x.ndim else x.itemsize,) + st[d:]
        if kind == "squeeze":
            dims = self.dims
            if len(dims) <= 1:  # squeeze(dim): that dim's stride dropped (or nothing)
                return st if not dims else st[:min(dims)] + st[min(dims) + 1:]
            return tuple(s for i, s in enumerate(st) if i not in dims)
        if not x.ndim:  # a 0-d tensor's views are unit-strided in torch
            return (x.itemsize,) * len(self.shape)
        # view_strides is a pure function of these tuples (a Python walk over the dims, ~1 us):
        # the few shapes a program views repeatedly are remembered
        key = (x.shape, st, self.shape)
        try:
            return _VIEW_STRIDES[key]
        except KeyError:
            pass
        except TypeError:  # (an unhashable shape: computed each time)
            return view_strides(x.shape, st, self.shape)
        strides = view_strides(x.shape, st, self.shape)
        if len(_VIEW_STRIDES) >= _VIEW_STRIDES_MAX:
            _VIEW_STRIDES.clear()
        _VIEW_STRIDES[key] = strides
        return strides

    def backward(self, grad):
        return grad.reshape(self.in_shape)

    def backward_arrays(self, g):
        # (einops-style rearranges chain several views: the composed backward recorded a
        # node per view just to reshape an array)
        return g.reshape(self.in_shape)


_VIEW_STRIDES = {}  # (shape, byte strides, new shape) -> view_strides' result
_VIEW_STRIDES_MAX = 1024


def _reshape_copying_runs(x, shape):
    """``x.reshape(shape)`` for a strided NumPy array: a view where one exists, else the
    row-major copy of ``backend._run_copy`` reshaped (the same values as NumPy's own copy;
    ``x.permute(0, 2, 1, 3).reshape(B, T, C)`` of attention heads moves each head's run whole,
    1.3-1.5x faster for 32 float32 values a run)."""
    try:
        return x.reshape(shape, copy=False)
    except ValueError:  # no view: NumPy would copy
        return copy_c(x).reshape(shape)


_RUN_COPY_MIN = 1 << 13  # bytes: smaller strided arrays take NumPy's reshape (backend._run_copy)
# ``reshape(copy=False)`` (no view: ValueError) is NumPy 2.1's; older NumPy keeps its reshape
_RESHAPE_NO_COPY = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


def _shares(y, x):
    return y.base is not None and (y.base is x or y.base is x.base) or \
        (not y.flags.owndata and np.may_share_memory(y, x))


class Permute(Op):
    """y = x with its dims reordered (a view); dx = grad permuted back."""

    is_view = True

    def forward(self, x):
        if not x.size and x.ndim > 1 and not any(x.strides):
            # a fresh empty NumPy array has all-zero strides (read as row-major, see
            # torch_stride); give it those before reordering, so they show reordered as torch's
            item = x.itemsize
            x = restride(self.xp, x, tuple(s * item for s in contiguous_strides(x.shape)))
        return x.transpose(self.dims)

    def _inverse(self):
        inv = [0] * len(self.dims)
        for i, d in enumerate(self.dims):
            inv[d] = i
        return tuple(inv)

    def backward(self, grad):
        return grad.permute(self._inverse())

    def backward_arrays(self, g):
        return g.transpose(self._inverse())


class Expand(Op):
    """y = x broadcast to ``shape`` (a view, read-only where elements repeat); dx = grad summed
    back by the engine."""

    is_view = True

    def forward(self, x):
        if x.shape == self.shape:
            return x.view()
        strides = _expand_strides(x.shape, x.strides, self.shape)
        if x.size == 0 or not any(st == 0 and n > 1 for st, n in zip(strides, self.shape)):
            # no element appears twice, so the view stays writable, as in torch
            return helpers_for(self.xp).as_strided(x, self.shape, strides)
        y = self.xp.broadcast_to(x, self.shape)  # read-only: writes would alias elements
        if 1 in self.shape:  # NumPy zeroes the stride of size-1 dims; torch keeps one
            y = restride(self.xp, y, strides)
        return y

    def backward(self, grad):
        return grad


def _expand_strides(in_shape, in_strides, shape):
    """Torch's strides for ``expand``: broadcast dims get 0, a new leading size-1 dim gets the
    extent of the dim after it, every other dim keeps its stride."""
    nd, lead = len(shape), len(shape) - len(in_shape)
    out = [0] * nd
    for i in range(nd - 1, -1, -1):
        d = i - lead
        if d >= 0:
            size, stride = in_shape[d], in_strides[d]
        else:
            size, stride = 1, (shape[i + 1] * out[i + 1] if i + 1 < nd else 0)
        out[i] = stride if size == shape[i] else 0
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# public functions


def reshape(input, *shape, **kwargs):
    """Return a tensor with the same data and a new shape (a view when possible)."""
    shape = required_size_args(shape, kwargs, "shape", "reshape")
    plain = _plain_shape(shape, input._array.size)
    shape = infer_shape(shape_arg(shape, "reshape", "shape"), input._array.size) \
        if plain is None else plain
    return Reshape.apply(input, shape=shape, must_view=False)


def view(input, *shape):
    """Return a view with a new shape; raises if the memory layout does not allow one.

    ``view(dtype)`` reinterprets the bytes as another dtype of the same size.
    """
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    plain = _plain_shape(shape, input._array.size)
    shape = infer_shape(shape_arg(shape, "view", "size"), input._array.size) \
        if plain is None else plain
    return Reshape.apply(input, shape=shape, must_view=True)


def _scalar_type_name(dt):
    return dt._legacy[:-len("Tensor")]


def _view_dtype(input, dt):
    """``input.view(dtype)``: the same bytes read as ``dt``; the last dim scales with the
    element-size ratio, as in torch."""
    arr = input._array
    old, new = arr.itemsize, dt.itemsize
    if old != new:
        what = (f"to view {_scalar_type_name(input.dtype)} as {_scalar_type_name(dt)} "
                "(different element sizes)")
        if arr.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        st = torch_stride(arr.shape, elem_strides(arr))  # an empty array's, as torch has them
        if st[-1] != 1 and arr.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {st[-1]}")
        if new > old:
            ratio = new // old
            if arr.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                                   f"{arr.shape[-1]}")
            off = input.storage_offset()
            if off % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, "
                                   f"but got {off}")
            for i, s in enumerate(st[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, "
                                       f"but got {s}")
        if st[-1] != 1:  # a size-1 last dim: make it unit-stride so NumPy accepts the view
            arr = restride(backend.xp_of(arr), arr, arr.strides[:-1] + (arr.itemsize,))
    out = arr.view(dt.np)
    if out.size == 0:  # no bytes to share: a fresh empty array reports torch's strides
        out = backend.xp_of(out).empty(out.shape, out.dtype)
    # torch returns an alias outside autograd: shared memory and version counter, no _base
    t = _make(out)
    t._vc = input._vc
    return t


def permute(input, *dims, **kwargs):
    """Return a view with the dims reordered."""
    nd = input._array.ndim
    if dims and not kwargs and len(dims) == nd and input._array.__class__ is not SparseCOO and \
            all(type(d) is int and 0 <= d < nd for d in dims) and len(set(dims)) == nd:
        return Permute.apply(input, dims=dims)  # plain dims (a backward's inverse): no parsing
    dims = required_size_args(dims, kwargs, "dims", "permute")
    dims = shape_arg(dims, "permute", "dims")
    if input._array.__class__ is SparseCOO:  # torch.permute(sparse) as the method
        return input.permute(dims)
    nd = input._array.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(canonical_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims=dims)


def transpose(input=missing_arg, dim0=missing_arg, dim1=missing_arg):
    """Return a view with ``dim0`` and ``dim1`` swapped."""
    try:
        if input._array.__class__ is SparseCOO:
            return input.transpose(dim0, dim1)
        nd = input._array.ndim
        a, b = canonical_dim(dim0, nd, "dim0", 1), canonical_dim(dim1, nd, "dim1", 2)
        dims = list(range(nd))
        if nd:
            dims[a], dims[b] = dims[b], dims[a]
        return Permute.apply(input, dims=tuple(dims), node_name="TransposeBackward0")
    except Exception:
        check_missing_call(input=input, dim0=dim0, dim1=dim1)
        raise


swapaxes = swapdims = transpose


def t(input):
    """Transpose a tensor of at most 2 dims (0-d and 1-d tensors come back as they are)."""
    if input._array.__class__ is SparseCOO:
        return input.t()
    nd = input._array.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return Permute.apply(input, dims=tuple(range(nd))[::-1], node_name="TBackward0")


def expand(input, *sizes):
    """Broadcast singleton dims to ``sizes`` (``-1`` keeps a size) without copying."""
    sizes = shape_arg(sizes, "expand", "size")
    shape = input._array.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand({_type_text(input)}{{{fmt_shape(shape)}}}, "
                           f"size={fmt_shape(sizes)}): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = []
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as torch reports
        s = sizes[i]
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            out.append(s)
            continue
        cur = shape[i - lead]
        if s == -1:
            s = cur
        elif cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{fmt_shape(sizes)}.  Tensor sizes: {fmt_shape(shape)}")
        out.append(s)
    return Expand.apply(input, shape=tuple(out[::-1]))


broadcast_to = expand

# the dtypes torch's messages name by their legacy tensor type ("torch.FloatTensor"); the others
# by the backend's type ("CPUBoolType")
_LEGACY_NAMED = frozenset(("float32", "float64", "float16", "int64", "int32", "int16", "int8",
                           "uint8"))


def _type_text(input):
    name = input.dtype.name
    if name in _LEGACY_NAMED:
        return input.type()
    dev = "CUDA" if input.device.type == "cuda" else "CPU"
    return f"{dev}{_dtype._TYPE_DISPLAY.get(name) or name.capitalize()}Type"


def squeeze(input, dim=None):
    """Remove size-1 dims (all of them, or those in ``dim``)."""
    shape = input._array.shape
    if dim is None:
        gone = frozenset(i for i, s in enumerate(shape) if s == 1)
        node = "SqueezeBackward0"
    else:
        if isinstance(dim, int):
            d = canonical_dim(dim, len(shape))
            # one dim (a distribution's log_prob every step): the shape without it, or as is
            if shape and shape[d] == 1:
                gone, new = frozenset((d,)), shape[:d] + shape[d + 1:]
            else:
                gone, new = frozenset(), shape
            return Reshape.apply(input, shape=new, must_view=True, kind="squeeze", dims=gone,
                                 node_name="SqueezeBackward1")
        else:  # (torch refuses a repeated dim; a 0-d tensor takes 0 and -1 and keeps its shape)
            node = "SqueezeBackward2"
            gone = frozenset(i for i in canonical_dims(dim, len(shape)) if shape[i] == 1)
    new = tuple(s for i, s in enumerate(shape) if i not in gone)
    return Reshape.apply(input, shape=new, must_view=True, kind="squeeze", dims=gone,
                         node_name=node)


def unsqueeze(input=missing_arg, dim=missing_arg):
    """Insert a size-1 dim at ``dim``."""
    try:
        if input._array.__class__ is SparseCOO:
            return input.unsqueeze(dim)
        a = input._array
        shape = list(a.shape)
        d = canonical_dim(dim, len(shape) + 1)
        shape.insert(d, 1)
        if direct_view_source(input):  # ``x.unsqueeze(1)`` of data: Reshape's view, no node
            st = a.strides
            y = a.reshape(shape)
            strides = st[:d] + ((a.shape[d] * st[d]) if d < a.ndim else a.itemsize,) + st[d:]
            out = _make(y if y.strides == strides else restride(np, y, strides))
            _track_view(Reshape, input, out, {"shape": tuple(shape), "must_view": True,
                                              "kind": "unsqueeze", "dim": d, "in_shape": a.shape})
            return out
        return Reshape.apply(input, shape=tuple(shape), must_view=True, kind="unsqueeze", dim=d)
    except Exception:
        check_missing_call(input=input, dim=dim)
        raise


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (a view when possible)."""
    shape = input._array.shape
    nd = len(shape)
    s = canonical_dim(start_dim, nd, "start_dim", 1)  # (only 0 and -1 fit a 0-d tensor)
    e = canonical_dim(end_dim, nd, "end_dim", 2)
    if not shape:
        return reshape(input, 1)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input  # nothing to merge: torch hands back the tensor itself (1-d: x.flatten())
    new = shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:]
    return Reshape.apply(input, shape=new, must_view=False)


def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes`` (one of which may be -1)."""
    shape = input._array.shape
    d = canonical_dim(dim, len(shape))
    sizes = shape_arg((sizes,), "unflatten", "sizes") if isinstance(sizes, (tuple, list)) \
        else tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but "
                           "tensor has no dimensions")
    try:
        inner = infer_shape(sizes, shape[d])
    except RuntimeError as e:
        if "is invalid for input" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {fmt_shape(sizes)} don't multiply up to "
                           f"the size of dim {d} ({shape[d]}) in the input tensor") from None
    return Reshape.apply(input, shape=shape[:d] + inner + shape[d + 1:], must_view=False)


def movedim(input, source, destination):
    """Move dims from ``source`` to ``destination`` positions (a view)."""
    source, destination = as_index(source), as_index(destination)
    nd = input._array.ndim
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError(f"movedim() received an invalid combination of arguments: source and "
                        f"destination must both be ints or both be tuples of ints, but got "
                        f"({type(source).__name__}, {type(destination).__name__})")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    wsrc = [canonical_dim(d, nd) for d in src]
    wdst = [canonical_dim(d, nd) for d in dst]
    for name, given, wrapped in (("source", src, wsrc), ("destination", dst, wdst)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    src, dst = wsrc, wdst
    if not nd:  # a 0-d tensor's dim 0 (or -1): torch gives an alias of it
        return rename_node(Permute.apply(input, dims=()), "AliasBackward0")
    order = [d for d in range(nd) if d not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return Permute.apply(input, dims=tuple(perm))


moveaxis = movedim


def narrow(input, dim, start, length):
    """Return the view ``input[..., start:start+length, ...]`` along ``dim``."""
    from .indexing import getitem

    nd = input._array.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(dim, nd)
    size = input._array.shape[d]
    if not isinstance(start, Tensor):
        start = check_int("narrow", "start", start)
    start = int(start)
    length = check_int("narrow", "length", length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return rename_node(getitem(input, (slice(None),) * d + (slice(start, start + length),)),
                       "SliceBackward0")


def select(input=missing_arg, dim=missing_arg, index=missing_arg):
    """Return the view of ``input`` at ``index`` along ``dim`` (that dim removed)."""
    try:
        from .indexing import getitem

        if input._array.__class__ is SparseCOO:
            return input.select(dim, index)
        nd = input._array.ndim
        if nd == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        d = canonical_dim(check_int("select", "dim", dim, 1), nd)
        index = check_int("select", "index", index, 2)
        size = input._array.shape[d]
        if not -size <= index < size:
            raise IndexError(f"select(): index {index} out of range for tensor of size "
                             f"{fmt_shape(input._array.shape)} at dimension {d}")
        return getitem(input, (slice(None),) * d + (int(index),))
    except Exception:
        check_missing_call(input=input, dim=dim, index=index)
        raise


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of ``split_size`` (the last may be smaller) or of the given sizes."""
    if not tensor._array.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = canonical_dim(dim, tensor._array.ndim)
    n = tensor._array.shape[d]
    if type(split_size_or_sections) is not int:  # (a plain int: nothing to read or check)
        split_size_or_sections = as_index(split_size_or_sections)
        _check_split_sizes(split_size_or_sections)
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={step}")
        if step == 0 and n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [min(step, n - s) for s in range(0, n, step)] if n else [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sizes}")
    split_pieces = _SPLIT_PIECES[0]
    if split_pieces is None:  # (a function-level import costs ~1 us per call)
        from .multi_view import split_pieces

        _SPLIT_PIECES[0] = split_pieces
    origin = "SplitBackward0" if isinstance(split_size_or_sections, int) else \
        "SplitWithSizesBackward0"
    return split_pieces(tensor, d, sizes, origin)


_SPLIT_PIECES = [None]  # multi_view.split_pieces, imported on first use (import order)


def _check_split_sizes(sizes):
    """torch's parser errors for split's sizes (its text names split_with_sizes, position 2,
    however split was called)."""
    if isinstance(sizes, int) and not isinstance(sizes, bool):
        return
    from .._generator_args import type_name

    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be tuple "
                        f"of ints, not {type_name(sizes)}")
    for k, s in enumerate(sizes):
        if as_index(s).__class__ is not int or isinstance(s, bool):
            raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be "
                            f"tuple of ints, but found element of type {type_name(s)} at pos {k}")


def chunk(input=missing_arg, chunks=missing_arg, dim=0):
    """Split into ``chunks`` pieces of ``ceil(size / chunks)`` (fewer if the size is small)."""
    try:
        chunks = as_index(chunks)
        if chunks.__class__ is not int:
            raise arg_type_error(chunks, "chunks", index=1)
        if not input._array.ndim:
            raise RuntimeError("chunk expects at least a 1-dimensional tensor")
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        d = canonical_dim(dim, input._array.ndim, "dim", 2)
        n = input._array.shape[d]
        size = max(-(-n // chunks), 1) if n else 0
        if n == 0:
            return split(input, [0] * chunks, d) if chunks else ()
        return split(input, size, d)
    except Exception:
        check_missing_call(input=input, chunks=chunks)
        raise


def unbind(input, dim=0):
    """Return every slice along ``dim`` as a tuple of views."""
    from .multi_view import unbind_pieces

    d = canonical_dim(dim, input._array.ndim)
    if not input._array.ndim:
        raise no_dims_error(0)
    return unbind_pieces(input, d)


# torch's in-place view ops have nodes of their own names (what ``grad_fn`` prints)
_INPLACE_NODE = {"TransposeBackward0": "TransposeBackward1", "TBackward0": "TBackward1",
                 "UnsqueezeBackward0": "UnsqueezeBackward1",
                 "AsStridedBackward0": "AsStridedBackward1",
                 "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
                 "SqueezeBackward2": "SqueezeBackward5"}


def restride_(self, fn, *args):
    """In-place metadata change (``t_``, ``squeeze_``...): ``self`` becomes ``fn(self)``."""
    if fn is t and self._array.ndim > 2:  # (torch names the in-place call)
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._array.ndim}D")
    r = fn(self, *args)
    self._array = r._array
    if r._grad_fn is not None:
        inplace = _INPLACE_NODE.get(type(r._grad_fn).__name__)
        if inplace is not None:
            rename_node(r, inplace)
        self._grad_fn, self._output_nr = r._grad_fn, r._output_nr
    return self
