"""The checkpoint writer: a pickler emitting torch's rebuild calls, and the zip layout."""

import collections
import concurrent.futures
import contextlib
import errno
import functools
import importlib
import io
import itertools
import os
import pickle
import stat
import struct
import threading
import types
import warnings
import zipfile
import zlib

import numpy as np

from .. import _dtype, _layout, _quantized_scheme
from .._device import device as _device_cls
from .._size import Size
from .._sparse import SparseTensor as _SparseTensor
from .._tensor import Tensor, _make
from ..backend import is_meta
from ..storage import TypedStorage as _TypedStorage
from ..storage import UntypedStorage as _UntypedStorage
from . import _compat_state, _names, _options
from ._common import _ALIGN, _NP, _STORAGE_NAME
from ._skip import Blank, skipping


def _is_lazy(t):
    from ..nn.parameter import is_lazy

    return is_lazy(t)


class _Global:
    """A placeholder pickled as a ``GLOBAL module name`` opcode (torch need not be imported).

    The pure-Python pickler writes the opcode directly. The C pickler can only write globals
    it can import, so each placeholder is also a global of this module under ``attr``; the
    opcode naming it (``alias``) is swapped for the torch one (``opcode``) after pickling.
    """

    __slots__ = ("module", "name", "attr", "alias", "opcode")
    _cache = {}
    _ids = itertools.count()

    def __new__(cls, module, name):
        key = (module, name)
        obj = cls._cache.get(key)
        if obj is None:
            obj = object.__new__(cls)
            obj.module, obj.name = module, name
            obj.attr = f"_TORCH_GLOBAL_{next(cls._ids)}"
            obj.alias = f"c{__name__}\n{obj.attr}\n".encode()
            obj.opcode = f"c{module}\n{name}\n".encode()
            globals()[obj.attr] = obj
            obj = cls._cache.setdefault(key, obj)
        return obj

    def __call__(self, *args):
        # callable only so that pickle accepts it as the function of a reduce tuple
        raise TypeError(f"{self.module}.{self.name} is a pickling placeholder, not callable")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")


def _foreign_subclass(cls):
    """``cls`` if it is a Tensor subclass not internal to numtorch (a user's, or
    numtorchvision's tv_tensors), else None."""
    if cls is Tensor or cls.__module__.split(".")[0] == "numtorch":
        return None
    return cls


@functools.lru_cache(maxsize=None)
def _parameter_class():
    from ..nn.parameter import Parameter  # (imported late: nn imports this package)

    return Parameter


def _conj_view(t):
    """Whether torch's counterpart of ``t`` (a non-empty complex CPU tensor) has its
    conjugate bit set."""
    arr = t._array
    if type(arr) is not np.ndarray or arr.dtype.kind != "c" or not arr.size \
            or not arr.dtype.isnative:
        return False
    from ..ops.complex_ops import _conj_bit

    return _conj_bit(t)


class _StorageRef:
    """One storage to write: a flat little-endian array and its key in the archive."""

    __slots__ = ("key", "flat", "dtype_name", "location")

    def __init__(self, key, flat, dtype_name, location):
        self.key, self.flat, self.dtype_name, self.location = key, flat, dtype_name, location


def _owner(arr):
    """The array owning ``arr``'s memory (the end of the ``.base`` chain of arrays)."""
    owner, base = arr, arr.base
    while base is not None and hasattr(base, "__array_interface__"):
        owner = base
        base = getattr(base, "base", None)
    return owner


def _warn_if_has_hooks(t):
    """torch's warning for each gradient hook on a tensor being saved (hooks are not written;
    one marked with ``torch.utils.hooks.unserializable_hook`` is passed over quietly)."""
    node = t._grad_fn if t._grad_fn is not None else t._accum
    pre = getattr(node, "_pre_hooks", None)
    if not pre:
        return
    for hook in pre.get(t._output_nr if t._grad_fn is not None else 0, ()):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this "
                          f"is expected, you can decorate the function with "
                          f"@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)


