"""The checkpoint readers: torch's zip format and the legacy (pre-1.6) stream.

Everything in a checkpoint is untrusted: record names, sizes, counts and offsets are checked
with Python integers against the file before anything is allocated, and every failure is a
``RuntimeError`` or ``pickle.UnpicklingError`` naming the part of the file at fault (or the
exception class torch raises for the same input).
"""

import copy
import io
import os
import pickle
import re
import struct
import sys
import tarfile
import warnings
import zipfile
import zlib

import numpy as np

from .._device import as_device
from .._device import device as _device_cls
from ..storage import TypedStorage, UntypedStorage
from ._options import unrecorded_byteorder
from ._common import (_BF16, _BF16_BITS, _LEGACY_PROTOCOL, _MAGIC, _NP, _STORAGE_DTYPE,
                      _bf16_from_bits, _native_np, is_load_error, load_error)
from ._rebuild import FileStorage
from ._skip import skipping, unread
from . import _packages
from ._unpickler import Full, PickleFault, WeightsOnly

_MIN_VERSION, _MAX_VERSION = 1, 10  # the zip format versions torch 2.13 reads
_CHUNK = 1 << 20  # bytes decompressed at a time straight into a storage
_MAX_DEFLATE_RATIO = 1032  # deflate cannot expand data more than this


class _LoadedStorage(UntypedStorage):
    """The storage a callable ``map_location(storage, location)`` is handed: the bytes as
    read (on the CPU), a real untyped storage as in torch (``len`` counts bytes, ``clone``,
    ``tolist``...). Returning it as is, or ``storage.cpu()``, ``storage.cuda()`` or
    ``storage.to(device)``, chooses where its tensors go; returning another storage puts
    that one's bytes under them instead, as torch does.
    """

    def __init__(self, *args, wrap=None, device=None, source=None):
        # (``clone()`` and the like build one from ``wrap``: a storage of its own bytes)
        if source is not None:
            wrap = source.reshape(-1).view(np.uint8)
        super().__init__(*args, wrap=wrap)
        self._source, self._target = source, as_device(device or "cpu")

    @property
    def device(self):
        return self._target

    def to(self, device=None, non_blocking=False):
        """This storage placed on ``device``."""
        source = self._array if self._source is None else self._source
        return _LoadedStorage(source=source, device=device)

    def cpu(self):
        """This storage on the CPU."""
        return self.to("cpu")

    def cuda(self, device=None, non_blocking=False):
        """This storage on a CUDA device (``cuda:device``, default the current one)."""
        return self.to("cuda" if device is None else f"cuda:{int(device)}")


_LoadedStorage.__name__ = _LoadedStorage.__qualname__ = "UntypedStorage"  # torch's, as shown


def _check_device(dev, location):
    if dev.type == "cuda":
        from .. import cuda

        if not cuda.is_available():
            raise load_error(RuntimeError,
                             "Attempting to deserialize object on a CUDA device but "
                             "torch.cuda.is_available() is False. If you are running on a "
                             "CPU-only machine, please use torch.load with "
                             "map_location=torch.device('cpu') to map your storages to the "
                             "CPU.")
    return dev


# the location tags torch's registered restore functions claim by prefix ("cpu" and "meta"
# only as themselves)
_RESTORABLE_PREFIXES = ("cuda", "mps", "xpu", "hpu", "privateuseone", "mtia", "maia")


# torch's error when a map_location callable returns anything but an untyped storage or None
_WRAP_STORAGE = ("TypedStorage.__init__ received an invalid combination of arguments. Expected "
                 "one of:\n * (*, torch.device device, torch.dtype dtype)\n * (int size, *, "
                 "torch.device device, torch.dtype dtype)\n * (Sequence data, *, torch.device "
                 "device, torch.dtype dtype)\n * (*, UntypedStorage wrap_storage, torch.dtype "
                 "dtype)\nArgument 'wrap_storage' must be UntypedStorage, but got ")


