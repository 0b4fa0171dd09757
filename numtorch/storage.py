"""Storages: the flat memory under tensors (``FloatStorage``, ``UntypedStorage``, ...).

A storage wraps a 1-D array. ``Tensor.storage()`` returns one over the whole memory block the
tensor views (its base array), so writes through the storage show in the tensor and back.
"""

import mmap
import os
import tempfile
import weakref

import numpy as np

from . import _dtype, _dtype_extra
from ._class_repr import TorchNamed
from ._tensor import Tensor

__all__ = ["TypedStorage", "UntypedStorage", "Storage", "FloatStorage", "DoubleStorage",
           "HalfStorage", "LongStorage", "IntStorage", "ShortStorage", "CharStorage",
           "ByteStorage", "BoolStorage", "ComplexFloatStorage", "ComplexDoubleStorage",
           "BFloat16Storage", "storage_of", "share_array", "is_shared_array"]


def _root(arr):
    """The array owning ``arr``'s memory, as a flat 1-D view (None if not C-contiguous)."""
    base = arr
    while isinstance(base.base, np.ndarray):
        base = base.base
    if not base.flags.c_contiguous:
        return None
    return base.reshape(-1)


def _owner(arr):
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


_UNTYPED = weakref.WeakValueDictionary()  # id(owning array) -> the UntypedStorage over it


def _untyped_over(root):
    """The one UntypedStorage object over ``root`` (a whole owning block, flat): torch hands
    back the same Python object for a storage while one is alive, so ``t.untyped_storage() is
    t[1:].untyped_storage()``. A cached object no longer over the block (after its
    ``resize_``) is replaced."""
    owner = _owner(root)
    hit = _UNTYPED.get(id(owner))
    if hit is not None and _owner(hit._array) is owner and hit._array.nbytes == root.nbytes:
        return hit
    storage = UntypedStorage(wrap=root.view(np.uint8))
    _UNTYPED[id(owner)] = storage
    return storage


class _StorageMeta(TorchNamed):
    """The storages' metaclass: ``isinstance`` answers as torch's does, where UntypedStorage
    is no TypedStorage (numtorch's UntypedStorage reuses TypedStorage's code as a subclass)
    and a legacy class (``FloatStorage``...) claims every typed storage of its dtype."""

    def __instancecheck__(cls, instance):
        kind = type(instance)
        if not isinstance(kind, _StorageMeta):
            return type.__instancecheck__(cls, instance)
        untyped = issubclass(kind, UntypedStorage)
        if cls is UntypedStorage:
            return untyped
        if cls is TypedStorage:
            return not untyped
        if not untyped and _BY_NAME.get(cls.__name__) is cls:  # FloatStorage...: its dtype
            return instance.dtype == cls.dtype
        return type.__instancecheck__(cls, instance)


