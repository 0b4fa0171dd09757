"""Tables shared by the checkpoint writer and readers (dtypes, storage names, bfloat16)."""

import warnings

import numpy as np

from .. import _dtype

_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001
_ALIGN = 64

# torch's storage class name for each dtype
_STORAGE_NAME = {
    "float16": "HalfStorage", "float32": "FloatStorage", "float64": "DoubleStorage",
    "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage",
    "int8": "CharStorage", "int16": "ShortStorage", "int32": "IntStorage",
    "int64": "LongStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
    "bfloat16": "BFloat16Storage",
}
_BF16 = "bfloat16"
_STORAGE_DTYPE = {v: k for k, v in _STORAGE_NAME.items()}
_STORAGE_DTYPE["UntypedStorage"] = "uint8"
# the NumPy dtype a storage is held in (little-endian, the byte order written); bfloat16 is
# ml_dtypes' type when installed and its raw bits otherwise (read through _bf16_from_bits)
_NP = {name: np.dtype(_dtype._BY_NAME[name].np).newbyteorder("<") for name in _STORAGE_NAME
       if name != _BF16}
_BF16_BITS = np.dtype("<u2")
_NP[_BF16] = _dtype.bfloat16.np if _dtype._BF16_AVAILABLE else _BF16_BITS
_NATIVE = {name: np.dtype(_dtype._BY_NAME[name].np) for name in _STORAGE_NAME if name != _BF16}
# quantized storages hold integers, read into a one-field record named after the quantized
# dtype so that _rebuild_qtensor knows which it is (numtorch/_quantized_serial.py)
for _q, _storage in (("quint8", "QUInt8Storage"), ("qint8", "QInt8Storage"),
                     ("qint32", "QInt32Storage"), ("quint4x2", "QUInt4x2Storage"),
                     ("quint2x4", "QUInt2x4Storage")):
    _STORAGE_NAME[_q], _STORAGE_DTYPE[_storage] = _storage, _q
    _NATIVE[_q] = np.dtype([(_q, _dtype._BY_NAME[_q].np.storage)])
    _NP[_q] = np.dtype([(_q, _dtype._BY_NAME[_q].np.storage.newbyteorder("<"))])
del _q, _storage


def _native_np(name):
    """The native NumPy dtype a storage loads as, or None for bfloat16 without ml_dtypes
    (read at call time, so tests can switch bfloat16 support off)."""
    if name == _BF16:
        return _dtype.bfloat16.np if _dtype._BF16_AVAILABLE else None
    return _NATIVE[name]


def _bf16_from_bits(raw):
    """A private array of bfloat16 values from their raw bits (a uint16 array of any byte
    order): numtorch.bfloat16 with ml_dtypes, otherwise widened to float32 with a warning."""
    if _dtype._BF16_AVAILABLE:
        return raw.astype(np.uint16, copy=True).view(_dtype.bfloat16.np)
    warnings.warn("bfloat16 tensors are loaded as float32 because the optional package "
                  "ml_dtypes is not installed (pip install numtorch[bfloat16])",
                  RuntimeWarning, stacklevel=3)
    return _bf16_to_f32(raw)


def _bf16_to_f32(raw):
    """Widen raw bfloat16 bits (uint16) to float32: bfloat16 is float32's upper half."""
    return (raw.astype(np.uint32) << 16).view(np.float32)


def load_error(cls, message):
    """An exception of class ``cls`` raised on purpose while loading: the loader passes it on
    as it is instead of reporting it as a corrupt file."""
    exc = cls(message)
    exc._numtorch_load_error = True
    return exc


def is_load_error(exc):
    """Whether ``exc`` came from :func:`load_error`."""
    return getattr(exc, "_numtorch_load_error", False)
