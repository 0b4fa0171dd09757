"""Quantized tensors in checkpoints and pickles, in torch's format both ways.

torch pickles a quantized tensor as ``torch._utils._rebuild_qtensor(storage, offset, size,
stride, quantizer_params, requires_grad, backward_hooks)``: the storage holds the integers
(``QUInt8Storage`` and friends; two 4-bit values per byte for ``quint4x2``, four 2-bit values
for ``quint2x4``), and ``quantizer_params`` is ``(torch.per_tensor_affine, scale,
zero_point)`` or ``(per_channel_affine[_float_qparams], scales, zero_points, axis)``.
"""

import numpy as np

from . import _dtype
from ._quantized_array import PerChannel, PerTensor, QArray
from ._quantized_tensor import make_quantized, pack_sub_byte, unpack_sub_byte

__all__ = ["_rebuild_qtensor", "qtensor_parts", "STORAGE_NAMES", "rebuild_pickled"]

STORAGE_NAMES = {"quint8": "QUInt8Storage", "qint8": "QInt8Storage",
                 "qint32": "QInt32Storage", "quint4x2": "QUInt4x2Storage",
                 "quint2x4": "QUInt2x4Storage"}


def _load_error(cls, message):
    from ._serialization._common import load_error

    return load_error(cls, message)


def _quantizer(params, qdtype):
    from ._quantized_scheme import (per_channel_affine, per_channel_affine_float_qparams,
                                    per_tensor_affine)

    if not isinstance(params, tuple) or not params:
        raise _load_error(RuntimeError, "load: _rebuild_qtensor expects a quantizer tuple")
    scheme = params[0]
    if scheme is per_tensor_affine and len(params) == 3:
        return PerTensor(float(params[1]), int(params[2]))
    if scheme in (per_channel_affine, per_channel_affine_float_qparams) and len(params) == 4:
        scales, zps, axis = params[1], params[2], params[3]
        s = np.asarray(scales._array if hasattr(scales, "_array") else scales)
        z = np.asarray(zps._array if hasattr(zps, "_array") else zps)
        # torch writes float-qparams tensors as per_channel_affine too: the zero points'
        # dtype tells them apart
        if scheme is per_channel_affine_float_qparams or z.dtype.kind == "f":
            return PerChannel(s.astype(np.float32).reshape(-1), z.astype(np.float32).reshape(-1),
                              int(axis), True)
        return PerChannel(s.astype(np.float64).reshape(-1), z.astype(np.int64).reshape(-1),
                          int(axis))
    raise _load_error(RuntimeError, f"load: unsupported quantizer {scheme!r} in a checkpoint")


def _rebuild_qtensor(storage, storage_offset, size, tensor_stride, quantizer_params,
                     requires_grad, backward_hooks):
    """A quantized tensor from a checkpoint (the function torch's pickles name)."""
    from ._serialization._rebuild import _check_geometry, _storage_parts

    array, _dev = _storage_parts(storage, "_rebuild_qtensor")
    names = array.dtype.names  # the reader tags quantized storages (_serialization/_common)
    if not names or names[0] not in STORAGE_NAMES:
        raise _load_error(RuntimeError, "load: _rebuild_qtensor expects a quantized storage "
                                        "(QUInt8Storage, QInt8Storage, ...)")
    qdtype = _dtype._BY_NAME[names[0]]
    key = qdtype.np
    quantizer = _quantizer(quantizer_params, qdtype)
    if key.bits < 8:
        numel = int(np.prod(size)) if len(size) else 1
        values = unpack_sub_byte(array.view(np.uint8)[storage_offset:], key.bits, numel)
        ints = values.reshape(tuple(size))
    else:
        raw = array.view(array.dtype[0])
        if not raw.dtype.isnative:
            raw = raw.astype(key.storage)
        shape, strides, offset, numel = _check_geometry(size, tensor_stride, storage_offset,
                                                        raw.size, key.storage.itemsize)
        if numel == 0:
            ints = np.empty(shape, dtype=key.storage)
        else:
            ints = np.ndarray(shape, dtype=key.storage, buffer=raw,
                              offset=offset * key.storage.itemsize,
                              strides=tuple(s * key.storage.itemsize for s in strides))
    if requires_grad:
        raise _load_error(RuntimeError, "only Tensors of floating point dtype can require "
                                        "gradients")
    return make_quantized(ints, qdtype, quantizer)


def qtensor_parts(t):
    """``(flat storage array, storage name, offset, size, stride, quantizer params)`` to
    write quantized tensor ``t`` as torch does."""
    from ._quantized_scheme import per_channel_affine, per_tensor_affine
    from ._tensor import _make

    a = t._array
    key = a.key
    if key.bits < 8:
        flat = pack_sub_byte(a.ints, key.bits)
        stride = tuple(_contiguous_strides(a.shape))
    else:
        flat = np.ascontiguousarray(a.ints).reshape(-1)
        stride = tuple(_contiguous_strides(a.shape))
    q = a.quantizer
    if not q.per_channel:
        params = (per_tensor_affine, q.scale, q.zero_point)
    elif q.float_qparams:  # (torch tags these per_channel_affine as well)
        params = (per_channel_affine, _make(q.scales.copy()), _make(q.zero_points.copy()),
                  q.axis)
    else:
        params = (per_channel_affine, _make(q.scales.astype(np.float64)),
                  _make(q.zero_points.astype(np.int64)), q.axis)
    return flat, STORAGE_NAMES[a.qdtype.name], 0, tuple(a.shape), stride, params


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return list(reversed(strides))


def rebuild_pickled(qarray, requires_grad=False):
    """A quantized tensor from a plain pickle (``pickle.dumps(q)``, ``copy.copy``)."""
    if type(qarray) is not QArray:
        raise RuntimeError("expected the array of a quantized tensor")
    return make_quantized(np.array(qarray.ints, copy=True), qarray.qdtype, qarray.quantizer)
