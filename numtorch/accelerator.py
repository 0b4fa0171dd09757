"""``numtorch.accelerator``: the current accelerator (CUDA through CuPy, if present)."""

from . import cuda as _cuda
from ._device import device as _device

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available():
    """True when a CUDA device is usable."""
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """``device('cuda')`` when CUDA is usable, else None."""
    return _device("cuda") if _cuda.is_available() else None


def device_count():
    return _cuda.device_count()
