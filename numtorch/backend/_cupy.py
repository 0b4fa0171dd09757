"""CuPy implementations of the helpers in backend/_numpy.py (imported only on a GPU)."""

import cupy as cp
import cupyx
from cupyx.scipy import special as _special


def scipy_linalg():
    """None: the linear-algebra ops use their own batched xp code on the GPU."""
    return None


def scatter_add(target, index, values):
    """target[index] += values, accumulating repeated indices (in place)."""
    cupyx.scatter_add(target, index, values)


def index_add_rows(n_rows, index, values):
    """Sum rows of ``values`` into ``n_rows`` buckets given by the 1-D ``index``."""
    out = cp.zeros((n_rows,) + values.shape[1:], dtype=values.dtype)
    cupyx.scatter_add(out, index, values)
    return out


def erf(x):
    """The error function, elementwise."""
    return _special.erf(x)


def erfinv(x):
    """The inverse error function, elementwise."""
    return _special.erfinv(x)


def erfc(x):
    """The complementary error function, elementwise."""
    return _special.erfc(x)


def scipy_special(name):
    """``cupyx.scipy.special.<name>``; a function CuPy lacks runs SciPy's on a host copy."""
    fn = getattr(_special, name, None)
    if fn is not None:
        return fn
    from . import _numpy

    host = _numpy.scipy_special(name)

    def on_host(*args):
        out = host(*[a.get() if isinstance(a, cp.ndarray) else a for a in args])
        if isinstance(out, tuple):
            return tuple(cp.asarray(o) for o in out)
        return cp.asarray(out)

    return on_host


def gammaln(x):
    """log |Gamma(x)|, elementwise."""
    return _special.gammaln(x)


def digamma(x):
    """The digamma function, elementwise."""
    return _special.digamma(x)


def polygamma(n, x):
    """The ``n``-th derivative of the digamma function, elementwise."""
    return _special.polygamma(n, x)


def i0(x):
    """The modified Bessel function of the first kind, order 0, elementwise."""
    return _special.i0(x)


def i1(x):
    """The modified Bessel function of the first kind, order 1, elementwise."""
    return _special.i1(x)


def sliding_window_view(x, window_shape, axis):
    """Sliding windows of ``window_shape`` over ``axis`` (a strided view)."""
    return cp.lib.stride_tricks.sliding_window_view(x, window_shape, axis=axis)


def as_strided(x, shape, strides):
    """A view of ``x``'s memory with the given shape and byte strides."""
    return cp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def expand_to(a, shape):
    """``a`` broadcast to ``shape`` as a new C-contiguous array (as the NumPy helper)."""
    out = cp.empty(shape, dtype=a.dtype)
    out[...] = a
    return out