class TypedStorage(metaclass=_StorageMeta):
    """A 1-D block of elements of one dtype; the legacy ``torch.FloatStorage`` family."""

    dtype = None  # set on the typed subclasses; instances of TypedStorage carry their own
    @property
    def is_sparse(self):
        """False: storages hold dense elements only (sparse tensors keep several storages)."""
        return False

    @property
    def is_cuda(self):
        """Whether the elements live on a GPU; numtorch storages live in host memory."""
        return False

    def __sizeof__(self):
        # the elements count, as in torch: sys.getsizeof(t.untyped_storage()) is how torchinfo
        # measures a model's input size
        return super().__sizeof__() + self.nbytes()

    def __init__(self, *args, wrap=None, dtype=None, device=None):
        dt = _dtype.as_dtype(dtype) or type(self).dtype or _dtype.get_default_dtype()
        meta = wrap is None and device is not None and _placed_on_meta(device)
        if wrap is not None:
            self._array = wrap
        elif not args:
            self._array = np.empty(0, dtype=dt.np)
        elif len(args) == 1 and isinstance(args[0], int):
            _check_count(args[0], dt)
            if meta:
                from .backend import _meta

                self._array = _meta.empty((args[0],), dt.np)
            else:
                self._array = np.empty(args[0], dtype=dt.np)
        elif len(args) == 1:
            if isinstance(args[0], (float, complex)):
                raise RuntimeError(f"torch.{type(self).__name__}(): Expected a sequence type, "
                                   f"but got {type(args[0]).__name__}")
            self._array = _from_sequence(list(args[0]), dt, type(self) is UntypedStorage)
        else:
            raise TypeError(f"{type(self).__name__}(): expected a size or a sequence")
        self._dtype = _dtype._FROM_NP[self._array.dtype]

    @property
    def dtype(self):  # noqa: F811 - instance property over the class attribute
        return self._dtype

    @property
    def device(self):
        from . import backend
        from ._device import CPU

        return backend.META if backend.is_meta(self._array) else CPU

    # -- size and contents ---------------------------------------------------------------------
    def size(self):
        return int(self._array.shape[0])

    def __len__(self):
        return self.size()

    def nbytes(self):
        return int(self._array.nbytes)

    def element_size(self):
        return self._array.itemsize

    def tolist(self):
        return self._array.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            if not isinstance(self, UntypedStorage):
                raise RuntimeError(  # noqa: TRY004 - torch's class
                    "slices are only supported in UntypedStorage.__getitem__")
            step = 1 if idx.step is None else idx.step
            if step != 1:  # torch's storages slice contiguously only
                raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of "
                                   f"1 is supported")
        elif _is_index(idx):
            self._check_index(idx)
        r = self._array[idx]
        return r.item() if np.ndim(r) == 0 else type(self)(wrap=np.array(r))

    def __setitem__(self, idx, value):
        if _is_index(idx) and not -self.size() <= idx < self.size():
            raise RuntimeError("out of bounds")  # torch's words for a write past the end
        if type(self) is UntypedStorage and isinstance(value, int):
            value &= 0xFF  # raw bytes wrap, as torch's byte writes do
        self._array[idx] = value

    def _check_index(self, idx):
        if not -self.size() <= idx < self.size():
            raise IndexError(f"index {idx} out of range for storage of size {self.size()}")

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        """Set every element to ``value`` (converted to the storage's dtype); returns self."""
        if type(self) is UntypedStorage and isinstance(value, int):
            value &= 0xFF  # raw bytes wrap, as torch's
        self._array[...] = value
        return self

    def copy_(self, source, non_blocking=None):
        """Copy the elements of ``source`` (a storage, tensor or sequence with as many
        elements) into this storage in order, converting dtypes; returns self."""
        src = source._array if isinstance(source, (TypedStorage, UntypedStorage, Tensor)) \
            else np.asarray(source)
        if isinstance(self, UntypedStorage) and isinstance(source, UntypedStorage) and \
                src.nbytes != self._array.nbytes:
            raise RuntimeError(f"size does not match, self was {self._array.nbytes} bytes but "
                               f"src was {src.nbytes} bytes")  # torch's words
        if src.size != self._array.size:
            raise RuntimeError(f"size mismatch: storage of {self._array.size} elements, source "
                               f"of {src.size}")
        self._array[...] = src.reshape(-1)
        return self

    def clone(self):
        return type(self)(wrap=self._array.copy())

    def data_ptr(self):
        return self._array.__array_interface__["data"][0]

    def resize_(self, size):
        """Grow or shrink in place (existing elements kept). Grown, the tensors over it keep
        viewing it; shrunk, they keep the old memory."""
        _check_count(size, self._dtype)
        if size > self._array.size:
            from ._tensor_memory import grow_storage

            if grow_storage(self, size * self._array.itemsize):
                return self  # (the tensors over it see the larger memory, as torch's)
        new = np.empty(size, dtype=self._array.dtype)
        n = min(size, self._array.size)
        new[:n] = self._array[:n]
        self._array = new
        return self

    def new(self):
        return type(self)(wrap=np.empty(0, dtype=self._array.dtype))

    # -- sharing and devices -------------------------------------------------------------------
    def share_memory_(self):
        """Move the data into shared memory (a /dev/shm mapping) so child processes see it,
        under the tensors built on it too."""
        from .multiprocessing._move_to_shm import share_block

        if not self.is_shared() and not share_block(self):
            self._array = share_array(self._array)
        return self

    def is_shared(self):
        return is_shared_array(self._array)

    def pin_memory(self, device=None):
        return self

    def is_pinned(self, device=None):
        """Whether the storage is in page-locked host memory; numtorch's never are."""
        return False

    def cpu(self):
        return self

    def to(self, *, device, non_blocking=False):
        """This storage on ``device`` (itself when it is there already)."""
        from ._device import as_device

        dev = as_device(device)
        if dev.type == self.device.type:  # (torch wraps a typed storage anew: same memory)
            return self if isinstance(self, UntypedStorage) else type(self)(wrap=self._array)
        if dev.type == "cuda":
            return self.cuda(dev.index, non_blocking)
        raise AssertionError(f"{dev.type.upper()} device module is not loaded")  # torch's

    def get_device(self):
        """The index of the storage's device (None on the CPU, as torch's storages say)."""
        return self.device.index

    def resizable(self):
        """Whether ``resize_`` may reallocate the memory: not for a file mapped by
        ``from_file`` or by ``load(mmap=True)``."""
        return _file_mapping(self._array) is None

    @property
    def filename(self):
        """The file a ``from_file(..., shared=True)`` storage maps, else None (as torch)."""
        m = _file_mapping(self._array)
        return getattr(m, "_numtorch_filename", None)

    def cuda(self, device=None, non_blocking=False):
        raise RuntimeError("Torch not compiled with CUDA enabled: storages live on the CPU in "
                           "numtorch (move tensors with .cuda() instead)")

    # -- conversions ---------------------------------------------------------------------------
    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            if isinstance(self, UntypedStorage):
                return "torch.storage.UntypedStorage"
            return "torch." + type(self).__name__
        cls = _BY_NAME.get(dtype.rsplit(".", 1)[-1]) if isinstance(dtype, str) else dtype
        if cls is None:
            raise ValueError(f"invalid storage type {dtype!r}")
        return cls(wrap=self._array.astype(cls.dtype.np))

    def _to(self, d):
        return _CLASS_OF.get(d, TypedStorage)(wrap=self._array.astype(d.np))

    def complex_float(self):
        return self._to(_dtype.complex64)

    def complex_double(self):
        return self._to(_dtype.complex128)

    def float8_e5m2(self):
        return self._to(_dtype_extra.float8_e5m2)

    def float8_e4m3fn(self):
        return self._to(_dtype_extra.float8_e4m3fn)

    def float8_e5m2fnuz(self):
        return self._to(_dtype_extra.float8_e5m2fnuz)

    def float8_e4m3fnuz(self):
        return self._to(_dtype_extra.float8_e4m3fnuz)

    def double(self):
        return self._to(_dtype.float64)

    def float(self):
        return self._to(_dtype.float32)

    def half(self):
        return self._to(_dtype.float16)

    def bfloat16(self):
        return self._to(_dtype.bfloat16)

    def long(self):
        return self._to(_dtype.int64)

    def int(self):
        return self._to(_dtype.int32)

    def short(self):
        return self._to(_dtype.int16)

    def char(self):
        return self._to(_dtype.int8)

    def byte(self):
        return self._to(_dtype.uint8)

    def bool(self):
        return self._to(_dtype.bool)

    def untyped(self):
        root = _root(self._array)
        if root is not None and root.nbytes == self._array.nbytes and \
                type(self._array) is np.ndarray:  # the whole block: its one byte storage
            return _untyped_over(root)
        return UntypedStorage(wrap=self._array.view(np.uint8))

    def pickle_storage_type(self):
        """The legacy class name of this storage's dtype (``"FloatStorage"``)."""
        if isinstance(self, UntypedStorage):
            raise AttributeError(  # noqa: TRY004 - a method UntypedStorage lacks in torch
                "'UntypedStorage' object has no attribute 'pickle_storage_type'")
        return _CLASS_OF[self.dtype].__name__

    @classmethod
    def from_buffer(cls, buffer, byte_order="native", count=-1, offset=0):
        """A new storage copied from a bytes-like ``buffer``."""
        dt = np.dtype((cls.dtype or _dtype.uint8).np)
        if byte_order in ("little", "big"):
            dt = dt.newbyteorder("<" if byte_order == "little" else ">")
        elif byte_order != "native":
            raise ValueError(f"invalid byte_order '{byte_order}' (expected 'big', 'little', or "
                             f"'native')")
        avail = memoryview(buffer).nbytes - offset
        if count >= 0 and count * dt.itemsize > avail:  # torch's words (bytes as "elements")
            raise ValueError(f"buffer has only {avail} elements after offset {offset}, but "
                             f"specified a size of {count}")
        if count < 0 and offset >= 0 and avail % dt.itemsize:
            raise ValueError(f"buffer size ({avail}) must be a multiple of element size "
                             f"({dt.itemsize})")
        arr = np.frombuffer(buffer, dtype=dt, count=count, offset=offset)
        return cls(wrap=arr.astype(arr.dtype.newbyteorder("=")).copy())

    @classmethod
    def from_file(cls, filename, shared=False, size=0):
        """A storage mapped from ``filename`` (``size`` elements; created if missing)."""
        return cls._mapped(filename, shared, size)

    @classmethod
    def _mapped(cls, filename, shared, count):
        dt = np.dtype((cls.dtype or _dtype.uint8).np)
        filename = os.fspath(filename)
        mode = "r+" if os.path.exists(filename) else "w+"
        if mode == "w+" and count == 0:
            return cls(wrap=np.empty(0, dtype=dt))
        need = count * dt.itemsize
        if mode == "r+" and os.path.getsize(filename) < need:
            raise RuntimeError(f"file <{filename}> size <{os.path.getsize(filename)}> is smaller "
                               f"than the required mapping size <{need}>")
        arr = np.memmap(filename, dtype=dt, mode=mode if shared else "c", shape=(count,))
        if shared:  # (torch names the file of a shared mapping only)
            arr._numtorch_filename = filename
        return cls(wrap=arr)

    def __repr__(self):
        # torch names the generic class with its dtype and device, whatever legacy name
        # (FloatStorage...) made it; a meta storage has no elements to list
        if isinstance(self, UntypedStorage):
            kind = f"UntypedStorage(device={self.device})"
        else:
            kind = f"TypedStorage(dtype={self.dtype}, device={self.device})"
        if self.device.type == "meta":
            body = "..."
        else:
            body = "\n".join(f" {v}" for v in self._array.tolist()) or " "
        return f"{body}\n[torch.storage.{kind} of size {self._array.size}]"


