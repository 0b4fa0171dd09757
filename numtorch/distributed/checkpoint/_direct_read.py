"""Reading a saved chunk straight into its destination tensor.

A tensor item in a ``.distcp`` file is a ``torch.save`` archive of one compact tensor. When
it fills a whole contiguous CPU destination of the same dtype, the bytes are read from the
file into the destination's memory: no archive copy, no new storage. Anything else (another
dtype, a region, an unexpected pickle) returns False and the caller loads the archive.
"""

import io
import pickle
import struct
import sys
import zipfile

from ..._serialization._common import _STORAGE_DTYPE

_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature ... name length, extra length


class _Storage:
    __slots__ = ("dtype_name",)

    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


class _Chunk:
    __slots__ = ("dtype_name", "key", "numel", "offset", "size", "stride")


def _rebuild(storage, offset, size, stride, requires_grad, hooks):
    chunk = _Chunk()
    chunk.dtype_name, chunk.key, chunk.numel = storage
    chunk.offset, chunk.size, chunk.stride = offset, tuple(size), tuple(stride)
    return chunk


class _Describe(pickle.Unpickler):
    """Reads a one-tensor ``data.pkl`` as a description; refuses every other pickle."""

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild
        if (module, name) == ("collections", "OrderedDict"):
            return dict
        if module == "torch" and name in _STORAGE_DTYPE:
            return _Storage(_STORAGE_DTYPE[name])
        raise pickle.UnpicklingError(name)

    def persistent_load(self, pid):
        kind, storage, key, location, numel = pid
        if kind != "storage" or not isinstance(storage, _Storage) or location != "cpu":
            raise pickle.UnpicklingError("storage")
        return (storage.dtype_name, key, numel)


def _contiguous_strides(size):
    out, acc = [], 1
    for n in reversed(size):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


def read_into(f, start, length, window, target):
    """Fill ``target`` from the archive at ``start`` in ``f`` if it is a direct fit."""
    if (target.device.type != "cpu" or not target.is_contiguous() or target.numel() == 0
            or sys.byteorder != "little"):
        return False
    try:
        with zipfile.ZipFile(window(f, start, length)) as zf:
            infos = {i.filename.split("/", 1)[-1]: i for i in zf.infolist()}
            if "byteorder" in infos and zf.read(infos["byteorder"]) != b"little":
                return False
            chunk = _Describe(io.BytesIO(zf.read(infos["data.pkl"]))).load()
            if not isinstance(chunk, _Chunk):
                return False
            record = infos.get(f"data/{chunk.key}")
    except (pickle.UnpicklingError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
        return False
    if (record is None or record.compress_type != zipfile.ZIP_STORED
            or chunk.dtype_name != target.dtype.name or chunk.offset != 0
            or chunk.size != tuple(target.shape) or chunk.numel != target.numel()
            or chunk.stride != _contiguous_strides(chunk.size)
            or record.file_size != target.numel() * target.element_size()):
        return False
    f.seek(start + record.header_offset)
    signature, name_len, extra_len = _LOCAL_HEADER.unpack(f.read(_LOCAL_HEADER.size))
    if signature != b"PK\x03\x04":
        return False
    f.seek(start + record.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
    try:
        array = target.numpy()
    except (TypeError, RuntimeError):  # a dtype NumPy cannot show
        return False
    if not array.flags.c_contiguous or not array.flags.writeable:
        return False
    view = memoryview(array.reshape(-1).view("u1"))  # (bytes: bfloat16 has no buffer format)
    return f.readinto(view) == len(view)
