"""The meta device: tensors that have a shape, a dtype and strides but no data.

How meta data is held (nothing outside ``backend/`` knows this):

A meta tensor's array is a :class:`MetaArray`, an ``ndarray`` subclass laid over a *read-only,
private, anonymous, unreserved memory mapping* of the array's byte size. The kernel backs such
a mapping with its shared zero page: it costs address space, never memory, whatever its size
(``nn.Linear(50000, 50000)`` on meta takes 10 GB of address space and 0 bytes of RAM;
an array too large for the address space, tens of terabytes, falls back to one element seen
through zero strides, and only its reported strides differ). A
zero-stride array over one element would cost no address space either, but then
``stride()``, ``is_contiguous()``, transposes and slices would report NumPy's zero strides
where torch reports the layout a real tensor would have. Over the mapping every NumPy view
(``reshape``, ``transpose``, basic indexing, ``as_strided``) keeps torch's strides for free,
and any stray read sees zeros instead of crashing.

No op computes on meta data. NumPy hands every ufunc and array function called with a
MetaArray to :meth:`MetaArray.__array_ufunc__` / :meth:`MetaArray.__array_function__`, which
work out the result's shape and dtype (broadcasting, reductions, ``matmul``/``dot``/
``tensordot``/``einsum`` rules, dtypes from the same function applied to one-element
stand-ins) and return a fresh MetaArray; writes into a MetaArray (``out=``, ``copyto``,
``a[...] = v``, ``fill``) only check shapes. A function without a shape rule runs on the
zero-filled views and its results are turned into MetaArrays (correct shapes and dtypes, at the
cost of the result's memory for a moment). ``autograd.graph`` sends any op with a meta input
through :func:`forward`, which turns every output into a MetaArray, so results never leave the
meta device even when an op's forward goes through ``np.asarray``.

Random draws on meta draw nothing (:data:`RNG`) and leave the CPU generator's stream alone, as
torch's do.
"""

import mmap
import operator

import numpy as np

from ._layout_rank import broadcast_strides, torch_order

__all__ = ["MetaArray", "empty", "empty_in_order", "as_meta", "is_meta", "forward", "RNG", "XP",
           "no_data", "NONZERO_MESSAGE"]

NONZERO_MESSAGE = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this "
    "registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
    "to True.")

_FLAGS = mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0x20) | \
    getattr(mmap, "MAP_NORESERVE", 0)


def no_data():
    """torch's error for reading a meta tensor's values."""
    return NotImplementedError("Cannot copy out of meta tensor; no data!")


def empty(shape, dtype, order="C"):
    """A MetaArray of ``shape`` and ``dtype``, laid out row-major (``order='F'``: column-major),
    over an unreserved zero mapping: no memory is allocated."""
    dtype = np.dtype(dtype)
    shape = tuple(operator.index(n) for n in (shape if np.iterable(shape) else (shape,)))
    count = 1
    for n in shape:
        count *= n
    nbytes = count * dtype.itemsize
    if nbytes == 0:
        base = np.empty(shape, dtype)
    else:
        try:
            buf = mmap.mmap(-1, nbytes, flags=_FLAGS, prot=mmap.PROT_READ)
        except (OSError, OverflowError):
            # beyond the address space (tens of terabytes): one element seen through zero
            # strides; such a tensor reports zero strides, everything else is the same
            one = np.zeros(1, dtype)
            one.flags.writeable = False
            return np.lib.stride_tricks.as_strided(one, shape, (0,) * len(shape),
                                                   writeable=False).view(MetaArray)
        base = np.frombuffer(buf, dtype=dtype, count=count)
        base = base.reshape(shape[::-1]).T if order == "F" else base.reshape(shape)
    return base.view(MetaArray)


def empty_in_order(shape, dtype, inner_first):
    """A MetaArray of ``shape`` laid out densely with its dims innermost first as given."""
    outer_first = list(inner_first)[::-1]
    base = empty([shape[d] for d in outer_first], dtype)
    return base.transpose(np.argsort(outer_first)).view(MetaArray)