class UntypedStorage(TypedStorage):
    """Raw bytes (``uint8``) under tensors of any dtype."""

    dtype = _dtype.uint8

    def __init__(self, *args, wrap=None, device=None):
        super().__init__(*args, wrap=wrap, dtype=_dtype.uint8, device=device)

    def element_size(self):
        return 1

    def nbytes(self):
        return int(self._array.nbytes)

    def byteswap(self, dtype):
        """Reverse the byte order of each ``dtype`` element in place (each half of a complex
        one); the bytes must hold whole elements."""
        dt = _dtype.as_dtype(dtype)
        size = dt.itemsize // 2 if dt.is_complex else dt.itemsize
        if self._array.size % dt.itemsize:
            raise RuntimeError(f"the length of data is not a multiple of {dt.itemsize}")
        if size > 1:
            rows = self._array.reshape(-1, size)
            rows[...] = rows[:, ::-1].copy()

    @classmethod
    def from_buffer(cls, buffer, byte_order=None, dtype=None, count=-1, offset=0):
        """The bytes of ``buffer`` read as ``dtype`` elements in ``byte_order`` ("little",
        "big" or "native"; needed for multi-byte dtypes) and stored in the machine's order."""
        if dtype is None:
            raise RuntimeError("argument 'dtype' cannot be None")
        dt = _dtype.as_dtype(dtype)
        if byte_order is None:
            if dt.itemsize > 1:
                raise RuntimeError("function missing required argument 'byte_order' (pos 2)")
            byte_order = "native"
        typed = _CLASS_OF[dt].from_buffer(buffer, byte_order, count, offset)
        return cls(wrap=typed._array.view(np.uint8))

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """Bytes mapped from ``filename`` (``nbytes`` of them; the file is created if missing
        and ``shared``). safetensors' ``safe_open`` reads checkpoints through this."""
        return cls._mapped(filename, shared, nbytes)


