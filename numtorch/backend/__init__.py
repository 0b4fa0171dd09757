"""The one place that knows NumPy and CuPy apart.

Ops get their array module as ``self.xp`` and call the named helpers here for the few things the
two libraries spell differently. CuPy is imported lazily, only when a CUDA device is asked for
or a CuPy array is met.
"""

import numpy as np

from .._device import CPU, device
from . import _numpy

__all__ = ["xp_of", "get_xp", "device_of", "to_device", "helpers_for", "cupy_or_none",
           "CudaUnavailableError", "cuda_unavailable"]

# torch raises a plain AssertionError when CUDA is asked for without it; so does numtorch
CudaUnavailableError = AssertionError


def cuda_unavailable():
    """Torch's error for a CUDA request on a machine without CUDA: ``AssertionError("Torch not
    compiled with CUDA enabled")``, with a note (shown in tracebacks, not in ``str(e)``) on how
    numtorch gets CUDA."""
    e = AssertionError("Torch not compiled with CUDA enabled")
    e.add_note("numtorch runs CUDA through CuPy: install it with `pip install numtorch[cuda]` on "
               "a machine with an NVIDIA GPU")
    return e

_cupy = None
_cupy_tried = False


def cupy_or_none():
    """Return the ``cupy`` module if it imports and a GPU is visible, else None."""
    global _cupy, _cupy_tried
    if not _cupy_tried:
        _cupy_tried = True
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                _cupy = cupy
        except Exception:  # ImportError, or a CUDA runtime without a device
            _cupy = None
    return _cupy


def xp_of(array):
    """The array module (numpy or cupy) that owns ``array``."""
    if type(array) is np.ndarray:
        return np
    cp = cupy_or_none()
    if cp is not None and isinstance(array, cp.ndarray):
        return cp
    return np


def get_xp(dev):
    """The array module for a device; raises RuntimeError for CUDA without CuPy/GPU."""
    if dev is None or dev.type == "cpu":
        return np
    if dev.type == "cuda":
        cp = cupy_or_none()
        if cp is None:
            raise cuda_unavailable()
        return cp
    raise RuntimeError(f"numtorch: tensors cannot be stored on device type '{dev.type}'; only "
                       "'cpu' and 'cuda' are supported")


def device_of(array):
    """The ``numtorch.device`` on which ``array`` lives."""
    if type(array) is np.ndarray:
        return CPU
    cp = cupy_or_none()
    if cp is not None and isinstance(array, cp.ndarray):
        return device("cuda", array.device.id)
    return CPU


def to_device(array, dev):
    """Return ``array`` on device ``dev`` (no copy if it is already there)."""
    if dev.type == "cpu":
        if type(array) is np.ndarray:
            return array
        return array.get()
    cp = get_xp(dev)
    idx = 0 if dev.index is None else dev.index
    if isinstance(array, cp.ndarray) and array.device.id == idx:
        return array
    with cp.cuda.Device(idx):
        return cp.asarray(array)


def helpers_for(xp):
    """The helper namespace (scatter_add, erf, ...) matching an array module."""
    if xp is np:
        return _numpy
    from . import _cupy

    return _cupy


def tune_allocator():
    """Keep large freed blocks in glibc's heap instead of returning them to the OS.

    NumPy allocates a fresh array for every op result; with glibc's defaults each block of
    128 KiB or more is mmap'd and unmapped again, so every op pays page faults on memory it
    just freed. Raising the mmap and trim thresholds (to 256 MiB and 1 GiB, what setting
    MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ would do) roughly halves the time of
    elementwise-heavy steps. Set NUMTORCH_KEEP_MALLOC=1 to leave the allocator alone.
    """
    import os
    import sys

    if not sys.platform.startswith("linux") or os.environ.get("NUMTORCH_KEEP_MALLOC"):
        return False
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False  # the user chose already
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        ok = libc.mallopt(m_mmap_threshold, 256 * 2 ** 20)
        ok = libc.mallopt(m_trim_threshold, 2 ** 30) and ok
        return bool(ok)
    except (OSError, AttributeError):  # not glibc (musl, ...): nothing to tune
        return False
