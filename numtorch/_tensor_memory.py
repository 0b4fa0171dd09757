"""Tensor methods about memory: storages, resizing, sharing, and the 0.x ``apply_``/``map_``.

A mixin of ``Tensor`` (like ``_tensor_math``) so ``_tensor.py`` stays small.
"""

import numpy as np

from ._alloc_errors import alloc_error

__all__ = []


class _TensorMemory:
    __slots__ = ()

    def storage(self):
        """The typed storage (e.g. FloatStorage) sharing this tensor's whole memory block."""
        from ._warn_once import warn_once
        from .storage import storage_of

        warn_once("TypedStorage", "TypedStorage is deprecated. It will be removed in the future "
                  "and UntypedStorage will be the only storage class. This should only matter "
                  "to you if you are using storages directly.  To access UntypedStorage "
                  "directly, use tensor.untyped_storage() instead of tensor.storage()",
                  UserWarning, stacklevel=2)

        return storage_of(self)

    def untyped_storage(self):
        """The byte storage sharing this tensor's memory."""
        from .storage import storage_of

        return storage_of(self, untyped=True)

    def storage_type(self):
        """The storage class of this tensor's dtype (``torch.FloatStorage``...)."""
        from . import storage

        return storage._CLASS_OF[self.dtype]

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Make this tensor view ``source`` (a tensor or storage), or empty with no source."""
        from .storage import TypedStorage, UntypedStorage

        if source is None:
            self._array = np.empty((0,), dtype=self._array.dtype)
        elif isinstance(source, (TypedStorage, UntypedStorage)):
            flat = source._array
            if isinstance(source, UntypedStorage):  # bytes: read as this tensor's dtype
                item = self._array.itemsize
                flat = flat[:flat.size - flat.size % item].view(self._array.dtype)
            if flat.dtype != self._array.dtype:
                raise RuntimeError(f"set_: expected a storage of dtype {self.dtype}, got "
                                   f"{source.dtype}")
            size = (flat.size - storage_offset,) if size is None else tuple(size)
            if stride is None:
                stride, acc = [], 1
                for s in reversed(size):
                    stride.insert(0, acc)
                    acc *= s
            need = _check_set_geometry(size, tuple(stride), storage_offset)
            if need > flat.size:  # torch grows the storage to hold the view (same object)
                item = self._array.itemsize
                source.resize_(need * item if isinstance(source, UntypedStorage) else need)
                flat = source._array
                if isinstance(source, UntypedStorage):
                    flat = flat[:need * item].view(self._array.dtype)
            item = flat.itemsize
            strides = tuple(s * item for s in stride)
            if type(flat) is np.ndarray and storage_offset <= flat.size:
                # a view whose base is the storage's memory (storage_offset() and
                # untyped_storage() then find the whole block, as torch's do)
                self._array = np.ndarray(size, flat.dtype, buffer=flat,
                                         offset=storage_offset * item, strides=strides)
            else:
                self._array = np.lib.stride_tricks.as_strided(
                    flat[storage_offset:], shape=size, strides=strides)
        else:
            self._array = source._array
            self._vc = source._vc
        self._vc[0] += 1
        return self

    def is_set_to(self, tensor):
        """True if both tensors view the same memory with the same shape and strides."""
        a, b = self._array, tensor._array
        return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
                and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)

    def resize_(self, *sizes, memory_format=None, **kwargs):
        """Change the shape in place over the same storage: the tensor keeps its storage offset
        and takes contiguous strides (``memory_format``'s when given; a call with the current
        shape and no format changes nothing). A storage too small for the new shape grows,
        and every tensor and storage over it keeps seeing it, as in torch; new elements are
        uninitialised."""
        from .ops._util import shape_arg
        from ._size import size_args

        shape = shape_arg(size_args(sizes, kwargs, "size", "resize_"), "resize_")
        if self.requires_grad:  # torch refuses non-leaves and under no_grad too
            raise RuntimeError("cannot resize variables that require grad")
        n = 1
        for d in shape:
            n *= d
        if n < 0 or n >= 2 ** 63:  # torch counts the elements in int64 before anything else
            raise RuntimeError("numel: integer multiplication overflow")
        strides = _resize_strides(tuple(shape), memory_format)
        a = self._array
        if strides is None and tuple(shape) == a.shape:
            return self  # torch's no-op: the strides stay as they are
        if type(a) is np.ndarray and _resize_in_block(self, tuple(shape), strides):
            self._vc[0] += 1
            return self
        flat = a.reshape(-1)
        if n <= flat.size and a.flags.c_contiguous:
            # torch never shrinks a storage: the leading elements stay a view of it
            self._array = flat[:n].reshape(shape)
        else:
            try:
                new = np.empty(n, dtype=a.dtype)
            except (MemoryError, ValueError) as e:
                raise alloc_error(e, shape) from None
            k = min(n, flat.size)
            new[:k] = flat[:k]
            if k < n:
                from ._creation import fill_uninitialized

                fill_uninitialized(new[k:])
            self._array = new.reshape(shape)
        self._vc[0] += 1
        return self

    def resize_as_(self, tensor, memory_format=None):
        """``resize_`` to ``tensor``'s shape (``torch.preserve_format``: in ``tensor``'s
        memory format)."""
        from . import _layout

        if memory_format is _layout.preserve_format:
            memory_format = _layout.channels_last if tensor.dim() == 4 and \
                tensor.is_contiguous(memory_format=_layout.channels_last) and \
                not tensor.is_contiguous() else _layout.channels_last_3d if \
                tensor.dim() == 5 and \
                tensor.is_contiguous(memory_format=_layout.channels_last_3d) and \
                not tensor.is_contiguous() else None
        return self.resize_(tensor.shape, memory_format=memory_format)

    def share_memory_(self):
        """Move the data into shared memory (kept across fork/multiprocessing); a no-op if it
        already is. The whole memory block moves, with the tensors viewing it, as torch's
        storage does."""
        from .multiprocessing._move_to_shm import share_block
        from .storage import share_array

        if self.device.type == "cpu" and not self.is_shared() and not share_block(self):
            self._array = share_array(self._array)
        return self  # device memory: nothing to move (torch's no-op for CUDA too)

    def is_shared(self):
        """True if the data lives in shared memory (device memory counts as shared, as in
        torch)."""
        from .storage import is_shared_array

        return self.device.type == "cuda" or is_shared_array(self._array)

    def pin_memory(self, device=None):
        """A copy of this CPU tensor in page-locked host memory (CuPy's pinned pool), from which
        ``.to('cuda', non_blocking=True)`` copies asynchronously; the tensor itself when it is
        pinned already. torch's error on a machine without an accelerator."""
        from . import backend

        if self.is_cuda:
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be "
                               f"pinned")
        if backend.is_pinned(self._array):
            return self
        pinned = backend.pin(self._array)
        if not self.requires_grad:
            return _wrap(pinned)
        out = self.clone()  # differentiable, as torch's copy: then swap in the pinned buffer
        out._array = pinned
        return out

    def is_pinned(self, device=None):
        """True if this tensor's memory is page-locked (see :meth:`pin_memory`)."""
        from . import backend

        return backend.is_pinned(self._array)

    def apply_(self, callable):  # noqa: A002 - torch's argument name
        """Replace every element by ``callable(element)`` (CPU only, slow: a Python loop)."""
        if self.requires_grad:
            raise RuntimeError("Can't call apply_() on Variable that requires grad. Use "
                               "var.detach().apply_() instead.")
        flat = self._array.reshape(-1) if self._array.flags.c_contiguous else None
        values = [callable(v) for v in self._array.reshape(-1).tolist()]
        if flat is not None:
            flat[...] = values
        else:
            self._array[...] = np.asarray(values, dtype=self._array.dtype).reshape(self.shape)
        self._vc[0] += 1
        return self

    def map_(self, tensor, callable):  # noqa: A002
        """Replace every element by ``callable(self_elem, other_elem)`` (``tensor`` broadcast)."""
        if self.requires_grad or getattr(tensor, "requires_grad", False):
            raise RuntimeError("Can't call map_() on Variable that requires grad. Use "
                               "var.detach().map_() instead.")
        return _map_elements(self, (tensor,), callable)

    def map2_(self, x, y, callable):  # noqa: A002
        """Replace every element by ``callable(self_elem, x_elem, y_elem)`` (``x`` and ``y``
        broadcast to this tensor's shape and of its dtype; CPU only, a Python loop)."""
        from ._tensor import Tensor

        if self.requires_grad:
            raise RuntimeError("Can't call map2_() on Variable that requires grad. Use "
                               "var.detach().map2_() instead.")
        for pos, (name, t) in enumerate((("x", x), ("y", y)), 1):
            if not isinstance(t, Tensor):
                raise TypeError(f"map2_(): argument '{name}' (position {pos}) must be Tensor, "
                                f"not {type(t).__name__}")
            if t.dtype != self.dtype:
                raise TypeError(f"map2_: expected {self.type()} for argument '{name}' "
                                f"(got {t.type()})")
        return _map_elements(self, (x.expand(self.shape), y.expand(self.shape)), callable)

    def new(self, *args, **kwargs):
        """0.x constructor of the same dtype and device (``x.new(2, 3)``, ``x.new([1, 2])``)."""
        from ._tensor import _legacy_new, _make, Tensor

        arr = _legacy_new(args, kwargs, None, self.dtype, True)
        if isinstance(arr, Tensor):
            return _make(arr._array)
        out = _make(arr)
        return out if self.device.type == "cpu" else out.to(self.device)

    def is_signed(self):
        """True for signed dtypes (floats, complex and signed integers)."""
        return self.dtype.is_signed

    def index(self, m):
        """0.x: ``x.index(m)`` is ``x[m]``."""
        return self[m]


