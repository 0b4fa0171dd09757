"""Compressed sparse layouts: ``torch.sparse_csr``, ``sparse_csc``, ``sparse_bsr``, ``sparse_bsc``.

A compressed tensor is a ``Tensor`` subclass whose ``_array`` slot holds a
:class:`SparseCompressed` record: the compressed indices (``B + (n_compressed + 1,)``), the
plain indices (``B + (nnz,)``), the values (a dense numtorch Tensor of shape
``B + (nnz,) + block + dense``, carrying the autograd history), the full shape and the layout.
Row-compressed layouts (CSR, BSR) compress rows and store column indices; column-compressed
ones (CSC, BSC) the reverse. Blocked layouts store ``(r, c)`` blocks; the others are blocked
with ``(1, 1)`` blocks without the block dimensions in the values.

Every computation goes through the *block coordinates* of the stored entries (batch number,
block row, block column), which one ``np.repeat`` of the compressed counts yields; to_dense,
the products and the conversions are then single gathers/scatters on those arrays (no loop
over rows). Products expand blocks into element coordinates and reuse the COO product
primitive :class:`numtorch.ops.sparse_ops.SparseMM`.
"""

import warnings

import numpy as np

import numtorch as _nt

from .. import _dtype, _layout
from .._dispatch_error import no_kernel
from .._tensor import Tensor, _make
from ..autograd.graph import rename_node

__all__ = ["compressed_matmul", "compressed_mm", "dense_to_compressed", "is_compressed",
           "sparse_bsc_tensor", "sparse_bsr_tensor", "sparse_compressed_tensor",
           "sparse_csc_tensor", "sparse_csr_tensor"]

# the Tensor class of these layouts, set by ``_compressed_tensor`` (which builds on this module)
CompressedTensor = None

# layout -> (backend name in torch's messages, compressed-index name, plain-index name,
#            rows compressed?, blocked?)
_INFO = {
    _layout.sparse_csr: ("SparseCsr", "crow_indices", "col_indices", True, False),
    _layout.sparse_csc: ("SparseCsc", "ccol_indices", "row_indices", False, False),
    _layout.sparse_bsr: ("SparseBsr", "crow_indices", "col_indices", True, True),
    _layout.sparse_bsc: ("SparseBsc", "ccol_indices", "row_indices", False, True),
}
_TRANSPOSED = {_layout.sparse_csr: _layout.sparse_csc, _layout.sparse_csc: _layout.sparse_csr,
               _layout.sparse_bsr: _layout.sparse_bsc, _layout.sparse_bsc: _layout.sparse_bsr}
_BACKEND_OF_LAYOUT = {_layout.strided: "Strided", _layout.sparse_coo: "Sparse",
                      **{k: v[0] for k, v in _INFO.items()}}


def _unsupported(name, layout):
    return no_kernel(name, f"{_INFO[layout][0]}CPU")


def _bad_layout(layout):
    return RuntimeError(f"unsupported tensor layout: {_INFO[layout][0]}")


class SparseCompressed:
    """The storage of one compressed sparse tensor (what its ``_array`` slot holds).

    Attributes:
        compressed, plain: integer arrays (int32 or int64) as described in the module docstring.
        values: dense Tensor ``B + (nnz,) + block + dense``.
        shape: the full shape, a tuple.
        layout: one of the four compressed layouts.
        origin: None, or a dense tensor standing for the whole matrix in autograd (the input
            of ``to_sparse_csr()``, or a zero-stride leaf for ``requires_grad=True``), which
            receives the dense gradient torch.mm reports.
    """

    __slots__ = ("compressed", "layout", "origin", "plain", "shape", "values")

    def __init__(self, compressed, plain, values, shape, layout, origin=None):
        self.compressed, self.plain, self.values = compressed, plain, values
        self.shape, self.layout, self.origin = tuple(shape), layout, origin

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self):
        return self.values._array.dtype

    @property
    def itemsize(self):
        return self.values._array.itemsize

    # geometry ---------------------------------------------------------------------------------
    @property
    def batch_dim(self):
        return self.compressed.ndim - 1

    @property
    def blocked(self):
        return _INFO[self.layout][4]

    @property
    def blocksize(self):
        if not self.blocked:
            return (1, 1)
        b = self.batch_dim
        return tuple(self.values.shape[b + 1:b + 3])

    @property
    def dense_dim(self):
        return self.values.dim() - self.batch_dim - 1 - (2 if self.blocked else 0)

    # a dense op handed a compressed tensor: refuse in torch's words
    def __array_ufunc__(self, ufunc, method, *args, **kwargs):
        raise _unsupported(ufunc.__name__, self.layout)

    def __array_function__(self, func, types, args, kwargs):
        raise _unsupported(func.__name__, self.layout)

    def __array__(self, *args, **kwargs):
        raise _unsupported("_to_dense", self.layout)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _unsupported(name, self.layout)