class _TorchReductions:
    """Pickles tensors as torch does: rebuild calls over storages kept out of the pickle.

    Shared by the C pickler (fast, protocols <= 3) and the pure-Python one (any protocol).
    """

    def _start(self):
        self.storages = []
        self._by_owner = {}
        self._owner_dtypes = {}  # id(owner) -> (the dtype tensors view it as, owner kept alive)
        self.legacy = False  # the pre-1.6 format adds a sixth field (no storage view)

    def persistent_id(self, obj):
        if isinstance(obj, (_TypedStorage, _UntypedStorage)):  # a storage saved itself: its reference, as torch
            obj = self._storage_ref(obj)
        if type(obj) is _StorageRef:
            name = _STORAGE_NAME.get(obj.dtype_name)
            if name is None:  # uint16/32/64 have no typed storage: torch counts bytes
                pid = ("storage", _Global("torch.storage", "UntypedStorage"), obj.key,
                       obj.location, int(obj.flat.nbytes))
                return pid + (None,) if self.legacy else pid
            pid = ("storage", _Global("torch", name), obj.key,
                   obj.location, int(obj.flat.size))
            return pid + (None,) if self.legacy else pid
        return None

    def _storage_ref(self, st):
        """The storage ref of a numtorch storage object, shared with the tensors saved over
        the same memory when it is their whole storage."""
        arr = st._array
        if is_meta(arr) or arr.dtype.names or type(arr) is not np.ndarray:
            raise RuntimeError(f"numtorch cannot save a {type(st).__name__} of "
                               f"{st.device} {arr.dtype} elements by itself; save the "
                               f"tensors over it instead")
        t = _make(arr.reshape(-1))
        ref, offset, _ = self._storage_for(t)
        if offset or ref.flat.size != arr.size:  # part of a larger block: its own record
            name = t.dtype.name
            ref = _StorageRef(str(len(self.storages)),
                              np.ascontiguousarray(arr).astype(_NP.get(name, arr.dtype),
                                                               copy=False),
                              name, "cpu")
            self.storages.append(ref)
        return ref

    def _storage_for(self, t):
        """The storage ref, element offset and element strides of tensor ``t``."""
        arr = t._array
        name = t.dtype.name
        itemsize = arr.itemsize
        if type(arr) is np.ndarray:
            location = "cpu"
            owner = arr if arr.base is None else _owner(arr)
            # torch keeps one storage per memory block, of one element type
            first = self._owner_dtypes.setdefault(id(owner), (arr.dtype, owner))[0]
            if first != arr.dtype:
                raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                   "same data as different types")
            # (a view as another type, c.real or x.view(int32), keeps its geometry over the
            # block's bytes read as its own type, as torch's untyped storage does)
            if (type(owner) is np.ndarray and owner.nbytes % itemsize == 0
                    and arr.dtype.isnative
                    and (owner.flags.c_contiguous or owner.flags.f_contiguous)
                    and owner.dtype.isnative
                    and all(s >= 0 and s % itemsize == 0 for s in arr.strides)):
                start = 0 if owner is arr else (arr.__array_interface__["data"][0]
                                                 - owner.__array_interface__["data"][0])
                if start % itemsize == 0 and 0 <= start:
                    ref = self._by_owner.get(id(owner))
                    if ref is None:
                        # a Fortran-ordered owner is one block too: its transpose
                        # flattens without a copy, in address order
                        block = owner if owner.flags.c_contiguous else owner.T
                        flat = block.reshape(-1)
                        if flat.dtype != arr.dtype:
                            flat = flat.view(arr.dtype)
                        flat = flat.astype(_NP.get(name, arr.dtype), copy=False)
                        ref = _StorageRef(str(len(self.storages)), flat, name, location)
                        self._by_owner[id(owner)] = (ref, owner)  # keep owner alive
                        self.storages.append(ref)
                    else:
                        ref = ref[0]
                    return ref, start // itemsize, tuple(s // itemsize for s in arr.strides)
            host = np.ascontiguousarray(arr).reshape(arr.shape)  # (it makes 0-d arrays 1-d)
        else:  # a CuPy array: copy to the host, one storage per tensor
            location = str(t.device)
            host = np.ascontiguousarray(arr.get()).reshape(arr.shape)
        ref = _StorageRef(str(len(self.storages)),
                          host.reshape(-1).astype(_NP.get(name, host.dtype), copy=False),
                          name, location)
        self.storages.append(ref)
        strides = tuple(s // itemsize for s in host.strides)
        return ref, 0, strides

    def _reduce(self, obj):
        if type(obj) is _layout.layout:  # torch's reduction, which torch's weights_only allows
            return (_Global("torch.serialization", "_get_layout"), (repr(obj),))
        if type(obj) is _SparseTensor:  # torch's (layout, (indices, values, size, coalesced))
            s = obj._array
            layout = _PendingReduce(_Global("torch.serialization", "_get_layout"),
                                    ("torch.sparse_coo",))
            parts = (_make(s.indices), s.values.detach(), Size(s.shape), s.coalesced)
            return (_Global("torch._utils", "_rebuild_sparse_tensor"), (layout, parts))
        if isinstance(obj, Tensor) and type(obj._array).__name__ == "SparseCompressed":
            # CSR/CSC/BSR/BSC: torch's (layout, (compressed, plain, values, size))
            s = obj._array
            layout = _PendingReduce(_Global("torch.serialization", "_get_layout"),
                                    (repr(s.layout),))
            parts = (_make(s.compressed), _make(s.plain), s.values.detach(), Size(s.shape))
            return (_Global("torch._utils", "_rebuild_sparse_tensor"), (layout, parts))
        if isinstance(obj, Tensor) and type(obj._array) is not np.ndarray and obj.is_quantized:
            return self._reduce_quantized(obj)
        if isinstance(obj, Tensor) and obj.is_nested:
            return _reduce_nested(obj)
        if isinstance(obj, Tensor) and _is_lazy(obj):  # as torch: the class, requires_grad
            return (_Global("torch.nn.parameter", type(obj).__name__), (obj.requires_grad,))
        if isinstance(obj, Tensor):
            is_param = isinstance(obj, _parameter_class())
            if not is_param:
                _warn_if_has_hooks(obj)
            if is_meta(obj._array):  # no storage: torch's dtype, size, stride call
                rebuild = _Global("torch._utils", "_rebuild_meta_tensor_no_storage")
                args = (_Global("torch", obj.dtype.name), tuple(obj.shape), tuple(obj.stride()),
                        False if is_param else bool(obj.requires_grad))
            else:
                rebuild, args = self._tensor_args(obj, is_param)
            state = obj.__dict__  # Python attributes set on the tensor
            if not is_param:
                # a subclass of the user's or of numtorchvision's (tv_tensors) is written
                # under its class, as torch writes it, so that loading gives it back
                sub = _foreign_subclass(type(obj))
                if not state and sub is None:
                    return (rebuild, args)
                return (_Global("torch._tensor", "_rebuild_from_type_v2"),
                        (rebuild, sub or _Global("torch", "Tensor"), args, dict(state)))
            inner = _PendingReduce(rebuild, args)
            if not state:
                return (_REBUILD_PARAMETER,
                        (inner, bool(obj.requires_grad), collections.OrderedDict()))
            return (_Global("torch._utils", "_rebuild_parameter_with_state"),
                    (inner, bool(obj.requires_grad), collections.OrderedDict(), dict(state)))
        if type(obj) is _PendingReduce:
            return (obj.func, obj.args)
        if type(obj) is _device_cls:
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_Global("torch", "device"), args)
        if type(obj) is Size:
            return (_Global("torch", "Size"), (tuple(obj),))
        if hasattr(obj, "__dict__") and not isinstance(obj, type):
            rv = _compat_state.with_torch_state(obj, self._protocol)
            if rv is not None:
                return rv
        return NotImplemented


    def _tensor_args(self, obj, is_param):
        """The rebuild function and its arguments for a tensor with a storage."""
        if _conj_view(obj):
            return self._conj_args(obj, is_param)
        ref, offset, stride = self._storage_for(obj)
        if obj._array.size == 0:  # NumPy's strides of empty arrays are arbitrary
            stride = tuple(obj.stride())
        args = (ref, offset, tuple(obj.shape), stride,
                False if is_param else bool(obj.requires_grad), collections.OrderedDict())
        if obj.dtype.name not in _STORAGE_NAME:  # an untyped storage: the dtype goes along
            return (_Global("torch._utils", "_rebuild_tensor_v3"),
                    args + (_Global("torch", obj.dtype.name),))
        return _REBUILD_TENSOR, args

    def _conj_args(self, obj, is_param):
        """A ``conj()`` result as torch writes one: the unconjugated values (a storage of
        their own here, numtorch's conj being a copy) under a ``{'conj': True}`` flag, so the
        loaded tensor reports ``is_conj()`` as torch's does."""
        host = np.asarray(np.conj(obj._array))  # (dense, in the view's own dim order)
        if host.flags.c_contiguous:
            flat = host.reshape(-1)
        elif host.flags.f_contiguous:
            flat = host.T.reshape(-1)
        else:
            host = host.copy(order="C")
            flat = host.reshape(-1)
        name = obj.dtype.name
        ref = _StorageRef(str(len(self.storages)), flat, name, "cpu")
        self.storages.append(ref)
        stride = tuple(s // host.itemsize for s in host.strides)
        return _REBUILD_TENSOR, (ref, 0, tuple(obj.shape), stride,
                                 False if is_param else bool(obj.requires_grad),
                                 collections.OrderedDict(), {"conj": True})

    def _reduce_quantized(self, t):
        """``torch._utils._rebuild_qtensor`` over a quantized storage, shared by views."""
        from .._quantized_serial import qtensor_reduce

        return qtensor_reduce(self, t, _StorageRef, _Global("torch._utils", "_rebuild_qtensor"))


def _reduce_nested(nt):
    """A nested tensor as torch writes one. The strided layout: ``_rebuild_nested_tensor``
    over the flat buffer and int64 tables of the components' sizes, strides and starts. The
    jagged layout: ``_rebuild_njt`` with the constructor's keywords (values, offsets, ragged
    dim) under torch's NestedTensor class."""
    from ._rebuild import nested_parts

    kind, parts = nested_parts(nt)
    if kind == "jagged":
        return (_Global("torch._tensor", "_rebuild_from_type_v2"),
                (_Global("torch.nested._internal.nested_tensor", "_rebuild_njt"),
                 _Global("torch.nested._internal.nested_tensor", "NestedTensor"),
                 (parts,), {}))
    return (_Global("torch._utils", "_rebuild_nested_tensor"), parts)


class _PendingReduce:
    """A nested ``func(*args)`` call inside a reduce tuple (a Parameter's inner tensor)."""

    __slots__ = ("func", "args")

    def __init__(self, func, args):
        self.func, self.args = func, args


class _Pickler(_TorchReductions, pickle._Pickler):
    """The pure-Python pickler: writes torch's GLOBAL opcodes itself."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        pickle._Pickler.__init__(self, file, protocol)
        self._start()
        self._protocol = self.proto

    def _save_marker(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = _save_marker
    reducer_override = _TorchReductions._reduce

    def save_global(self, obj, name=None):
        """Classes and functions of numtorch go out under torch's names (see ``_names``)."""
        qualname = name or getattr(obj, "__qualname__", None) or obj.__name__
        module = pickle.whichmodule(obj, qualname)
        tmodule, tqualname = _names.torch_name(obj, module, qualname)
        if (tmodule, tqualname) == (module, qualname) or (
                self.proto < 4 and "." in qualname):
            return pickle._Pickler.save_global(self, obj, name)
        if pickle._getattribute(importlib.import_module(module), qualname)[0] is not obj:
            raise pickle.PicklingError(f"Can't pickle {obj!r}: it's not the same object as "
                                       f"{module}.{qualname}")
        if self.proto >= 4:
            self.save(tmodule)
            self.save(tqualname)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{tmodule}\n{tqualname}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[types.FunctionType] = save_global


# dtype objects are pickled as the GLOBAL ``torch float32``, as torch does
_Pickler.dispatch[_dtype.dtype] = lambda self, obj: self.save(_Global("torch", obj.name))
_DTYPE_MODULE = _dtype.dtype.__module__
# layouts, memory formats and qschemes are module constants of torch too: torch's names
# (layouts go through torch's ``_get_layout`` reduction in ``_reduce``)
_NAMED_CONSTANTS = (_layout.memory_format, _quantized_scheme.qscheme)
for _kind in _NAMED_CONSTANTS:
    _Pickler.dispatch[_kind] = lambda self, obj: self.save(_Global("torch", obj._name))


_FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType)


