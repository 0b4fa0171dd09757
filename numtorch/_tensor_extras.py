"""Tensor methods that round out torch's Tensor API: activations and igamma as methods,
``resize``, ``new_empty_strided``, the split variants, subclassing helpers
(``as_subclass``, ``_make_subclass``), sparse-layout queries on dense tensors,
``nonzero_static``, ``dim_order`` and small no-ops (``record_stream``, ``name``).

Like the other Tensor mixins, this module imports only leaf modules and reaches ops and
``nn.functional`` through the package at call time.
"""

import warnings

import numtorch as _nt


def _check_subclass(cls):
    from ._tensor import Tensor

    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")


def _retyped(t, cls):
    """``t`` (a fresh tensor object) turned into a ``cls`` instance with the same state."""
    try:
        t.__class__ = cls  # Tensor has __dict__ and __weakref__: subclasses share its layout
        return t
    except TypeError:  # a subclass with slots of its own: copy the state over
        out = object.__new__(cls)
        for name in type(t).__slots__:
            if name not in ("__dict__", "__weakref__") and hasattr(t, name):
                object.__setattr__(out, name, getattr(t, name))
        return out


def _size_text(shape):
    return "x".join(str(d) for d in shape)


_MTIA_MISSING = ("Torch not compiled with MTIA enabled. Ensure you have `import "
                 "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and "
                 "include `//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


class _TensorExtras:
    """Mixin of :class:`numtorch.Tensor`: the methods listed in the module docstring."""

    __slots__ = ()

    # -- math methods -----------------------------------------------------------------------
    def prelu(self, weight):
        """See :func:`numtorch.nn.functional.prelu`."""
        return _nt.nn.functional.prelu(self, weight)

    def hardshrink(self, lambd=0.5):
        """See :func:`numtorch.nn.functional.hardshrink`."""
        return _nt.nn.functional.hardshrink(self, lambd)

    def igamma(self, other):
        """See :func:`numtorch.igamma`."""
        from ._igamma import _check, igamma

        _check("igamma", self, other, other_pos=1)
        return igamma(self, other)

    def igammac(self, other):
        """See :func:`numtorch.igammac`."""
        from ._igamma import _check, igammac

        _check("igammac", self, other, other_pos=1)
        return igammac(self, other)

    def igamma_(self, other):
        """In-place :meth:`igamma`."""
        return _nt.autograd.inplace.apply_inplace(self, type(self).igamma, other)

    def igammac_(self, other):
        """In-place :meth:`igammac`."""
        return _nt.autograd.inplace.apply_inplace(self, type(self).igammac, other)

    # -- shapes and splits ------------------------------------------------------------------
    def resize(self, *sizes):
        """``self`` with a new shape of the same number of elements, sharing its data
        (deprecated in torch; use :meth:`reshape`)."""
        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) \
            else sizes
        n = 1
        for d in shape:
            n *= d
        if n != self.numel():
            raise RuntimeError(f"requested resize to {_size_text(shape)} ({n} elements in "
                               f"total), but the given tensor has a size of "
                               f"{_size_text(self.shape)} ({self.numel()} elements). "
                               f"autograd's resize can only change the shape of a given "
                               f"tensor, while preserving the number of elements. ")
        return self.reshape(shape)

    def resize_as(self, tensor):
        """:meth:`resize` to ``tensor``'s shape (deprecated in torch)."""
        warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return self.resize(*tensor.shape)

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                          layout=None, pin_memory=False):
        """An uninitialised tensor of ``size`` and ``stride`` with ``self``'s dtype and device
        unless given; see :func:`numtorch.empty_strided`."""
        return _nt.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                 device=self.device if device is None else device,
                                 requires_grad=requires_grad)

    def swapaxes_(self, axis0, axis1):
        """In-place :meth:`swapaxes` (the same as :meth:`transpose_`)."""
        return self.transpose_(axis0, axis1)

    def swapdims_(self, dim0, dim1):
        """In-place :meth:`swapdims` (the same as :meth:`transpose_`)."""
        return self.transpose_(dim0, dim1)

    def split_with_sizes(self, split_sizes, dim=0):
        """See :func:`numtorch.split_with_sizes`."""
        return _nt.split_with_sizes(self, split_sizes, dim)

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        """See :func:`numtorch.split_with_sizes`."""
        return _nt.split_with_sizes(self, split_sizes, dim)

    def unsafe_split(self, split_size, dim=0):
        """See :func:`numtorch.split`."""
        return _nt.unsafe_split(self, split_size, dim)

    def unsafe_chunk(self, chunks, dim=0):
        """See :func:`numtorch.chunk`."""
        return _nt.unsafe_chunk(self, chunks, dim)

    def narrow_copy(self, dim, start, length):
        """See :func:`numtorch.narrow_copy`."""
        return _nt.narrow_copy(self, dim, start, length)

    def nonzero_static(self, *, size, fill_value=-1):
        """The indices of the non-zero elements as :meth:`nonzero` gives them, cut or padded
        with ``fill_value`` rows to exactly ``size`` rows."""
        if not isinstance(size, int) or size < 0:
            raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
        idx = self.nonzero()[:size]
        missing = size - idx.shape[0]
        if missing:
            pad = idx.new_full((missing, idx.shape[1]), fill_value)
            idx = _nt.cat([idx, pad])
        return idx.contiguous()  # (row-major, unlike nonzero's result)

    def dim_order(self, *, ambiguity_check=False):
        """The dimensions from outermost to innermost in memory (largest stride first; ties
        keep their order), e.g. ``(0, 2, 3, 1)`` for a channels-last 4-D tensor."""
        strides = self.stride()
        return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))

    def __reversed__(self):
        """The tensor flipped along its first dimension (a 0-d tensor comes back as is)."""
        return self if self.dim() == 0 else self.flip(0)

    def __delitem__(self, key):
        raise TypeError("Tensor does not support deleting items")

    # -- subclassing --------------------------------------------------------------------------
    def as_subclass(self, cls):
        """``self`` seen as an instance of the Tensor subclass ``cls``: same data, and still
        attached to the autograd graph (through a view)."""
        from ._torch_function import DisableTorchFunction

        _check_subclass(cls)
        from .autograd.graph import rename_node

        with DisableTorchFunction():  # as in torch, no __torch_function__ (nor mode) runs here
            return _retyped(rename_node(self.view_as(self), "AliasBackward0"), cls)

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_strides=False,
                       dispatch_device=False, device_for_backend_keys=None):
        """A new leaf of the Tensor subclass ``cls`` sharing ``data``'s values (no graph),
        requiring grad if asked; the constructor ``Parameter``-like subclasses call in
        ``__new__``."""
        from ._tensor import Tensor

        _check_subclass(cls)
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, "
                            f"not {type(data).__name__}")
        from ._tensor import _factory_requires_grad

        out = _retyped(data.detach(), cls)
        if require_grad:
            _factory_requires_grad(out)
        return out

    def _is_view(self):
        """True if this tensor is a view of another tensor's data."""
        return self._base is not None

    # -- layouts, streams, names ------------------------------------------------------------
    def record_stream(self, stream):
        """Mark the tensor as used by ``stream``. numtorch keeps CUDA memory alive while any
        tensor references it, so there is nothing to record; a non-stream is refused."""
        from .cuda.streams import Stream

        if not isinstance(stream, Stream):
            raise RuntimeError("unknown parameter type")

    @property
    def name(self):
        """Always None (torch's TorchScript attribute; named tensors use ``names``)."""
        return None

    @name.setter
    def name(self, value):
        raise AttributeError("attribute 'name' of 'Tensor' objects is not writable")

    def sparse_dim(self):
        """The number of sparse dimensions: 0 for a dense tensor."""
        return 0

    def dense_dim(self):
        """The number of dense dimensions: all of them for a dense tensor."""
        return self.dim()

    def indices(self):
        """The indices of a sparse COO tensor; a dense tensor has none."""
        raise RuntimeError("indices expected sparse coordinate tensor layout but got Strided")

    def values(self):
        """The values of a sparse tensor; a dense tensor has none."""
        raise RuntimeError("values expected sparse tensor layout but got Strided")

    def crow_indices(self):
        """The compressed row indices of a CSR/BSR tensor; a dense tensor has none."""
        raise RuntimeError("crow_indices expected sparse row compressed tensor layout but got "
                           "Strided")

    def col_indices(self):
        """The column indices of a CSR/BSR tensor; a dense tensor has none."""
        raise RuntimeError("col_indices expected sparse row compressed tensor layout but got "
                           "Strided")

    def sparse_mask(self, mask):
        """A sparse COO tensor with ``mask``'s indices and ``self``'s values at them."""
        if not getattr(mask, "is_sparse", False):
            raise NotImplementedError("Could not run 'aten::sparse_mask' with arguments from "
                                      "the 'CPU' backend: mask must be a sparse tensor")
        idx = mask._indices()
        out = _nt.sparse_coo_tensor(idx, self[tuple(idx)], tuple(self.shape))
        # the result is coalesced exactly when the mask is (its indices are reused as given)
        return out.coalesce() if mask.is_coalesced() else out

    def module_load(self, other, assign=False):
        """What ``Module.load_state_dict`` puts in place of this parameter or buffer when
        swapping tensors: ``other`` detached (``assign``) or ``self`` updated from it."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

    def to_sparse_coo(self):
        """See :meth:`to_sparse`."""
        return self.to_sparse()

    def to_sparse_csr(self, dense_dim=None):
        """The non-zero entries as a CSR tensor (leading dimensions are batches)."""
        return _nt.sparse._compressed.dense_to_compressed(self, _nt.sparse_csr, None, dense_dim)

    def to_sparse_csc(self, dense_dim=None):
        """The non-zero entries as a CSC tensor."""
        return _nt.sparse._compressed.dense_to_compressed(self, _nt.sparse_csc, None, dense_dim)

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        """The non-zero ``blocksize`` blocks as a BSR tensor."""
        return _nt.sparse._compressed.dense_to_compressed(self, _nt.sparse_bsr, blocksize,
                                                          dense_dim)

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        """The non-zero ``blocksize`` blocks as a BSC tensor."""
        return _nt.sparse._compressed.dense_to_compressed(self, _nt.sparse_bsc, blocksize,
                                                          dense_dim)

    def ccol_indices(self):
        """The compressed column indices of a CSC/BSC tensor; a dense tensor has none."""
        raise RuntimeError("ccol_indices expected sparse column compressed tensor layout but "
                           f"got {'Sparse' if self.is_sparse else 'Strided'}")

    def row_indices(self):
        """The row indices of a CSC/BSC tensor; a dense tensor has none."""
        raise RuntimeError("row_indices expected sparse column compressed tensor layout but "
                           f"got {'Sparse' if self.is_sparse else 'Strided'}")

    def const_data_ptr(self):
        """The address of the first element (see :meth:`data_ptr`), for read-only use."""
        return self.data_ptr()

    def chalf(self, memory_format=None):
        """``self.to(numtorch.complex32)``; numtorch cannot hold complex32 values (NumPy has
        no such type), so this raises a RuntimeError saying so."""
        return self.to(_nt.complex32)

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        """Copy to an Intel XPU: numtorch has none (torch's error when built without it)."""
        raise AssertionError("Torch not compiled with XPU enabled")

    def ipu(self, device=None, non_blocking=False, memory_format=None):
        """Copy to a Graphcore IPU: numtorch has none."""
        raise RuntimeError("PyTorch is not linked with support for ipu devices")

    def mtia(self, device=None, non_blocking=False, memory_format=None):
        """Copy to a Meta MTIA device: numtorch has none (torch's error when built without)."""
        raise AssertionError(_MTIA_MISSING)