def _placed_on_meta(device):
    """Whether a new storage goes on the meta device. Other devices than the CPU fail as
    tensor creation there fails (torch's error where the device is missing); with a GPU the
    storage stays in host memory (numtorch's storages are NumPy arrays)."""
    from ._device import device as _device_cls

    dev = device if isinstance(device, _device_cls) else _device_cls(device)
    if dev.type == "meta":
        return True
    if dev.type != "cpu":
        from ._creation import empty

        empty(0, device=dev)
    return False


def _check_count(n, dt):
    if n < 0:  # torch's allocator refusal (the byte count as its unsigned size_t)
        raise RuntimeError(f"[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. "
                           f"alloc_cpu() seems to have been called with negative number: "
                           f"{(n * dt.itemsize) % 2 ** 64}")


def _is_index(idx):
    return isinstance(idx, (int, np.integer)) and not isinstance(idx, bool)


def _from_sequence(values, dt, raw_bytes):
    """A storage's elements from a list: raw bytes wrap modulo 256 (torch's UntypedStorage);
    a typed storage refuses integers its dtype cannot hold, in torch's words."""
    if raw_bytes and all(isinstance(v, int) for v in values):
        return (np.array(values, dtype=object) & 0xFF).astype(np.uint8) if values else \
            np.empty(0, np.uint8)
    try:
        return np.array(values, dtype=dt.np).reshape(-1)
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dt.np.name} without "
                           f"overflow") from None


