"""``CompressedTensor``: the Tensor class of CSR/CSC/BSR/BSC tensors (see ``_compressed``).

Autograd state lives on the values, as for COO tensors. Methods torch refuses on compressed
layouts raise torch's own words; dense-only ops reach the storage record and refuse there.
"""

import numpy as np

import numtorch as _nt

from .. import _dtype, _layout, _tensor_str
from .._sparse import ValuesAutograd
from .._tensor import Tensor, _make, _parse_to
from . import _compressed as C

__all__ = []


def _indices_tensor(arr):
    return _make(arr)


class CompressedTensor(ValuesAutograd, Tensor):
    """A ``Tensor`` with a compressed sparse layout."""

    __slots__ = ()

    @property
    def layout(self):
        return self._array.layout

    @property
    def is_sparse(self):
        return False

    @property
    def is_sparse_csr(self):
        return self._array.layout is _layout.sparse_csr

    @property
    def device(self):
        return self._array.values.device

    def _nnz(self):
        """The number of specified elements (blocks for BSR/BSC) per batch."""
        return self._array.plain.shape[-1]

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return self._array.dense_dim

    def values(self):
        """The stored values: a view that shares this tensor's autograd history (torch's
        ``ValuesBackward0`` node when it requires grad)."""
        v = self._array.values
        if not v.requires_grad:
            return v
        from ..autograd.graph import rename_node

        return rename_node(v.view(v.shape), "ValuesBackward0")

    def _index(self, kind):
        s = self._array
        name_c, name_p = C._INFO[s.layout][1:3]
        if kind in (name_c, name_p):
            return _indices_tensor(s.compressed if kind == name_c else s.plain)
        word = "row" if kind in ("crow_indices", "col_indices") else "column"
        raise RuntimeError(f"{kind} expected sparse {word} compressed tensor layout but got "
                           f"{C._INFO[s.layout][0]}")

    def crow_indices(self):
        return self._index("crow_indices")

    def col_indices(self):
        return self._index("col_indices")

    def ccol_indices(self):
        return self._index("ccol_indices")

    def row_indices(self):
        return self._index("row_indices")

    def indices(self):
        raise RuntimeError("indices expected sparse coordinate tensor layout but got "
                           f"{C._INFO[self._array.layout][0]}")

    def to_dense(self, dtype=None, *, masked_grad=None):
        return C.to_dense(self, dtype)

    def to_sparse(self, *args, layout=None, blocksize=None, dense_dim=None):
        if args and layout is None:
            layout = _layout.sparse_coo
        return C.convert(self, layout or _layout.sparse_coo, blocksize, dense_dim)

    def to_sparse_coo(self):
        return C.convert(self, _layout.sparse_coo)

    def to_sparse_csr(self, dense_dim=None):
        return C.convert(self, _layout.sparse_csr)

    def to_sparse_csc(self, dense_dim=None):
        return C.convert(self, _layout.sparse_csc)

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        return C.convert(self, _layout.sparse_bsr, blocksize)

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        return C.convert(self, _layout.sparse_bsc, blocksize)

    # -- refusals in torch's words -------------------------------------------------------------
    def stride(self, dim=None):
        raise RuntimeError("Sparse CSR tensors do not have strides")

    def is_contiguous(self, memory_format=None):
        raise RuntimeError("Sparse CSR tensors do not have is_contiguous")

    def reshape(self, *shape):
        return self.is_contiguous()

    def numpy(self, *, force=False):
        raise TypeError(f"can't convert {C._INFO[self._array.layout][0]} layout tensor to "
                        "numpy. Use Tensor.to_dense() first.")

    def untyped_storage(self):
        # (torch's one implementation class serves all four layouts)
        raise NotImplementedError("Cannot access storage of SparseCsrTensorImpl")

    def view(self, *shape):
        raise C._unsupported("view", self._array.layout)

    def __getitem__(self, index):
        raise C._unsupported("select.int", self._array.layout)

    def _grad_of_values(self, g):
        s = self._array
        return C._new(s.compressed, s.plain, g, s.shape, s.layout)

    def detach(self):
        s = self._array
        return C._new(s.compressed, s.plain, s.values.detach(), s.shape, s.layout)

    def clone(self, *, memory_format=None):
        s = self._array
        return C._new(s.compressed.copy(), s.plain.copy(), s.values.clone(), s.shape, s.layout)

    def to(self, *args, **kwargs):
        dtype, dev, copy = _parse_to(args, kwargs)
        if dev is not None and str(dev).startswith("cuda"):
            raise RuntimeError("numtorch: sparse compressed tensors are CPU-only; keep them on "
                               "the CPU")
        s = self._array
        values = s.values.to(dtype=dtype, device=dev, copy=copy)
        if values is s.values:
            return self
        return C._new(s.compressed, s.plain, values, s.shape, s.layout)

    def cpu(self, memory_format=None):
        return self

    def float(self, memory_format=None):
        return self.to(_nt.float32)

    def double(self, memory_format=None):
        return self.to(_nt.float64)

    def half(self, memory_format=None):
        return self.to(_nt.float16)

    def copy_(self, src, non_blocking=False):
        """Copy ``src``'s indices and values in place (same layout and nnz, as torch asks)."""
        s = self._array
        src_layout = getattr(src, "layout", _layout.strided)
        if src_layout is not s.layout:
            raise RuntimeError(
                "torch.copy_: copy of sparse compressed tensors having different layouts is not "
                f"supported. self layout is {C._INFO[s.layout][0]} and src layout is "
                f"{C._BACKEND_OF_LAYOUT.get(src_layout, src_layout)}")
        o = src._array
        if o.plain.shape[-1] != s.plain.shape[-1]:
            raise RuntimeError("torch.copy_: only sparse compressed tensors with the same number "
                               "of specified elements are supported.")
        s.compressed = o.compressed.astype(s.compressed.dtype, copy=True)
        s.plain = o.plain.astype(s.plain.dtype, copy=True)
        s.values.copy_(o.values)
        return self

    def __deepcopy__(self, memo):
        # torch's deepcopy reaches for a storage these layouts do not have
        raise NotImplementedError("Cannot access storage of SparseCsrTensorImpl")

    # -- arithmetic: scalars only, as torch's compressed kernels allow here -------------------
    def _scaled(self, factor):
        s = self._array
        return C._new(s.compressed, s.plain, s.values * factor, s.shape, s.layout, None)

    def __mul__(self, other):
        if isinstance(other, (int, float, bool, complex)) or (
                isinstance(other, Tensor) and type(other) is Tensor and other.dim() == 0):
            return self._scaled(other)
        raise C._bad_layout(self._array.layout)

    __rmul__ = __mul__

    def mul(self, other):
        return self * other

    def __neg__(self):
        s = self._array
        return C._new(s.compressed, s.plain, -s.values, s.shape, s.layout)

    neg = __neg__

    def __truediv__(self, other):
        raise C._bad_layout(self._array.layout)

    div = __sub__ = __rsub__ = sub = __truediv__

    def __add__(self, other):
        return C.add(self, other)

    def __radd__(self, other):
        return C.add(other, self)

    add = __add__

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is not None:
            raise C._unsupported("sum.dim_IntList", self._array.layout)
        return self._array.values.sum(dtype=dtype)

    def __matmul__(self, other):
        return C.compressed_matmul(self, other)

    def __rmatmul__(self, other):
        return C.compressed_matmul(other, self)

    def mm(self, mat2):
        return C.compressed_mm(self, mat2)

    def matmul(self, other):
        return C.compressed_matmul(self, other)

    def t(self):
        if len(self._array.shape) != 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{len(self._array.shape)}D")
        from ..autograd.graph import rename_node

        out = C.transpose(self, 0, 1)
        rename_node(out._array.values, "TBackward0")
        return out

    def transpose(self, dim0, dim1):
        from ..autograd.graph import rename_node

        out = C.transpose(self, dim0, dim1)
        rename_node(out._array.values, "TransposeBackward0")
        return out

    def __repr__(self, *, tensor_contents=None):
        return _repr(self)

    def __reduce_ex__(self, proto):
        s = self._array
        return (_nt.ops.sparse_ops._rebuild_sparse_tensor,
                (s.layout, (_make(s.compressed), _make(s.plain), s.values.detach(),
                            _nt.Size(s.shape))))