def _preserved(a, dtype):
    """A new MetaArray like ``a`` in torch's preserve_format layout: ``a``'s own order (dense
    ``a``) or the order its strides rank (see ``_layout_rank``)."""
    if a.ndim < 2 or a.flags.c_contiguous and 1 not in a.shape:
        return empty(a.shape, dtype)
    item = a.itemsize
    extent, dense = item, True
    for st, n in sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1):
        dense = dense and st == extent
        extent *= n
    if dense and a.size:  # its exact strides, size-1 dims included
        flat = empty((a.size,), dtype)
        strides = tuple(st // item * flat.itemsize for st in a.strides)
        return np.lib.stride_tricks.as_strided(flat, a.shape, strides,
                                               writeable=False).view(MetaArray)
    return empty_in_order(a.shape, dtype, torch_order(a.shape, [a.strides]))


def is_meta(a):
    """True for a meta array."""
    return type(a) is MetaArray


def as_meta(a):
    """``a`` (an array, NumPy scalar or number) as a MetaArray of its shape and dtype."""
    if type(a) is MetaArray:
        return a
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    base = a.base
    while base is not None:  # a plain view of meta memory (as_strided): keep its strides
        if type(base) in (MetaArray, mmap.mmap):
            return a.view(MetaArray)
        base = getattr(base, "base", None) if not isinstance(base, memoryview) else base.obj
    order = "F" if a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    return empty(a.shape, a.dtype, order)


def _plain(x):
    """A MetaArray as the plain (zero-filled, read-only) ndarray it lies over."""
    return x.view(np.ndarray) if type(x) is MetaArray else x


def _plain_args(obj):
    if type(obj) is MetaArray:
        return obj.view(np.ndarray)
    if type(obj) in (list, tuple):
        return type(obj)(_plain_args(o) for o in obj)
    if type(obj) is dict:
        return {k: _plain_args(v) for k, v in obj.items()}
    return obj


def _metas(result):
    """Every array in ``result`` (nested in tuples/lists) made a MetaArray."""
    if isinstance(result, (np.ndarray, np.generic)):
        return as_meta(result)
    if type(result) in (tuple, list):
        return type(result)(_metas(r) for r in result)
    return result


def _tiny(x):
    """A one-element stand-in of an array argument with its dtype (scalars stay as they are, so
    NumPy's weak-scalar promotion is the same)."""
    if isinstance(x, np.ndarray):
        return np.ones((), x.dtype)
    return x


def _layout_of(inputs, shape):
    """'F' when every array input of the result's shape is column-major only (NumPy's K order
    and torch's elementwise kernels keep that layout), else 'C'."""
    arrays = [x for x in inputs if isinstance(x, np.ndarray) and x.shape == shape]
    if len(shape) > 1 and arrays and all(
            x.flags.f_contiguous and not x.flags.c_contiguous for x in arrays):
        return "F"
    return "C"


def _outs_written(out, shapes):
    """Results written into ``out=`` arrays: their shapes are checked, nothing is stored."""
    outs = out if isinstance(out, tuple) else (out,)
    for o, shape in zip(outs, shapes):
        if o is not None and np.broadcast_shapes(o.shape, shape) != o.shape:
            raise ValueError(f"non-broadcastable output operand with shape {o.shape} doesn't "
                             f"match the broadcast shape {shape}")
    return outs if len(outs) > 1 else outs[0]


def _matmul_shape(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a_shape = (1,) + a.shape if a.ndim == 1 else a.shape
    b_shape = b.shape + (1,) if b.ndim == 1 else b.shape
    if a_shape[-1] != b_shape[-2]:
        np.matmul(np.empty(a_shape[-2:][:0] + (1, a_shape[-1])), np.empty((b_shape[-2], 1)))
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    shape = batch + (a_shape[-2], b_shape[-1])
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return shape


def _reduce_axes(ndim, axis):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim if ndim else a for a in axes))


