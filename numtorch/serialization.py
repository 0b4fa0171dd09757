"""``numtorch.save`` / ``numtorch.load`` in PyTorch's own checkpoint formats, and safetensors.

Files written here are read by real ``torch.load`` (``weights_only=True`` included) and files
written by real ``torch.save`` are read here; neither side needs the other installed. The zip
layout (torch >= 1.6) and the legacy (pre-1.6) stream are both written and read.

bfloat16 tensors load as ``numtorch.bfloat16`` when the optional ml_dtypes package is installed
(``pip install numtorch[bfloat16]``) and as float32, with a warning, otherwise.
Tensors placed on a CUDA device by ``map_location`` keep their values but not storage sharing.
"""

import io
import mmap as _mmap
import os
import sys
import warnings
from collections.abc import Callable
from typing import IO  # noqa: F401  (torch's name here)

from ._serialization._read import (_WO_ADVICE, _load_file, check_mmap, resolve_weights_only,
                                   unsafe_globals_in)
from ._serialization._unpickler import (  # noqa: F401  (the public safe-globals API)
    add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals)
from ._device import device as _device
from .storage import CheckpointMap, TypedStorage, UntypedStorage
from ._serialization._packages import (SourceChangeWarning,  # noqa: F401
                                       check_module_version_greater_or_equal,
                                       default_restore_location, location_tag,
                                       register_package, validate_cuda_device)
from ._serialization._safetensors import load_safetensors, save_safetensors  # noqa: F401
from ._serialization._legacy_write import write_legacy
from ._serialization._skip import skip_data, skipping
from ._serialization._write import _archive_name, _write_zip, atomic_checkpoint
from ._serialization import _options
from ._serialization._options import (LoadEndianness, get_crc32_options,  # noqa: F401
                                      get_default_load_endianness, get_default_mmap_options,
                                      set_crc32_options, set_default_load_endianness,
                                      set_default_mmap_options)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals", "get_unsafe_globals_in_checkpoint", "save_safetensors",
           "load_safetensors", "skip_data", "DEFAULT_PROTOCOL", "register_package",
           "default_restore_location", "location_tag", "SourceChangeWarning"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # the legacy (pre-1.6) format's first pickled value
PROTOCOL_VERSION = 1001  # and its second

# the type aliases of torch's signatures here (pyro's param store imports MAP_LOCATION)
MAP_LOCATION = Callable[[UntypedStorage, str], UntypedStorage] | _device | str | \
    dict[str, str] | None