def is_compressed(t):
    """Whether ``t`` is a CSR/CSC/BSR/BSC tensor."""
    return type(t) is CompressedTensor


_BETA = ("Sparse CSR tensor support is in beta state. If you miss a functionality in the "
         "sparse tensor support, please submit a feature request to "
         "https://github.com/pytorch/pytorch/issues.")
_warned = []


def _caller_level():
    """The ``stacklevel`` that names the first frame outside numtorch (the user's line)."""
    import os
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root):
        frame, level = frame.f_back, level + 1
    return level


def _new(compressed, plain, values, shape, layout, origin=None):
    if not _warned:  # torch's once-per-process notice, given by its one compressed tensor class
        _warned.append(True)
        warnings.warn(_BETA, UserWarning, stacklevel=_caller_level())
    t = _make(SparseCompressed(compressed, plain, values, shape, layout, origin))
    t.__class__ = CompressedTensor
    return t


# -- block coordinates ---------------------------------------------------------------------------
def _coords(s):
    """(batch, block_row, block_col) of every stored entry, batch-major in storage order, and
    the geometry (n_batch, block rows, block cols, r, c)."""
    bd = s.batch_dim
    r, c = s.blocksize
    rows, cols = s.shape[bd], s.shape[bd + 1]
    nrb, ncb = rows // r, cols // c
    comp = s.compressed.reshape(-1, s.compressed.shape[-1]).astype(np.int64, copy=False)
    nb = comp.shape[0]
    nnz = s.plain.shape[-1]
    counts = np.diff(comp, axis=1)
    ncomp = counts.shape[1]
    major = np.repeat(np.tile(np.arange(ncomp, dtype=np.int64), nb), counts.reshape(-1))
    minor = s.plain.reshape(-1).astype(np.int64, copy=False)
    if major.shape[0] != minor.shape[0]:
        raise RuntimeError(f"`{_INFO[s.layout][1]}[..., -1] == nnz` is not satisfied.")
    batch = np.repeat(np.arange(nb, dtype=np.int64), nnz)
    br, bc = (major, minor) if _INFO[s.layout][3] else (minor, major)
    return batch, br, bc, (nb, nrb, ncb, r, c)


def _flat_values(s):
    """The values as ``(n_batch * nnz, r, c) + dense`` (a view that keeps autograd)."""
    r, c = s.blocksize
    v = s.values
    dense = tuple(v.shape[v.dim() - s.dense_dim:]) if s.dense_dim else ()
    return v.reshape((-1, r, c) + dense)


def to_dense(t, dtype=None):
    """The dense tensor of a compressed tensor (differentiable through the values)."""
    from ..ops.sparse_ops import ToDense

    s = t._array
    batch, br, bc, (nb, nrb, ncb, r, c) = _coords(s)
    vals = _flat_values(s)
    dense = tuple(vals.shape[3:])
    linear = (batch * nrb + br) * ncb + bc
    out = ToDense.apply(vals, shape=(nb, nrb, ncb, r, c) + dense, sparse_dim=3, linear=linear)
    nd = len(dense)
    out = out.permute((0, 1, 3, 2, 4) + tuple(range(5, 5 + nd))).reshape(s.shape)
    out = rename_node(out, "ToDenseBackward0")
    return out if dtype is None else out.to(dtype)


