"""``a + alpha * b`` with one rounding, as torch's CPU kernels compute it (a fused
multiply-add), for host (NumPy) arrays; device arrays and other dtypes get None and the
caller's two-step form."""

import numpy as np

_WIDER = {np.dtype(np.float32): np.float64}
if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant:  # x86's 80-bit long double
    _WIDER[np.dtype(np.float64)] = np.longdouble


def axpy_once(a, b, alpha):
    """``a + alpha * b`` rounded once, as torch's CPU kernels compute it (a fused multiply-add):
    float32 through float64, float64 through long double where it is wider (the product of two
    operands is then exact or nearly so); None where no wider type helps."""
    if type(a) is not np.ndarray:
        return None
    if type(b) is not np.ndarray:
        if not isinstance(b, (float, int, np.floating)) or isinstance(b, bool):
            return None
        b = np.asarray(b, dtype=a.dtype)  # a number joins in the op's precision, as in torch
    if a.dtype != b.dtype:
        return None
    wide = _WIDER.get(a.dtype)
    if wide is None or isinstance(alpha, (bool, complex)):
        return None
    coef = wide(a.dtype.type(alpha))  # torch holds alpha in the op's own precision
    return (a.astype(wide) + coef * b.astype(wide)).astype(a.dtype)


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
