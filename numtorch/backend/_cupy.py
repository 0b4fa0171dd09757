"""CuPy implementations of the helpers in backend/_numpy.py (imported only on a GPU)."""

import cupy as cp
import cupyx
from cupyx.scipy import special as _special


def scatter_add(target, index, values):
    cupyx.scatter_add(target, index, values)


def index_add_rows(n_rows, index, values):
    out = cp.zeros((n_rows,) + values.shape[1:], dtype=values.dtype)
    cupyx.scatter_add(out, index, values)
    return out


def erf(x):
    return _special.erf(x)


def erfinv(x):
    return _special.erfinv(x)


def sliding_window_view(x, window_shape, axis):
    return cp.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)


def as_strided(x, shape, strides):
    return cp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def expand_to(a, shape):
    return cp.broadcast_to(a, shape)