def _place(array, location, map_location):
    """``(array, device)`` for a storage saved at ``location`` under ``map_location``: the
    array is the one read unless a callable returned a storage of its own."""
    if map_location is None:
        target = location
    elif isinstance(map_location, (str, _device_cls)):
        target = map_location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif callable(map_location):
        # torch hands the function the storage as read, on the CPU: `lambda s, loc: s` is
        # the idiom that loads a GPU checkpoint on a CPU-only machine
        res = map_location(_LoadedStorage(source=array), location)
        if res is None:  # torch restores it where it was saved then
            target = location
        elif isinstance(res, _LoadedStorage) and res._source is array:
            target = res.device
        elif isinstance(res, UntypedStorage):
            return _replacement(array, res, location), _check_device(res.device, location)
        else:  # a typed storage (``s.float()`` converts the bytes), a device, a tensor...
            got = "<class 'torch.storage.TypedStorage'>" if isinstance(res, TypedStorage) \
                else repr(type(res))
            raise load_error(TypeError, _WRAP_STORAGE + got)
    else:  # torch calls anything else as the restore function
        raise load_error(TypeError, f"'{type(map_location).__name__}' object is not callable")
    if _packages._package_registry and not callable(map_location):
        # torch restores through its registry, where the user's deserializers may come first
        res = _packages.user_restore(_LoadedStorage(source=array), str(target))
        if isinstance(res, _LoadedStorage) and res._source is array:
            target = res.device
        elif isinstance(res, UntypedStorage):
            return _replacement(array, res, location), _check_device(res.device, location)
        elif res is not None:
            got = "<class 'torch.storage.TypedStorage'>" if isinstance(res, TypedStorage) \
                else repr(type(res))
            raise load_error(TypeError, _WRAP_STORAGE + got)
    if isinstance(target, str) and not (target in ("cpu", "meta")
                                        or target.startswith(_RESTORABLE_PREFIXES)):
        # torch's restore functions each claim their own tags; no claimant is this error
        raise load_error(RuntimeError, f"don't know how to restore data location of "
                                       f"torch.storage.UntypedStorage (tagged with {target})")
    try:
        dev = as_device(target)
    except (TypeError, ValueError, RuntimeError) as e:
        if isinstance(target, str):  # torch's device parser's own words ("Invalid device ...")
            raise load_error(RuntimeError, str(e)) from None
        raise load_error(RuntimeError, f"load: cannot place a storage saved on {location!r} "
                                       f"at {target!r} ({e})") from None
    return array, _check_device(dev, location)


def _replacement(array, storage, location):
    """The bytes of the storage a ``map_location`` callable returned, as ``array``'s dtype
    (the geometry checks that follow refuse a storage too small for its tensors)."""
    raw = np.ascontiguousarray(storage._array).reshape(-1).view(np.uint8)
    if raw.size % array.itemsize:
        raise load_error(RuntimeError, f"load: map_location returned a storage of {raw.size} "
                                       f"bytes for one saved on {location!r}, not a whole "
                                       f"number of {array.dtype} elements")
    return raw.view(array.dtype)


