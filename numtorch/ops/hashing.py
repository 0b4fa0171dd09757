"""``torch.hash_tensor``: an order-independent 64-bit fingerprint of a tensor's values.

Mode 0 (the only one torch has): every element is widened to its 64-bit kind (floats to
float64, integers and bools to int64), its bits are read as an unsigned 64-bit integer, and
those are combined with xor, over all elements or over ``dim``. One NumPy ``bitwise_xor``
reduction; no gradient (the result is an integer tensor).
"""

import numpy as np

from .. import _dtype, backend
from .._tensor import _make
from ._util import canonical_dims

__all__ = ["hash_tensor"]

_UNSUPPORTED = ("uint16", "uint32", "uint64")


def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    """xor of the 64-bit patterns of ``input``'s elements (over ``dim``, or all of them).

    Returns:
        Tensor: ``torch.uint64``.

    Example:
        >>> torch.hash_tensor(torch.tensor([1, 2, 3]))
        tensor(0, dtype=torch.uint64)
    """
    dt = input.dtype
    if dt.is_complex or dt.name in _UNSUPPORTED:
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for "
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    arr = input.detach()._array
    xp = backend.xp_of(arr)
    if dim is None and arr.size == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    dims = canonical_dims(dim, arr.ndim)
    for d in dims:
        if arr.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    wide = arr.astype(np.float64 if dt.is_floating_point else np.int64)
    bits = wide.view(np.uint64)
    out = xp.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim) if dims else bits.copy()
    return _make(xp.asarray(out, dtype=np.uint64))
