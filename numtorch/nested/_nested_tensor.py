"""The nested tensor: components of one rank and differing shapes in one flat buffer.

A ``NestedTensor`` is, for autograd and for every array operation, the 1-d tensor of all its
components' elements laid end to end (row-major, component after component). Beside that buffer
it keeps a ``(B, D)`` int64 table of the components' shapes (``_nsizes``), its layout
(``torch.strided``, or ``torch.jagged`` with one ragged dimension, dim 1, and an offsets tensor)
and, for the jagged layout, the symbolic size of the ragged dimension (``j1``, ...). Two jagged
tensors combine elementwise only when they share that symbol, as in torch, where it stands for
one offsets tensor.

Operations reach the class through ``__torch_function__`` (numtorch/_torch_function.py), which
``numtorch.nested`` installs on import; the handlers (``_nested_ops.py``) run a few large array
calls over the buffer, or pad, run one dense op and take the valid part back (``_remap.py``).
"""

import numpy as np

from .. import _torch_function
from .._layout import jagged, strided
from .._size import Size
from .._tensor import Tensor, _make
from ..autograd.graph import accumulator

_new = object.__new__

_STRIDED_SIZES = "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue."
_STRIDED_STRIDES = "Internal error: NestedTensorImpl doesn't support strides. Please file an issue."


class RaggedSize:
    """The symbolic size of a jagged tensor's ragged dimension, printed ``j<n>``."""

    __slots__ = ("_n", "pad_len")
    _count = [0]  # noqa: RUF012 - the process-wide numbering

    def __init__(self, pad_len=None):
        RaggedSize._count[0] += 1
        self._n = RaggedSize._count[0]
        self.pad_len = pad_len  # the length to_padded_tensor pads to (None: the longest)

    def __repr__(self):
        return f"j{self._n}"

    __str__ = __repr__


def starts_of(sizes):
    """Where each component begins in the flat buffer, and the total (length B + 1)."""
    counts = np.prod(sizes, axis=1, dtype=np.int64) if sizes.shape[1] else \
        np.ones(len(sizes), np.int64)
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


