"""The one place that knows NumPy and CuPy apart.

Ops get their array module as ``self.xp`` and call the named helpers here for the few things the
two libraries spell differently. CuPy is imported lazily, only when a CUDA device is asked for
or a CuPy array is met.
"""

import numpy as np

from .._device import CPU, device
from . import _numpy

__all__ = ["xp_of", "get_xp", "device_of", "to_device", "helpers_for", "cupy_or_none",
           "cuda_unavailable"]


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
