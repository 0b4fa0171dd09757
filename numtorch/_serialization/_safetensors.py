"""``.safetensors`` files, read and written without the ``safetensors`` package."""

import json
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
        arr = np.ascontiguousarray(t.detach().numpy(force=True)).astype(
            _NP[t.dtype.name], copy=False)
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


def load_safetensors(path, return_metadata=False):
    """Read a ``.safetensors`` file into a dict of tensors.

    BF16 entries load as ``bfloat16`` when the optional ml_dtypes package is installed, and
    as float32 (with a warning) otherwise.

    Args:
        path (str or os.PathLike): the file.
        return_metadata (bool): also return the header's ``__metadata__`` (or None).

    Returns:
        dict[str, Tensor], or ``(tensors, metadata)`` when ``return_metadata`` is True.

    Raises:
        RuntimeError: a truncated or malformed file.
    """
    with open(path, "rb") as fh:
        blob = fh.read()
    if len(blob) < 8:
        raise RuntimeError(f"load_safetensors: file of {len(blob)} bytes is too short for "
                           f"the 8-byte header length")
    n = struct.unpack("<Q", blob[:8])[0]
    if 8 + n > len(blob):
        raise RuntimeError(f"load_safetensors: header length {n} exceeds the file size "
                           f"{len(blob)} (truncated file)")
    try:
        header = json.loads(blob[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RuntimeError(f"load_safetensors: the header is not valid JSON ({e})") from None
    body = memoryview(blob)[8 + n:]
    meta = header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        try:
            dtype_name = _ST_DTYPE[info["dtype"]]
            shape = tuple(int(s) for s in info["shape"])
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise RuntimeError(f"load_safetensors: bad header entry for {name!r}: "
                               f"{info!r}") from None
        npdt = _NP[dtype_name] if dtype_name != _BF16 else _BF16_BITS
        count = int(np.prod(shape, dtype=np.int64))
        if not 0 <= begin <= end <= len(body) or end - begin != count * npdt.itemsize:
            raise RuntimeError(f"load_safetensors: data_offsets {[begin, end]} of {name!r} "
                               f"do not match shape {list(shape)} and dtype {info['dtype']} "
                               f"within a data section of {len(body)} bytes")
        arr = np.frombuffer(body[begin:end], dtype=npdt, count=count)
        if dtype_name == _BF16:
            arr = _bf16_from_bits(arr)
        else:
            arr = arr.astype(np.dtype(_dtype._BY_NAME[dtype_name].np), copy=True)
        out[name] = _new_like_class(Tensor, arr.reshape(shape))
    return (out, meta) if return_metadata else out