class _NeedsPurePython(Exception):
    """Raised inside the C pickler when only the pure-Python one can pickle the object."""


class _FastPickler(_TorchReductions, pickle.Pickler):
    """The C pickler, several times faster per tensor; its GLOBALs for torch names are
    aliases (importable globals of numtorch) recorded in ``aliases`` for :func:`_pickle` to
    swap."""

    def __init__(self, file, protocol):
        pickle.Pickler.__init__(self, file, protocol)
        self._start()
        self._protocol = protocol
        self.aliases = {}

    def reducer_override(self, obj):
        kind = type(obj)
        if kind is _Global:
            self.aliases[obj.alias] = obj.opcode
            return obj.attr  # pickled as the global ``<this module>.<attr>``
        if kind in _NAMED_CONSTANTS:  # torch.per_tensor_affine, torch.strided, ...: GLOBAL
            self.aliases[f"cnumtorch\n{obj._name}\n".encode()] = \
                f"ctorch\n{obj._name}\n".encode()
            return obj._name
        if kind is _dtype.dtype:  # pickled as the global ``numtorch._dtype.float32``
            if getattr(_dtype, obj.name, None) is not obj:
                raise _NeedsPurePython
            self.aliases[f"c{_DTYPE_MODULE}\n{obj.name}\n".encode()] = \
                f"ctorch\n{obj.name}\n".encode()
            return obj.name
        if isinstance(obj, type) or kind in _FUNCTION_TYPES:
            self._alias_global(obj)
            return NotImplemented
        return self._reduce(obj)

    def _alias_global(self, obj):
        """Record torch's name for a numtorch class or function the C pickler writes as a
        ``GLOBAL`` under numtorch's name (swapped by :func:`_pickle`)."""
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "." in qualname:
            return
        tmodule, tqualname = _names.torch_name(obj, module, qualname)
        if (tmodule, tqualname) != (module, qualname):
            self.aliases[f"c{module}\n{qualname}\n".encode()] = \
                f"c{tmodule}\n{tqualname}\n".encode()