def _is_count(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0


def _parse_pid(pid, record):
    """``(dtype name, key, location, numel, view)`` of a ``('storage', ...)`` persistent id."""
    if len(pid) not in (5, 6):
        raise load_error(pickle.UnpicklingError, f"load: {record} has a storage reference of "
                                                 f"{len(pid)} fields, expected 5 or 6")
    _, cls, key, location, numel = pid[:5]
    name = getattr(cls, "storage_name", None)
    if name is None:
        raise load_error(pickle.UnpicklingError, f"load: {record} has a storage reference "
                                                 f"whose type is not a torch storage class")
    if isinstance(key, bytes):
        key = key.decode("ascii", "replace")
    if isinstance(location, bytes):
        location = location.decode("ascii", "replace")
    if not isinstance(key, (str, int)) or isinstance(key, bool) or not isinstance(location, str):
        raise load_error(pickle.UnpicklingError, f"load: {record} has a storage reference "
                                                 f"with a malformed key or location")
    view = pid[5] if len(pid) == 6 else None
    return _STORAGE_DTYPE[name], str(key), location, numel, view


def _count(numel, key, record):
    """The element count of a storage's first reference (torch ignores later ones')."""
    if not _is_count(numel):
        raise load_error(RuntimeError, f"load: storage {key} of {record} claims "
                                       f"{numel!r} elements, which is not a count")
    return int(numel)


def _disk_dtype(dtype_name, byteorder):
    npdt = _NP[dtype_name] if dtype_name != _BF16 else _BF16_BITS
    return npdt.newbyteorder(">") if byteorder == "big" else npdt


def _storage_array(numel, dtype_name, byteorder, what):
    """An uninitialised array to read a storage's bytes into, and whether it is already the
    array numtorch keeps (the bytes are in this machine's order and dtype)."""
    native = _native_np(dtype_name)  # None: bfloat16 without ml_dtypes (widened after)
    direct = native is not None and byteorder == sys.byteorder and native.byteorder != ">"
    try:
        return np.empty(numel, dtype=native if direct else
                        _disk_dtype(dtype_name, byteorder)), direct
    except (MemoryError, ValueError):
        raise load_error(RuntimeError, f"load: not enough memory for {what} ({numel} "
                                       f"{dtype_name} elements)") from None


def _to_native(raw, dtype_name):
    """A storage read in its on-disk dtype, as the array numtorch keeps."""
    if dtype_name == _BF16:
        return _bf16_from_bits(raw)
    return raw.astype(_native_np(dtype_name))


def _make_loader(read, map_location, record):
    """The persistent-id loader: reads each storage once and hands out a :class:`FileStorage`
    (its array and the device its tensors go to)."""
    cache = {}

    def load_storage(pid):
        dtype_name, key, location, numel, view = _parse_pid(pid, record)
        if key not in cache:
            arr, dev = _place(read(key, dtype_name, _count(numel, key, record)), location,
                              map_location)
            if dev.type == "meta":  # one meta storage, so its tensors keep their views of it
                from ..backend import _meta

                arr = _meta.as_meta(arr)
            cache[key] = (arr, dev, FileStorage(wrap=arr, placed=dev))
        # a later reference's element count is not checked, as in torch: the storage was read
        # with the first one's, and every tensor's geometry is checked against that storage
        arr, dev, whole = cache[key]
        if view is None:
            return whole  # one storage object however often it is named, as in torch
        # very old files: (view key, offset, size) of a storage view
        if not (isinstance(view, tuple) and len(view) == 3 and _is_count(view[1])
                and _is_count(view[2]) and view[1] + view[2] <= arr.size):
            raise load_error(RuntimeError, f"load: storage view {view!r:.100} lies outside "
                                           f"storage {key} of {arr.size} elements")
        return FileStorage(wrap=arr[int(view[1]):int(view[1]) + int(view[2])], placed=dev)

    return load_storage


def _unpickle(file, record, weights_only, load_storage):
    if weights_only:
        return WeightsOnly(file, record, load_storage).load()
    return Full(file, record, load_storage).load()


# -- the zip format ------------------------------------------------------------------------
def _check_names(infos):
    """The archive's prefix directory (``archive/``) after torch's checks on member names,
    and refusing duplicate, absolute and ``..`` names."""
    if not infos:
        raise load_error(RuntimeError, "load: the zip archive is empty; it is not a PyTorch "
                                       "checkpoint")
    seen = set()
    for info in infos:
        name = info.filename
        if name in seen:
            raise load_error(RuntimeError, f"load: the checkpoint archive holds two members "
                                           f"named {name!r}; refusing an ambiguous file")
        seen.add(name)
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":"):
            raise load_error(RuntimeError, f"load: the checkpoint archive has a member with an "
                                           f"absolute or '..' path: {name!r}")
    first = infos[0].filename
    if "/" not in first:
        raise load_error(RuntimeError, f"[enforce fail at inline_container.cc:180] . file in "
                                       f"archive is not in a subdirectory: {first}")
    prefix = first[:first.index("/") + 1]
    for info in infos:
        if not info.filename.startswith(prefix):
            raise load_error(RuntimeError, f"load: file in archive is not in a subdirectory "
                                           f"{prefix}: {info.filename}")
    return prefix


def _check_version(zf, by_name, prefix):
    info = by_name.get(prefix + ".data/version") or by_name.get(prefix + "version")
    if info is None:
        raise load_error(RuntimeError, 'Expected hasRecord("version") to be true, but got '
                                       'false.  (Could this error message be improved?  If so, '
                                       'please report an enhancement request to PyTorch.)')
    text = _zread(zf, info).decode("ascii", "replace")
    # torch reads the leading integer and ignores what follows it ("3\n", "3J")
    lead = re.match(r"\s*([+-]?\d+)", text)
    if lead is None:  # torch's words (the record's text as it is, newline included)
        raise load_error(RuntimeError, f"[enforce fail at inline_container.cc:215] . Couldn't "
                                       f"parse the version {text} as Long Long.")
    version = int(lead.group(1))
    if version < _MIN_VERSION:
        raise load_error(RuntimeError, f"[enforce fail at inline_container.cc:219] . Attempted "
                                       f"to read a PyTorch file with version {version}, but "
                                       f"the minimum supported version for reading is "
                                       f"{_MIN_VERSION}. Your PyTorch script module file is too "
                                       f"old. Please regenerate it with latest version of "
                                       f"PyTorch to mitigate this issue.")
    if version > _MAX_VERSION:
        raise load_error(RuntimeError, f"[enforce fail at inline_container.cc:230] . Attempted "
                                       f"to read a PyTorch file with version {version}, but "
                                       f"the maximum supported version for reading is "
                                       f"{_MAX_VERSION}. The version of your PyTorch "
                                       f"installation may be too old, please upgrade PyTorch to "
                                       f"latest version to mitigate this issue.")


def _read_stored(zf, info, out, key):
    """Read an uncompressed record's bytes straight into ``out`` (one copy).

    Like torch, the storage bytes are not CRC-checked (it would double the load time); the
    size check catches truncation, and data.pkl itself is CRC-checked by zipfile.
    """
    buf = out.view(np.uint8).reshape(-1)
    if not len(buf):
        return  # an empty storage: nothing of its record is read (nor by torch)
    fp = zf.fp
    fp.seek(_stored_offset(zf, info, key))
    if fp.readinto(buf) != len(buf):
        raise load_error(RuntimeError, f"load: storage record data/{key} is truncated "
                                       f"(corrupt checkpoint)")