def _compress(major, n_major, nb):
    """Compressed indices (``(nb, n_major + 1)``) of sorted major coordinates per batch."""
    out = np.zeros((nb, n_major + 1), np.int64)
    if major.size:
        counts = np.bincount(major, minlength=nb * n_major).reshape(nb, n_major)
        np.cumsum(counts, axis=1, out=out[:, 1:])
    return out


def _from_coords(batch, br, bc, vals, geom, layout, batch_shape, shape, index_dtype,
                 origin=None):
    """A compressed tensor of ``layout`` from block coordinates in any order and the matching
    flat values ``(n, r, c) + dense``; torch requires the same nnz in every batch."""
    nb, nrb, ncb, r, c = geom
    rowwise = _INFO[layout][3]
    major, minor, n_major = (br, bc, nrb) if rowwise else (bc, br, ncb)
    key = (batch * n_major + major) * (ncb if rowwise else nrb) + minor
    order = np.argsort(key, kind="stable")
    n = key.shape[0]
    nnz = n // nb if nb else 0
    if nb and n != nnz * nb:
        raise RuntimeError("Expect the same number of specified elements per batch.")
    if not np.array_equal(order, np.arange(n)):
        vals = _nt.index_select(vals, 0, _make(order))
    comp = _compress(batch[order] * n_major + major[order], n_major, nb)
    comp = comp.reshape(tuple(batch_shape) + (n_major + 1,)).astype(index_dtype)
    plain = minor[order].reshape(tuple(batch_shape) + (nnz,)).astype(index_dtype)
    dense = tuple(vals.shape[3:])
    block = (r, c) if _INFO[layout][4] else ()
    values = vals.reshape(tuple(batch_shape) + (nnz,) + block + dense)
    return _new(comp, plain, values, shape, layout, origin)


# -- construction ----------------------------------------------------------------------------------
def _index_array(x, name):
    if isinstance(x, Tensor):
        if type(x) is not Tensor and x.layout is not _layout.strided:
            raise RuntimeError(f"{name} must be a strided tensor")
        return x._array
    arr = np.asarray(x)
    if arr.dtype.kind == "f" and arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind in "iub" or arr.size == 0:
        return arr.astype(np.int64, copy=False)
    return arr