def _pickle(obj, protocol, legacy=False):
    """``obj`` pickled as torch's ``data.pkl`` (or the legacy format's object pickle) and the
    storages it refers to."""
    # protocols 2-3 only: there GLOBAL opcodes hold their names inline, and no frames
    if isinstance(protocol, int) and 2 <= protocol <= 3:
        buf = io.BytesIO()
        pickler = _FastPickler(buf, protocol)
        pickler.legacy = legacy
        try:
            pickler.dump(obj)
        except _NeedsPurePython:
            pickler.aliases = None
        data = buf.getvalue()
        # each alias is memoized, so it appears exactly once; more means the same bytes
        # occur inside some string of the user's, and the pure-Python pickler is used
        if pickler.aliases is not None and all(data.count(alias) == 1
                                               for alias in pickler.aliases):
            for alias, opcode in pickler.aliases.items():
                data = data.replace(alias, opcode)
            return data, pickler.storages
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol)
    pickler.legacy = legacy
    pickler.dump(obj)
    return buf.getvalue(), pickler.storages


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return stem or "archive"
    return "archive"


_ZIP64_LIMIT = (1 << 31) - 1  # sizes/offsets above this use zip64 fields (zipfile's limit)
_COUNT_LIMIT = 0xFFFF  # more records than this need the zip64 end record
_ZIP64_VERSION = 45
_VERSION = 20
_UTF8_AND_DESCRIPTOR = 0x0808  # general-purpose flags torch sets: UTF-8 names, data descriptor
_EXTERNAL_ATTR = 0o600 << 16
_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01, the zip epoch (reproducible files)
_THREAD_CRC_BYTES = 1 << 20  # storages at least this large get their CRC-32 on the helper


