"""NumPy implementations of the helpers whose CuPy spelling differs (see backend/_cupy.py)."""

import numpy as np

try:  # SciPy is optional; the fallbacks below are vectorised and accurate to float32 rounding
    from scipy import special as _special
except ImportError:  # pragma: no cover - exercised only without SciPy
    _special = None


def scatter_add(target, index, values):
    """target[index] += values, accumulating repeated indices (in place)."""
    np.add.at(target, index, values)


def index_add_rows(n_rows, index, values):
    """Sum rows of ``values`` into ``n_rows`` buckets given by the 1-D ``index``.

    Sorting and ``add.reduceat`` run in large array calls, so this is the fast path used by
    index-accumulating backward passes (embedding, advanced indexing along one dim).
    """
    out = np.zeros((n_rows,) + values.shape[1:], dtype=values.dtype)
    if index.size == 0:
        return out
    order = np.argsort(index, kind="stable")
    sorted_idx = index[order]
    starts = np.flatnonzero(np.r_[True, sorted_idx[1:] != sorted_idx[:-1]])
    out[sorted_idx[starts]] = np.add.reduceat(values[order], starts, axis=0)
    return out


def erf(x):
    if _special is not None:
        return _special.erf(x)
    return np.vectorize(__import__("math").erf, otypes=[x.dtype])(x)


def erfinv(x):
    if _special is None:
        raise RuntimeError("erfinv needs SciPy on the CPU: pip install scipy")
    return _special.erfinv(x)


def sliding_window_view(x, window_shape, axis):
    return np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)


def as_strided(x, shape, strides):
    return np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def expand_to(a, shape):
    """``a`` broadcast to ``shape`` as a new C-contiguous array.

    Used for the backward of reductions. ``np.broadcast_to`` would avoid the copy, but its
    Python overhead dominates on small tensors, and a stride-0 gradient makes the BLAS calls
    that usually consume it (matmul backward) slower than the copy costs.
    """
    out = np.empty(shape, dtype=a.dtype)
    out[...] = a
    return out