def _check_invariants(comp, plain, nnz_values, shape, layout, blocksize):
    """torch's ``check_invariants`` validation (also run for inferred sizes)."""
    name_c, name_p, rowwise = _INFO[layout][1], _INFO[layout][2], _INFO[layout][3]
    def disp(arr):
        return _dtype._TYPE_DISPLAY[_dtype.from_numpy_dtype(arr.dtype).name]

    if comp.dtype != plain.dtype:  # (torch's wording, typo included)
        raise RuntimeError(f"{name_c} and {name_p} must have the same dtype, bot got "
                           f"{disp(comp)} and {disp(plain)}, respectively")
    if comp.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{name_c} and {name_p} dtype must be Int or Long, but got "
                           f"{disp(comp)}")
    if comp.ndim != plain.ndim:
        raise RuntimeError(f"{name_c} and {name_p} must have the same number of dimensions, "
                           f"but got {comp.ndim} and {plain.ndim}, respectively")
    bd = comp.ndim - 1
    n_comp = shape[bd] // blocksize[0] if rowwise else shape[bd + 1] // blocksize[1]
    n_plain = shape[bd + 1] // blocksize[1] if rowwise else shape[bd] // blocksize[0]
    dim_word = "rows" if rowwise else "columns"
    if comp.shape[-1] != n_comp + 1:
        raise RuntimeError(f"{name_c}.shape[-1] must be equal to the number of {dim_word} + 1 "
                           f"(={n_comp + 1}), but got {comp.shape[-1]}")
    nnz = plain.shape[-1]
    if comp.size and np.any(comp[..., 0] != 0):
        raise RuntimeError(f"`{name_c}[..., 0] == 0` is not satisfied.")
    if comp.size and np.any(comp[..., -1] != nnz):
        raise RuntimeError(f"`{name_c}[..., -1] == nnz` is not satisfied.")
    steps = np.diff(comp, axis=-1)
    if np.any(steps < 0) or np.any(steps > n_plain):
        raise RuntimeError(f"`0 <= {name_c}[..., 1:] - {name_c}[..., :-1] <= "
                           f"{'ncols' if rowwise else 'nrows'}` is not satisfied.")
    if plain.size and (plain.min() < 0 or plain.max() >= n_plain):
        raise RuntimeError(f"`0 <= {name_p} < {'ncols' if rowwise else 'nrows'}` is not "
                           "satisfied.")
    if plain.size:
        # within each compressed slot the plain indices must strictly increase
        flat = plain.reshape(-1, nnz).astype(np.int64)
        c2 = comp.reshape(-1, comp.shape[-1]).astype(np.int64)
        inc = np.diff(flat, axis=1) > 0
        pos = np.arange(1, nnz)
        # a step from entry k-1 to k crosses a slot boundary when k is a compressed start
        boundary = np.zeros(flat.shape, bool)
        rows = np.repeat(np.arange(c2.shape[0]), c2.shape[1])
        starts = c2.reshape(-1)
        ok = (starts > 0) & (starts < nnz)
        boundary[rows[ok], starts[ok]] = True
        if not np.all(inc | boundary[:, pos]):
            i = "i"
            raise RuntimeError(
                f"`{name_p}[..., {name_c}[..., {i} - 1]:{name_c}[..., {i}]] for all {i} = 1, "
                f"..., {'nrows' if rowwise else 'ncols'} are sorted and distinct along the last "
                "dimension values` is not satisfied.")


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
                             dtype=None, layout=None, device=None, pin_memory=False,
                             requires_grad=False, check_invariants=None):
    """A compressed sparse tensor (CSR, CSC, BSR or BSC, chosen by ``layout``).

    Args:
        compressed_indices: ``B + (n_compressed + 1,)`` integers (crow or ccol indices).
        plain_indices: ``B + (nnz,)`` integers (col or row indices).
        values: ``B + (nnz,) + block + dense`` values; gradients reach a Tensor given here.
        size: the full shape; inferred from the indices when None.
        layout: ``torch.sparse_csr``, ``sparse_csc``, ``sparse_bsr`` or ``sparse_bsc``.
        check_invariants: validate the indices (default: the global setting of
            :class:`numtorch.sparse.check_sparse_tensor_invariants`).

    Example:
        >>> torch.sparse_compressed_tensor([0, 1, 2], [1, 0], [5., 6.], (2, 2),
        ...                                layout=torch.sparse_csr).to_dense()
        tensor([[0., 5.],
                [6., 0.]])
    """
    if layout not in _INFO:
        got = "none" if layout is None else _BACKEND_OF_LAYOUT.get(layout, str(layout))
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout "
                           f"but got {got}")
    from ._invariants import checks_for

    check = checks_for(check_invariants)
    if device is not None and str(device).startswith("cuda"):
        raise RuntimeError("numtorch: sparse compressed tensors are CPU-only (their kernels are "
                           "NumPy/SciPy); keep them on the CPU")
    comp = _index_array(compressed_indices, _INFO[layout][1])
    plain = _index_array(plain_indices, _INFO[layout][2])
    if not isinstance(values, Tensor):
        values = _nt.tensor(values, dtype=dtype)
    if dtype is not None:
        values = values.to(dtype=dtype)
    blocked = _INFO[layout][4]
    bd = comp.ndim - 1
    if size is None:
        _infer_checks(comp, plain, values, layout)
        blocksize = tuple(values.shape[bd + 1:bd + 3]) if blocked else (1, 1)
        n_comp = comp.shape[-1] - 1
        n_plain = int(plain.max()) + 1 if plain.size else 0
        rb, cb = (n_comp, n_plain) if _INFO[layout][3] else (n_plain, n_comp)
        dense = tuple(values.shape[bd + 1 + (2 if blocked else 0):])
        size = tuple(comp.shape[:-1]) + (rb * blocksize[0], cb * blocksize[1]) + dense
    else:
        size = tuple(int(n) for n in size)
        blocksize = tuple(values.shape[bd + 1:bd + 3]) if blocked and \
            values.dim() >= bd + 3 else (1, 1)
    if check:
        _check_shapes(comp, plain, values, size, layout)
        _check_invariants(comp, plain, values.shape[bd] if values.dim() > bd else 0, size,
                          layout, blocksize)
    origin = None
    if requires_grad:
        values = _nt.tensor(values.detach()._array.copy()).requires_grad_(True)
        origin = _make(np.broadcast_to(np.zeros((), values._array.dtype), size))
        origin.requires_grad_(True)
    elif values.requires_grad:
        values = rename_node(values.view(values.shape), "SparseCompressedTensorBackward0")
    return _new(comp, plain, values, size, layout, origin)