def _mapped(name):
    def method(self):
        s = self._array
        return C._new(s.compressed, s.plain, getattr(s.values, name)(), s.shape, s.layout)

    method.__name__ = name
    method.__doc__ = f"``{name}`` of the stored values (zero stays zero, so the pattern stays)."
    return method


def _refused(name):
    def method(self, *args, **kwargs):
        raise C._bad_layout(self._array.layout)

    method.__name__ = name
    method.__doc__ = f"Refused as torch refuses it: ``{name}`` maps zero to a non-zero value."
    return method


# unary functions that map zero to zero work on the values alone (torch's list); the others
# would fill the unspecified entries, which torch refuses
for _name in ("relu", "abs", "sin", "tan", "tanh", "sinh", "asin", "atan", "asinh", "atanh",
              "sqrt", "sign", "sgn", "trunc", "floor", "ceil", "round", "frac", "expm1",
              "log1p", "erf", "erfinv", "deg2rad", "rad2deg", "signbit", "isnan", "isinf",
              "conj", "angle", "positive"):
    setattr(CompressedTensor, _name, _mapped(_name))
for _name in ("exp", "cos", "cosh", "sigmoid", "square", "log", "reciprocal", "rsqrt"):
    setattr(CompressedTensor, _name, _refused(_name))