def _stored_offset(zf, info, key):
    """Where an uncompressed record's bytes start in the archive file. A stored record is its
    bytes as they are: a directory entry whose compressed size differs is damaged (a deflated
    record marked stored), refused as torch refuses it, instead of reading its compressed
    bytes as the storage's values."""
    fp = zf.fp
    fp.seek(info.header_offset)
    head = fp.read(30)
    if len(head) < 30 or head[:4] != b"PK\x03\x04" or info.compress_size != info.file_size:
        raise load_error(RuntimeError, f"load: bad local header for storage record data/{key} "
                                       f"(corrupt checkpoint)")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    return info.header_offset + 30 + name_len + extra_len


def _mapped_record(zf, info, mapping, numel, dtype_name, byteorder, key):
    """``torch.load(mmap=True)``: the storage as an array over the mapped file (its pages
    are read when touched; with ``MAP_SHARED`` writes reach the file, as in torch), or None
    when its bytes need converting (another byte order, bfloat16 without ml_dtypes)."""
    native = _native_np(dtype_name)
    if native is None or byteorder != sys.byteorder or native.byteorder == ">":
        return None
    start = _stored_offset(zf, info, key)
    if start + numel * native.itemsize > len(mapping):
        raise load_error(RuntimeError, f"load: storage record data/{key} is truncated "
                                       f"(corrupt checkpoint)")
    return np.frombuffer(mapping, dtype=native, count=numel, offset=start)


def _read_compressed(zf, info, out, key):
    """Decompress a record chunk by chunk straight into ``out``; zipfile checks the CRC."""
    buf = out.view(np.uint8).reshape(-1)
    pos, n = 0, len(buf)
    try:
        src = zf.open(_unchecked(info))
    except _ZIP_MEMBER_ERRORS as e:
        raise load_error(RuntimeError, f"PytorchStreamReader failed reading file data/{key}: "
                                       f"{e} (corrupt checkpoint)") from None
    with src:
        while pos < n:
            chunk = src.read(min(_CHUNK, n - pos))
            if not chunk:
                break
            buf[pos:pos + len(chunk)] = np.frombuffer(chunk, np.uint8)
            pos += len(chunk)
        if pos != n or src.read(1):
            raise load_error(RuntimeError, f"load: storage record data/{key} decompresses to "
                                           f"a different size than its header says (corrupt "
                                           f"checkpoint)")


# what zipfile raises on a damaged member header (a seek before the file's start, an unknown
# compression method, a bad CRC or stream): signs of a corrupt file whatever weights_only is
_ZIP_MEMBER_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError,
                      struct.error, OSError)  # OSError: a header offset seeks before the start


def _unchecked(info):
    """``info`` for zipfile's reader, without its CRC-32 when that is 0: torch writes 0 for
    every record under ``set_crc32_options(False)`` and never checks CRCs when reading."""
    if info.CRC or not info.file_size:
        return info
    info = copy.copy(info)
    del info.CRC  # zipfile checks a member's CRC only when its info has one
    return info


def _zread(zf, info):
    """A record's bytes; a damaged member is torch's RuntimeError naming the record."""
    try:
        return zf.read(_unchecked(info))
    except _ZIP_MEMBER_ERRORS as e:
        raise load_error(RuntimeError, f"PytorchStreamReader failed reading file "
                                       f"{info.filename.split('/', 1)[-1]}: {e} (corrupt "
                                       f"checkpoint)") from None


def _read_whole(zf, info):
    """A small record's bytes, refused (as torch does) when they are not as many as its
    directory entry says: zipfile stops at the stored stream's end without checking."""
    data = _zread(zf, info)
    if len(data) != info.file_size:
        raise load_error(RuntimeError, f"PytorchStreamReader failed reading file "
                                       f"{info.filename.split('/', 1)[-1]}: unexpected "
                                       f"decompressed size ({len(data)} bytes, its header "
                                       f"says {info.file_size}; corrupt checkpoint)")
    return data


