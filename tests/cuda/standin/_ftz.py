"""float32 subnormals flushed to zero, as CuPy's compiled kernels treat them.

CuPy compiles every kernel it builds (ufuncs, ``ElementwiseKernel``, ``ReductionKernel``) with
NVRTC's ``-ftz=true`` (``cupy/cuda/compiler.py``, ``_compile_with_cache_cuda``): single-precision
instructions read a subnormal operand as a zero of the same sign and write a subnormal result
as one. Double precision and half types are not affected, nor are operations on the bits
(``signbit``, ``copysign``, ``isnan``...), conversions, selections (``where``) or cuBLAS.

The stand-in's ufuncs and kernels apply this to their float32 (and complex64) operands and
results, so a bfloat16 value below float32's normal range computed through float32 math comes
out as zero on the stand-in as on a GPU.
"""

import threading

import numpy as np

TINY = np.float32(np.finfo(np.float32).tiny)
_FLUSHED_TYPES = (np.dtype(np.float32), np.dtype(np.complex64))
# ufuncs CuPy implements on the bits or through cuBLAS: their operands are not flushed
EXEMPT = frozenset({"isnan", "isinf", "isfinite", "signbit", "copysign", "nextafter",
                    "spacing", "frexp", "ldexp", "matmul"})


def computes_in_float32(operands, dtype=None):
    """Whether a ufunc on host ``operands`` (arrays and scalars) computes in float32 or
    complex64 (``dtype`` when given, else the operands' promoted type): CuPy's -ftz=true
    flushes subnormals there."""
    try:
        return np.dtype(np.result_type(*operands) if dtype is None else dtype) \
            in _FLUSHED_TYPES
    except (TypeError, ValueError):  # the ufunc itself reports what is wrong
        return False


# the test for subnormals runs in chunks through this buffer: a GPU kernel allocates nothing,
# and tests measure a training step's host allocations on the stand-in
_CHUNK = 1 << 16
_BITS = np.empty(_CHUNK, np.uint32)
_LOCK = threading.Lock()


def _any_subnormal(a):
    """Whether float32 ``a`` holds a subnormal: its magnitude bits minus one (zero wrapping
    to the top) fall below 0x7fffff exactly for subnormals, so a minimum answers."""
    if not a.flags.c_contiguous:
        return bool(((np.abs(a) < TINY) & (a != 0)).any())
    flat = a.reshape(-1).view(np.uint32)
    with _LOCK:
        for lo in range(0, flat.size, _CHUNK):
            c = flat[lo:lo + _CHUNK]
            u = _BITS[:c.size]
            np.bitwise_and(c, 0x7FFFFFFF, out=u)
            np.subtract(u, 1, out=u)
            if u.min() < 0x7FFFFF:
                return True
    return False


def flush(a):
    """``a`` with its float32 subnormals replaced by signed zeros (``a`` itself when none)."""
    if isinstance(a, np.ndarray):
        if a.dtype not in _FLUSHED_TYPES or a.size == 0:
            return a
        if a.dtype.kind == "c":
            real, imag = a.real, a.imag
            re, im = flush(real), flush(imag)
            if re is real and im is imag:
                return a
            out = np.empty_like(a)  # (re + 1j * im would turn an infinite part into NaN)
            out.real, out.imag = re, im
            return out
        if not _any_subnormal(a):
            return a
        sub = (np.abs(a) < TINY) & (a != 0)
        return np.where(sub, np.copysign(np.float32(0), a), a)
    if isinstance(a, (np.float32, np.complex64)):
        return flush(np.asarray(a))[()]
    return a


def flush_all(operands):
    """:func:`flush` of each operand (an array passed twice is tested once)."""
    if len(operands) == 2 and operands[0] is operands[1]:
        f = flush(operands[0])
        return [f, f]
    return [flush(a) for a in operands]


def flush_in_place(a):
    """Flush the float32 subnormals of host array ``a`` (an output) in place."""
    if isinstance(a, np.ndarray) and a.dtype in _FLUSHED_TYPES and a.size:
        f = flush(a)
        if f is not a:
            a[...] = f
