"""``numtorch.accelerator``: the device-neutral API over the current accelerator, which in
numtorch is CUDA through CuPy when a GPU is usable. Every call forwards to ``numtorch.cuda``;
without an accelerator each raises torch's error, except the ones torch answers on a
CPU-only build (``is_available``, ``current_accelerator``, ``device_count``, a
``device_index(None)`` block)."""

import contextlib
import warnings

from . import _dtype
from . import cuda as _cuda
from ._device import device as _device

__all__ = [
    "Graph",
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "current_stream",
    "device_count",
    "device_index",
    "empty_cache",
    "empty_host_cache",
    "get_device_capability",
    "get_memory_info",
    "is_available",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
    "set_device_idx",
    "set_device_index",
    "set_stream",
    "synchronize",
]

_NONE = "Cannot access accelerator device when none is available."


def is_available():
    """True when a CUDA device is usable."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """``device('cuda')`` when CUDA is usable, else None."""
    return _device("cuda") if _cuda.is_available() else None


def device_count():
    """How many accelerator devices there are (0 without one)."""
    return _cuda.device_count()


def _require():
    if not _cuda.is_available():
        raise RuntimeError(_NONE)


def _index(device):
    """The device index named by ``device`` (an int, a ``cuda`` string or device, or None for
    the current one); another device type is torch's error."""
    _require()
    if device is None:
        return _cuda.current_device()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    d = _device(device)
    if d.type != "cuda":
        raise ValueError(f"{d.type} doesn't match the current accelerator cuda.")
    return _cuda.current_device() if d.index is None else d.index


def current_device_index():
    """The index of the current accelerator device."""
    return _index(None)


def set_device_index(device, /):
    """Make ``device`` the current accelerator device."""
    _cuda.set_device(_index(device))


def current_device_idx():
    """Deprecated spelling of :func:`current_device_index` (torch warns)."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device, /):
    """Deprecated spelling of :func:`set_device_index` (torch warns)."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


@contextlib.contextmanager
def device_index(device, /):
    """A block in which ``device`` is the current accelerator device (``None``: no change)."""
    if device is None:
        yield
        return
    before = _index(None)
    set_device_index(device)
    try:
        yield
    finally:
        _cuda.set_device(before)


def current_stream(device=None, /):
    """The current stream of ``device``."""
    return _cuda.current_stream(_index(device))


def set_stream(stream):
    """Make ``stream`` the current stream of its device."""
    _require()
    _cuda.set_stream(stream)


def synchronize(device=None, /):
    """Wait for every kernel queued on ``device``."""
    _cuda.synchronize(_index(device))


def get_device_capability(device=None, /):
    """``{"supported_dtypes": {...}}``: the dtypes tensors on ``device`` can have."""
    _index(device)
    names = ("float64", "float32", "float16", "bfloat16", "complex64", "complex128", "int8",
             "int16", "int32", "int64", "uint8", "bool")
    return {"supported_dtypes": {getattr(_dtype, n) for n in names}}


def get_memory_info(device_index=None, /):
    """``(free, total)`` bytes of ``device_index``'s memory."""
    return _cuda.mem_get_info(_index(device_index))


def empty_cache():
    """Give the memory cached by the allocator back to the device."""
    _require()
    _cuda.empty_cache()


def empty_host_cache():
    """Give the cached pinned host memory back."""
    _require()
    _cuda.empty_cache()


def memory_stats(device_index=None, /):
    """The allocator's statistics for ``device_index``."""
    return _cuda.memory_stats(_index(device_index))


def memory_allocated(device_index=None, /):
    """Bytes held by tensors on ``device_index``."""
    return _cuda.memory_allocated(_index(device_index))


def max_memory_allocated(device_index=None, /):
    """The peak of :func:`memory_allocated` since the start or the last reset."""
    return _cuda.max_memory_allocated(_index(device_index))


def memory_reserved(device_index=None, /):
    """Bytes the allocator holds on ``device_index``."""
    return _cuda.memory_reserved(_index(device_index))


def max_memory_reserved(device_index=None, /):
    """The peak of :func:`memory_reserved`."""
    return _cuda.max_memory_reserved(_index(device_index))


def reset_peak_memory_stats(device_index=None, /):
    """Restart the peaks of the memory statistics."""
    _cuda.reset_peak_memory_stats(_index(device_index))


def reset_accumulated_memory_stats(device_index=None, /):
    """Restart the accumulated counters of the memory statistics."""
    _cuda.reset_accumulated_memory_stats(_index(device_index))


Graph = _cuda.CUDAGraph