def _infer_checks(comp, plain, values, layout):
    """The checks torch makes before inferring a size from the indices."""
    if comp.ndim < 1 or plain.ndim < 1:
        raise RuntimeError(f"{_INFO[layout][1]} must have dimensionality >= 1 but got "
                           f"{min(comp.ndim, plain.ndim)}")


def _check_shapes(comp, plain, values, size, layout):
    name_c, name_p = _INFO[layout][1], _INFO[layout][2]
    if comp.ndim != plain.ndim:
        raise RuntimeError(f"{name_c} and {name_p} dimensionalities must be equal but got "
                           f"{comp.ndim} and {plain.ndim}, respectively")
    bd = comp.ndim - 1
    if len(size) < bd + 2:
        raise RuntimeError(f"tensor dimensionality must be sum of batch, base, and dense "
                           f"dimensionalities (={bd} + 2 + 0) but got {len(size)}")
    batch = tuple(size[:bd])
    if not (tuple(comp.shape[:-1]) == tuple(plain.shape[:-1]) ==
            tuple(values.shape[:bd]) == batch):
        raise RuntimeError(f"all batch dimensions of {name_c} (={list(comp.shape[:-1])}), "
                           f"{name_p} (={list(plain.shape[:-1])}), and values "
                           f"(={list(values.shape[:bd])}) must be equal to tensor batch "
                           f"dimensions (={list(batch)})")
    if _INFO[layout][4] and values.dim() >= bd + 3:
        for k in (0, 1):
            n, b = size[bd + k], values.shape[bd + 1 + k]
            if b and n % b:
                raise RuntimeError(f"tensor shape[{bd + k}] (={n}) must be divisible with "
                                   f"blocksize[{k}] (={b}) as defined by values shape")
    if values.dim() <= bd or values.shape[bd] != plain.shape[-1]:
        got = values.shape[bd] if values.dim() > bd else 0
        raise RuntimeError(f"{name_p}.shape[-1] must be equal to nnz (={got}) as defined by "
                           f"values.shape[{bd}], but got {plain.shape[-1]}")


def _layout_ctor(layout):
    def ctor(compressed_indices, plain_indices, values, size=None, *, dtype=None,
             device=None, pin_memory=False, requires_grad=False, check_invariants=None):
        from ._invariants import checks_for

        check_invariants = checks_for(check_invariants)  # (its warning names the caller)
        return sparse_compressed_tensor(compressed_indices, plain_indices, values, size,
                                        dtype=dtype, layout=layout, device=device,
                                        requires_grad=requires_grad,
                                        check_invariants=check_invariants)

    word = _INFO[layout][0][6:].upper()
    ctor.__name__ = ctor.__qualname__ = f"sparse_{word.lower()}_tensor"
    ctor.__doc__ = (f"A sparse {word} tensor from its {_INFO[layout][1]}, {_INFO[layout][2]} "
                    f"and values: :func:`sparse_compressed_tensor` with "
                    f"``layout=torch.sparse_{word.lower()}``.")
    return ctor


sparse_csr_tensor = _layout_ctor(_layout.sparse_csr)
sparse_csc_tensor = _layout_ctor(_layout.sparse_csc)
sparse_bsr_tensor = _layout_ctor(_layout.sparse_bsr)
sparse_bsc_tensor = _layout_ctor(_layout.sparse_bsc)


# -- conversion --------------------------------------------------------------------------------
_GRAD_NAMES = {_layout.sparse_csr: "ToSparseCsrBackward0",
               _layout.sparse_csc: "ToSparseCscBackward0",
               _layout.sparse_bsr: "ToSparseBsrBackward0",
               _layout.sparse_bsc: "ToSparseBscBackward0"}