def _typed(name, d):
    return type(name, (TypedStorage,), {"dtype": d, "__module__": "numtorch",
                                        "__doc__": f"Storage of {d} elements."})


FloatStorage = _typed("FloatStorage", _dtype.float32)
DoubleStorage = _typed("DoubleStorage", _dtype.float64)
HalfStorage = _typed("HalfStorage", _dtype.float16)
BFloat16Storage = _typed("BFloat16Storage", _dtype.bfloat16)
LongStorage = _typed("LongStorage", _dtype.int64)
IntStorage = _typed("IntStorage", _dtype.int32)
ShortStorage = _typed("ShortStorage", _dtype.int16)
CharStorage = _typed("CharStorage", _dtype.int8)
ByteStorage = _typed("ByteStorage", _dtype.uint8)
BoolStorage = _typed("BoolStorage", _dtype.bool)
ComplexFloatStorage = _typed("ComplexFloatStorage", _dtype.complex64)
ComplexDoubleStorage = _typed("ComplexDoubleStorage", _dtype.complex128)
Storage = FloatStorage  # 0.x: the storage class of the default tensor type

_CLASS_OF = {c.dtype: c for c in (FloatStorage, DoubleStorage, HalfStorage, LongStorage,
                                  IntStorage, ShortStorage, CharStorage, ByteStorage,
                                  BoolStorage, ComplexFloatStorage, ComplexDoubleStorage,
                                  BFloat16Storage)}
_BY_NAME = {c.__name__: c for c in _CLASS_OF.values()}
_BY_NAME["UntypedStorage"] = UntypedStorage


