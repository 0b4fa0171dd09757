"""``.safetensors`` files, read and written without the ``safetensors`` package."""

import json
import os
import struct

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _new_like_class
from ._common import _BF16, _BF16_BITS, _NP, _bf16_from_bits
from ._write import atomic_checkpoint


_ST_CODE = {"float16": "F16", "float32": "F32", "float64": "F64", "int8": "I8",
            "int16": "I16", "int32": "I32", "int64": "I64", "uint8": "U8", "bool": "BOOL",
            "complex64": "C64", "bfloat16": "BF16"}
_ST_DTYPE = {v: k for k, v in _ST_CODE.items()}


def save_safetensors(tensors, path, metadata=None):
    """Write a dict of tensors to a ``.safetensors`` file (no ``safetensors`` package needed).

    Args:
        tensors (dict[str, Tensor]): the tensors (saved contiguous; sharing is not kept).
        path (str or os.PathLike): the file, written atomically.
        metadata (dict[str, str], optional): stored as the header's ``__metadata__``.

    Raises:
        TypeError: a value is not a tensor or metadata is not str -> str.
        ValueError: a dtype safetensors cannot store (complex128).
    """
    header, chunks, pos = {}, [], 0
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("save_safetensors: metadata must map str to str")
        header["__metadata__"] = dict(metadata)
    for name in sorted(tensors):
        t = tensors[name]
        if not isinstance(t, Tensor):
            raise TypeError(f"save_safetensors: expected a Tensor for key {name!r}, got "
                            f"{type(t).__name__}")
        code = _ST_CODE.get(t.dtype.name)
        if code is None:
            raise ValueError(f"save_safetensors: dtype {t.dtype} of {name!r} has no "
                             f"safetensors code")
        # (ascontiguousarray turns a 0-d array into a 1-d one: the shape is put back)
        arr = np.ascontiguousarray(t.detach().cpu()._array).astype(
            _NP[t.dtype.name], copy=False).reshape(tuple(t.shape))
        data = arr.reshape(-1).view(np.uint8).tobytes()
        header[name] = {"dtype": code, "shape": list(arr.shape),
                        "data_offsets": [pos, pos + len(data)]}
        chunks.append(data)
        pos += len(data)
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)  # the spec pads the header with spaces to 8 bytes
    blob = struct.pack("<Q", len(head)) + head + b"".join(chunks)
    with atomic_checkpoint(path) as fh:
        fh.write(blob)


_HEADER_LIMIT = 100_000_000  # the format caps the JSON header at 100 MB
_ENTRY_KEYS = ("dtype", "shape", "data_offsets")


def _bad(message):
    return RuntimeError(f"load_safetensors: {message}")


def _unique_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _bad(f"the header names {k!r} twice")
        out[k] = v
    return out


def _is_size(x):
    return type(x) is int and x >= 0


def _read_header(fh, file_size):
    """The parsed JSON header and the offset where the data section starts."""
    head = fh.read(8)
    if len(head) < 8:
        raise _bad(f"file of {len(head)} bytes is too short for the 8-byte header length")
    n = struct.unpack("<Q", head)[0]
    if n > _HEADER_LIMIT:
        raise _bad(f"header of {n} bytes is larger than the format allows ({_HEADER_LIMIT})")
    if 8 + n > file_size:
        raise _bad(f"header length {n} exceeds the file size {file_size} (truncated file)")
    raw = fh.read(n)
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
    except UnicodeDecodeError:
        raise _bad("the header is not valid UTF-8") from None
    except json.JSONDecodeError as e:
        raise _bad(f"the header is not valid JSON ({e})") from None
    except RecursionError:
        raise _bad("the header nests JSON values too deeply") from None
    if not isinstance(header, dict):
        raise _bad(f"the header must be a JSON object, got a JSON {type(header).__name__}")
    return header, 8 + n