class NestedTensor(Tensor):
    """A batch of tensors of one rank whose shapes may differ (``torch.nested``).

    Build one with :func:`numtorch.nested.nested_tensor`; see the module docstring for how it
    is stored.
    """

    __slots__ = ("_nlayout", "_noffsets", "_nperm", "_nsizes", "_ragged", "_ridx")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Run ``func`` on nested arguments through the handler table of ``_nested_ops``."""
        from ._nested_ops import dispatch

        return dispatch(func, args, kwargs or {})

    # -- what the nested tensor is ---------------------------------------------------------
    is_nested = property(lambda self: True, doc="True: this is a nested tensor.")
    layout = property(lambda self: self._nlayout, doc="``torch.strided`` or ``torch.jagged``.")

    def dim(self):
        """The rank of the components plus one (the batch dimension)."""
        return self._nsizes.shape[1] + 1

    ndimension = dim
    ndim = property(dim)

    def _sym_sizes(self):
        """The jagged size: the batch, the ragged symbol, the shared inner sizes."""
        dims = [int(s) for s in self._nsizes[0]] if len(self._nsizes) else \
            [0] * self._nsizes.shape[1]
        dims[self._ridx - 1] = self._ragged
        return _tuple_size([len(self._nsizes), *dims])

    def size(self, dim=None):
        """The size of ``dim``; the whole size only for the jagged layout."""
        if dim is None:
            if self._nlayout is jagged:
                return self._sym_sizes()
            raise RuntimeError(_STRIDED_SIZES)
        n = self.dim()
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                             f"{n - 1}], but got {dim})")
        dim %= n
        if self._nlayout is jagged:
            return self._sym_sizes()[dim]
        if dim == 0:
            return len(self._nsizes)
        col = self._nsizes[:, dim - 1]
        if len(col) and (col != col[0]).any():
            raise RuntimeError(f"Given dimension {dim} is irregular and does not have a size.")
        return int(col[0])

    @property
    def shape(self):
        """The jagged size (``torch.Size([2, j1, 3])``); strided nested tensors have none."""
        return self.size()

    def __len__(self):
        if self._nlayout is jagged:
            return len(self._nsizes)
        raise RuntimeError(_STRIDED_SIZES)

    def numel(self):
        """The number of elements over all components."""
        return int(self._array.size)

    nelement = numel

    def stride(self, dim=None):
        """Jagged strides (ragged ones symbolic); strided nested tensors have none."""
        if self._nlayout is not jagged:
            raise RuntimeError(_STRIDED_STRIDES)
        if self._ridx != 1:
            raise NotImplementedError("numtorch: strides of a transposed jagged nested tensor")
        inner = [int(s) for s in self._nsizes[0, 1:]]
        row = int(np.prod(inner, dtype=np.int64))
        tail = [int(np.prod(inner[i + 1:], dtype=np.int64)) for i in range(len(inner))]
        st = (_Product(row, self._ragged), row, *tail)
        return st if dim is None else st[dim]

    def is_contiguous(self, memory_format=None):
        """False after a transpose (and for what elementwise ops make of it), as torch's view
        would be; the buffer itself is always laid out component after component."""
        return self._nperm is None

    # -- components --------------------------------------------------------------------------
    def unbind(self, dim=0):
        """The components, as views of the buffer (gradients flow back to it)."""
        if dim != 0:
            if self._nlayout is jagged:
                raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
            raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
        flat = as_flat(self)
        st = starts_of(self._nsizes)
        return tuple(flat[int(st[i]):int(st[i + 1])].reshape(tuple(int(s) for s in row))
                     for i, row in enumerate(self._nsizes))

    def __iter__(self):
        return iter(self.unbind())

    def __getitem__(self, key):
        from ._nested_ops import getitem

        return getitem(self, key)

    def values(self):
        """The buffer: flat for the strided layout, ``(total, *inner)`` for the jagged one."""
        from ._nested_ops import values

        return values(self)

    def offsets(self):
        """The jagged layout's offsets (``B + 1`` int64 positions along the ragged dim)."""
        if self._nlayout is not jagged:
            raise AttributeError("'Tensor' object has no attribute 'offsets'")
        return self._noffsets

    def lengths(self):
        """None: the components of a contiguous jagged tensor follow one another."""
        if self._nlayout is not jagged:
            raise AttributeError("'Tensor' object has no attribute 'lengths'")

    def to_padded_tensor(self, padding, output_size=None):
        """See :func:`numtorch.nested.to_padded_tensor`."""
        from ._nested_ops import to_padded_tensor

        return to_padded_tensor(self, padding, output_size)

    # -- copies and autograd -------------------------------------------------------------------
    def detach(self):
        """The same components without autograd history."""
        return like(self, _make(self._array))

    def clone(self, *, memory_format=None):
        """A copy of the buffer with the same structure (differentiable)."""
        return like(self, as_flat(self).clone())

    def to(self, *args, **kwargs):
        """``Tensor.to`` applied to the buffer: dtype and device changes keep the structure."""
        return like(self, as_flat(self).to(*args, **kwargs))

    def requires_grad_(self, requires_grad=True):
        """Mark the nested leaf as requiring gradients (in place)."""
        Tensor.requires_grad_(self, requires_grad)
        return self

    @property
    def grad(self):
        """The gradient accumulated into this nested leaf, as a nested tensor."""
        g = self._grad
        return None if g is None else like(self, g)

    @grad.setter
    def grad(self, value):
        self._grad = None if value is None else as_flat(value)

    def __repr__(self, *, tensor_contents=None):
        from ._nested_str import format_nested

        return format_nested(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        """Pickled as torch pickles nested tensors (``_rebuild_nested_tensor`` over the
        buffer and its size tables, or ``_rebuild_njt`` over values and offsets)."""
        from .._serialization._rebuild import nested_reduce

        return nested_reduce(self)

    def __deepcopy__(self, memo):
        import copy

        from .._tensor import _DEEPCOPY_NON_LEAF

        if not self.is_leaf:
            raise RuntimeError(_DEEPCOPY_NON_LEAF)

        func, args = self.__reduce_ex__(2)
        new = func(*copy.deepcopy(args, memo))
        memo[id(self)] = new
        return new


class _Product:
    """A symbolic stride: a number times a ragged size, printed ``3*j1``."""

    __slots__ = ("_k", "_sym")

    def __init__(self, k, sym):
        self._k, self._sym = k, sym

    def __repr__(self):
        return f"{self._k}*{self._sym}"


def _tuple_size(items):
    return tuple.__new__(Size, items)


def wrap(flat, sizes, layout=strided, ragged=None, offsets=None, ridx=1, perm=None):
    """A NestedTensor whose buffer and autograd identity are those of the 1-d ``flat``."""
    if not _torch_function._installed[0]:  # put back after a test's uninstall()
        _torch_function._install_functions()
    t = _new(NestedTensor)
    t._array = flat._array.reshape(-1)
    t._requires_grad = flat._requires_grad
    t._grad = None
    t._grad_fn = flat._grad_fn
    t._output_nr = flat._output_nr
    t._vc = flat._vc
    t._base = t._accum = t._extra = None
    sizes = np.asarray(sizes, dtype=np.int64)
    t._nsizes = sizes if sizes.ndim == 2 else sizes.reshape(len(sizes), -1)  # (rows: components)
    t._nlayout = layout
    if layout is jagged and ragged is None:
        ragged = RaggedSize()
    t._ragged = ragged
    t._noffsets = offsets
    t._ridx = ridx  # the jagged layout's ragged dim (1, or another after a transpose)
    t._nperm = perm  # torch's memory order of the component dims after transposes (None: in order)
    if flat._grad_fn is None and flat._requires_grad:
        raise AssertionError("a leaf buffer cannot be wrapped (it would be a second leaf)")
    return t


def like(nt, flat, sizes=None, ridx=None, perm=None):
    """``flat`` wrapped with ``nt``'s structure, or with new ``sizes`` (a new, contiguous
    result unless ``perm`` says otherwise), keeping the ragged size."""
    if sizes is None:
        sizes, perm = nt._nsizes, nt._nperm
    return wrap(flat, sizes, nt._nlayout, nt._ragged, nt._noffsets,
                nt._ridx if ridx is None else ridx, perm)


def as_flat(t):
    """A plain 1-d Tensor that stands for nested ``t``'s buffer in autograd (a leaf's
    gradient still accumulates into ``t``)."""
    if not isinstance(t, NestedTensor):
        return t
    p = _make(t._array)
    p._vc = t._vc
    if t._grad_fn is not None:
        p._requires_grad, p._grad_fn, p._output_nr = True, t._grad_fn, t._output_nr
    elif t._requires_grad:
        p._requires_grad = True
        p._accum = accumulator(t)
    return p


def new_leaf(arr, sizes, layout, requires_grad, ragged=None, offsets=None):
    """A nested leaf over the 1-d array ``arr``."""
    t = wrap(_make(arr), sizes, layout, ragged, offsets)
    if requires_grad:
        t.requires_grad_(True)
    return t


# the Tensor methods and operators not defined above dispatch to __torch_function__; the
# public functions of numtorch and nn.functional do too, once this module is imported
_torch_function.install(NestedTensor)