class _ZipStream:
    """A zip writer streaming each record once, straight from its buffer.

    Each record is a local header, the bytes (starting on an ``_ALIGN`` boundary, padded with
    torch's ``FB`` extra field) and a data descriptor carrying the CRC-32 and sizes, as torch
    writes them. The descriptor is what lets a record's bytes go out before their CRC is
    known: the CRC-32 of a large storage is computed on a helper thread while the main thread
    writes the same bytes (``zlib.crc32`` and file writes both release the GIL), so the save
    costs about one pass over the data instead of two. Nothing is seeked back over, so any
    writable file object works.
    """

    def __init__(self, fileobj, align=_ALIGN):
        self.fp = fileobj
        self.align = align
        # offsets (and the alignment of the records' bytes) count from the archive's start,
        # as torch's writer counts them, not from the file's: torch reads a checkpoint saved
        # after other bytes of an open file only so
        self.pos = 0
        self.entries = []

    def _write(self, data):
        if isinstance(data, Blank):
            data.write_to(self._write)
            return
        try:
            # torch's writer hands file objects memoryviews (a text file's TypeError names one)
            self.fp.write(memoryview(data) if isinstance(data, bytes) else data)
        except io.UnsupportedOperation:  # a file opened for reading: as torch, unwrapped
            raise
        except OSError as e:  # a full disk or a failing file object: torch's class
            raise RuntimeError(f"PytorchStreamWriter failed writing file: {e}") from e
        self.pos += len(data) if isinstance(data, bytes) else data.nbytes

    def add(self, name, data, crc):
        """Write one record; ``crc`` is its CRC-32 or a callable returning it (waited on
        only once the bytes are written)."""
        raw_name = name.encode("utf-8")
        size = len(data) if isinstance(data, bytes) else data.nbytes
        zip64 = size > _ZIP64_LIMIT
        # zip64 records carry 8-byte sizes (known only in the descriptor, so zeros here)
        extra = struct.pack("<HHQQ", 1, 16, 0, 0) if zip64 else b""
        head = self.pos + 30 + len(raw_name) + len(extra) + 4
        pad = -head % self.align
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        offset = self.pos
        version = _ZIP64_VERSION if zip64 else _VERSION
        unknown = 0xFFFFFFFF if zip64 else 0
        self._write(struct.pack("<4s2H3H3L2H", b"PK\x03\x04", version,
                                _UTF8_AND_DESCRIPTOR, zipfile.ZIP_STORED, 0, _DOS_DATE, 0,
                                unknown, unknown, len(raw_name), len(extra)) + raw_name + extra)
        self._write(data)
        crc = crc() if callable(crc) else crc
        self._write(struct.pack("<4sLQQ" if zip64 else "<4sLLL", b"PK\x07\x08", crc, size,
                                size))
        self.entries.append((raw_name, crc, size, offset, extra))

    def finish(self):
        """Write the central directory and the end records (zip64 ones when needed)."""
        start = self.pos
        parts = []
        for raw_name, crc, size, offset, extra in self.entries:
            z64 = []
            if size > _ZIP64_LIMIT:
                z64 += [size, size]
            if offset > _ZIP64_LIMIT:
                z64.append(offset)
            # the directory's entries carry no padding field (only a zip64 one when needed),
            # as torch's: so two archives of one layout have directories of one size
            extra = struct.pack("<HH" + "Q" * len(z64), 1, 8 * len(z64), *z64) if z64 else b""
            version = _ZIP64_VERSION if z64 else _VERSION
            small = 0xFFFFFFFF if size > _ZIP64_LIMIT else size
            parts.append(struct.pack(
                "<4s4B4HL2L5H2L", b"PK\x01\x02", version, 3, version, 0,
                _UTF8_AND_DESCRIPTOR, zipfile.ZIP_STORED, 0, _DOS_DATE, crc, small, small,
                len(raw_name), len(extra), 0, 0, 0, _EXTERNAL_ATTR,
                0xFFFFFFFF if offset > _ZIP64_LIMIT else offset))
            parts += [raw_name, extra]
        self._write(b"".join(parts))
        count, cd_size = len(self.entries), self.pos - start
        if count > _COUNT_LIMIT or start > _ZIP64_LIMIT or cd_size > _ZIP64_LIMIT:
            end64 = self.pos
            self._write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, _ZIP64_VERSION,
                                    _ZIP64_VERSION, 0, 0, count, count, cd_size, start))
            self._write(struct.pack("<4sLQL", b"PK\x06\x07", 0, end64, 1))
            count, cd_size, start = (min(count, 0xFFFF), min(cd_size, 0xFFFFFFFF),
                                     min(start, 0xFFFFFFFF))
        self._write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, cd_size,
                                start, 0))


