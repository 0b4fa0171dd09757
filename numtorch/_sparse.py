"""Sparse COO tensors: ``torch.sparse_coo`` layout.

A sparse tensor is a ``Tensor`` subclass whose ``_array`` slot holds a :class:`SparseCOO`
record instead of a dense array: ``indices`` (an int64 ``(sparse_dim, nnz)`` array), ``values``
(a dense numtorch Tensor of shape ``(nnz,) + dense_shape``, which carries the autograd history)
and the full shape. The record answers ``shape``/``ndim``/``size``/``dtype`` the way an array
does, so the Tensor properties built on ``_array`` (``shape``, ``dim()``, ``numel()``,
``dtype``) need no sparse branch, and the dense hot paths are untouched. Any NumPy call that
reaches the record (a dense-only op given a sparse tensor) raises torch's "Could not run
'aten::<op>' with arguments from the 'SparseCPU' backend" instead of densifying silently.

Being a subclass also makes ``dense + sparse`` and ``dense @ sparse`` reach the sparse
reflected operators first (Python tries a right operand's reflected method first when its
type subclasses the left one's), so the dense operators need no check either.
"""

import numpy as np

import numtorch as _nt

from . import _layout
from ._dispatch_error import no_kernel
from ._tensor import _DEEPCOPY_NON_LEAF, Tensor, _make, _parse_to

__all__ = []


def _unsupported(name):
    return no_kernel(name, "SparseCPU")


