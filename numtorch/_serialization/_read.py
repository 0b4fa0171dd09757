"""The checkpoint readers (zip and legacy formats) and the weights-only unpickler."""

import _compat_pickle
import collections
import importlib
import io
import os
import pickle
import struct
import zipfile

import numpy as np

from .. import _dtype
from .. import backend
from .._device import as_device
from .._device import device as _device_cls
from .._size import Size
from .._tensor import Tensor, _new_like_class
from ._common import (_BF16, _BF16_BITS, _LEGACY_PROTOCOL, _MAGIC, _NP, _STORAGE_DTYPE,
                      _bf16_from_bits, _native_np)


_SAFE_GLOBALS = []


def _qualname(entry):
    if isinstance(entry, tuple):
        return entry[1], entry[0]
    return f"{entry.__module__}.{entry.__qualname__}", entry


def add_safe_globals(safe_globals):
    """Allow these classes/functions in ``load(..., weights_only=True)``.

    Args:
        safe_globals (list): objects, or ``(object, "module.name")`` pairs naming the global
            as it appears in the pickle.
    """
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals():
    """The user-added globals allowed in weights-only loading (a list)."""
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    """Forget every global added with :func:`add_safe_globals`."""
    _SAFE_GLOBALS.clear()


class safe_globals:  # noqa: N801 - torch's name
    """Context manager allowing extra globals in weights-only loading inside a ``with``.

    Args:
        safe_globals (list): as for :func:`add_safe_globals`.
    """

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)
        self._saved = None

    def __enter__(self):
        self._saved = list(_SAFE_GLOBALS)
        _SAFE_GLOBALS.extend(self.safe_globals)
        return self

    def __exit__(self, *exc):
        _SAFE_GLOBALS[:] = self._saved
        return False


class _LoadedStorage:
    """A storage handed to a callable ``map_location``: a flat array and its dtype.

    ``map_location(storage, location)`` may return it as is, or ``storage.cpu()``,
    ``storage.cuda()`` / ``storage.to(device)`` to choose where its tensors go.
    """

    def __init__(self, array, dtype, dev):
        self._array, self.dtype, self.device = array, dtype, dev

    def __len__(self):
        return int(self._array.size)

    def size(self):
        """The number of elements."""
        return int(self._array.size)

    def to(self, dev):
        """This storage placed on ``dev``."""
        return _LoadedStorage(self._array, self.dtype, as_device(dev))

    def cpu(self):
        """This storage on the CPU."""
        return self.to("cpu")

    def cuda(self, device=None):
        """This storage on a CUDA device (``cuda:device``, default the current one)."""
        return self.to("cuda" if device is None else f"cuda:{int(device)}")


def _check_device(dev, location):
    if dev.type == "cuda":
        from .. import cuda

        if not cuda.is_available():
            raise RuntimeError(f"Attempting to deserialize object on a CUDA device "
                               f"({location}) but numtorch.cuda.is_available() is False. "
                               f"Pass map_location=torch.device('cpu') to load on the CPU.")
    return dev


def _place(array, dtype_name, location, map_location):
    """The device for a storage saved at ``location`` under ``map_location``."""
    if map_location is None:
        target = location
    elif isinstance(map_location, (str, _device_cls)):
        target = map_location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif callable(map_location):
        st = _LoadedStorage(array, _dtype._FROM_NP.get(array.dtype, _dtype.float32),
                            as_device(location))
        res = map_location(st, location)
        target = location if res is None else (
            res.device if isinstance(res, _LoadedStorage) else res)
    else:
        raise TypeError(f"load: map_location should be a string, device, dict or callable, "
                        f"got {type(map_location).__name__}")
    return _check_device(as_device(target), location)


def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None,
                       metadata=None):
    array, dev = storage
    dt = array.dtype
    shape = tuple(int(s) for s in size)
    if any(s == 0 for s in shape):
        arr = np.empty(shape, dtype=dt)
    else:
        last = offset + sum((n - 1) * s for n, s in zip(shape, stride))
        if offset < 0 or last >= array.size or any(s < 0 for s in stride):
            raise RuntimeError(f"load: tensor of size {list(shape)}, stride {list(stride)} "
                               f"and offset {offset} lies outside its storage of "
                               f"{array.size} elements (corrupt checkpoint)")
        arr = np.ndarray(shape, dtype=dt, buffer=array, offset=offset * dt.itemsize,
                         strides=tuple(int(s) * dt.itemsize for s in stride))
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    t = _new_like_class(Tensor, arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, offset, size, stride):
    return _rebuild_tensor_v2(storage, offset, size, stride)


