"""The checkpoint writer: a pickler emitting torch's rebuild calls, and the zip layout."""

import collections
import io
import os
import pickle
import random
import struct
import zipfile

import numpy as np

from .. import _dtype
from .._device import device as _device_cls
from .._size import Size
from .._tensor import Tensor
from ._common import _ALIGN, _NP, _STORAGE_NAME


class _Global:
    """A placeholder pickled as a ``GLOBAL module name`` opcode (torch need not be imported)."""

    __slots__ = ("module", "name")
    _cache = {}

    def __new__(cls, module, name):
        key = (module, name)
        obj = cls._cache.get(key)
        if obj is None:
            obj = object.__new__(cls)
            obj.module, obj.name = module, name
            cls._cache[key] = obj
        return obj

    def __call__(self, *args):
        # callable only so that pickle accepts it as the function of a reduce tuple
        raise TypeError(f"{self.module}.{self.name} is a pickling placeholder, not callable")


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


class _Pickler(pickle._Pickler):
    """Pickles tensors as torch does: rebuild calls over storages kept out of the pickle."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = []
        self._by_owner = {}

    def _save_marker(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("utf-8"))
        self.memoize(obj)

    dispatch[_Global] = _save_marker

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return ("storage", _Global("torch", _STORAGE_NAME[obj.dtype_name]), obj.key,
                    obj.location, int(obj.flat.size))
        return None

    def _storage_for(self, t):
        """The storage ref, element offset and element strides of tensor ``t``."""
        arr = t._array
        name = t.dtype.name
        itemsize = arr.itemsize
        if type(arr) is np.ndarray:
            location = "cpu"
            owner = _owner(arr)
            if (type(owner) is np.ndarray and owner.dtype == arr.dtype
                    and owner.flags.c_contiguous and owner.dtype.isnative
                    and all(s >= 0 and s % itemsize == 0 for s in arr.strides)):
                start = arr.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
                if start % itemsize == 0 and 0 <= start:
                    ref = self._by_owner.get(id(owner))
                    if ref is None:
                        flat = owner.reshape(-1).astype(_NP[name], copy=False)
                        ref = _StorageRef(str(len(self.storages)), flat, name, location)
                        self._by_owner[id(owner)] = (ref, owner)  # keep owner alive
                        self.storages.append(ref)
                    else:
                        ref = ref[0]
                    return ref, start // itemsize, tuple(s // itemsize for s in arr.strides)
            host = np.ascontiguousarray(arr)
        else:  # a CuPy array: copy to the host, one storage per tensor
            location = str(t.device)
            host = np.ascontiguousarray(arr.get())
        ref = _StorageRef(str(len(self.storages)), host.reshape(-1).astype(_NP[name],
                                                                             copy=False),
                          name, location)
        self.storages.append(ref)
        strides = tuple(s // itemsize for s in host.strides)
        return ref, 0, strides

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            ref, offset, stride = self._storage_for(obj)
            from ..nn.parameter import Parameter

            is_param = isinstance(obj, Parameter)
            args = (ref, offset, tuple(obj.shape), stride,
                    False if is_param else bool(obj.requires_grad), collections.OrderedDict())
            rebuild = _Global("torch._utils", "_rebuild_tensor_v2")
            state = dict(obj.__dict__)  # Python attributes set on the tensor
            if not is_param:
                if not state:
                    return (rebuild, args)
                return (_Global("torch._tensor", "_rebuild_from_type_v2"),
                        (rebuild, _Global("torch", "Tensor"), args, state))
            inner = _PendingReduce(rebuild, args)
            if not state:
                return (_Global("torch._utils", "_rebuild_parameter"),
                        (inner, bool(obj.requires_grad), collections.OrderedDict()))
            return (_Global("torch._utils", "_rebuild_parameter_with_state"),
                    (inner, bool(obj.requires_grad), collections.OrderedDict(), state))
        if type(obj) is _PendingReduce:
            return (obj.func, obj.args)
        if type(obj) is _device_cls:
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_Global("torch", "device"), args)
        if type(obj) is Size:
            return (_Global("torch", "Size"), (tuple(obj),))
        return NotImplemented


class _PendingReduce:
    """A nested ``func(*args)`` call inside a reduce tuple (a Parameter's inner tensor)."""

    __slots__ = ("func", "args")

    def __init__(self, func, args):
        self.func, self.args = func, args


# dtype objects are pickled as the GLOBAL ``torch float32``, as torch does
_Pickler.dispatch[_dtype.dtype] = lambda self, obj: self.save(_Global("torch", obj.name))


def _archive_name(f):
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return stem or "archive"
    return "archive"


def _write_zip(obj, fileobj, archive, protocol):
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol)
    pickler.dump(obj)
    records = [("data.pkl", buf.getvalue()), (".format_version", b"1"),
               (".storage_alignment", str(_ALIGN).encode()), ("byteorder", b"little")]
    records += [(f"data/{ref.key}", ref.flat) for ref in pickler.storages]
    records += [("version", b"3\n"),
                (".data/serialization_id", str(random.getrandbits(128)).zfill(40).encode())]
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, payload in records:
            full = f"{archive}/{name}"
            data = payload.reshape(-1).view(np.uint8).data if isinstance(
                payload, np.ndarray) else payload
            info = zipfile.ZipInfo(full, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            # pad the local header so each record's bytes start on a 64-byte boundary
            # (torch's layout, which lets readers memory-map storages)
            zip64 = 20 if len(data) > zipfile.ZIP64_LIMIT else 0
            head = zf.start_dir + 30 + len(full.encode("utf-8")) + 4 + zip64
            pad = -head % _ALIGN
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            zf.writestr(info, data)
