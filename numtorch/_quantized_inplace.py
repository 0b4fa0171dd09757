"""In-place writes into quantized tensors: ``copy_``, ``fill_``, ``masked_fill_``, ``zero_``.

Values written into a quantized tensor are quantized with its own parameters; copying one
quantized tensor into another takes over the source's quantizer too (torch's ``copy_``).
"""

import numpy as np

from ._quantized_array import QArray, dequantize_array, not_supported

__all__ = ["copy_", "fill_", "zero_", "masked_fill_"]

_TO_FLOAT = ("Copying from quantized Tensor to non-quantized Tensor is not allowed, please use "
             "dequantize to get a float Tensor from a quantized Tensor")


_SAME_SHAPE = "Quantized copy only works with Tensors with the same shape"


def _bump(t):
    t._vc[0] += 1
    return t


def _values(value):
    """The float values of a number or tensor (quantized tensors dequantized)."""
    arr = getattr(value, "_array", value)
    if type(arr) is QArray:
        return dequantize_array(arr)
    if hasattr(arr, "get") and type(arr) is not np.ndarray:
        arr = arr.get()
    return np.asarray(arr, dtype=np.float32)


def copy_(self, src):
    """``self.copy_(src)`` when either side is quantized; False to let the caller handle
    other array types (CuPy)."""
    dst = self._array
    s = getattr(src, "_array", None)
    if type(dst) is not QArray:
        if type(s) is QArray:
            raise RuntimeError(_TO_FLOAT)
        return False
    if type(s) is QArray:
        if s.quantizer.per_channel != dst.quantizer.per_channel:
            raise RuntimeError("Quantized Copy only works with same qscheme")
        if s.qdtype is not dst.qdtype:
            raise RuntimeError(f"Quantized Copy only works with same dtype, got {dst.qdtype} "
                               f"and {s.qdtype}")
        if s.shape != dst.shape:
            raise RuntimeError(_SAME_SHAPE)
        dst.ints[...] = s.ints
        dst.quantizer = s.quantizer
        _bump(self)
        return True
    values = _values(src)
    if values.shape != dst.shape:
        raise RuntimeError(_SAME_SHAPE)
    dst[...] = values
    _bump(self)
    return True


def fill_(self, value):
    """Every element set to ``value`` quantized with the tensor's parameters."""
    if getattr(value, "_array", None) is not None and np.ndim(value._array) != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                           f"with {value.dim()} dimensions.")
    self._array[...] = _values(value)
    return _bump(self)


def zero_(self):
    """torch has no quantized ``zero_``: its NotImplementedError."""
    raise not_supported("zero_")


def masked_fill_(self, mask, value):
    """``value`` (quantized with the tensor's parameters) where the bool ``mask`` is True."""
    m = getattr(mask, "_array", mask)
    if getattr(m, "dtype", None) != np.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}")
    m = np.broadcast_to(m, self._array.shape)
    self._array[m] = _values(value)
    return _bump(self)