def _load_zip(zf, map_location, weights_only, mapping=None):
    infos = zf.infolist()
    prefix = _check_names(infos)
    by_name = {info.filename: info for info in infos}
    _check_version(zf, by_name, prefix)
    pkl = by_name.get(prefix + "data.pkl")
    if pkl is None:
        raise load_error(RuntimeError, _not_found("data.pkl"))
    byteorder = unrecorded_byteorder()  # set_default_load_endianness; the machine's by default
    if prefix + "byteorder" in by_name:
        raw = _zread(zf, by_name[prefix + "byteorder"])
        byteorder = raw.decode("ascii", "replace")
        if byteorder not in ("little", "big"):
            raise load_error(ValueError, f"Unknown endianness type: {byteorder}")

    archive_end = zf.fp.seek(0, os.SEEK_END)  # a stored record's bytes must lie within

    def read(key, dtype_name, numel):
        info = by_name.get(f"{prefix}data/{key}")
        if info is None:
            raise load_error(RuntimeError, _not_found(f"data/{key}"))
        disk = _disk_dtype(dtype_name, byteorder)
        expected = numel * disk.itemsize
        if info.file_size != expected:
            # torch reads every storage as bytes, so its message counts bytes as elements
            raise load_error(RuntimeError, f"record size ({info.file_size} bytes) does not "
                                           f"match expected size ({expected} bytes = {expected} "
                                           f"elements * 1 bytes/element) for dtype Byte")
        if info.compress_type != zipfile.ZIP_STORED and \
                expected > info.compress_size * _MAX_DEFLATE_RATIO + (1 << 16):
            raise load_error(RuntimeError, f"load: record data/{key} claims {expected} bytes "
                                           f"from {info.compress_size} compressed ones "
                                           f"(corrupt checkpoint)")
        if info.compress_type == zipfile.ZIP_STORED and \
                info.header_offset + expected > archive_end:
            raise load_error(RuntimeError, f"load: record data/{key} claims {expected} bytes, "
                                           f"more than the file holds (truncated or corrupt "
                                           f"checkpoint)")
        if skipping():
            return unread(numel, _native_np(dtype_name) or np.float32)
        if mapping is not None and info.compress_type == zipfile.ZIP_STORED and numel:
            mapped = _mapped_record(zf, info, mapping, numel, dtype_name, byteorder, key)
            if mapped is not None:
                return mapped
        out, in_place = _storage_array(numel, dtype_name, byteorder,
                                       f"storage record data/{key}")
        if info.compress_type == zipfile.ZIP_STORED and hasattr(zf.fp, "readinto"):
            _read_stored(zf, info, out, key)
        else:
            _read_compressed(zf, info, out, key)
        return out if in_place else _to_native(out, dtype_name)

    loader = _make_loader(read, map_location, "data.pkl")
    return _unpickle(io.BytesIO(_read_whole(zf, pkl)), "data.pkl", weights_only, loader)


# -- the legacy stream ---------------------------------------------------------------------
def _header(f, header, weights_only):
    reader = WeightsOnly(f, header)
    if not weights_only:  # Python's pickle would run any opcode here
        reader.only = None
    return reader.load()


def _load_legacy(f, map_location, weights_only):
    header = "the legacy checkpoint header"
    magic = _header(f, header, weights_only)
    if magic != _MAGIC:
        raise load_error(RuntimeError, "Invalid magic number; corrupt file?")  # torch's words
    protocol = _header(f, header, weights_only)
    if protocol != _LEGACY_PROTOCOL:
        raise load_error(RuntimeError, f"Invalid protocol version: {protocol}")  # torch's
    info = _header(f, header, weights_only)
    little = not isinstance(info, dict) or info.get("little_endian", True)
    byteorder = "little" if little else "big"
    record = "the pickled object"
    noted = {}

    def note(pid):
        dtype_name, key, _, numel, _ = _parse_pid(pid, record)
        if key not in noted:
            noted[key] = (dtype_name, _count(numel, key, record))

    # the storages' bytes follow the object's pickle and their sizes depend on dtypes named
    # inside it, so a first pass only collects the storage references (building nothing)
    start = f.tell()
    skim = WeightsOnly(f, record, note, skim=True)
    skim.skim_calls = weights_only
    skim.load()
    keys = WeightsOnly(f, "the legacy storage key list").load()
    if not isinstance(keys, list) or not all(isinstance(k, (str, int)) for k in keys):
        raise load_error(RuntimeError, "load: legacy checkpoint lacks its storage key list "
                                       "(corrupt file)")
    keys = [str(k) for k in keys]
    if len(set(keys)) != len(keys):
        raise load_error(RuntimeError, "load: legacy checkpoint lists a storage twice "
                                       "(corrupt file)")
    here = f.tell()
    end = f.seek(0, os.SEEK_END)
    f.seek(here)
    arrays = {}
    for key in keys:
        if key not in noted:
            raise load_error(RuntimeError, f"load: storage {key} is listed but never used "
                                           f"(corrupt checkpoint)")
        dtype_name, numel = noted[key]
        head = f.read(8)
        if len(head) < 8:  # torch's words for a storage's size field cut short
            raise load_error(RuntimeError, f"unexpected EOF, expected {8 - len(head)} more "
                                           f"bytes. The file might be corrupted.")
        count = struct.unpack("<q" if little else ">q", head)[0]
        disk = _disk_dtype(dtype_name, byteorder)
        if count != numel:
            # torch's words, its unfilled format and unsigned count included (torch also
            # takes a larger count when a tensor built on the storage grew it to that size;
            # numtorch refuses the inconsistent file)
            raise load_error(RuntimeError, f"storage has wrong byte size: expected %ld got "
                                           f"%ld{count * disk.itemsize % 2**64}"
                                           f"{numel * disk.itemsize}")
        if count * disk.itemsize > end - f.tell():  # torch's words
            raise load_error(RuntimeError, f"unexpected EOF, expected "
                                           f"{count * disk.itemsize - (end - f.tell())} more "
                                           f"bytes. The file might be corrupted.")
        if skipping():
            f.seek(count * disk.itemsize, os.SEEK_CUR)
            arrays[key] = unread(count, _native_np(dtype_name) or np.float32)
            continue
        out, in_place = _storage_array(count, dtype_name, byteorder, f"storage {key}")
        got = f.readinto(memoryview(out.view(np.uint8).reshape(-1))) if count else 0
        if got != out.nbytes:
            raise load_error(RuntimeError, f"load: storage {key} is truncated (corrupt "
                                           f"checkpoint)")
        arrays[key] = out if in_place else _to_native(out, dtype_name)
    data_end = f.tell()
    f.seek(start)

    def read(key, dtype_name, numel):
        if key not in arrays:
            raise load_error(RuntimeError, f"load: storage {key} is missing from the "
                                           f"checkpoint")
        return arrays[key]

    result = _unpickle(f, record, weights_only, _make_loader(read, map_location, record))
    # the stream is left after the storages' bytes, as torch leaves it: a next checkpoint
    # saved after this one in the same file loads next
    f.seek(data_end)
    return result


