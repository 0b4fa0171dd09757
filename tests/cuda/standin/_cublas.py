"""The stand-in ``cupy.cuda.cublas``: ``gemmEx`` on device pointers, as cuBLAS computes it.

numtorch's recurrent loops call cuBLAS directly with raw addresses (``a.data.ptr`` plus a
step's byte offset) instead of ``cupy.matmul`` on a view per step. Here such a call reads its
operands from the addresses the way cuBLAS does: column-major matrices with leading dimensions,
``op(A)`` (m x k) times ``op(B)`` (k x n) into C (m x n), alpha and beta read from host
pointers. A stand-in array's ``data.ptr`` is its NumPy buffer's address, so the operands are
NumPy views of that memory; every range must lie inside one live device array (an address or
leading dimension off by a step raises instead of reading what lies beside it).

The product is formed in row-major terms, ``C^T = op(B)^T op(A)^T``: for the operands of
``cupy.matmul(a, b)`` (CuPy passes ``b`` as cuBLAS's A) that is NumPy's ``a @ b`` on the same
layouts, so a loop of direct calls gives the bits of a loop of ``matmul`` calls.
"""

import ctypes

import numpy as np

from ._array import _TRACKED, STATS

# cudaDataType / cublasComputeType_t / cublasGemmAlgo_t values (the CUDA headers')
CUDA_R_32F, CUDA_R_64F = 0, 1
CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_COMPUTE_64F = 68, 69, 70
CUBLAS_COMPUTE_64F_PEDANTIC, CUBLAS_COMPUTE_32F_FAST_TF32 = 71, 77
CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT_TENSOR_OP = -1, 99
CUBLAS_OP_N, CUBLAS_OP_T = 0, 1

_TYPES = {CUDA_R_32F: (np.float32, ctypes.c_float, {CUBLAS_COMPUTE_32F,
                                                    CUBLAS_COMPUTE_32F_PEDANTIC,
                                                    CUBLAS_COMPUTE_32F_FAST_TF32}),
          CUDA_R_64F: (np.float64, ctypes.c_double, {CUBLAS_COMPUTE_64F,
                                                     CUBLAS_COMPUTE_64F_PEDANTIC})}
HANDLE = 1  # cupy.cuda.device.get_cublas_handle() of the stand-in


class CUBLASError(RuntimeError):
    pass


def _live_range(ptr, nbytes):
    """Raise unless ``[ptr, ptr + nbytes)`` lies inside one live stand-in array."""
    for fin in list(_TRACKED.values()):
        got = fin.peek()
        if got is None:
            continue
        arr = got[0]
        start = arr.__array_interface__["data"][0]
        if start <= ptr and ptr + nbytes <= start + arr.nbytes:
            return
    raise CUBLASError(f"stand-in cuBLAS: {nbytes} bytes at {ptr:#x} are outside every live "
                      "device array")


def _matrix(ptr, dtype, rows, cols, ld, what):
    """The column-major ``rows x cols`` matrix at ``ptr`` (leading dimension ``ld``), as the
    row-major (cols, rows) NumPy view of that memory."""
    if ld < max(1, rows):
        raise CUBLASError(f"CUBLAS_STATUS_INVALID_VALUE: ld{what} {ld} < {rows}")
    item = np.dtype(dtype).itemsize
    nbytes = ((cols - 1) * ld + rows) * item
    _live_range(ptr, nbytes)
    buf = np.frombuffer((ctypes.c_char * nbytes).from_address(ptr), dtype=dtype)
    return np.lib.stride_tricks.as_strided(buf, (cols, rows), (ld * item, item))


def setStream(handle, stream):
    pass


def gemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype,
           ldb, beta, C, Ctype, ldc, computeType, algo):
    if handle != HANDLE:
        raise CUBLASError("CUBLAS_STATUS_NOT_INITIALIZED: not the stand-in's handle")
    if not (Atype == Btype == Ctype) or Atype not in _TYPES:
        raise CUBLASError(f"CUBLAS_STATUS_NOT_SUPPORTED: types {Atype} {Btype} {Ctype}")
    dtype, scalar, computes = _TYPES[Atype]
    if computeType not in computes or algo not in (CUBLAS_GEMM_DEFAULT,
                                                   CUBLAS_GEMM_DEFAULT_TENSOR_OP):
        raise CUBLASError(f"CUBLAS_STATUS_NOT_SUPPORTED: compute {computeType}, algo {algo}")
    if transa not in (0, 1) or transb not in (0, 1) or min(m, n, k) < 0:
        raise CUBLASError("CUBLAS_STATUS_INVALID_VALUE")
    STATS["kernels"] += 1
    if not m or not n:
        return
    a_t = _matrix(A, dtype, *((m, k) if not transa else (k, m)), lda, "a")  # A stored, transposed
    b_t = _matrix(B, dtype, *((k, n) if not transb else (n, k)), ldb, "b")
    c_t = _matrix(C, dtype, m, n, ldc, "c")  # (n, m)
    op_a_t = a_t if not transa else a_t.T  # op(A)^T (k, m)
    op_b_t = b_t if not transb else b_t.T  # op(B)^T (n, k)
    al = dtype(scalar.from_address(alpha).value)
    be = dtype(scalar.from_address(beta).value)
    prod = op_b_t @ op_a_t if k else np.zeros(c_t.shape, dtype)
    if al != 1:
        prod *= al
    if be != 0:
        prod += be * c_t
    c_t[...] = prod
