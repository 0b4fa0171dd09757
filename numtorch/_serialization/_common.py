"""Tables shared by the checkpoint writer and readers, and an atomic file writer."""

import contextlib
import os
import tempfile

import numpy as np

from .. import _dtype

_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001
_ALIGN = 64

# torch's storage class name for each dtype (bfloat16 is read only, as float32)
_STORAGE_NAME = {
    "float16": "HalfStorage", "float32": "FloatStorage", "float64": "DoubleStorage",
    "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage",
    "int8": "CharStorage", "int16": "ShortStorage", "int32": "IntStorage",
    "int64": "LongStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
}
_BF16 = "bfloat16"
_STORAGE_DTYPE = {v: k for k, v in _STORAGE_NAME.items()}
_STORAGE_DTYPE["BFloat16Storage"] = _BF16
_STORAGE_DTYPE["UntypedStorage"] = "uint8"
_NP = {name: np.dtype(_dtype._BY_NAME[name].np).newbyteorder("<") for name in _STORAGE_NAME}
_NP[_BF16] = np.dtype("<u2")


def _bf16_to_f32(raw):
    """Widen raw bfloat16 bits (uint16) to float32: bfloat16 is float32's upper half."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


@contextlib.contextmanager
def atomic_open(path):
    """Open a temporary file next to ``path``; on success flush, fsync and rename it over
    ``path``, on any error delete it, so ``path`` is never left half-written."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
