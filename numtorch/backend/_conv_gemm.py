"""GEMMs on row windows of one buffer, for space-to-depth convolutions (``ops/conv_s2d``).

A stride-s convolution whose kernel is a multiple of s is, on the input rearranged
space-to-depth and channels-last (one row of ``s*s*C`` values per grid position), a sum over
``(k/s)^2`` taps of ``rows[offset + r] @ w_tap``: each tap's operand is the same buffer
starting ``offset`` rows later. NumPy's ``matmul`` takes such a view only as a fresh array
per tap and has no accumulating form (``out`` is overwritten), so the taps cost a copy or a
sum pass each; BLAS reads the view in place at its address and adds into the result
(``beta = 1``). This calls NumPy's own OpenBLAS (the library ``_blas_gemm`` found) through
ctypes with element offsets into C-contiguous host arrays.
"""

import numpy as np

from . import _blas_gemm

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def host_float(array):
    """Whether ``array`` is a NumPy float32/float64 array (host kernels' own buffers)."""
    return type(array) is np.ndarray and array.dtype.char in "fd"


def available(array):
    """Whether the host BLAS serves buffers of ``array``'s kind: a NumPy float32/float64
    array (any layout: callers copy it into their own C-contiguous buffers)."""
    return (type(array) is np.ndarray and array.dtype.char in "fd"
            and _blas_gemm._gemm_for(array.dtype) is not None)


def gemm(dt, trans_a, trans_b, m, n, k, a, a_off, lda, b, b_off, ldb, beta, c, c_off, ldc):
    """``c[c_off:] (m, n; row stride ldc) = op(a[a_off:]) @ op(b[b_off:]) + beta * c``,
    row-major, offsets in elements into C-contiguous arrays of dtype ``dt`` (addresses from
    ``_blas_gemm.ptr``; callers check ``available`` first). ``op`` transposes when asked:
    ``a`` then holds a ``(k, m)`` block with rows ``lda`` apart."""
    size = dt.itemsize
    _blas_gemm._gemm_for(dt)(
        _ROW_MAJOR, _TRANS if trans_a else _NO_TRANS, _TRANS if trans_b else _NO_TRANS,
        m, n, k, 1.0, _blas_gemm.ptr(a) + a_off * size, lda,
        _blas_gemm.ptr(b) + b_off * size, ldb, float(beta),
        _blas_gemm.ptr(c) + c_off * size, ldc)
