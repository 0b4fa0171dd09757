"""The ``.metadata`` file: pickled under torch's names, read back with an allow-list.

torch pickles the metadata objects with the default protocol; the globals in that pickle
are the metadata classes, dtypes, ``torch.Size``, layouts (``torch.serialization._get_layout``),
the memory-format code and ``pathlib`` paths. The writer emits exactly those names for
numtorch's objects; the reader maps them back and refuses any other global, so opening a
checkpoint cannot run code.
"""

import io
import pathlib
import pickle

from ... import _dtype, _layout
from ..._size import Size
from . import filesystem as _fs
from . import metadata as _md

_MD = "torch.distributed.checkpoint.metadata"
_FS = "torch.distributed.checkpoint.filesystem"
_CLASSES = {
    (_MD, "Metadata"): _md.Metadata,
    (_MD, "TensorStorageMetadata"): _md.TensorStorageMetadata,
    (_MD, "BytesStorageMetadata"): _md.BytesStorageMetadata,
    (_MD, "ChunkStorageMetadata"): _md.ChunkStorageMetadata,
    (_MD, "TensorProperties"): _md.TensorProperties,
    (_MD, "MetadataIndex"): _md.MetadataIndex,
    (_MD, "StorageMeta"): _md.StorageMeta,
    (_MD, "_MEM_FORMAT_ENCODING"): _md._MEM_FORMAT_ENCODING,
    (_FS, "_StorageInfo"): _fs._StorageInfo,
}
_TORCH_NAME = {cls: key for key, cls in _CLASSES.items()}
_PATHS = {name: getattr(pathlib, name) for name in
          ("Path", "PosixPath", "WindowsPath", "PurePath", "PurePosixPath", "PureWindowsPath")}


def class_name(cls):
    """``module.name`` of a metadata class as torch names it (messages quote it)."""
    key = _TORCH_NAME.get(cls)
    return ".".join(key) if key else f"{cls.__module__}.{cls.__qualname__}"


def _get_layout(name):
    """torch's layout constant for its printed name (``"torch.strided"``)."""
    found = _layout_by_name().get(name)
    if found is None:
        raise pickle.UnpicklingError(f"unknown layout {name!r} in checkpoint metadata")
    return found


def _layout_by_name():
    import numtorch

    return {f"torch.{n}": v for n, v in vars(numtorch).items()
            if isinstance(v, _layout.layout)}


class _Name:
    """A global written as ``module name`` without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # (only so that pickle accepts it as a reduce function)
        raise TypeError("a pickling placeholder")


class _Pickler(pickle._Pickler):
    """The pure-Python pickler with torch's names for the objects above."""

    dispatch = pickle._Pickler.dispatch.copy()

    def _write_global(self, module, name):
        self.save(module)
        self.save(name)
        self.write(pickle.STACK_GLOBAL)

    def _save_name(self, obj):
        self._write_global(obj.module, obj.name)
        self.memoize(obj)

    def _save_dtype(self, obj):
        self._write_global("torch", obj.name)
        self.memoize(obj)

    dispatch[_Name] = _save_name
    dispatch[_dtype.dtype] = _save_dtype

    def save_global(self, obj, name=None):
        key = _TORCH_NAME.get(obj)
        if key is None:
            return super().save_global(obj, name)
        self._write_global(*key)
        self.memoize(obj)

    dispatch[type] = save_global

    def reducer_override(self, obj):
        kind = type(obj)
        if kind is Size:
            return (_Name("torch", "Size"), (tuple(obj),))
        if kind is _layout.layout:
            return (_Name("torch.serialization", "_get_layout"), (f"torch.{obj._name}",))
        return NotImplemented


def dumps(metadata):
    buf = io.BytesIO()
    _Pickler(buf, 4).dump(metadata)
    return buf.getvalue()


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        found = _CLASSES.get((module, name))
        if found is not None:
            return found
        if module == "torch":
            value = getattr(_dtype, name, None)
            if isinstance(value, _dtype.dtype):
                return value
            if name == "Size":
                return Size
        if (module, name) == ("torch.serialization", "_get_layout"):
            return _get_layout
        if module == "pathlib" and name in _PATHS:
            return _PATHS[name]
        if (module, name) == ("collections", "OrderedDict"):
            import collections

            return collections.OrderedDict
        raise pickle.UnpicklingError(
            f"checkpoint metadata names the global {module}.{name}, which is not one of "
            f"the classes a torch.distributed.checkpoint .metadata file uses; refusing to "
            f"load it")


def loads(data):
    return _Unpickler(io.BytesIO(data)).load()
