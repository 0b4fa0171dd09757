"""``a + alpha * b`` with one rounding, as torch's CPU kernels compute it (a fused
multiply-add), for host (NumPy) arrays; device arrays and other dtypes get None and the
caller's two-step form."""

import numpy as np

from ._layout_rank import torch_order

_WIDER = {np.dtype(np.float32): np.float64,
          # float16/bfloat16: torch's kernels compute in float32 (a product of two 16-bit
          # values is exact there) and round once to the 16-bit type
          np.dtype(np.float16): np.float32}
try:
    import ml_dtypes

    _WIDER[np.dtype(ml_dtypes.bfloat16)] = np.float32
except ImportError:  # (bfloat16 tensors need ml_dtypes)
    pass
if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant:  # x86's 80-bit long double
    _WIDER[np.dtype(np.float64)] = np.longdouble


def axpy_once(a, b, alpha, tail=True):
    """``a + alpha * b`` rounded once, as torch's CPU kernels compute it (a fused multiply-add):
    float32 through float64, float64 through long double where it is wider (the product of two
    operands is then exact or nearly so); None where no wider type helps. ``tail=False``: no
    16-bit tail (``_half_tail``), for a part of an array too large to have one."""
    if type(a) is not np.ndarray:
        return None
    number = type(b) is not np.ndarray
    if number:
        if not (isinstance(b, (float, int, np.floating)) or (  # (ml_dtypes' bfloat16 is
                isinstance(b, np.generic) and b.dtype == a.dtype)) or isinstance(b, bool):
            return None  # not an np.floating)
        b = np.asarray(b, dtype=a.dtype)  # a number joins in the op's precision, as in torch
    if a.dtype != b.dtype:
        return None
    wide = _WIDER.get(a.dtype)
    if wide is None or isinstance(alpha, (bool, complex)):
        return None
    coef = wide(a.dtype.type(alpha))  # torch holds alpha in the op's own precision
    out = (a.astype(wide) + coef * b.astype(wide)).astype(a.dtype)
    if a.dtype.itemsize == 2 and tail:
        out = np.asarray(out)  # (a 0-d operation gives NumPy a scalar)
        _half_tail(out, a, b, a.dtype.type(alpha))
    return out


def _half_tail(out, a, b, coef):
    """torch's 16-bit add/sub-with-alpha kernel: each inner loop of contiguous operands (one
    of them may be broadcast along it) runs whole blocks of 32 values in float32 (as above)
    and its last ``size % 32`` values in 16-bit arithmetic, each operation rounded; an inner
    loop with a strided operand runs wholly in 16-bit arithmetic (found by experiment: bit
    for bit on every part). Only up to torch's parallel grain (larger ones are split in
    chunks whose bounds depend on the thread count)."""
    if out.size > 32768 or not out.size:
        return
    mask = _half_scalar_mask(out.shape, a, b)
    if mask is not None:
        sixteen = a + b * coef
        np.copyto(out, np.broadcast_to(sixteen, out.shape), where=mask)


def _half_scalar_mask(shape, a, b):
    """The positions (of the broadcast result) that torch's CPU loops compute with the
    scalar 16-bit operation: the last ``n % 32`` of each vectorised inner loop of ``n``
    values, or all of an inner loop that is not vectorised; None for none."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return np.ones(shape, dtype=bool)
    strides = [[s // x.itemsize for s in np.broadcast_to(x, shape).strides] for x in (a, b)]
    # the dims (size-1 ones left out) innermost first, as TensorIterator orders them
    order = torch_order([shape[d] for d in dims], [[st[d] for d in dims] for st in strides])
    perm = [dims[i] for i in order]
    group = [perm[0]]
    size = shape[perm[0]]
    for d in perm[1:]:  # coalesce the inner loop with the dims it continues
        if all(st[d] == st[group[-1]] * shape[group[-1]] for st in strides):
            group.append(d)
            size *= shape[d]
        else:
            break
    inner = [st[perm[0]] for st in strides]
    vector = all(s in (0, 1) for s in inner) and inner.count(0) <= 1
    if not vector:
        return np.ones(shape, dtype=bool)
    start = size - size % 32
    if start == size:
        return None
    pos = np.zeros(shape, dtype=np.int64)
    step = 1
    for d in group:
        idx = np.arange(shape[d]).reshape([-1 if e == d else 1 for e in range(len(shape))])
        pos = pos + idx * step
        step *= shape[d]
    return pos >= start


def fma_once(a, x, y):
    """``a + x * y`` (arrays of one dtype, broadcast) rounded once, as torch's CPU kernels
    compute lerp and addcmul; None for device arrays, mixed dtypes or a dtype with no wider
    host type."""
    if type(a) is not np.ndarray or type(x) is not np.ndarray or type(y) is not np.ndarray:
        return None
    if not a.dtype == x.dtype == y.dtype:
        return None
    wide = _WIDER.get(a.dtype)
    if wide is None:
        return None
    return (a.astype(wide) + x.astype(wide) * y.astype(wide)).astype(a.dtype)
