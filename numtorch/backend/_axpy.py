"""``y += alpha * x`` in place, rounded once, as torch's CPU kernels compute ``add_(x,
alpha=...)``, ``lerp_`` and the optimizers' updates (a fused multiply-add, vector loop and
tail alike).

SciPy's BLAS ``?axpy`` is that operation: its OpenBLAS kernels use the same fused
multiply-add (bit-identical to torch for float32 and float64 in every tail length measured,
1..69 and large), in one pass, at half the time of NumPy's multiply-then-add. Without SciPy
a wider host type stands in (``_fma.axpy_once``: float32 exactly through float64, float64
through long double nearly so); device arrays keep the two-step form."""

import numpy as np

from ._fma import _WIDER, axpy_once

_AXPY = {}  # dtype -> scipy's ?axpy, or None; filled on first use (importing it costs ~0.1 s)
_SBMV = {}  # the same for ?sbmv


def _blas(dtype):
    if not _AXPY:
        try:
            from scipy.linalg import blas
        except ImportError:  # pragma: no cover - SciPy is optional
            blas = None
        _AXPY[np.dtype(np.float32)] = getattr(blas, "saxpy", None)
        _AXPY[np.dtype(np.float64)] = getattr(blas, "daxpy", None)
        _SBMV[np.dtype(np.float64)] = getattr(blas, "dsbmv", None)
    return _AXPY.get(dtype)


def axpy(y, x, alpha):
    """``y += alpha * x`` rounded once, in place; ``x`` has ``y``'s shape and dtype."""
    if type(y) is not np.ndarray:
        y += alpha * x  # a device array: its library's own kernel
        return y
    fn = _blas(y.dtype)
    if fn is not None and y.flags.c_contiguous and x.flags.c_contiguous:
        flat = y.reshape(-1)
        out = fn(x.reshape(-1), flat, a=alpha)
        if out is not flat:  # pragma: no cover - f2py copied (never for contiguous y)
            flat[...] = out
        return y
    wide = _WIDER.get(y.dtype)
    if wide is None:
        y += y.dtype.type(alpha) * x
        return y
    y[...] = y.astype(wide) + wide(y.dtype.type(alpha)) * x.astype(wide)
    return y


def fma(y, u, x, work, work2):
    """``y = y + u * x`` (arrays of one shape and dtype) rounded once, in place, as torch's
    ``addcmul_``; ``work`` and ``work2`` are float64 buffers of ``y``'s size for float32 (the
    product of two float32 values is exact in float64, so the rounding to float32 is the one
    that matters), None for other dtypes. Only same-type passes and plain casting copies:
    a mixed-type ufunc would cast through NumPy's own (allocated) buffers, and run slower."""
    if type(y) is not np.ndarray:
        y += u * x
        return y
    if work is not None and y.dtype == np.float32:
        w, w2 = work.reshape(y.shape), work2.reshape(y.shape)
        np.copyto(w, u)
        np.copyto(w2, x)
        np.multiply(w, w2, out=w)
        np.copyto(w2, y)
        np.add(w, w2, out=w)
        np.copyto(y, w, casting="same_kind")
        return y
    sbmv = _SBMV.get(y.dtype) if _blas(y.dtype) is not None else None
    if sbmv is not None and y.flags.c_contiguous:
        # float64: a diagonal band product (BLAS ?sbmv with no off-diagonals) is exactly
        # ``y + (1 * u) * x`` with one fused multiply-add per value (bitwise torch's in every
        # case measured), slower than a pass of NumPy but exact where long double is not
        flat = y.reshape(-1)
        out = sbmv(0, 1.0, u.reshape(1, -1), x.reshape(-1), beta=1.0, y=flat, overwrite_y=1)
        if out is not flat:  # pragma: no cover
            flat[...] = out
        return y
    wide = _WIDER.get(y.dtype)
    if wide is None:
        y += u * x
        return y
    y[...] = y.astype(wide) + u.astype(wide) * x.astype(wide)
    return y


def add_scaled(a, b, alpha):
    """A new ``a + alpha * b``: rounded once where ``a`` and ``b`` are host arrays of one
    dtype and shape (``axpy``), through a wider type for mixed shapes, else NumPy's two
    roundings."""
    if type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape and \
            a.dtype == b.dtype:
        return axpy(a.copy(), b, alpha)
    out = axpy_once(a, b, alpha)
    return a + alpha * b if out is None else out
