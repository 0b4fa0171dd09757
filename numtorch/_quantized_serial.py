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

__all__ = ["_rebuild_qtensor", "qtensor_parts", "qtensor_reduce", "STORAGE_NAMES",
           "rebuild_pickled"]

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


def _params(a):
    """torch's ``quantizer_params`` tuple for QArray ``a``."""
    from ._quantized_scheme import per_channel_affine, per_tensor_affine
    from ._tensor import _make

    q = a.quantizer
    if not q.per_channel:
        return (per_tensor_affine, q.scale, q.zero_point)
    if q.float_qparams:  # (torch tags these per_channel_affine as well)
        return (per_channel_affine, _make(q.scales.copy()), _make(q.zero_points.copy()),
                q.axis)
    return (per_channel_affine, _make(q.scales.astype(np.float64)),
            _make(q.zero_points.astype(np.int64)), q.axis)


def _owner(arr):
    owner = arr
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    return owner


def qtensor_parts(t, owners=None):
    """``(flat storage array, owner, offset, size, stride, quantizer params)`` to write
    quantized tensor ``t`` as torch does. Whole-byte tensors viewing one contiguous block of
    integers (a qtensor and its slices, transposes, ...) refer to that block with their own
    offset and strides, so they share a storage as in torch; sub-byte tensors are packed."""
    a = t._array
    key = a.key
    ints = a.ints
    if key.bits >= 8:
        owner = _owner(ints)
        size = ints.itemsize
        if (owner.dtype == ints.dtype and owner.flags.c_contiguous
                and all(s % size == 0 for s in ints.strides) and ints.size):
            start = (ints.__array_interface__["data"][0]
                     - owner.__array_interface__["data"][0])
            lo = start + sum(s * (n - 1) for s, n in zip(ints.strides, ints.shape) if s < 0)
            if start % size == 0 and lo >= 0:
                return (owner.reshape(-1), owner, start // size, tuple(ints.shape),
                        tuple(s // size for s in ints.strides), _params(a))
        flat = np.ascontiguousarray(ints).reshape(-1)
    else:
        flat = pack_sub_byte(ints, key.bits)
    return flat, None, 0, tuple(a.shape), tuple(_contiguous_strides(a.shape)), _params(a)


def qtensor_reduce(pickler, t, storage_ref, rebuild):
    """The reduce tuple of quantized tensor ``t`` for the checkpoint writer ``pickler``
    (numtorch/_serialization/_write.py): ``rebuild`` (torch._utils._rebuild_qtensor) over a
    quantized storage, one per block of integers per checkpoint."""
    import collections

    cache = getattr(pickler, "_quantized_owners", None)
    if cache is None or cache[0] is not pickler.storages:  # a new checkpoint
        cache = (pickler.storages, {})
        pickler._quantized_owners = cache
    flat, owner, offset, size, stride, params = qtensor_parts(t)
    name = t.dtype.name
    entry = cache[1].get((id(owner), name)) if owner is not None else None
    if entry is None:
        ref = storage_ref(str(len(pickler.storages)), flat, name, "cpu")
        pickler.storages.append(ref)
        if owner is not None:
            cache[1][(id(owner), name)] = (ref, owner)  # (keeps the owner alive)
    else:
        ref = entry[0]
    return (rebuild, (ref, offset, size, stride, params, False, collections.OrderedDict()))


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