def _rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype,
                       metadata=None):
    return _rebuild_tensor_v2(storage, offset, size, stride, requires_grad)


def _rebuild_parameter(data, requires_grad, hooks=None):
    from ..nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, hooks, state):
    p = _rebuild_parameter(data, requires_grad)
    for k, v in (state or {}).items():
        setattr(p, k, v)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    t = func(*args)
    if new_type is not Tensor and isinstance(new_type, type) and issubclass(new_type, Tensor):
        sub = _new_like_class(new_type, t._array)
        sub._requires_grad = t._requires_grad
        t = sub
    for k, v in (state or {}).items():
        setattr(t, k, v)
    return t


def _storage_class(name):
    def _unused(*args):
        raise RuntimeError(f"load: constructing torch.{name} directly is not supported")

    _unused.storage_name = name
    return _unused


_STORAGE_CLASSES = {name: _storage_class(name) for name in _STORAGE_DTYPE}

_TORCH_FUNCS = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
    ("torch", "Size"): Size,
    ("torch", "device"): _device_cls,
    ("torch", "Tensor"): Tensor,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "bytearray"): bytearray,
    ("builtins", "slice"): slice,
    ("_codecs", "encode"): lambda s, enc="utf-8": s.encode(enc),  # protocol-2 bytes
}


def _torch_name(module, name):
    """numtorch's object for a ``torch.*`` (or basic builtin) global, or None."""
    if (module, name) in _TORCH_FUNCS:
        return _TORCH_FUNCS[(module, name)]
    if module in ("torch", "torch.storage") and name in _STORAGE_CLASSES:
        return _STORAGE_CLASSES[name]
    if module == "torch" and name in _dtype._BY_NAME:
        return _dtype._BY_NAME[name]
    if module == "torch.nn.parameter" and name == "Parameter":
        from ..nn.parameter import Parameter

        return Parameter
    return None


