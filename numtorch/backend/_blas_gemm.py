"""Rank-1/rank-2 blocks for the row-form layer norm (``norm_rows``) through the GEMM of
NumPy's own OpenBLAS, called with ctypes.

NumPy has no accumulating GEMM: ``c += u[:, None] * v`` (a per-row or per-column term) is
either a broadcast loop, which runs at 1.5-2x a same-shape pass ((768, 128) float32: 18.8 us
against 9.3), or a GEMM-made block plus an add (two passes). ``gemm(c, u, v, beta=1)`` adds
the outer product in place in one pass (7.8 us; (1536, 768) 114 against 215 us), and
``beta=0`` makes the block itself (6.9 us against NumPy's rank-2 ``matmul`` trick's 8.5).

The values are exact where it matters: with k=1 and one operand a vector of ones each entry
is ``c + u_i`` or ``c + v_j`` rounded once, as NumPy's add. Everything else (no library
found, another dtype, a strided block) takes NumPy's ``matmul`` and add: the same values.
"""

import ctypes
import os

import numpy as np

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_FUNCS = {}  # dtype -> the cblas ?gemm function, or None
_LIB = {"searched": False, "lib": None, "int": None}
_ONES = {}  # (length, dtype) -> (a read-only vector of ones, its address)
_BYTE = ctypes.c_char
_addressof = ctypes.addressof


def _library():
    """(ctypes library, its integer type, symbol suffix) of NumPy's OpenBLAS, or None: the
    library ``numtorch._threads`` found for its thread settings, asked for its GEMM."""
    if not _LIB["searched"]:
        _LIB["searched"] = True
        from .. import _threads

        path = _threads._state.get("lib_path") if _threads._blas() is not None else None
        try:
            lib = ctypes.CDLL(path) if path else None
        except OSError:
            lib = None
        # NumPy's wheels: the ILP64 build with scipy_-prefixed, 64-suffixed symbols
        for prefix, suffix, itype in (("scipy_cblas_", "64_", ctypes.c_int64),
                                      ("cblas_", "64_", ctypes.c_int64),
                                      ("cblas_", "", ctypes.c_int)):
            if lib is not None and hasattr(lib, f"{prefix}sgemm{suffix}"):
                _LIB.update(lib=lib, int=itype, names=(prefix, suffix))
                break
    return _LIB["lib"]


def _gemm_for(dt):
    fn = _FUNCS.get(dt, False)
    if fn is not False:
        return fn
    fn = None
    if os.environ.get("NUMTORCH_NORM_BLAS", "1") != "0" and _library() is not None and \
            dt in (np.dtype(np.float32), np.dtype(np.float64)):
        prefix, suffix = _LIB["names"]
        scalar = ctypes.c_float if dt == np.float32 else ctypes.c_double
        fn = getattr(_LIB["lib"], f"{prefix}{'s' if dt == np.float32 else 'd'}gemm{suffix}")
        i, p, e = _LIB["int"], ctypes.c_void_p, ctypes.c_int
        fn.argtypes = [e, e, e, i, i, i, scalar, p, i, p, i, scalar, p, i]
        fn.restype = None
    _FUNCS[dt] = fn
    return fn


def ones(n, dt):
    """A shared read-only vector of ``n`` ones of dtype ``dt``, and its address."""
    key = (n, dt)
    got = _ONES.get(key)
    if got is None:
        if len(_ONES) > 64:
            _ONES.clear()
        v = np.ones(n, dtype=dt)
        v.flags.writeable = False
        got = _ONES[key] = (v, v.__array_interface__["data"][0])
    return got


def ptr(a):
    """The address of ``a``'s first value (a block of rows of a C-contiguous array is at
    ``ptr + first_row * row_bytes``: one lookup per array per call). ctypes' view of a
    writable buffer takes 0.3 us, ``__array_interface__`` 1.8 us."""
    try:
        return _addressof(_BYTE.from_buffer(a))
    except (TypeError, ValueError, BufferError):  # read-only or not contiguous
        return a.__array_interface__["data"][0]


def gemm_fn(dt):
    """``call(c, u, v, beta, pc, pu, pv)``: c = u.T @ v + beta * c in place for a
    C-contiguous (r, n) block ``c``, ``u`` (k, r) with rows of any stride and ``v`` (k, n)
    C-contiguous, k = 1 or 2, all of dtype ``dt``, beta 0 or 1 (0 never reads ``c``, NaN or
    not); ``pc``/``pu``/``pv`` are their addresses (``ptr``: callers offset one lookup per
    array for their blocks). Without the library the same through NumPy (``gemm``)."""
    fn = _gemm_for(dt)
    if fn is None:
        return lambda c, u, v, beta, pc, pu, pv: gemm(c, u, v, beta)
    size = dt.itemsize

    def call(c, u, v, beta, pc, pu, pv):
        r, n = c.shape
        # row-major: A = u.T is u (k, lda) transposed, B = v (k, n) with ldb n
        fn(_ROW_MAJOR, _TRANS, _NO_TRANS, r, n, u.shape[0], 1.0, pu, u.strides[0] // size,
           pv, n, beta, pc, n)

    return call


def gemm(c, u, v, beta):
    """c = u.T @ v + beta * c in place (``gemm_fn``'s operation on arrays; 1-d ``u``/``v``
    are one row), through NumPy when the library or the layout does not serve."""
    r, n = c.shape
    u2 = u.reshape(-1, r)
    v2 = v.reshape(-1, n)
    fn = _gemm_for(c.dtype)
    if fn is not None and r and n and u2.dtype == c.dtype and v2.dtype == c.dtype and \
            c.flags.c_contiguous and u2.flags.c_contiguous and v2.flags.c_contiguous:
        fn(_ROW_MAJOR, _TRANS, _NO_TRANS, r, n, u2.shape[0], 1.0, ptr(u2), r, ptr(v2), n,
           float(beta), ptr(c), n)
        return c
    if u2.shape[0] == 1:
        if beta:
            c += u2.reshape(r, 1) * v2
        else:
            np.multiply(u2.reshape(r, 1), v2, out=c)
        return c
    prod = np.matmul(u2.T, v2)
    if beta:
        c += prod
    else:
        c[...] = prod
    return c