STORAGE = TypedStorage | UntypedStorage


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization=True, _disable_byteorder_record=False):
    """Save ``obj`` (tensors, state dicts, modules, ...) to ``f`` in PyTorch's zip format.

    Real ``torch.load`` reads the file. A path is written atomically: the checkpoint goes to a
    temporary file in the same directory that is renamed over ``f`` once complete, so an
    error, ``KeyboardInterrupt``, crash or kill part-way never leaves a half-written file (an
    existing one stays intact, and a replaced file keeps its permission bits).

    Durability against power loss is opt-in: with the environment variable
    ``NUMTORCH_SAVE_FSYNC=1`` the file's data is flushed to the disk (``fdatasync``) before
    the rename and the directory after it, so the new checkpoint survives a power cut once
    ``save`` returns. By default it is not, as with ``torch.save``: the flush roughly doubles
    the time of a large save (about 50 ms more per 100 MB on an SSD), and without it the
    rename still guarantees that the destination never holds a partial file after a process
    crash (after a power cut it may hold the previous checkpoint, or on some file systems be
    empty or partial, as a ``torch.save``-written file could be).

    Storages are written straight from the tensors' memory, and their CRC-32 checksums are
    computed on a helper thread while they are written; the blocks of a replaced file are
    freed on a helper thread too.

    Args:
        obj: the object to save; tensors inside keep dtype, shape, strides and shared memory.
        f (str, os.PathLike or file object): where to write (a binary writable file object;
            it need not be seekable).
        pickle_module: unused; numtorch always uses its own pickler (kept for torch's
            signature).
        pickle_protocol (int): pickle protocol of the ``data.pkl`` record. Default: 2.
        _use_new_zipfile_serialization (bool): False writes the legacy (pre-1.6) stream
            format instead of the zip archive, as torch does (torch reads both).
        _disable_byteorder_record (bool): unused, the byte order is always little-endian.
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")
    if skipping() and not _use_new_zipfile_serialization:
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")
    if isinstance(f, (str, os.PathLike)):
        with atomic_checkpoint(f) as fh:
            if _use_new_zipfile_serialization:
                _write_zip(obj, fh, _archive_name(os.fspath(f)), pickle_protocol)
            else:
                write_legacy(obj, fh, pickle_protocol)
        return
    if _use_new_zipfile_serialization:
        _write_zip(obj, f, "archive", pickle_protocol)
    else:
        write_legacy(obj, f, pickle_protocol)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by :func:`save` or by real ``torch.save``.

    Reads the zip format and the legacy (pre-1.6) format. bfloat16 tensors load as float32,
    with a warning, when ml_dtypes is not installed. Views that shared a storage when saved
    share memory again.

    Args:
        f (str, os.PathLike or file object): the checkpoint (a seekable binary file object).
        map_location: where storages go: None (where they were saved), a device or string
            (everything there), a dict mapping saved location strings to new ones, or a
            callable ``(storage, location) -> storage`` (it gets the bytes read as an
            untyped storage, as in torch; returning it, its ``cpu()``, ``cuda()`` or
            ``to(device)`` places the tensors, another storage replaces their bytes, and a
            device or string is taken as the place too).
        pickle_module: only decides the default of ``weights_only`` (False when given, as in
            torch; numtorch always uses its own unpicklers).
        weights_only (bool): if True (the default unless ``pickle_module`` is given), only
            tensors, containers, primitive types and globals allowed with
            :func:`add_safe_globals` may appear; anything else raises
            ``pickle.UnpicklingError`` without running it, and nothing but the loaded
            objects is changed. As in torch, ``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`` forces True
            even over ``weights_only=False``, ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1`` forces
            False where ``weights_only`` is not passed (with a warning), and setting both
            is an error (``NUMTORCH_FORCE_WEIGHTS_ONLY_LOAD`` and
            ``NUMTORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` are the same switches).
        mmap (bool): map the file into memory instead of reading the storages: their
            pages are read when first touched (see ``set_default_mmap_options``: with
            ``mmap.MAP_SHARED`` writes to the tensors reach the file). As in torch, it needs
            a zip checkpoint given by its path (else RuntimeError, or ValueError for a zip
            file object); compressed records and other byte orders are read as usual.
            None (the default): ``torch.utils.serialization.config.load.mmap`` decides.
        **pickle_load_args: the keywords torch's unpicklers take (``encoding``; also
            ``errors``, ``fix_imports`` and ``buffers`` with ``weights_only=False``) are
            accepted and ignored (text in pickles is always decoded as UTF-8); others are a
            TypeError, as in torch.

    Returns:
        The saved object.

    Raises:
        pickle.UnpicklingError: a disallowed global with ``weights_only=True``, or a corrupt
            pickle.
        RuntimeError: a truncated, corrupt or non-checkpoint file.
    """
    if mmap is None:  # torch.utils.serialization.config.load.mmap decides
        mmap = _options.load.mmap
    weights_only = resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if weights_only and pickle_load_args:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", UserWarning,
                      stacklevel=2)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            _check_pickle_args(fh, weights_only, pickle_load_args)
            mapping = None
            if mmap:
                check_mmap(fh, f)
                mapping = _map_file(f)
            return _load_file(fh, map_location, weights_only, mapping)
    if mmap and hasattr(f, "read") and hasattr(f, "seek"):
        check_mmap(f, None)
    _check_seekable(f)
    _check_pickle_args(f, weights_only, pickle_load_args)
    return _load_file(f, map_location, weights_only)


# what torch's unpicklers take from **pickle_load_args (its weights-only one: encoding only)
_UNPICKLER_ARGS = {"fix_imports", "encoding", "errors", "buffers"}