def _map_elements(self, others, fn):
    """``self[i] = fn(self[i], *(o[i] for o in others))`` element by element, in place."""
    columns = [np.broadcast_to(o._array, self._array.shape).reshape(-1).tolist()
               for o in others]
    values = [fn(*args) for args in zip(self._array.reshape(-1).tolist(), *columns)]
    if self._array.dtype.kind in "fc":
        for v in values:  # NumPy would parse strings; torch takes only numbers
            if not isinstance(v, (int, float, complex, np.number)):
                raise TypeError(f"must be real number, not {type(v).__name__}")
    self._array[...] = np.asarray(values, dtype=self._array.dtype).reshape(self.shape)
    self._vc[0] += 1
    return self


def _resize_strides(shape, memory_format):
    """The element strides ``resize_`` gives a tensor of ``shape`` in ``memory_format``
    (None: no format given, contiguous); torch's errors for a format the rank cannot take."""
    from . import _layout

    if memory_format is None:
        return None
    dims = [max(d, 1) for d in shape]
    if memory_format is _layout.contiguous_format:
        order = list(range(len(shape) - 1, -1, -1))
    elif memory_format is _layout.channels_last:
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        order = [1, 3, 2, 0]
    elif memory_format is _layout.channels_last_3d:
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        order = [1, 4, 3, 2, 0]
    elif memory_format is _layout.preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    else:
        raise TypeError(f"resize_(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(memory_format).__name__}")
    strides = [0] * len(shape)
    acc = 1
    for d in order:  # innermost first
        strides[d] = acc
        acc *= dims[d]
    return tuple(strides)