def _blocksize_arg(layout, blocksize, fn):
    if not _INFO[layout][4]:
        if blocksize is not None:
            raise RuntimeError(f"{fn}: conversion to {_INFO[layout][0]} with blocksize is not "
                               "supported")
        return (1, 1)
    if blocksize is None:
        raise RuntimeError(f"dense_to_sparse: conversion from Strided to {_INFO[layout][0]} "
                           "without blocksize argument given is not supported")
    return tuple(int(b) for b in blocksize)


def dense_to_compressed(x, layout, blocksize=None, dense_dim=None):
    """``to_sparse_csr/csc/bsr/bsc`` of a dense tensor: non-zero blocks, same nnz per batch."""
    block = _blocksize_arg(layout, blocksize, "dense_to_sparse")
    dd = 0 if dense_dim is None else int(dense_dim)
    nd = x.dim()
    if nd - dd < 2:
        # torch fails on its way to the column count of a 1-D input (an index error)
        raise IndexError(f"select(): index 1 out of range for tensor of size "
                         f"[{max(nd, 1) * (x.shape[0] if nd else 1)}, 1] at dimension 1")
    bd = nd - dd - 2
    shape = tuple(x.shape)
    rows, cols = shape[bd], shape[bd + 1]
    r, c = block
    if rows % r or cols % c:
        raise RuntimeError(f"dense_to_sparse_{_INFO[layout][0][6:].lower()}: tensor sparse size "
                           f"({rows},{cols}) must be divisible by given blocksize ({r},{c})")
    nb = int(np.prod(shape[:bd], dtype=np.int64))
    nrb, ncb = rows // r, cols // c
    dense = shape[bd + 2:]
    blocks = x.reshape((nb, nrb, r, ncb, c) + dense)
    blocks = blocks.permute((0, 1, 3, 2, 4) + tuple(range(5, 5 + dd)))
    arr = blocks.detach()._array
    mask = (arr != 0).reshape(nb, nrb, ncb, -1).any(-1) if arr.size else \
        np.zeros((nb, nrb, ncb), bool)
    batch, br, bc = (a.astype(np.int64) for a in np.nonzero(mask))
    flat = blocks.reshape((nb * nrb * ncb, r, c) + dense)
    vals = _nt.index_select(flat, 0, _make((batch * nrb + br) * ncb + bc))
    out = _from_coords(batch, br, bc, vals, (nb, nrb, ncb, r, c), layout, shape[:bd], shape,
                       np.int64, x if x.requires_grad else None)
    rename_node(out._array.values, _GRAD_NAMES[layout])
    return out


def convert(t, layout, blocksize=None, dense_dim=None):
    """A compressed tensor in another layout (or COO / dense)."""
    s = t._array
    if layout is s.layout and blocksize is None:
        return t
    if layout is _layout.strided:
        return to_dense(t)
    if layout is _layout.sparse_coo:
        return _to_coo(t)
    if layout not in _INFO:
        raise RuntimeError(f"to_sparse: unsupported layout {layout}")
    same_block = (blocksize is None and _INFO[layout][4] == s.blocked) or \
        (blocksize is not None and _INFO[layout][4] and tuple(blocksize) == s.blocksize)
    if not same_block:
        if _INFO[layout][4] and blocksize is None:
            raise RuntimeError(f"to_sparse: conversion from {_INFO[s.layout][0]} to "
                               f"{_INFO[layout][0]} without blocksize argument given is not "
                               "supported")
        return dense_to_compressed(to_dense(t), layout, blocksize, s.dense_dim)
    batch, br, bc, geom = _coords(s)
    out = _from_coords(batch, br, bc, _flat_values(s), geom, layout, s.compressed.shape[:-1],
                       s.shape, s.compressed.dtype, s.origin)
    rename_node(out._array.values, _GRAD_NAMES[layout])
    return out