class SparseCOO:
    """The storage of one sparse COO tensor (what its ``_array`` slot holds).

    Attributes:
        indices: int64 array of shape ``(sparse_dim, nnz)``.
        values: dense Tensor of shape ``(nnz,) + shape[sparse_dim:]``.
        shape: the full (dense) shape, a tuple.
        coalesced: whether indices are known sorted and unique.
        origin: None, or a dense tensor standing for the whole matrix in autograd: the input
            of ``to_sparse()``, or (for a leaf made with ``requires_grad=True``) a zero-stride
            leaf that collects the dense gradient torch.mm reports for sparse leaves.
    """

    __slots__ = ("coalesced", "indices", "origin", "shape", "values")

    def __init__(self, indices, values, shape, coalesced, origin=None):
        self.indices, self.values, self.shape, self.coalesced = indices, values, shape, coalesced
        self.origin = origin

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def dtype(self):
        return self.values._array.dtype

    @property
    def itemsize(self):
        return self.values._array.itemsize

    # a dense op handed a sparse tensor: NumPy asks us to take part, and we refuse in torch's
    # words, naming the ufunc or function NumPy was about to run
    def __array_ufunc__(self, ufunc, method, *args, **kwargs):
        raise _unsupported(ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        raise _unsupported(func.__name__)

    def __array__(self, *args, **kwargs):
        raise _unsupported("_to_dense")

    def __getattr__(self, name):
        if name.startswith("__"):  # protocol probes (hasattr) answer "absent"
            raise AttributeError(name)
        raise _unsupported(name)


def make(indices, values, shape, coalesced=False, origin=None):
    """A sparse tensor around ``indices`` (int64 array) and ``values`` (Tensor)."""
    t = _make(SparseCOO(indices, values, tuple(shape), coalesced, origin))
    t.__class__ = SparseTensor
    return t


def is_sparse(t):
    """Whether ``t`` is a sparse COO tensor."""
    return type(t) is SparseTensor


class ValuesAutograd:
    """The autograd state of a sparse tensor (COO or compressed), which lives on its values
    tensor; ``_grad_of_values`` turns the values' gradient into one of the tensor's layout."""

    @property
    def requires_grad(self):
        return self._array.values.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._array.values.requires_grad = value
        self._leaf_origin()

    def requires_grad_(self, requires_grad=True):
        self._array.values.requires_grad_(requires_grad)
        self._leaf_origin()
        return self

    def _leaf_origin(self):
        # a leaf made to require grad after construction collects torch.mm's dense gradient
        # the same way as one built with requires_grad=True
        s = self._array
        if s.origin is None and s.values.requires_grad and s.values.grad_fn is None:
            s.origin = _make(np.broadcast_to(np.zeros((), s.values._array.dtype), s.shape))
            s.origin.requires_grad_(True)

    @property
    def grad_fn(self):
        return self._array.values.grad_fn

    @property
    def is_leaf(self):
        return self._array.values.grad_fn is None

    @property
    def grad(self):
        origin = self._array.origin
        if origin is not None and origin.is_leaf and origin.grad is not None:
            return origin.grad  # torch.mm & co. give a sparse leaf a dense gradient
        g = self._array.values.grad
        return None if g is None else self._grad_of_values(g)

    @grad.setter
    def grad(self, value):
        origin = self._array.origin
        if origin is not None and origin.is_leaf:
            origin.grad = None
        self._array.values.grad = None if value is None else value._array.values


class SparseTensor(ValuesAutograd, Tensor):
    """A ``Tensor`` with ``layout == torch.sparse_coo`` (see the module docstring).

    Autograd state lives on ``values``: ``requires_grad``, ``grad_fn`` and ``grad`` read it, and
    a leaf sparse tensor's ``.grad`` is a sparse tensor over its own indices.
    """

    __slots__ = ()

    # -- layout and storage -------------------------------------------------------------------
    @property
    def layout(self):
        return _layout.sparse_coo

    @property
    def is_sparse(self):
        return True

    @property
    def device(self):
        return self._array.values.device

    def sparse_dim(self):
        """The number of sparse (indexed) dimensions."""
        return self._array.indices.shape[0]

    def dense_dim(self):
        """The number of dense dimensions carried by each value."""
        return len(self._array.shape) - self._array.indices.shape[0]

    def _nnz(self):
        """The number of stored entries (duplicates counted)."""
        return self._array.indices.shape[1]

    def _indices(self):
        """The stored indices, coalesced or not, as an int64 tensor."""
        return _make(self._array.indices)

    def _values(self):
        """The stored values, coalesced or not (shares autograd history with this tensor)."""
        return self._array.values

    def indices(self):
        """The indices of a coalesced tensor (raises torch's error when uncoalesced)."""
        if not self._array.coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._indices()

    def values(self):
        """The values of a coalesced tensor (raises torch's error when uncoalesced)."""
        if not self._array.coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._array.values

    def is_coalesced(self):
        return self._array.coalesced

    def coalesce(self):
        return _nt.ops.sparse_ops.coalesce(self)

    def zero_(self):
        """Drop every stored entry, in place (torch's ``zero_`` of a sparse tensor)."""
        s = self._array
        values = s.values.detach()[:0].clone()
        self._array = SparseCOO(s.indices[:, :0].copy(), values, s.shape, True)
        return self

    def to_dense(self, dtype=None, *, masked_grad=None):
        return _nt.ops.sparse_ops.to_dense(self, dtype)

    def to_sparse(self, *args, **kwargs):
        return _nt.ops.sparse_ops.to_sparse(self, *args, **kwargs)

    def to_sparse_csr(self, dense_dim=None):
        return _nt.sparse._compressed.coo_to_compressed(self, _layout.sparse_csr)

    def to_sparse_csc(self, dense_dim=None):
        return _nt.sparse._compressed.coo_to_compressed(self, _layout.sparse_csc)

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        return _nt.sparse._compressed.coo_to_compressed(self, _layout.sparse_bsr, blocksize)

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        return _nt.sparse._compressed.coo_to_compressed(self, _layout.sparse_bsc, blocksize)

    def _grad_of_values(self, g):
        return _nt.ops.sparse_ops.leaf_grad(self, g)

    def detach(self):
        s = self._array
        return make(s.indices, s.values.detach(), s.shape, s.coalesced)

    # -- conversion ----------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        dtype, dev, copy = _parse_to(args, kwargs)
        if dev is not None and str(dev).startswith("cuda"):
            raise RuntimeError("numtorch: sparse COO tensors are CPU-only (their kernels are "
                               "NumPy/SciPy); keep them on the CPU")
        s = self._array
        values = s.values.to(dtype=dtype, device=dev, copy=copy)
        if values is s.values:
            return self
        return make(s.indices, values, s.shape, s.coalesced)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """``'torch.sparse.FloatTensor'`` & co, or this tensor converted to ``dtype`` (a dtype,
        a sparse type name or class)."""
        if dtype is None:
            return f"torch.sparse.{_nt.sparse._legacy._TYPES[self.dtype._legacy].__name__}"
        if isinstance(dtype, str):
            dtype = getattr(_nt.sparse, dtype.rpartition(".")[2]).dtype
        elif isinstance(dtype, type):
            dtype = dtype.dtype
        return self.to(dtype)

    def cpu(self, memory_format=None):
        return self.to("cpu")

    def float(self, memory_format=None):
        return self.to(_nt.float32)

    def double(self, memory_format=None):
        return self.to(_nt.float64)

    def clone(self, *, memory_format=None):
        s = self._array
        return make(s.indices.copy(), s.values.clone(), s.shape, s.coalesced)

    def __repr__(self, *, tensor_contents=None):
        return _sparse_repr(self)

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(_DEEPCOPY_NON_LEAF)
        s = self._array
        # (built directly: sparse_coo_tensor would warn about invariant checks, torch's copy
        # does not)
        values = s.values.detach().clone().requires_grad_(s.values.requires_grad)
        new = make(s.indices.copy(), values, s.shape, s.coalesced)
        memo[id(self)] = new
        return new

    # -- operators (dense + sparse and dense @ sparse land here first) -------------------------
    def __add__(self, other):
        return _nt.ops.sparse_ops.add(self, other)

    def __radd__(self, other):
        return _nt.ops.sparse_ops.add(other, self)

    def __sub__(self, other):  # torch's sub is add with the negated other (and its errors)
        return _nt.ops.sparse_ops.add(self, -other)

    def __rsub__(self, other):
        return _nt.ops.sparse_ops.add(other, -self)

    def __mul__(self, other):
        return _nt.ops.sparse_ops.mul(self, other)

    def __rmul__(self, other):
        return _nt.ops.sparse_ops.mul(self, other)

    def mul(self, other):
        return _nt.ops.sparse_ops.mul(self, other)

    multiply = mul

    def index_select(self, dim, index):
        return _nt.ops.sparse_ops.index_select(self, dim, index)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """The norm of all stored values (duplicates summed first); no sparse kernel takes a
        ``dim``."""
        if dim is not None:
            raise _unsupported("norm")
        values = _nt.ops.sparse_ops.coalesce(self)._array.values
        return values.norm(2 if p == "fro" else p, dtype=dtype)

    def any(self, dim=None, keepdim=False):
        """Whether any stored value is nonzero (no sparse kernel takes a ``dim``)."""
        if dim is not None:
            raise _unsupported("any")
        return _nt.ops.sparse_ops.coalesce(self)._array.values.any()

    # in place: the result's parts replace this tensor's (torch's sparse kernels do the same)
    def _become(self, result):
        from .autograd.grad_mode import is_grad_enabled

        if self.requires_grad and self.is_leaf and is_grad_enabled():
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        self._array = result._array
        return self

    def mul_(self, other):
        self._become(_nt.ops.sparse_ops.mul(self, other))
        if not is_sparse(other):
            self._array.coalesced = False  # (torch's in-place scaling clears the flag)
        return self

    def div_(self, other):
        return self._become(_nt.ops.sparse_ops.div(self, other))

    def add_(self, other, *, alpha=1):
        return self._become(_nt.ops.sparse_ops.add(self, other if alpha == 1 else other * alpha))

    def sub_(self, other, *, alpha=1):
        return self._become(_nt.ops.sparse_ops.add(self, -(other if alpha == 1 else
                                                            other * alpha)))

    def __truediv__(self, other):
        return _nt.ops.sparse_ops.div(self, other)

    def __neg__(self):
        if self._array.values.dtype is _nt.bool:  # (torch's dense refusal; -1 * would count)
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or "
                               "`logical_not()` operator instead.")
        return _nt.ops.sparse_ops.mul(self, -1)

    def __matmul__(self, other):
        return _nt.ops.sparse_ops.matmul(self, other)

    def __rmatmul__(self, other):
        return _nt.ops.sparse_ops.matmul(other, self)

    def mm(self, mat2):
        return _nt.ops.sparse_ops.mm(self, mat2)

    matmul = mm

    def sum(self, dim=None, keepdim=False, dtype=None):
        return _nt.ops.sparse_ops.sparse_sum(self, dim, dtype=dtype)

    def t(self):
        sd, dd = self.sparse_dim(), self.dense_dim()
        if sd > 2 or dd:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                               f"but got {sd} sparse and {dd} dense dimensions")
        if sd == 0:
            return self
        return _nt.ops.sparse_ops.transpose(self, 0, sd - 1)  # 1-d: a new tensor, same values

    def transpose(self, dim0, dim1):
        return _nt.ops.sparse_ops.transpose(self, dim0, dim1)

    def __getitem__(self, index):
        return _nt.ops.sparse_ops.getitem(self, index)

    def select(self, dim, index):
        return _nt.ops.sparse_ops.select(self, dim, index)

    def permute(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        return _nt.ops.sparse_ops.permute(self, dims)

    def unsqueeze(self, dim):
        return _nt.ops.sparse_ops.unsqueeze(self, dim)

    def pow(self, exponent):
        return _nt.ops.sparse_ops.pow(self, exponent)

    __pow__ = pow

    # -- what has no sparse form, in torch's words ----------------------------------------------
    def view(self, *shape):
        raise _unsupported("view")

    def reshape(self, *shape):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def flatten(self, start_dim=0, end_dim=-1):
        raise RuntimeError("reshape is not implemented for sparse tensors")

    def expand(self, *sizes):
        raise RuntimeError("expand is unsupported for Sparse tensors")

    def contiguous(self, memory_format=None):
        raise RuntimeError("unsupported memory format option Contiguous")

    def is_contiguous(self, memory_format=None):
        return False

    def stride(self, dim=None):
        return (0,) * len(self._array.shape) if dim is None else 0

    def mean(self, *args, **kwargs):
        raise _unsupported("mean.dim")

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def _no_storage(self, *args, **kwargs):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    tolist = data_ptr = _no_storage

    def __reduce_ex__(self, proto):
        s = self._array
        return (_nt.ops.sparse_ops._rebuild,
                (_make(s.indices), s.values.detach(), s.shape, s.coalesced))


# Elementwise functions with f(0) == 0 run on a sparse COO tensor's stored values only, as in
# torch: the result keeps the indices (of the coalesced input: torch coalesces first, except
# for the sign flips). Each name maps to its in-place form, None where torch has none for
# sparse tensors. Aliases name torch's own op in the in-place error.
ZERO_PRESERVING = {
    "abs": "abs_", "absolute": "absolute_", "neg": "neg_", "negative": "negative_",
    "sin": "sin_", "sinh": "sinh_", "tan": "tan_", "tanh": "tanh_", "asin": "asin_",
    "arcsin": "arcsin_", "asinh": "asinh_", "arcsinh": "arcsinh_", "atan": "atan_",
    "arctan": "arctan_", "atanh": "atanh_", "arctanh": "arctanh_", "sqrt": "sqrt_",
    "erf": "erf_", "erfinv": "erfinv_", "log1p": "log1p_", "expm1": "expm1_", "relu": "relu_",
    "sign": "sign_", "sgn": "sgn_", "floor": "floor_", "ceil": "ceil_", "round": "round_",
    "trunc": "trunc_", "fix": "fix_", "frac": "frac_", "square": None, "deg2rad": "deg2rad_",
    "rad2deg": "rad2deg_", "nan_to_num": "nan_to_num_", "positive": None, "isnan": None,
    "isinf": None, "isposinf": None, "isneginf": None, "signbit": None,
}
_UNCOALESCED_OK = frozenset({"neg", "negative", "positive", "neg_", "negative_"})
_ALIAS = {"absolute_": "abs_", "arcsin_": "asin_", "arcsinh_": "asinh_", "arctan_": "atan_",
          "arctanh_": "atanh_", "fix_": "trunc_"}
# ops with no sparse kernel whose dense path would fail under another name
_NO_KERNEL = {"sigmoid": "sigmoid", "rsqrt": "rsqrt", "reciprocal": "reciprocal",
              "angle": "angle", "logical_not": "logical_not.out", "bitwise_not": "bitwise_not",
              "digamma": "digamma", "lgamma": "lgamma", "sinc": "sinc", "clamp": "clamp",
              "clip": "clamp", "acos": "acos", "arccos": "acos", "logit": "logit",
              "square_": "pow_.Scalar"}
_NO_KERNEL.update({n + "_": n + "_" for n in ("exp", "cos", "log", "sigmoid", "cosh", "acos",
                                              "exp2", "log2", "log10", "rsqrt", "reciprocal",
                                              "erfc", "digamma", "lgamma", "logit", "clamp")})


def map_values(input, name, *args, **kwargs):
    """``input.<name>(...)`` of a sparse tensor: the dense method on its (coalesced) values."""
    if name == "round" and (args or kwargs.get("decimals")):
        raise _unsupported("round.decimals")
    if name not in _UNCOALESCED_OK and not input._array.coalesced:
        input = _nt.ops.sparse_ops.coalesce(input)
    s = input._array
    values = getattr(s.values, name)(*args, **kwargs)
    return make(s.indices, values, s.shape, s.coalesced)


def map_values_(input, name, *args, **kwargs):
    """The in-place form: the values change in place, the indices stay."""
    if name == "round_" and (args or kwargs.get("decimals")):
        raise _unsupported("round_.decimals")
    if name not in _UNCOALESCED_OK and not input._array.coalesced:
        raise RuntimeError(f"{_ALIAS.get(name, name)} requires coalesced input")
    getattr(input._array.values, name)(*args, **kwargs)
    return input


def _method(name):
    def method(self, *args, **kwargs):
        return map_values(self, name, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _method_(name):
    def method(self, *args, **kwargs):
        return map_values_(self, name, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _no_kernel(op):
    def method(self, *args, **kwargs):
        raise _unsupported(op)

    return method


def _add_value_methods():
    for name, inplace in ZERO_PRESERVING.items():
        setattr(SparseTensor, name, _method(name))
        if inplace:
            setattr(SparseTensor, inplace, _method_(inplace))
    for name, op in _NO_KERNEL.items():
        setattr(SparseTensor, name, _no_kernel(op))


_add_value_methods()

# prints as torch's class does (type(t) is torch.Tensor for sparse tensors too)
SparseTensor.__name__ = SparseTensor.__qualname__ = "Tensor"
SparseTensor.__module__ = "numtorch"


def _indent(text, n):
    return text.replace("\n", "\n" + " " * n)


def _rewrapped(rep, arr, col):
    """``rep`` (a part's own repr) with its bracketed body laid out for column ``col``, and
    shifted back so that :func:`_indent` puts it there."""
    from . import _tensor_str

    body = _tensor_str._tensor_body(arr, col)
    body = body.replace("\n" + " " * col, "\n" + " " * 7)
    start, end = rep.index("["), rep.rindex("]") + 1
    return rep[:start] + body + rep[end:]


def _sparse_repr(t):
    """torch's layout: indices and values as tensors, then size, nnz, dtype and layout."""
    s = t._array
    values = s.values.detach()
    vrep = repr(values)
    dtype_note = ""
    cut = vrep.rfind(", dtype=")
    if cut != -1:  # torch names the dtype once, after nnz, not inside the values
        dtype_note = ", " + vrep[cut + 2:-1]
        vrep = vrep[:cut] + ")"
        if dtype_note == ", dtype=torch.int64":  # named on empty dense tensors only
            dtype_note = ""
    if values.numel() == 0 and "size=" not in vrep:  # torch shows the empty values' shape
        vrep = f"{vrep[:-1]}, size={tuple(values.shape)})"
    irep = repr(_make(s.indices)).replace(", dtype=torch.int64)", ")")
    # torch wraps each part's rows for the column the part starts at, not for column 0
    if s.indices.size:
        irep = _rewrapped(irep, s.indices, len("tensor(indices=tensor("))
    if values.numel() and type(values._array) is np.ndarray:
        vrep = _rewrapped(vrep, values._array, len("       values=tensor("))
    size = "(" + ", ".join(str(d) for d in s.shape) + ("," if len(s.shape) == 1 else "") + ")"
    head = "tensor(indices="
    out = (f"{head}{_indent(irep, len(head))},\n       values={_indent(vrep, 14)},\n"
           f"       size={size}")
    # the rest as a dense tensor's suffixes: on the line while they fit in linewidth
    suffixes = [f"nnz={s.indices.shape[1]}"] + ([dtype_note[2:]] if dtype_note else [])
    suffixes.append("layout=torch.sparse_coo")
    fn = s.values.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif s.values.requires_grad:
        suffixes.append("requires_grad=True")
    from ._tensor_str import _add_suffixes

    return _add_suffixes(out, suffixes, 7)