def _round(self, *, decimals=None):
    # torch keeps the pattern for a plain round only; any decimals= is the scaled kernel,
    # which has no compressed layout
    if decimals is not None:
        raise C._bad_layout(self._array.layout)
    return _round_values(self)


_round_values = _mapped("round")
_round.__name__ = "round"
CompressedTensor.round = _round

CompressedTensor.__name__ = CompressedTensor.__qualname__ = "Tensor"
CompressedTensor.__module__ = "numtorch"
C.CompressedTensor = CompressedTensor


def _component(arr, col):
    """One part's ``tensor(...)`` text, its rows wrapped for a start at column ``col`` as torch
    lays out the parts of a sparse repr (no dtype: torch names only the values' one, later)."""
    if arr.size == 0:
        return f"tensor([], size={tuple(arr.shape)})"
    return "tensor(" + _tensor_str._tensor_body(arr, col + 7) + ")"


def _repr(t):
    s = t._array
    name_c, name_p = C._INFO[s.layout][1:3]
    vals = s.values.detach()
    head, pad = "tensor(", "       "
    text = (f"{head}{name_c}={_component(s.compressed, len(head) + len(name_c) + 1)},\n"
            f"{pad}{name_p}={_component(s.plain, len(pad) + len(name_p) + 1)},\n"
            f"{pad}values={_component(np.asarray(vals._array), len(pad) + 7)}")
    size = "(" + ", ".join(str(d) for d in s.shape) + ("," if len(s.shape) == 1 else "") + ")"
    suffixes = [f"size={size}", f"nnz={s.plain.shape[-1]}"]
    dt = vals.dtype
    if dt not in (_dtype.get_default_dtype(), _dtype.default_complex(), _dtype.int64,
                  _dtype.bool):
        suffixes.append(f"dtype={dt!r}")
    suffixes.append(f"layout={s.layout!r}")
    fn = s.values.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif s.values.requires_grad:
        suffixes.append("requires_grad=True")
    return _tensor_str._add_suffixes(text, suffixes, len(head))