def _numtorch_counterpart(module, name):
    """numtorch's object for the ``torch.*`` global ``module.name`` (full unpickling).

    numtorch mirrors torch's module paths (``torch.nn.modules.linear`` ->
    ``numtorch.nn.modules.linear``); a name found nowhere is an error rather than a reason to
    import real torch.
    """
    mirror = "numtorch" + module[len("torch"):]
    candidates = [mirror, "numtorch.nn"] if module.startswith("torch.nn") else [mirror]
    for path in candidates:
        try:
            obj = importlib.import_module(path)
            for part in name.split("."):
                obj = getattr(obj, part)
            return obj
        except (ImportError, AttributeError):
            continue
    raise pickle.UnpicklingError(f"load: the checkpoint refers to {module}.{name}, which has "
                                 f"no numtorch counterpart")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, weights_only, load_storage):
        super().__init__(file, encoding="utf-8")
        self._weights_only = weights_only
        self._load_storage = load_storage

    def find_class(self, module, name):
        # protocol-2 pickles name Python 2 modules (``__builtin__ set``); map them first
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        obj = _torch_name(module, name)
        if obj is not None:
            return obj
        if self._weights_only:
            wanted = f"{module}.{name}"
            for entry in _SAFE_GLOBALS:
                qual, target = _qualname(entry)
                if qual == wanted:
                    return target
            raise pickle.UnpicklingError(
                f"Weights only load failed: the checkpoint refers to the global {wanted}, "
                f"which is not allowed by default (weights_only=True loads only tensors, "
                f"containers and primitive types). If you trust the file, allow it with "
                f"numtorch.serialization.add_safe_globals([{name}]) or the "
                f"numtorch.serialization.safe_globals([{name}]) context manager, or load "
                f"with weights_only=False (which can run arbitrary code).")
        if module == "torch" or module.startswith("torch."):
            return _numtorch_counterpart(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise pickle.UnpicklingError(f"load: unknown persistent id {pid!r} in checkpoint")
        cls, key, location, numel = pid[1], str(pid[2]), pid[3], pid[4]
        name = getattr(cls, "storage_name", None)
        if name is None:
            raise pickle.UnpicklingError(f"load: expected a torch storage class in the "
                                         f"persistent id, got {cls!r}")
        view = pid[5] if len(pid) > 5 else None
        return self._load_storage(_STORAGE_DTYPE[name], key, location, int(numel), view)


def _storage_from_bytes(raw, dtype_name, numel, key, byteorder):
    if isinstance(raw, np.ndarray):
        return raw  # already read into a private native array of the right size
    npdt = _NP[dtype_name] if dtype_name != _BF16 else _BF16_BITS
    if byteorder == "big":
        npdt = npdt.newbyteorder(">")
    if len(raw) < numel * npdt.itemsize:
        raise RuntimeError(f"load: storage {key} has {len(raw)} bytes, expected "
                           f"{numel * npdt.itemsize} (truncated or corrupt checkpoint)")
    arr = np.frombuffer(raw, dtype=npdt, count=numel)
    if dtype_name == _BF16:
        return _bf16_from_bits(arr)
    native = np.dtype(_dtype._BY_NAME[dtype_name].np)
    return arr.astype(native, copy=True)  # a private writable copy in native order


def _weights_only_default(weights_only):
    for var in ("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "NUMTORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        if os.environ.get(var, "0") not in ("", "0"):
            return False
    return True if weights_only is None else bool(weights_only)


def _make_loader(read, map_location, byteorder="little"):
    cache = {}

    def load_storage(dtype_name, key, location, numel, view):
        if key not in cache:
            arr = _storage_from_bytes(read(key, dtype_name, numel), dtype_name, numel, key,
                                      byteorder)
            cache[key] = (arr, _place(arr, dtype_name, location, map_location))
        arr, dev = cache[key]
        if view is not None:  # very old files: (view_key, offset, size) of a storage view
            _, off, size = view
            return arr[int(off):int(off) + int(size)], dev
        return arr, dev

    return load_storage


def _load_zip(zf, map_location, weights_only):
    names = zf.namelist()
    pkl = [n for n in names if n.endswith("data.pkl")]
    if not pkl:
        raise RuntimeError("load: the zip file has no data.pkl record; it is not a "
                           "PyTorch checkpoint")
    prefix = pkl[0][: -len("data.pkl")]
    byteorder = "little"
    if prefix + "byteorder" in names:
        byteorder = zf.read(prefix + "byteorder").decode().strip()

    def read(key, dtype_name, numel):
        name = f"{prefix}data/{key}"
        try:
            info = zf.getinfo(name)
        except KeyError:
            raise RuntimeError(f"load: storage record data/{key} is missing from the "
                               f"checkpoint (corrupt file)") from None
        native = _native_np(dtype_name)  # None: bfloat16 without ml_dtypes (widened)
        if (info.compress_type != zipfile.ZIP_STORED or not hasattr(zf.fp, "readinto")
                or native is None or byteorder != "little" or not native.isnative
                or info.file_size != numel * native.itemsize):
            return zf.read(info)
        # torch stores storages uncompressed: read the bytes straight into the array that
        # becomes the storage (one copy; zipfile's reader would make two). Like torch, the
        # storage bytes are not CRC-checked (it would double the load time); the size check
        # below catches truncation, and data.pkl itself is CRC-checked by zipfile
        out = np.empty(numel, dtype=native)
        buf = out.view(np.uint8)
        fp = zf.fp
        fp.seek(info.header_offset)
        head = fp.read(30)
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise RuntimeError(f"load: bad local header for storage record data/{key} "
                               f"(corrupt checkpoint)")
        name_len, extra_len = struct.unpack("<HH", head[26:30])
        fp.seek(info.header_offset + 30 + name_len + extra_len)
        if fp.readinto(buf) != len(buf):
            raise RuntimeError(f"load: storage record data/{key} is truncated (corrupt "
                               f"checkpoint)")
        return out

    loader = _make_loader(read, map_location, byteorder)
    return _Unpickler(io.BytesIO(zf.read(pkl[0])), weights_only, loader).load()


class _Inert:
    """Stands for any global during the legacy format's first pass; accepts every call."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return self

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, value):
        pass

    def extend(self, values):
        pass


class _Collector(pickle.Unpickler):
    """Walks a pickle calling ``note`` for each storage id, building nothing real."""

    def __init__(self, file, note):
        super().__init__(file, encoding="utf-8")
        self._note = note

    def find_class(self, module, name):
        if module in ("torch", "torch.storage") and name in _STORAGE_CLASSES:
            return _STORAGE_CLASSES[name]
        return _Inert

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and len(pid) >= 5 and getattr(pid[1], "storage_name", None):
            self._note(_STORAGE_DTYPE[pid[1].storage_name], str(pid[2]), pid[3], pid[4],
                       None)
        return _Inert()


def _load_legacy(f, map_location, weights_only):
    plain = _Unpickler(f, True, None)
    magic = plain.load()
    if magic != _MAGIC:
        raise RuntimeError("load: invalid magic number; the file is not a PyTorch "
                           "checkpoint (or it is corrupt)")
    protocol = _Unpickler(f, True, None).load()
    if protocol != _LEGACY_PROTOCOL:
        raise RuntimeError(f"load: unsupported legacy checkpoint protocol {protocol}, "
                           f"expected {_LEGACY_PROTOCOL}")
    info = _Unpickler(f, True, None).load()
    byteorder = "little" if not isinstance(info, dict) or info.get(
        "little_endian", True) else "big"
    wanted = {}

    def note(dtype_name, key, location, numel, view):
        wanted.setdefault(key, dtype_name)

    # the storages' bytes follow the object's pickle and their sizes depend on dtypes named
    # inside it, so a first pass reads only the storage ids: every other global becomes an
    # inert placeholder, which runs no code from the file
    obj_pickle_start = f.tell()
    _Collector(f, note).load()
    keys = _Unpickler(f, True, None).load()
    if not isinstance(keys, list):
        raise RuntimeError("load: legacy checkpoint lacks its storage key list (corrupt file)")
    raw = {}
    for key in keys:
        head = f.read(8)
        if len(head) < 8:
            raise RuntimeError(f"load: storage {key} is truncated (corrupt checkpoint)")
        count = struct.unpack("<q" if byteorder == "little" else ">q", head)[0]
        nbytes = count * _NP[wanted.get(key, "uint8")].itemsize
        raw[key] = f.read(nbytes)
    f.seek(obj_pickle_start)

    def read(key, dtype_name, numel):
        if key not in raw:
            raise RuntimeError(f"load: storage {key} is missing from the checkpoint")
        return raw[key]

    loader = _make_loader(read, map_location, byteorder)
    return _Unpickler(f, weights_only, loader).load()


def _load_file(fh, map_location, weights_only):
    start = fh.tell()
    head = fh.read(4)
    fh.seek(start)
    if not head:
        raise RuntimeError("load: the file is empty; it is not a PyTorch checkpoint")
    try:
        if head == b"PK\x03\x04":
            try:
                zf = zipfile.ZipFile(fh)
            except zipfile.BadZipFile as e:
                raise RuntimeError(f"load: the checkpoint zip archive is corrupt or "
                                   f"truncated ({e})") from None
            with zf:
                return _load_zip(zf, map_location, weights_only)
        return _load_legacy(fh, map_location, weights_only)
    except pickle.UnpicklingError as e:
        if str(e).startswith(("Weights only", "load:")):
            raise
        raise pickle.UnpicklingError(f"load: the checkpoint is truncated or corrupt, or not "
                                     f"a PyTorch file ({e})") from None
    except (EOFError, zipfile.BadZipFile, struct.error, ValueError, KeyError, IndexError,
            TypeError) as e:
        if isinstance(e, TypeError) and "map_location" in str(e):
            raise
        raise RuntimeError(f"load: the checkpoint is truncated or corrupt, or not a PyTorch "
                           f"file ({type(e).__name__}: {e})") from None
