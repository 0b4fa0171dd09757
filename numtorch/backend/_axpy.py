"""``y += alpha * x`` in place, rounded once, as torch's CPU kernels compute ``add_(x,
alpha=...)``, ``lerp_`` and the optimizers' updates (a fused multiply-add, vector loop and
tail alike).

SciPy's BLAS ``?axpy`` is that operation: its OpenBLAS kernels use the same fused
multiply-add (bit-identical to torch for float32 and float64 in every tail length measured,
1..69 and large), in one pass, at half the time of NumPy's multiply-then-add. Without SciPy
a wider host type stands in (``_fma.axpy_once``: float32 exactly through float64, float64
through long double nearly so); device arrays keep the two-step form."""

import numpy as np

from .._threads import single_blas_thread
from ._fma import _WIDER, axpy_once, fma_once

_THREADED_FROM = 1 << 13  # values from which OpenBLAS may run an axpy on several threads
_AXPY = {}  # dtype -> scipy's ?axpy, or None; filled on first use (importing it costs ~0.1 s)
_SBMV = {}  # "d" -> scipy's dsbmv, filled with _AXPY when SciPy has it


def _blas(dtype):
    if not _AXPY:
        try:
            from .._quiet_import import import_module

            blas = import_module("scipy.linalg.blas")
        except ImportError:  # pragma: no cover - SciPy is optional
            blas = None
        _AXPY[np.dtype(np.float32)] = getattr(blas, "saxpy", None)
        _AXPY[np.dtype(np.float64)] = getattr(blas, "daxpy", None)
        if getattr(blas, "dsbmv", None) is not None:
            _SBMV["d"] = blas.dsbmv
    return _AXPY.get(dtype)


def axpy(y, x, alpha):
    """``y += alpha * x`` rounded once, in place; ``x`` has ``y``'s shape and dtype."""
    if type(y) is not np.ndarray:
        y += alpha * x  # a device array: its library's own kernel
        return y
    fn = _AXPY.get(y.dtype) if _AXPY else _blas(y.dtype)
    if fn is not None and y.flags.c_contiguous and x.flags.c_contiguous and y.size:
        flat = y if y.ndim == 1 else y.reshape(-1)
        xs = x if x.ndim == 1 else x.reshape(-1)
        if flat.size >= _THREADED_FROM:
            # one BLAS thread: SciPy's OpenBLAS splits a long axpy over threads whose
            # hand-off costs more than the memory-bound pass (an SGD step of the MNIST conv
            # net, 1.2M values: 0.68 -> ~3.5 ms with two threads), and the optimizers already
            # split their parameters over the intra-op threads
            with single_blas_thread():
                out = fn(xs, flat, a=alpha)
        else:
            out = fn(xs, flat, a=alpha)
        if out is not flat:  # pragma: no cover - f2py copied (never for contiguous y)
            flat[...] = out
        return y
    wide = _WIDER.get(y.dtype)
    if wide is None:
        y += y.dtype.type(alpha) * x
        return y
    if y.dtype.itemsize == 2:  # float16/bfloat16: torch's block and tail roundings
        y[...] = axpy_once(y, x, alpha)
        return y
    y[...] = y.astype(wide) + wide(y.dtype.type(alpha)) * x.astype(wide)
    return y


def scale(y, c):
    """``y *= c`` in place as torch's ``mul_(c)``: a float16/bfloat16 host array is multiplied
    in float32 by ``c`` as a float32 (NumPy would round ``c`` to the 16-bit type first)."""
    if type(y) is np.ndarray and y.dtype.itemsize == 2 and y.dtype.kind != "i" and \
            y.dtype in _WIDER:
        y[...] = y.astype(np.float32) * np.float32(c)
        return y
    y *= c
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


def add_product(a, x, y):
    """A new ``a + x * y`` rounded once (torch's ``addcmul``, whose ``value`` is folded into
    ``x``) through a wider host type for host arrays of one dtype, else NumPy's two
    roundings. Costs float64 passes: for the per-parameter updates that allocate anyway."""
    if type(a) is np.ndarray and type(x) is np.ndarray and type(y) is np.ndarray and \
            a.dtype == x.dtype == y.dtype == np.float64 and a.shape == x.shape == y.shape:
        _blas(a.dtype)
        if _SBMV:
            # a band matrix of no off-diagonals times a vector, added to ``a``: exactly
            # ``a + (1 * x) * y`` with one fused multiply-add per value (bitwise torch's in
            # every case measured), where long double is only nearly so
            return _SBMV["d"](0, 1.0, x.reshape(1, -1), y.reshape(-1), beta=1.0,
                              y=a.reshape(-1).copy(), overwrite_y=1).reshape(a.shape)
    out = fma_once(a, x, y)
    return a + x * y if out is None else out