def _check_pickle_args(fh, weights_only, kwargs):
    """torch hands ``**pickle_load_args`` to its unpickler, which refuses the keywords it
    does not take: the TypeError of torch's weights-only unpickler or of pickle's, named by
    the format (zip files build an ``Unpickler``, legacy ones call ``load()``)."""
    allowed = {"encoding"} if weights_only else _UNPICKLER_ARGS
    bad = next((k for k in kwargs if k not in allowed), None)
    if bad is None:
        return
    start = fh.tell()
    zipped = fh.read(4) == b"PK\x03\x04"
    fh.seek(start)
    what = "Unpickler" if zipped else "load"
    if weights_only:
        raise TypeError(f"{what}{'.__init__' if zipped else ''}() got an unexpected keyword "
                        f"argument '{bad}'")
    raise TypeError(f"'{bad}' is an invalid keyword argument for {what}()")


def _map_file(path):
    """The checkpoint file mapped into memory as ``set_default_mmap_options`` says: a private
    copy-on-write mapping (writes stay in this process), or ``mmap.MAP_SHARED`` (writes to
    the loaded tensors reach the file, as in torch). The tensors keep the mapping alive."""
    shared = get_default_mmap_options() == getattr(_mmap, "MAP_SHARED", 1)
    with open(path, "r+b" if shared else "rb") as fh:
        return CheckpointMap(fh.fileno(), 0, access=_mmap.ACCESS_WRITE if shared
                             else _mmap.ACCESS_COPY)


def _check_seekable(f):
    """torch's test of a file object: ``seek(tell())``, its failure re-raised with a hint."""
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as e:
        if "seek" in str(e) or "tell" in str(e):
            raise type(e)(f"{e}. You can only torch.load from a file that is seekable. Please "
                          f"pre-load the data into a buffer like io.BytesIO and try to load "
                          f"from it instead.") from None
        raise


def get_unsafe_globals_in_checkpoint(f):
    """The globals in a checkpoint that ``load(weights_only=True)`` would refuse.

    Reads the pickle without building anything, so an untrusted file can be inspected before
    deciding what to pass to :func:`add_safe_globals`. Globals allowed by default or already
    added by the user are left out.

    Args:
        f (str, os.PathLike or file object): a zip-format checkpoint.

    Returns:
        list[str]: ``"module.name"`` strings, in the order the pickle names them.

    Raises:
        ValueError: ``f`` is not a zip-format checkpoint.
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return unsafe_globals_in(fh)
    return unsafe_globals_in(f)


# -- torch's module-level names programs reach for -------------------------------------------
MAP_PRIVATE = getattr(_mmap, "MAP_PRIVATE", 2)
MAP_SHARED = getattr(_mmap, "MAP_SHARED", 1)
IS_WINDOWS = sys.platform == "win32"
# the legacy format's recorded C type sizes, and the key separator of its storage views
LONG_SIZE, INT_SIZE, SHORT_SIZE = 4, 4, 2
STORAGE_KEY_SEPARATOR = ","
UNSAFE_MESSAGE = _WO_ADVICE
FileLike = str | os.PathLike | io.IOBase


def _is_zipfile(f):
    """Whether the stream ``f`` starts (at its position) with a zip member header; the
    position is left where it was."""
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def normalize_storage_type(storage_type):
    """torch's storage class of the same name as ``storage_type``."""
    import numtorch

    return getattr(numtorch, storage_type.__name__)


def storage_to_tensor_type(storage):
    """The legacy tensor type of ``storage``'s type (``FloatStorage`` -> ``FloatTensor``)."""
    module = sys.modules[type(storage).__module__]  # (torch's rule: the class's own module)
    return getattr(module, type(storage).__name__.replace("Storage", "Tensor"))


def _default_to_weights_only(pickle_module):
    """Whether ``load`` defaults to weights-only for this ``pickle_module`` (no module
    given)."""
    return pickle_module is None


def _get_restore_location(map_location):
    """``map_location`` as a function ``(storage, location) -> storage``, as ``load`` applies
    it (None, a dict, a device string or object, or a callable falling back to the default
    when it returns None)."""
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(
            storage, map_location.get(location, location))
    if isinstance(map_location, (str, bytes, _device)):
        where = str(map_location) if isinstance(map_location, _device) else map_location
        return lambda storage, location: default_restore_location(storage, where)

    def restore_location(storage, location):
        result = map_location(storage, location)
        return default_restore_location(storage, location) if result is None else result

    return restore_location