class MetaArray(np.ndarray):
    """The array behind a meta tensor: an ndarray over memory that holds nothing (see the
    module docstring). Every NumPy function applied to it returns MetaArrays."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        kwargs.pop("where", None)
        with np.errstate(all="ignore"):
            if method == "__call__" and ufunc is np.matmul:
                shape = _matmul_shape(np.asarray(inputs[0]), np.asarray(inputs[1]))
                dts = (ufunc(*(np.ones((1, 1), x.dtype) if isinstance(x, np.ndarray) else x
                               for x in inputs), **kwargs).dtype,)
                shapes = (shape,)
            elif method == "__call__" and ufunc.signature is None:
                arrays = [np.shape(x) for x in inputs if isinstance(x, np.ndarray)]
                try:
                    shape = np.broadcast_shapes(*arrays)
                except ValueError:
                    ufunc(*_plain_args(inputs))  # NumPy's own error
                    raise
                res = ufunc(*[_tiny(x) for x in inputs], **kwargs)
                dts = tuple(r.dtype for r in (res if ufunc.nout > 1 else (res,)))
                if out is None and len(shape) > 1:  # laid out as torch lays elementwise results
                    perm = torch_order(shape, [broadcast_strides(x, shape) for x in inputs
                                               if isinstance(x, np.ndarray) and x.ndim])
                    results = tuple(empty_in_order(shape, d, perm) for d in dts)
                    return results if len(results) > 1 else results[0]
                shapes = (shape,) * ufunc.nout
            elif method in ("reduce", "accumulate"):
                x = inputs[0]
                axis = kwargs.get("axis", 0)
                probe = np.ones(tuple(min(n, 2) for n in x.shape), x.dtype)
                res = getattr(ufunc, method)(probe, **kwargs)
                dts = (res.dtype,)
                if method == "accumulate":
                    shapes = (x.shape,)
                else:
                    axes = _reduce_axes(x.ndim, axis)
                    if kwargs.get("keepdims"):
                        shapes = (tuple(1 if i in axes else n for i, n in enumerate(x.shape)),)
                    else:
                        shapes = (tuple(n for i, n in enumerate(x.shape) if i not in axes),)
            else:  # outer, at, reduceat, other gufuncs: run on the zero views
                if out is not None:
                    kwargs["out"] = _plain_args(out)
                res = getattr(ufunc, method)(*_plain_args(inputs), **kwargs)
                return out if out is not None else _metas(res)
        if out is not None:
            return _outs_written(out, shapes)
        results = tuple(empty(s, d, _layout_of(inputs, s)) for s, d in zip(shapes, dts))
        return results if len(results) > 1 else results[0]

    def __array_function__(self, func, types, args, kwargs):
        rule = _FUNCTIONS.get(func)
        if rule is not None:
            return rule(*args, **kwargs)
        out = kwargs.get("out")
        res = func(*_plain_args(args), **_plain_args(kwargs))
        if out is not None:
            return out
        if isinstance(res, np.ndarray) and any(
                type(a) is MetaArray and np.may_share_memory(res, a) for a in args):
            return res.view(MetaArray)  # a view (broadcast_to, moveaxis...): its own strides
        return _metas(res)

    # -- methods that would read or write the (absent) data -----------------------------------
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        if order == "K":
            return _preserved(self, dtype)
        return empty(self.shape, dtype, "F" if order == "F" else "C")

    def copy(self, order="C"):
        if order in ("K", "A"):
            return _preserved(self, self.dtype)
        return empty(self.shape, self.dtype, order)

    def __copy__(self):
        return self.copy("K")

    def __deepcopy__(self, memo):
        return self.copy("K")

    def __reduce__(self):
        return (empty, (self.shape, self.dtype.str))

    def fill(self, value):
        pass

    def __setitem__(self, key, value):
        # check the key and the value's shape against the selected part; store nothing
        target = self[key]
        shape = np.shape(value)
        if np.broadcast_shapes(shape, target.shape) != target.shape:
            raise ValueError(f"could not broadcast input array from shape {shape} into shape "
                             f"{target.shape}")

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            if isinstance(k, np.ndarray) and k.dtype == np.bool_ or isinstance(k, (bool,
                                                                                   np.bool_)):
                if isinstance(k, np.ndarray) and k.ndim:
                    raise NotImplementedError(NONZERO_MESSAGE)
        basic = all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer))
                    and not isinstance(k, (bool, np.bool_)) for k in keys)
        if basic:
            if Ellipsis not in keys:
                keys = keys + (Ellipsis,)  # a 0-d view instead of a NumPy scalar
            return super().__getitem__(keys)
        res = np.ndarray.__getitem__(self.view(np.ndarray), _plain_args(key))
        return as_meta(res)

    def item(self, *args):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def tolist(self):
        raise no_data()

    def tobytes(self, order="C"):
        raise no_data()

    def __array_wrap__(self, array, context=None, return_scalar=False):
        return as_meta(array)


# -- array functions with a shape rule -----------------------------------------------------------
def _like(fn_name):
    def make(a, dtype=None, order="K", subok=True, shape=None, **kw):
        dt = np.asarray(a).dtype if dtype is None else dtype
        if shape is None and order == "K" and isinstance(a, np.ndarray):
            return _preserved(a, dt)
        return empty(np.shape(a) if shape is None else shape, dt)
    make.__name__ = fn_name
    return make


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, **kw):
    return empty(np.shape(a) if shape is None else shape, np.asarray(a).dtype if dtype is None
                 else dtype)


def _copyto(dst, src, casting="same_kind", where=True):
    np.broadcast_shapes(np.shape(src), np.shape(dst))


def _contiguous(a, dtype=None, **kw):
    a = np.asarray(a)
    return empty(a.shape if a.ndim else (1,), dtype or a.dtype)  # NumPy's: at least 1-d


def _fortran(a, dtype=None, **kw):
    a = np.asarray(a)
    return empty(a.shape if a.ndim else (1,), dtype or a.dtype, "F")


def _copy(a, order="K", subok=False):
    return a.copy(order) if type(a) is MetaArray else as_meta(np.asarray(a))


def _dot(a, b, out=None):
    a, b = np.asarray(a), np.asarray(b)
    dt = np.result_type(a, b)
    if a.ndim == 0 or b.ndim == 0:
        shape = np.broadcast_shapes(a.shape, b.shape)
    elif b.ndim == 1:
        _check_inner(a.shape[-1], b.shape[0])
        shape = a.shape[:-1]
    else:
        _check_inner(a.shape[-1], b.shape[-2])
        shape = a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    return out if out is not None else empty(shape, dt)


def _check_inner(n, m):
    if n != m:
        raise ValueError(f"shapes not aligned: {n} (dim) != {m} (dim)")


def _tensordot(a, b, axes=2):
    a, b = np.asarray(a), np.asarray(b)
    if isinstance(axes, int):
        ax_a = list(range(a.ndim - axes, a.ndim))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
    ax_a = [i % a.ndim for i in ax_a]
    ax_b = [i % b.ndim for i in ax_b]
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError("shape-mismatch for sum")
    shape = tuple(n for i, n in enumerate(a.shape) if i not in ax_a) + \
        tuple(n for i, n in enumerate(b.shape) if i not in ax_b)
    return empty(shape, np.result_type(a, b))


def _einsum(*operands, out=None, dtype=None, **kw):
    spec = operands[0]
    arrays = [np.asarray(o) for o in operands[1:]]
    if not isinstance(spec, str) or "->" not in spec or "." in spec:
        res = np.einsum(*_plain_args(operands), dtype=dtype, **kw)
        return out if out is not None else as_meta(res)
    ins, result = spec.replace(" ", "").split("->")
    sizes = {}
    for labels, a in zip(ins.split(","), arrays):
        if len(labels) != a.ndim:
            raise ValueError(f"operand has more dimensions than subscripts given in einstein "
                             f"sum, but no '...' ellipsis provided to broadcast the extra "
                             f"dimensions.")
        for lab, n in zip(labels, a.shape):
            if sizes.get(lab, 1) not in (1, n) and n != 1:
                raise ValueError(f"operands could not be broadcast together with remapped "
                                 f"shapes [original->remapped]")
            sizes[lab] = max(sizes.get(lab, 1), n) if n else 0
    dt = np.result_type(*arrays) if dtype is None else dtype
    res = empty(tuple(sizes[lab] for lab in result), dt)
    return out if out is not None else res


_in_op = [0]  # > 0 while an op's forward runs on meta arrays (see ``forward``)


def _no_nonzero(func):
    """``func`` (np.nonzero & co) on meta: torch's refusal when a program asks for the indices
    (``torch.nonzero``); inside an op's own forward, which only needs shapes of what it
    builds from them, the zero-filled data answers."""
    def rule(*args, **kwargs):
        if not _in_op[0]:
            raise NotImplementedError(NONZERO_MESSAGE)
        return _metas(func(*_plain_args(args), **_plain_args(kwargs)))

    return rule


def _where(cond, *xy):
    if not xy:
        raise NotImplementedError(NONZERO_MESSAGE)
    arrays = [cond, *xy]
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    dt = np.where(True, *(_tiny(np.asarray(v)) if isinstance(v, np.ndarray) else v
                          for v in xy)).dtype
    return empty(shape, dt)


_FUNCTIONS = {
    np.empty_like: _like("empty_like"), np.zeros_like: _like("zeros_like"),
    np.ones_like: _like("ones_like"), np.full_like: _full_like, np.copyto: _copyto,
    np.ascontiguousarray: _contiguous, np.asfortranarray: _fortran, np.copy: _copy,
    np.dot: _dot, np.tensordot: _tensordot, np.einsum: _einsum,
    np.nonzero: _no_nonzero(np.nonzero), np.flatnonzero: _no_nonzero(np.flatnonzero),
    np.argwhere: _no_nonzero(np.argwhere),
    np.where: _where,
}


# -- ops on meta tensors ---------------------------------------------------------------------------
def _conv(node, x, w, b=None):
    from ..ops.conv import out_size

    out = node.__dict__.get("out")
    if out is None:
        out = out_size(x.shape[2:], w.shape[2:], node.stride, node.padding, node.dilation)
    return empty((x.shape[0], w.shape[0]) + tuple(out), np.result_type(x, w))


def _conv_transpose(node, x, w, b=None):
    return empty((x.shape[0], w.shape[1] * node.groups) + tuple(node.size),
                 np.result_type(x, w))


def _max_pool(node, x):
    y = empty(x.shape[:2] + tuple(node.out), x.dtype)
    return (y, empty(y.shape, np.int64)) if node.indices else y


def _avg_pool(node, x):
    return empty(x.shape[:2] + tuple(node.out), x.dtype)


# Ops whose forward would work through im2col copies or window scans of the (absent) data:
# their output shapes straight from the parameters (what torch's meta kernels compute).
_OP_RULES = {"Conv": _conv, "ConvTranspose": _conv_transpose, "MaxPool": _max_pool,
             "AvgPool": _avg_pool}


def _input_grads(node):
    """The backward of an op run by a shape rule: each input's gradient has that input's shape and dtype, so it is
    a fresh MetaArray; nothing runs (torch's meta backward kernels compute no values either)."""
    from .._tensor import _make

    def backward(*grads):
        return tuple(None if e is None or m is None else _make(empty(m[0], m[1]))
                     for e, m in zip(node._edges, node._in_meta))

    return backward


def _or_input_grads(node, backward):
    fallback = _input_grads(node)

    def run(*grads):
        try:
            return backward(*grads)
        except Exception as e:  # noqa: BLE001 - the gradients' shapes and dtypes are known
            if "a second time" in str(e):  # a freed graph stays an error, as in torch
                raise
            return fallback(*grads)

    return run


def forward(node, arrays):
    """Run op ``node`` on arrays some of which are meta; every output is meta, and so is every
    gradient its backward gives."""
    if node.backward_arrays is not None:
        node.backward_arrays = None  # the engine's raw-array path would skip this hook
    rule = _OP_RULES.get(getattr(node, "_op_cls", type(node)).__name__)
    if rule is not None and not (len(arrays) > 1 and any(
            type(a) is not MetaArray and isinstance(a, np.ndarray) for a in arrays[:2])):
        if getattr(node, "_recording", False):
            node.backward = _input_grads(node)  # its forward saved nothing to work from
        return rule(node, *arrays)
    # other ops run on the data-less arrays (NumPy hands each call to MetaArray) and their
    # backward runs through meta ops, so create_graph records nodes as torch's does; a
    # backward that cannot run without data (one that replays its forward from saved state,
    # as the recurrent layers' does) gives the input-shaped gradients instead
    if getattr(node, "_recording", False):
        node.backward = _or_input_grads(node, node.backward)
    _in_op[0] += 1
    try:
        return _metas(node.forward(*arrays))
    finally:
        _in_op[0] -= 1


# -- creation and random draws on the meta device ------------------------------------------------
class _MetaXP:
    """NumPy's namespace as factory functions see it on the meta device: the creation functions
    make MetaArrays without allocating; any other function's array results become MetaArrays."""

    ndarray = np.ndarray

    def empty(self, shape, dtype=float, order="C", **kw):
        return empty(shape, dtype, order)

    zeros = ones = empty

    def full(self, shape, fill_value, dtype=None, order="C", **kw):
        return empty(shape, np.asarray(fill_value).dtype if dtype is None else dtype, order)

    def eye(self, n, m=None, k=0, dtype=float, **kw):
        return empty((n, n if m is None else m), dtype)

    def identity(self, n, dtype=float, **kw):
        return empty((n, n), dtype)

    def asarray(self, a, dtype=None, **kw):
        return as_meta(a if dtype is None else np.asarray(a, dtype=dtype))

    array = ascontiguousarray = asarray

    def __getattr__(self, name):
        attr = getattr(np, name)
        if isinstance(attr, type) or not callable(attr):
            return attr

        def call(*args, **kwargs):
            return _metas(attr(*args, **kwargs))

        return call


XP = _MetaXP()


class _MetaRng:
    """A random source for meta tensors: every draw is a MetaArray of the requested shape and
    dtype; nothing is drawn and no generator advances."""

    xp = XP

    @staticmethod
    def _draw(size, dtype):
        return empty(() if size is None else size, dtype)

    def random(self, size=None, dtype=np.float64, out=None):
        return self._draw(size, dtype)

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return self._draw(size, dtype)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return self._draw(size, dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        return self._draw(size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=np.float64):
        return self._draw(size, np.result_type(np.asarray(loc).dtype, np.float64)
                          if dtype is None else dtype)

    def permutation(self, x):
        return self._draw((x,) if isinstance(x, int) else np.shape(x), np.int64)

    def __getattr__(self, name):
        def draw(*args, size=None, dtype=np.float64, **kwargs):
            return self._draw(size, dtype)

        return draw


RNG = _MetaRng()