def storage_of(t, untyped=False):
    """The storage under tensor ``t``: its whole base memory block, shared."""
    from .backend import is_meta

    a = t._array
    if hasattr(a, "quantizer"):  # quantized: the stored integers, typed as the quantized dtype
        root = _root(a.ints)
        if root is None:
            root = np.ascontiguousarray(a.ints).reshape(-1)
        if untyped:
            return UntypedStorage(wrap=root.view(np.uint8))
        typed = TypedStorage(wrap=root)
        typed._dtype = a.qdtype
        return typed
    root = _root(t._array)
    if root is None:  # a non-contiguous owner (rare): expose this tensor's own memory
        root = np.ascontiguousarray(t._array).reshape(-1)
    elif is_meta(t._array):
        root = root.view(type(t._array))  # a meta tensor's storage is meta too
    if untyped:
        if type(root) is np.ndarray:
            return _untyped_over(root)
        return UntypedStorage(wrap=root.view(np.uint8))
    return _CLASS_OF[_dtype._FROM_NP[root.dtype]](wrap=root)


def _file_mapping(arr):
    """The ``np.memmap`` or checkpoint mapping under ``arr``'s memory, or None."""
    a, found = arr, None
    while isinstance(a, np.ndarray):
        if isinstance(a, np.memmap):
            found = a  # (views of a memmap are memmaps too: the last one made the mapping)
        a = a.base
    if isinstance(a, memoryview):
        a = a.obj
    return a if isinstance(a, CheckpointMap) else found


def is_shared_array(arr):
    """True if ``arr``'s memory is a shared mapping (made by ``share_array``)."""
    from .backend import is_meta

    if is_meta(arr):  # (a meta array lies over a private mapping that holds nothing)
        return False
    a = arr
    while isinstance(a, np.ndarray):
        a = a.base
    if isinstance(a, memoryview):
        a = a.obj
    return isinstance(a, mmap.mmap) and not isinstance(a, CheckpointMap)


class CheckpointMap(mmap.mmap):
    """A checkpoint file mapped by ``load(mmap=True)``: its tensors are not shared memory
    (``is_shared()`` is False, as in torch)."""


_SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else None
_SHM_MAPS = weakref.WeakValueDictionary()  # (st_dev, st_ino) -> the live mapping of that file


class ShmMap(mmap.mmap):
    """A shared mapping of a nameless /dev/shm file that keeps the file open (``.fd``), so
    ``numtorch.multiprocessing`` can hand the same memory to other processes."""


def _new_shm_fd(nbytes):
    """A new nameless shared-memory file of ``nbytes`` bytes, opened read-write."""
    try:
        # O_TMPFILE: the file never has a name (nothing to leak), yet can be given one later
        # with linkat, which the 'file_system' sharing strategy needs
        fd = os.open(_SHM_DIR or tempfile.gettempdir(), os.O_TMPFILE | os.O_RDWR, 0o600)
    except (AttributeError, OSError):
        fd, path = tempfile.mkstemp(prefix="numtorch_shm_", dir=_SHM_DIR)
        os.unlink(path)
    try:
        os.ftruncate(fd, nbytes)
    except OSError:
        os.close(fd)
        raise
    return fd


def shm_map(nbytes, fd=None):
    """Map shared memory: a new file of ``nbytes`` bytes, or the open file ``fd`` (taken over:
    closed with the mapping, or at once if this process already maps that file, whose mapping
    is returned instead so both ends see one block at one address)."""
    if fd is None:
        fd = _new_shm_fd(max(nbytes, 1))
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    mm = _SHM_MAPS.get(key)
    if mm is not None:
        os.close(fd)
        return mm
    mm = ShmMap(fd, st.st_size)
    mm.fd = fd
    mm.address = np.frombuffer(mm, dtype=np.uint8).__array_interface__["data"][0]
    weakref.finalize(mm, os.close, fd)
    _SHM_MAPS[key] = mm
    return mm


def share_array(arr):
    """A copy of ``arr`` in shared memory (a mapping of a nameless file under /dev/shm)."""
    mm = shm_map(arr.nbytes)
    out = np.frombuffer(mm, dtype=arr.dtype, count=arr.size).reshape(arr.shape)
    out[...] = arr
    return out