def unsafe_globals_in(fh):
    """The globals in a zip checkpoint's pickle that ``weights_only`` loading would refuse
    (neither allowed by default nor by the user's allow-list), without building anything."""
    start = fh.tell()
    head = fh.read(4)
    fh.seek(start)
    if head != b"PK\x03\x04":
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    with _archive_at(zipfile.ZipFile(fh), fh, start) as zf:
        infos = zf.infolist()
        prefix = _check_names(infos)
        pkl = {i.filename: i for i in infos}.get(prefix + "data.pkl")
        if pkl is None:
            raise load_error(RuntimeError, _not_found("data.pkl"))
        skim = WeightsOnly(io.BytesIO(_zread(zf, pkl)), "data.pkl", lambda pid: None, skim=True)
        try:
            skim.load()
        except PickleFault as e:  # torch's scan reads opcodes only, and words faults so
            if e.kind == "opcode":
                raise pickle.UnpicklingError(f"Unsupported operand {e.value}") from None
            if e.kind in ("eof", "truncated"):
                raise EOFError("") from None
            # a stack or memo fault does not stop torch's scan: the globals named up to it
        return skim.unsafe_globals()


# -- entry point ----------------------------------------------------------------------------
def check_mmap(fh, path):
    """torch.load(mmap=True) maps only zip checkpoints opened by path: anything else is
    refused with torch's error (numtorch reads the storages into memory either way)."""
    start = fh.tell()
    head = fh.read(4)
    fh.seek(start)
    if head != b"PK\x03\x04":
        named = "" if path is None else f"{os.fspath(path)}, "
        raise RuntimeError(f"mmap can only be used with files saved with `torch.save({named}"
                           f"_use_new_zipfile_serialization=True), please torch.save your "
                           f"checkpoint with this option in order to use mmap.")
    if path is None:
        raise ValueError("f must be a file path in order to use the mmap argument")


_TRUE = ("1", "y", "yes", "true")


def _env_flag(*names):
    return any(os.environ.get(n, "0").strip().lower() in _TRUE for n in names)