def _resize_in_block(t, shape, strides):
    """``t.resize_(shape)`` over ``t``'s own memory block, as torch's storage holds it: the
    same element offset, the given element ``strides`` (None: contiguous). A block too small
    is grown: copied into a larger one under every tensor and storage over it (a NumPy buffer
    cannot grow where it is). False when ``t``'s memory is no plain NumPy block."""
    import sys

    a = t._array
    owner = a
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if type(owner) is not np.ndarray or not (owner.flags.c_contiguous or
                                             owner.flags.f_contiguous):
        return False
    item = a.itemsize
    start = owner.__array_interface__["data"][0]
    off = a.__array_interface__["data"][0] - start
    if not 0 <= off <= owner.nbytes or off % item:  # (an empty array may point anywhere)
        if a.size:
            return False
        off = 0
    if strides is None:
        strides, acc = [0] * len(shape), 1
        for i in range(len(shape) - 1, -1, -1):
            strides[i] = acc
            acc *= max(shape[i], 1)
    span = 0 if 0 in shape else 1 + sum((d - 1) * s for d, s in zip(shape, strides))
    need = off + span * item
    byte_strides = tuple(s * item for s in strides)
    if need > owner.nbytes:
        # references to the owner known here: `owner`, getrefcount's argument and either
        # `a` and `t._array` (the owner itself) or the view chain's one `.base`; more mean
        # other arrays over the block, to find and re-point
        extra = sys.getrefcount(owner) - (5 if a is owner else 3)
        kind = owner.dtype if need % owner.itemsize == 0 else a.dtype
        try:
            block = np.empty(need // kind.itemsize, dtype=kind)
        except (MemoryError, ValueError) as e:
            raise alloc_error(e, shape) from None
        raw = block.view(np.uint8)
        raw[:owner.nbytes] = owner.reshape(-1, order="A").view(np.uint8)
        tail = raw[owner.nbytes:]
        if tail.size % item == 0:
            from ._creation import fill_uninitialized

            fill_uninitialized(tail.view(a.dtype))
        if extra > 0:
            _repoint(owner, block, t)
        flat = block
    else:
        flat = owner.reshape(-1, order="A")
    t._array = np.ndarray(shape, dtype=a.dtype, buffer=flat, offset=off, strides=byte_strides)
    if not a.flags.writeable:
        t._array.flags.writeable = False
    return True


def _repoint(owner, block, skip):
    """Move every tensor and storage (but ``skip``) over ``owner``'s memory onto ``block`` (a
    larger copy of it) at the same offsets; a storage over the whole block takes all of the
    new one, as torch's storage object grows."""
    from .multiprocessing._move_to_shm import _holders
    from .storage import _UNTYPED, UntypedStorage

    start = owner.__array_interface__["data"][0]
    for obj in _holders(owner, skip):
        old = obj._array
        offset = old.__array_interface__["data"][0] - start
        if not 0 <= offset <= owner.nbytes:
            offset = 0
        if (isinstance(obj, UntypedStorage) or not hasattr(obj, "requires_grad")) and \
                offset == 0 and old.nbytes == owner.nbytes and old.ndim == 1 and \
                block.nbytes % old.itemsize == 0:  # a storage over the whole block
            obj._array = block.view(old.dtype)
            if isinstance(obj, UntypedStorage):
                _UNTYPED[id(block)] = obj
            continue
        new = np.ndarray(old.shape, dtype=old.dtype, buffer=block.reshape(-1), offset=offset,
                         strides=old.strides)
        if not old.flags.writeable:
            new.flags.writeable = False
        obj._array = new


def grow_storage(storage, nbytes):
    """``storage.resize_`` to a larger ``nbytes`` when it holds a whole NumPy memory block: the
    block is copied into a larger one under the storage and every tensor and storage over it
    (torch's tensors keep their storage object, whose memory grew). False otherwise."""
    old = storage._array
    owner = old
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if type(old) is not np.ndarray or type(owner) is not np.ndarray or \
            old.nbytes != owner.nbytes or old.ndim != 1 or \
            old.__array_interface__["data"][0] != owner.__array_interface__["data"][0] or \
            not (owner.flags.c_contiguous or owner.flags.f_contiguous) or \
            nbytes % old.itemsize:
        return False
    try:
        block = np.empty(nbytes // old.itemsize, dtype=old.dtype)
    except (MemoryError, ValueError) as e:
        raise alloc_error(e, (nbytes // old.itemsize,)) from None
    block.view(np.uint8)[:owner.nbytes] = owner.reshape(-1, order="A").view(np.uint8)
    _repoint(owner, block, storage)
    storage._array = block
    from .storage import _UNTYPED, UntypedStorage

    if isinstance(storage, UntypedStorage):
        _UNTYPED[id(block)] = storage
    return True


def _wrap(array):
    from ._tensor import _make

    return _make(array)


def _check_set_geometry(size, stride, offset):
    """torch's checks of a ``set_`` geometry; returns the number of elements a storage needs
    to hold the view."""
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                           f"({len(stride)})")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                           f"{list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if all(size):
        return offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    return 0