def _fsync_requested():
    """Whether ``NUMTORCH_SAVE_FSYNC`` asks saves to reach the disk before returning."""
    return os.environ.get("NUMTORCH_SAVE_FSYNC", "0").strip().lower() not in (
        "", "0", "false", "no", "off")


def _temp_name(base):
    return f".tmp-{base}-{os.urandom(6).hex()}"


def _open_temp(path):
    """Create a new temporary file next to ``path``: ``(fd, name)``.

    Created like ``open(path, "w")`` would create ``path`` (mode 0o666 less the umask), not
    private as ``tempfile.mkstemp`` makes it, since it becomes the checkpoint; when ``path``
    exists already its permission bits carry over, as overwriting it in place keeps them.
    Where the system allows (Linux ``O_TMPFILE``) the file has no name (``name`` is None)
    until :func:`_name_temp` gives it one, so a process killed part-way leaves nothing behind.
    """
    directory, base = os.path.split(os.path.abspath(path))
    if hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o666), None
        except OSError:  # a file system without O_TMPFILE: a named temporary file instead
            pass
    while True:
        tmp = os.path.join(directory, _temp_name(base))
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def _name_temp(fd, path):
    """Give the nameless file ``fd`` a temporary name next to ``path`` (returned)."""
    directory, base = os.path.split(os.path.abspath(path))
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        while True:
            name = _temp_name(base)
            try:
                # with a dir_fd, os.link is linkat(AT_SYMLINK_FOLLOW): through /proc that
                # names the open file itself (plain link() would link the /proc symlink)
                os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dir_fd)
                return os.path.join(directory, name)
            except FileExistsError:
                continue
    finally:
        os.close(dir_fd)