def resolve_weights_only(weights_only, pickle_module=None):
    """``weights_only`` after the defaults and environment variables, as torch decides it.

    Unset, it is True unless a ``pickle_module`` is given. ``TORCH_FORCE_WEIGHTS_ONLY_LOAD``
    forces True even over an explicit False; ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` forces False
    only where the caller did not pass ``weights_only`` (with a warning); both set is an
    error. ``NUMTORCH_FORCE_*`` are the same switches under numtorch's name.
    """
    unset = weights_only is None
    if unset:
        weights_only = pickle_module is None
    force = _env_flag("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "NUMTORCH_FORCE_WEIGHTS_ONLY_LOAD")
    force_no = _env_flag("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD",
                         "NUMTORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were "
                           "set.")
    if force:
        return True
    if force_no and unset:
        # torch's words, its missing space included
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                      "`weights_only` argument was not explicitly passed to `torch.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        return False
    return bool(weights_only)


_CORRUPT = (EOFError, zipfile.BadZipFile, zlib.error, struct.error, KeyError, IndexError,
            MemoryError, OverflowError, RecursionError, UnicodeDecodeError)
# also signs of a corrupt file when only numtorch's code runs; with weights_only=False they
# may come from the checkpoint's own classes, and pass on unchanged as in torch
_CORRUPT_WEIGHTS_ONLY = _CORRUPT + (ValueError, TypeError, AttributeError, NotImplementedError)


def _load_file(fh, map_location, weights_only, mapping=None):
    from . import _rebuild

    outer = getattr(_rebuild._LOADING, "map_location", None)
    _rebuild._LOADING.map_location = map_location
    try:
        return _load_any(fh, map_location, weights_only, mapping)
    finally:
        _rebuild._LOADING.map_location = outer


def _load_any(fh, map_location, weights_only, mapping):
    start = fh.tell()
    head = fh.read(4)
    fh.seek(start)
    if not head:
        # torch fails in the unpickler: its weights-only one says nothing, pickle's says why
        raise EOFError("" if weights_only else "Ran out of input")
    try:
        if head == b"PK\x03\x04":
            try:
                zf = zipfile.ZipFile(fh)
            except (zipfile.BadZipFile, NotImplementedError) as e:
                # zipfile's NotImplementedError: a directory entry asks for a zip feature
                # version it lacks; torch's writer never does, so the header is damaged
                size = fh.seek(0, os.SEEK_END) - start
                why = "not a ZIP archive" if size < 22 else (  # shorter than an end record
                    "failed finding central directory" if "not a zip file" in str(e) else
                    f"corrupt archive ({e})")
                raise load_error(RuntimeError, _MINIZ.format(why)) from None
            zf = _archive_at(zf, fh, start)
            with zf:
                return _load_zip(zf, map_location, weights_only, mapping)
        if _is_tar_checkpoint(fh, start):
            if weights_only:  # torch's words
                raise RuntimeError("Cannot use ``weights_only=True`` with files saved in the "
                                   "legacy .tar format. " + _WO_ADVICE)
            raise RuntimeError("load: this checkpoint is in the .tar format of torch < 0.4, "
                               "which numtorch does not read; load it with torch and "
                               "torch.save it again")
        return _load_legacy(fh, map_location, weights_only)
    except PickleFault as e:
        raise _in_torch_words(e, weights_only) from None
    except pickle.UnpicklingError as e:
        if weights_only and str(e).startswith("Unsupported global"):
            raise pickle.UnpicklingError(_WO_GLOBAL.format(e)) from None
        if weights_only and not str(e).startswith("Weights only"):
            # torch asks for an issue report unless a blocked module was named
            blocked = "whose module" in str(e) and "is blocked" in str(e)
            raise pickle.UnpicklingError((_WO_REFUSED if blocked else _WO_FAILED).format(e)
                                         ) from None
        raise
    except (_CORRUPT_WEIGHTS_ONLY if weights_only else _CORRUPT) as e:
        if is_load_error(e):
            raise
        detail = "" if isinstance(e, (MemoryError, ValueError, OverflowError)) else f": {e}"
        raise RuntimeError(f"load: the checkpoint is truncated or corrupt, or not a PyTorch "
                           f"file ({type(e).__name__}{detail})") from None


class _Head(io.RawIOBase):
    """The first ``end`` bytes of the seekable file ``fh``, as a file of their own."""

    def __init__(self, fh, end):
        super().__init__()
        self._fh, self._end, self._pos = fh, end, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, offset, whence=os.SEEK_SET):
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self._end}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self):
        return self._pos

    def readinto(self, buf):
        n = max(0, min(len(buf), self._end - self._pos))
        self._fh.seek(self._pos)
        got = self._fh.readinto(memoryview(buf)[:n]) if n else 0
        self._pos += got or 0
        return got


def _archive_at(zf, fh, start):
    """The zip archive torch reads at ``start``. torch takes the offsets in the file's last
    end record as counted from where loading starts, where zipfile allows for bytes before
    the archive: a file holding two checkpoints one after the other (``torch.save`` twice
    on one handle) reads in torch as the first one when its directory lies where the last
    end record says (checkpoints of the same layout), and as a corrupt archive otherwise."""
    try:
        endrec = zipfile._EndRecData(fh)  # (the end record zipfile itself read)
    except (OSError, ValueError, struct.error):
        return zf
    if endrec is None or zf.start_dir - endrec[zipfile._ECD_OFFSET] == start:
        return zf
    corrupt = load_error(RuntimeError, _MINIZ.format("invalid header or archive is corrupted"))
    zf.close()
    directory = start + endrec[zipfile._ECD_OFFSET]
    fh.seek(directory)
    if fh.read(4) != b"PK\x01\x02":
        raise corrupt
    # the first archive ends with the first end record after its directory
    fh.seek(directory)
    tail, at = b"", directory
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            raise corrupt
        found = (tail + chunk).find(b"PK\x05\x06")
        if found >= 0:
            eocd = at - len(tail) + found
            break
        at += len(chunk)
        tail = chunk[-3:]
    fh.seek(eocd + 20)
    comment = fh.read(2)
    if len(comment) < 2:
        raise corrupt
    end = eocd + 22 + struct.unpack("<H", comment)[0]
    fh.seek(start)
    try:
        return zipfile.ZipFile(_Head(fh, end))
    except (zipfile.BadZipFile, NotImplementedError, OSError, ValueError):
        raise corrupt from None


