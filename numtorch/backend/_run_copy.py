"""Row-major copies of strided NumPy arrays whose last axis is a short contiguous run.

NumPy's copy of a transposed view that keeps the last axis in place (``x.transpose(1, 0, 2)``,
``y.transpose(1, 2)`` of (B, h, T, d) attention heads) runs its inner loop over one run at a
time: with runs of 20 float32 values (the LSTM's gate gradients, batch 20) that loop is
called once per 80 bytes and the copy moves ~3 GB/s. Seen as one item of ``run`` bytes
(a void dtype), each run is a single element and the copy is a loop of fixed-size moves:
measured on a (35, 512, 20) -> (512, 35, 20) float32 copy (one thread, CPU time, median of
7 alternating rounds) 119 -> 54 us; 360 K values with runs of 8-16 bytes 8-9x faster, 32-128
bytes 1.6-2.2x, 256 bytes 1.0-1.2x, 1 KB slower (hence ``_MAX_RUN``). The bytes are copied as
they are, so the values are the same bits (NaN payloads and signed zeros included). The views
cost ~2 us per call, which a copy repays from about 512 bytes per run of the array's size
(16-byte runs from 8 KB, 80-byte ones from 40 KB, 128-byte ones from 64 KB): smaller arrays
keep NumPy's own copy.
"""

import numpy as np

_MAX_RUN = 128  # bytes per run, at most, for the void-item copy
_MIN_BYTES = 1 << 13  # smaller arrays: NumPy's copy (the views' fixed cost) ...
_PER_RUN_BYTE = 512  # ... and arrays under this many bytes per byte of a run
_VOID = {}  # run bytes -> void dtype


def copy_c(a):
    """A row-major (C-contiguous) copy of ``a``: ``a.copy()``, through the void-item copy
    where ``a`` is a NumPy array, not row-major, whose last axis is a contiguous run of 2 or
    more values and at most ``_MAX_RUN`` bytes, and which is large enough to repay the views
    (``_MIN_BYTES``, ``_PER_RUN_BYTE`` bytes per byte of a run)."""
    if type(a) is not np.ndarray or a.nbytes < _MIN_BYTES or a.flags.c_contiguous:
        return a.copy()
    v = _void_of(a)
    if v is None:
        return a.copy()
    out = np.empty(a.shape, a.dtype)
    np.copyto(out.view(v), a.view(v))
    return out


def contiguous(a):
    """``np.ascontiguousarray(a)`` for a NumPy array (``a`` itself when row-major already),
    copied as ``copy_c`` copies."""
    if a.flags.c_contiguous:
        return a
    return copy_c(a)


def ascontiguous(xp, a):
    """``xp.ascontiguousarray(a)``, through ``contiguous`` for a NumPy array."""
    if type(a) is np.ndarray:
        return a if a.flags.c_contiguous else copy_c(a)
    return xp.ascontiguousarray(a)


def _void_of(a):
    """The void dtype of one last-axis run of ``a``, or None where the copy does not apply."""
    if a.ndim < 2 or a.dtype.hasobject:
        return None
    n = a.shape[-1]
    size = a.itemsize
    run = n * size
    if n < 2 or run > _MAX_RUN or a.strides[-1] != size or a.nbytes < run * _PER_RUN_BYTE:
        return None
    v = _VOID.get(run)
    if v is None:
        v = _VOID[run] = np.dtype((np.void, run))
    return v