def _hold_old_file(path):
    """A descriptor keeping the file about to be replaced alive, or None.

    Releasing a large file's blocks (and on ext4 waiting for writeback that replacing it
    started) takes about as long as writing it; holding it open across the rename and
    closing it on a helper thread moves that work off the caller's path. POSIX only: on
    Windows an open file cannot be renamed over.
    """
    if os.name != "posix":
        return None
    try:  # non-blocking, so that a FIFO at ``path`` cannot hang the save
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _open_failed(code, cause=None):
    """torch's error for a destination it cannot open for writing."""
    why = os.strerror(code) if code else str(cause)
    return RuntimeError(f"[enforce fail at inline_container.cc:747] . open file failed with "
                        f"strerror: {why}")


@contextlib.contextmanager
def atomic_checkpoint(path, durable=None):
    """Open a temporary file next to ``path`` and rename it over ``path`` on success.

    On any error (or ``KeyboardInterrupt``) the temporary file is removed and ``path`` is
    untouched, and since the rename is atomic a crashed or killed process leaves either the
    old file or the complete new one, never a mix (on Linux the temporary file has no name
    until it is complete, so a killed save leaves no stray file either). With ``durable`` (default: the
    ``NUMTORCH_SAVE_FSYNC`` environment variable) the data is also flushed to the disk
    (``fdatasync``) before the rename and the directory entry after it, so a power cut
    cannot lose the new file either; that is off by default because it costs as much as
    writing the file again (about 50 ms per 100 MB) and ``torch.save`` does not do it. A
    replaced file is released on a helper thread (see :func:`_hold_old_file`).

    Where a rename would do what torch's ``open(path, "wb")`` cannot, it is not done: a
    read-only destination is refused (torch's RuntimeError) and a FIFO or device is written
    in place. A hard-linked destination is replaced, so its other names keep the old bytes
    (torch's in-place write changes them too). Write errors (a full disk) are RuntimeErrors,
    as in torch.

    Args:
        path (str or os.PathLike): the destination.
        durable (bool, optional): force the disk flushes on or off.

    Yields:
        A binary file object to write to.
    """
    path = os.fspath(path)
    if isinstance(path, str) and path.endswith("/"):  # no file name: torch's refusal, first
        raise RuntimeError(f"[enforce fail at inline_container.cc:720] . invalid file name: "
                           f"{path}")
    if os.path.islink(path):  # write where the link points, as opening it would
        path = os.path.realpath(path)
    if durable is None:
        durable = _fsync_requested()
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):  # torch's check and words (not the temporary file's)
        raise RuntimeError(f"Parent directory {os.path.dirname(path)} does not exist.")
    if os.path.isdir(path):
        raise _open_failed(errno.EISDIR)
    if os.path.exists(path) and not os.path.isfile(path):
        # a FIFO or a device (/dev/null): renaming over it would replace the node itself
        # with a regular file, so it is written in place, as torch does
        with open(path, "wb") as fh:
            yield fh
        return
    if os.path.exists(path) and not os.access(path, os.W_OK):
        # a read-only checkpoint stays as it is: torch cannot open it for writing
        raise _open_failed(errno.EACCES)
    try:
        fd, tmp = _open_temp(path)
    except OSError as e:
        raise _open_failed(e.errno, e) from e
    try:
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):
                with contextlib.suppress(OSError):  # (no file there yet)
                    os.fchmod(fd, stat.S_IMODE(os.stat(path).st_mode))
            yield fh
            try:
                fh.flush()
                if durable:
                    getattr(os, "fdatasync", os.fsync)(fh.fileno())
            except OSError as e:  # the disk filled up: torch's class
                raise RuntimeError(f"PytorchStreamWriter failed writing file: {e}") from e
            if tmp is None:  # complete: now it may have a name (only for the rename below)
                tmp = _name_temp(fd, path)
        old = _hold_old_file(path)
        try:
            os.replace(tmp, path)
        except BaseException:
            if old is not None:
                os.close(old)
            raise
        if old is not None:
            try:
                threading.Thread(target=os.close, args=(old,), daemon=True).start()
            except RuntimeError:  # no new threads (interpreter shutting down)
                os.close(old)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    if durable and hasattr(os, "O_DIRECTORY"):  # the rename itself must reach the disk too
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _no_crc(data):
    return 0


