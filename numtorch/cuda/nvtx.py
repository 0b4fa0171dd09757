"""``torch.cuda.nvtx``: NVTX ranges and marks for the Nsight profilers, through CuPy's NVTX
bindings (``cupy.cuda.nvtx``). Without CUDA they raise torch's "NVTX functions not installed"
error, as its CPU-only build does."""

import contextlib

from .. import backend

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def _nvtx():
    cp = backend.cupy_or_none()
    if cp is None:
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")
    return cp.cuda.nvtx


def range_push(msg):
    """Open a nested range named ``msg``; returns its depth (0-based)."""
    _nvtx().RangePush(msg)
    _DEPTH[0] += 1
    return _DEPTH[0] - 1


def range_pop():
    """Close the innermost range; returns the depth it had."""
    _nvtx().RangePop()
    _DEPTH[0] = max(_DEPTH[0] - 1, 0)
    return _DEPTH[0]


_DEPTH = [0]


def range_start(msg):
    """Open a range that may end on another thread; returns its id for :func:`range_end`."""
    if backend.cupy_or_none() is None:
        raise AttributeError("'_NVTXStub' object has no attribute 'rangeStartA'")
    return _nvtx().RangeStart(msg, -1)


def range_end(range_id):
    """Close the range :func:`range_start` opened."""
    if backend.cupy_or_none() is None:
        raise AttributeError("'_NVTXStub' object has no attribute 'rangeEnd'")
    _nvtx().RangeEnd(range_id)


def mark(msg):
    """An instantaneous event named ``msg``."""
    _nvtx().Mark(msg)


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """A range around the ``with`` block, named ``msg.format(*args, **kwargs)``."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
