"""The quantized-tensor methods of :class:`numtorch.Tensor` (``int_repr``, ``q_scale``, ...).

A mixin of ``Tensor``: it adds only names torch defines for quantized tensors, so ordinary
tensors pay nothing for it. On a tensor that is not quantized these methods raise torch's
NotImplementedError for the CPU backend, as torch does.
"""

import numpy as np

from . import _dtype
from ._dispatch_error import no_kernel
from ._quantized_array import QArray, dequantize_array
from ._quantized_scheme import (per_channel_affine, per_channel_affine_float_qparams,
                                per_tensor_affine)

__all__ = ["_TensorQuantized", "make_quantized", "wrap_qarray"]

_NOT_PER_TENSOR = ("Expected quantizer->qscheme() == kPerTensorAffine to be true, but got "
                   "false.  (Could this error message be improved?  If so, please report an "
                   "enhancement request to PyTorch.)")
_NOT_PER_CHANNEL = ("Expected quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() "
                    "== kPerChannelAffineFloatQParams to be true, but got false.  (Could this "
                    "error message be improved?  If so, please report an enhancement request "
                    "to PyTorch.)")


def wrap_qarray(qa):
    """A new Tensor around QArray ``qa`` (no autograd history)."""
    from ._tensor import _make

    return _make(qa)


def make_quantized(ints, qdtype, quantizer):
    """A quantized Tensor from an integer NumPy array, its dtype and its quantizer."""
    return wrap_qarray(QArray(ints, qdtype, quantizer))


def _qarray(t, op):
    a = t._array
    if type(a) is not QArray:
        raise no_kernel(op, "CPU")
    return a


def _float_tensor(arr, dtype=None):
    from ._tensor import _make

    return _make(arr if dtype is None else arr.astype(dtype))


def pack_sub_byte(ints, bits):
    """The bytes torch stores for a ``quint4x2``/``quint2x4`` array (first value in the low
    bits), ``ceil(n * bits / 8)`` of them for n values in row-major order."""
    per = 8 // bits
    flat = np.ascontiguousarray(ints).reshape(-1).astype(np.uint8)
    pad = (-flat.size) % per
    if pad:
        flat = np.concatenate([flat, np.zeros(pad, np.uint8)])
    groups = flat.reshape(-1, per)
    out = np.zeros(groups.shape[0], np.uint8)
    for i in range(per):
        out |= (groups[:, i] & ((1 << bits) - 1)) << (i * bits)
    return out


def unpack_sub_byte(packed, bits, numel):
    """The values of ``pack_sub_byte``'s bytes, ``numel`` of them."""
    per = 8 // bits
    packed = np.asarray(packed, dtype=np.uint8).reshape(-1)
    out = np.empty((packed.size, per), np.uint8)
    for i in range(per):
        out[:, i] = (packed >> (i * bits)) & ((1 << bits) - 1)
    return out.reshape(-1)[:numel]


class _TensorQuantized:
    """Tensor methods for quantized tensors (mixed into :class:`numtorch.Tensor`)."""

    __slots__ = ()

    @property
    def is_quantized(self):
        """True when the tensor holds quantized values (dtype ``quint8``, ``qint8``, ...)."""
        return type(self._array) is QArray

    def qscheme(self):
        """The quantization scheme: ``torch.per_tensor_affine``, ``per_channel_affine`` or
        ``per_channel_affine_float_qparams``."""
        q = _qarray(self, "qscheme").quantizer
        if not q.per_channel:
            return per_tensor_affine
        return per_channel_affine_float_qparams if q.float_qparams else per_channel_affine

    def q_scale(self):
        """The scale of a per-tensor quantized tensor, as a Python float."""
        q = _qarray(self, "q_scale").quantizer
        if q.per_channel:
            raise RuntimeError(_NOT_PER_TENSOR)
        return q.scale

    def q_zero_point(self):
        """The zero point of a per-tensor quantized tensor, as a Python int."""
        q = _qarray(self, "q_zero_point").quantizer
        if q.per_channel:
            raise RuntimeError(_NOT_PER_TENSOR)
        return q.zero_point

    def q_per_channel_scales(self):
        """The scales of a per-channel quantized tensor (float64; float32 with float qparams).
        """
        q = _qarray(self, "q_per_channel_scales").quantizer
        if not q.per_channel:
            raise RuntimeError(_NOT_PER_CHANNEL)
        return _float_tensor(q.scales.copy())

    def q_per_channel_zero_points(self):
        """The zero points of a per-channel quantized tensor (int64; float with float
        qparams)."""
        q = _qarray(self, "q_per_channel_zero_points").quantizer
        if not q.per_channel:
            raise RuntimeError(_NOT_PER_CHANNEL)
        return _float_tensor(q.zero_points.copy())

    def q_per_channel_axis(self):
        """The channel dim of a per-channel quantized tensor."""
        q = _qarray(self, "q_per_channel_axis").quantizer
        if not q.per_channel:
            raise RuntimeError(_NOT_PER_CHANNEL)
        return q.axis

    def int_repr(self):
        """The stored integers as a new tensor: uint8 for quint8, int8 for qint8, int32 for
        qint32; the packed bytes for ``quint4x2``/``quint2x4`` (as torch stores them)."""
        a = _qarray(self, "int_repr")
        bits = a.key.bits
        if bits < 8:
            return _float_tensor(pack_sub_byte(a.ints, bits))
        return _float_tensor(np.array(a.ints, order="K", copy=True))

    def dequantize(self):
        """The float32 values ``scale * (q - zero_point)``; a float32 tensor is returned as
        is, any other one converted to float32 (as torch does)."""
        a = self._array
        if type(a) is not QArray:
            return self if self.dtype is _dtype.float32 else self.float()
        return _float_tensor(dequantize_array(a))


def is_quantized_dtype(dt):
    """Whether ``dt`` is one of the quantized dtypes."""
    return dt._category == _dtype._QUANT