def _storage_alignment():
    """``torch.utils.serialization.config.save.storage_alignment``, checked as a positive
    int (the padding each record gets is computed from it)."""
    align = _options.save.storage_alignment
    if isinstance(align, bool) or not isinstance(align, int) or align <= 0:
        raise ValueError(f"torch.utils.serialization.config.save.storage_alignment must be a "
                         f"positive int, got {align!r:.60}")
    return align


def _write_zip(obj, fileobj, archive, protocol):
    """Pickle ``obj`` and write the whole checkpoint archive to ``fileobj``."""
    data, storages = _pickle(obj, protocol)
    align = _storage_alignment()
    head = [("data.pkl", data), (".format_version", b"1"),
            (".storage_alignment", str(align).encode()), ("byteorder", b"little")]
    tail = [("version", b"3\n"),
            # from the OS, not the global ``random``: a save must leave the program's stream
            (".data/serialization_id",
             str(int.from_bytes(os.urandom(16), "little")).zfill(40).encode())]
    # each storage goes out straight from its array's memory (a byte view, no copy)
    views = [memoryview(ref.flat.reshape(-1).view(np.uint8)) for ref in storages]
    if skipping():  # blank space of each storage's size; CRC 0 means "unchecked" to readers
        views = [Blank(v.nbytes) for v in views]
    checked = _options.save.compute_crc32  # (off: torch writes 0 as every record's CRC)
    crc32 = zlib.crc32 if checked else _no_crc
    big = [v for v in views if checked and v.nbytes >= _THREAD_CRC_BYTES and
           not isinstance(v, Blank)]
    out = _ZipStream(fileobj, align)
    pool = concurrent.futures.ThreadPoolExecutor(1) if big else None
    try:
        # the helper thread walks the large storages in write order, running ahead of the
        # writes; small ones are checksummed inline, where a thread hand-off would cost more
        pending = {id(v): pool.submit(zlib.crc32, v) for v in big} if big else {}
        for name, payload in head:
            out.add(f"{archive}/{name}", payload, crc32(payload))
        for ref, view in zip(storages, views):
            fut = pending.get(id(view))
            crc = 0 if isinstance(view, Blank) else fut.result if fut is not None else \
                crc32(view)
            out.add(f"{archive}/data/{ref.key}", view, crc)
        for name, payload in tail:
            out.add(f"{archive}/{name}", payload, crc32(payload))
        out.finish()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
