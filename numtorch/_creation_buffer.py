"""``frombuffer``: a tensor over the memory of any object with the buffer protocol."""

import warnings

import numpy as np

from . import _dtype
from ._tensor import _factory_requires_grad, _make

__all__ = ["frombuffer"]

_READONLY_WARNED = []


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of ``buffer`` (``bytes``, ``bytearray``,
    ``array.array``, ``memoryview``, ...), read as ``count`` elements of ``dtype`` from byte
    ``offset`` (all remaining elements when ``count`` is negative).

    Writes through the tensor change the buffer and the other way round. A read-only buffer
    (``bytes``) gives a read-only tensor, after torch's warning.

    Example:
        >>> torch.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=torch.int16)
        tensor([1, 2], dtype=torch.int16)
    """
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    n = view.nbytes
    if not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    np_dt = dtype.np
    item = np_dt.itemsize
    if n == 0 or count == 0:
        raise ValueError(f"both buffer length ({n}) and count ({count}) must not be 0")
    if offset < 0 or offset >= n:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({n} bytes) minus 1")
    if count < 0:
        if (n - offset) % item:
            raise ValueError(f"buffer length ({n - offset} bytes) after offset ({offset} bytes) "
                             f"must be a multiple of element size ({item})")
        count = (n - offset) // item
    elif offset + count * item > n:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({n} bytes)")
    if view.readonly and not _READONLY_WARNED:
        _READONLY_WARNED.append(True)
        warnings.warn("The given buffer is not writable: the tensor is read-only here (torch "
                      "would let writes through to the buffer). Copy the buffer, or make it "
                      "writable, before converting it to a tensor.", UserWarning, stacklevel=2)
    arr = np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view,
                        dtype=np_dt, count=count, offset=offset)
    t = _make(arr)
    if requires_grad:
        _factory_requires_grad(t)
    return t