def _parse_entries(header, data_size):
    """``[(name, dtype name, shape, begin, end)]`` in data order, checked as the format
    requires: known dtypes, non-negative integer dims, offsets matching shape x dtype (Python
    integers, so no product can wrap), and tensors tiling the data section without gaps or
    overlaps."""
    meta = header.pop("__metadata__", None)
    if meta is not None and not (isinstance(meta, dict) and all(
            isinstance(v, str) for v in meta.values())):
        raise _bad("__metadata__ must map strings to strings")
    entries = []
    for name, info in header.items():
        if not isinstance(info, dict) or any(k not in info for k in _ENTRY_KEYS):
            raise _bad(f"bad header entry for {name!r}: {info!r:.200}")
        code, shape, offsets = (info[k] for k in _ENTRY_KEYS)
        dtype_name = _ST_DTYPE.get(code) if isinstance(code, str) else None
        if dtype_name is None:
            raise _bad(f"unsupported dtype {code!r:.40} for {name!r}")
        if not isinstance(shape, list) or not all(_is_size(d) for d in shape):
            raise _bad(f"the shape of {name!r} must be a list of non-negative integers, got "
                       f"{shape!r:.200}")
        if not (isinstance(offsets, list) and len(offsets) == 2
                and all(_is_size(x) for x in offsets)):
            raise _bad(f"data_offsets of {name!r} must be two non-negative integers, got "
                       f"{offsets!r:.200}")
        count = 1
        for d in shape:
            count *= d
        itemsize = (_NP[dtype_name] if dtype_name != _BF16 else _BF16_BITS).itemsize
        begin, end = offsets
        if end - begin != count * itemsize:
            raise _bad(f"data_offsets {offsets} of {name!r} do not match shape {shape} and "
                       f"dtype {code} ({count * itemsize} bytes)")
        entries.append((name, dtype_name, tuple(shape), begin, end))
    pos = 0
    for name, _, _, begin, end in sorted(entries, key=lambda e: (e[3], e[4])):
        if begin != pos:
            raise _bad(f"invalid offsets for {name!r}: the tensors must cover the data section "
                       f"in order without gaps or overlaps (expected it to start at {pos}, "
                       f"got {begin})")
        pos = end
    if pos != data_size:
        raise _bad(f"the tensors cover {pos} bytes of a data section of {data_size} bytes")
    return entries, meta  # (in header order)


def load_safetensors(path, return_metadata=False):
    """Read a ``.safetensors`` file into a dict of tensors.

    The file is checked as the format requires before anything is allocated (header at most
    100 MB, a JSON object, string-to-string ``__metadata__``, known dtypes, sizes matching
    their offsets, tensors covering the data without gaps or overlaps), and each tensor is
    read straight into its array. BF16 entries load as ``bfloat16`` when the optional
    ml_dtypes package is installed, and as float32 (with a warning) otherwise.

    Args:
        path (str or os.PathLike): the file.
        return_metadata (bool): also return the header's ``__metadata__`` (or None).

    Returns:
        dict[str, Tensor], or ``(tensors, metadata)`` when ``return_metadata`` is True.

    Raises:
        RuntimeError: a truncated or malformed file.
    """
    with open(path, "rb") as fh:
        file_size = os.fstat(fh.fileno()).st_size
        header, start = _read_header(fh, file_size)
        entries, meta = _parse_entries(header, file_size - start)
        out = {}
        for name, dtype_name, shape, begin, end in sorted(entries, key=lambda e: e[3:]):
            raw = np.empty(end - begin, dtype=np.uint8)
            if fh.readinto(raw) != raw.size:
                raise _bad(f"the data of {name!r} is truncated")
            if dtype_name == _BF16:
                arr = _bf16_from_bits(raw.view(_BF16_BITS))
            else:
                arr = raw.view(_NP[dtype_name])
                native = np.dtype(_dtype._BY_NAME[dtype_name].np)
                if arr.dtype != native:
                    arr = arr.astype(native)
            out[name] = _new_like_class(Tensor, arr.reshape(shape))
    out = {e[0]: out[e[0]] for e in entries}
    return (out, meta) if return_metadata else out