def _to_coo(t):
    """COO with one entry per stored element (blocks expanded), coalesced."""
    from .._sparse import make

    s = t._array
    batch, br, bc, (_, _, _, r, c) = _coords(s)
    vals = _flat_values(s)
    dense = tuple(vals.shape[3:])
    bshape = s.shape[:s.batch_dim]
    ii, jj = np.meshgrid(np.arange(r), np.arange(c), indexing="ij")
    rows = (br[:, None] * r + ii.reshape(1, -1)).reshape(-1)
    cols = (bc[:, None] * c + jj.reshape(1, -1)).reshape(-1)
    bidx = np.repeat(batch, r * c)
    values = vals.reshape((-1,) + dense)
    # storage order, as torch keeps it: only CSR's (row-major) order is coalesced
    bsub = np.stack(np.unravel_index(bidx, bshape)) if bshape else \
        np.zeros((0, bidx.shape[0]), np.int64)
    idx = np.concatenate([bsub, rows[None], cols[None]])
    return make(np.ascontiguousarray(idx, dtype=np.int64),
                rename_node(values.view(values.shape), "ToSparseBackward1"), s.shape,
                s.layout is _layout.sparse_csr)


def coo_to_compressed(t, layout, blocksize=None, dense_dim=None):
    """A COO tensor (2 sparse dims, or batch + 2) in a compressed layout."""
    s = t.coalesce()._array
    sd = s.indices.shape[0]
    if sd < 2:
        raise RuntimeError(f"to_sparse_{_INFO[layout][0][6:].lower()}: expected sparse_dim >= 2")
    if _INFO[layout][4]:
        return dense_to_compressed(t.to_dense(), layout, blocksize)
    bshape = s.shape[:sd - 2]
    nb = int(np.prod(bshape, dtype=np.int64))
    batch = np.ravel_multi_index(tuple(s.indices[:sd - 2]), bshape) if bshape else \
        np.zeros(s.indices.shape[1], np.int64)
    vals = s.values.reshape((-1, 1, 1) + tuple(s.values.shape[1:]))
    return _from_coords(batch.astype(np.int64), s.indices[sd - 2], s.indices[sd - 1], vals,
                        (nb, s.shape[sd - 2], s.shape[sd - 1], 1, 1), layout, bshape, s.shape,
                        np.int64)


def add(a, b):
    """``a + b`` with a compressed operand: two compressed tensors of one unblocked layout give
    that layout over the union of their patterns; with a dense operand the sum is dense."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        sp = a if is_compressed(a) else b
        raise _bad_layout(sp._array.layout)
    if is_compressed(a) and is_compressed(b):
        la, lb = a._array.layout, b._array.layout
        if la is not _layout.sparse_csr:  # (torch's kernel reads crow_indices of either)
            raise RuntimeError(f"crow_indices expected sparse row compressed tensor layout but "
                               f"got {_INFO[la][0]}")
        if la is not lb or a._array.batch_dim or b._array.batch_dim:
            raise _bad_layout(la)
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"torch.add: Expected input tensors to have the same shape, but "
                               f"got tensor `self` with shape {list(a.shape)} and tensor `other` "
                               f"with shape {list(b.shape)}")
        total = (_to_coo(a) + _to_coo(b)).coalesce()
        out = coo_to_compressed(total, la)
        rename_node(out._array.values, "AddBackward0")
        return out
    if is_compressed(a):
        return to_dense(a) + b
    return a + to_dense(b)


def transpose(t, dim0, dim1):
    """Swapping the two sparse dimensions flips the layout (CSR <-> CSC, BSR <-> BSC) with the
    same index arrays; blocks are transposed in place."""
    s = t._array
    nd = len(s.shape)
    d0, d1 = sorted(_nt.ops.canonical_dim(d, nd) for d in (dim0, dim1))
    bd = s.batch_dim
    if d0 == d1:
        return t
    if (d0, d1) != (bd, bd + 1):
        raise RuntimeError(f"transpose(): {_INFO[s.layout][0][6:]} tensors only support "
                           "transposing the two sparse dimensions")
    shape = list(s.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    values = s.values
    if s.blocked:
        values = values.transpose(bd + 1, bd + 2)
    else:
        values = values.view(values.shape)
    origin = None if s.origin is None else s.origin.transpose(d0, d1)
    return _new(s.compressed, s.plain, values, shape, _TRANSPOSED[s.layout], origin)


# the products live in their own file; re-exported here for the dispatch hooks
from ._compressed_products import (  # noqa: F401
    compressed_matmul,
    compressed_mm,
    mm_reduce,
)