def _is_tar_checkpoint(fh, start):
    """torch < 0.4's tar checkpoints, which torch looks for only in real files at offset 0."""
    try:
        if start != 0 or fh.fileno() < 0:
            return False
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False
    try:
        with tarfile.open(fileobj=fh, mode="r:"):
            return True
    except (tarfile.TarError, OSError, ValueError, EOFError):
        return False
    finally:
        fh.seek(start)


_WO_FAILED = ("Weights only load failed. In PyTorch 2.6, we changed the default value of the "
              "`weights_only` argument in `torch.load` from `False` to `True`. Re-running "
              "`torch.load` with `weights_only` set to `False` will likely succeed, but it can "
              "result in arbitrary code execution. Do it only if you got the file from a "
              "trusted source.\nPlease file an issue with the following so that we can make "
              "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
              "\n\n{}\n\nCheck the documentation of torch.load to learn more about types "
              "accepted by default with weights_only "
              "https://pytorch.org/docs/stable/generated/torch.load.html.")
_WO_ADVICE = ("In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
              "`torch.load` from `False` to `True`. Re-running `torch.load` with "
              "`weights_only` set to `False` will likely succeed, but it can result in "
              "arbitrary code execution. Do it only if you got the file from a trusted source.")
_WO_DOCS = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
            "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
# a global outside the allow-list: torch offers both ways out
_WO_GLOBAL = ("Weights only load failed. This file can still be loaded, to do so you have two "
              "options, \x1b[1mdo those steps only if you trust the source of the "
              "checkpoint\x1b[0m. \n\t(1) " + _WO_ADVICE + "\n\t(2) Alternatively, to load "
              "with `weights_only=True` please check the recommended steps in the following "
              "error message.\n\tWeightsUnpickler error: {}" + _WO_DOCS)
# anything else it refuses (a blocked module)
_WO_REFUSED = "Weights only load failed. " + _WO_ADVICE + "\n\n\n{}" + _WO_DOCS
_MINIZ_CORRUPT = (". This is an internal miniz error. If you are seeing this error, there is a "
                  "high likelihood that your checkpoint file is corrupted. This can happen if "
                  "the checkpoint was not saved properly, was transferred incorrectly, or the "
                  "file was modified after saving.")
_MINIZ = "PytorchStreamReader failed reading zip archive: {}" + _MINIZ_CORRUPT


def _not_found(record):
    """torch's error for a record (``data.pkl``, ``data/<key>``) absent from the archive."""
    return f"PytorchStreamReader failed locating file {record}: file not found" + _MINIZ_CORRUPT
_PICKLE_OPS = frozenset(ord(op.code) for op in __import__("pickletools").opcodes)


def _in_torch_words(fault, weights_only):
    """The exception torch raises for a malformed pickle: its weights-only unpickler's, or
    Python's pickle module's when ``weights_only`` is off (numtorch's own reader runs in both
    cases; a malformed file is refused the same way)."""
    kind, value = fault.kind, fault.value
    if kind == "eof":
        return EOFError("" if weights_only else "Ran out of input")
    if kind == "memo":
        return KeyError(value) if weights_only else pickle.UnpicklingError(
            f"Memo value not found at index {value}")
    if kind == "mark":
        return IndexError("pop from empty list") if weights_only else pickle.UnpicklingError(
            "unexpected MARK found")
    if kind == "truncated":
        if weights_only:
            # torch's reader takes the short operand and then finds no opcode
            return IndexError("index out of range") if value == 1 else EOFError("")
        return pickle.UnpicklingError("pickle data was truncated")
    if kind == "underflow":
        return IndexError("pop from empty list") if weights_only else pickle.UnpicklingError(
            "unpickling stack underflow")
    if weights_only:
        return pickle.UnpicklingError(_WO_FAILED.format(f"Unsupported operand {value}"))
    if value not in _PICKLE_OPS:
        shown = chr(value) if 32 <= value < 127 else f"\\x{value:02x}"
        return pickle.UnpicklingError(f"invalid load key, '{shown}'.")
    return pickle.UnpicklingError(str(fault))
