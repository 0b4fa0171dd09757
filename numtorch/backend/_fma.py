"""``a + alpha * b`` with one rounding, as torch's CPU kernels compute it (a fused
multiply-add), for host (NumPy) arrays; device arrays and other dtypes get None and the
caller's two-step form."""

import numpy as np

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
    out = (a.astype(wide) + coef * b.astype(wide)).astype(a.dtype)
    if a.dtype.itemsize == 2:
        _half_tail(out, a, b, a.dtype.type(alpha))
    return out


def _half_tail(out, a, b, coef):
    """torch's 16-bit add/sub kernel: whole blocks of 32 values in float32 (as above), the
    last ``size % 32`` in 16-bit arithmetic, each operation rounded (found by experiment: bit
    for bit on both parts). Only for one plain loop over same-shape C-contiguous operands up
    to torch's parallel grain (other layouts and chunkings split the loop elsewhere)."""
    n = out.size
    tail = n % 32
    if tail and n <= 32768 and a.shape == b.shape == out.shape and a.flags.c_contiguous \
            and b.flags.c_contiguous and out.flags.c_contiguous:
        flat = out.reshape(-1)
        flat[n - tail:] = a.reshape(-1)[n - tail:] + b.reshape(-1)[n - tail:] * coef


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
