"""``torch.cuda.profiler``: start and stop the CUDA profiler's collection (``cudaProfilerStart``
/ ``cudaProfilerStop`` through CuPy's runtime), for tools run with collection off."""

import contextlib

from .. import backend
from ._runtime import check_error, cudart  # noqa: F401  (torch.cuda.profiler's names too)

__all__ = ["start", "stop", "profile"]


def _runtime():
    cp = backend.cupy_or_none()
    if cp is None:
        raise backend.cuda_unavailable()
    return cp.cuda.runtime


def start():
    """Begin collecting profile data."""
    _runtime().profilerStart()


def stop():
    """Stop collecting profile data."""
    _runtime().profilerStop()


@contextlib.contextmanager
def profile():
    """Collect profile data inside the ``with`` block only."""
    try:
        start()
        yield
    finally:
        stop()
