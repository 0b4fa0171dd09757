"""The one place that knows NumPy and CuPy apart.

Ops get their array module as ``self.xp`` and call the named helpers of ``helpers_for(xp)``
(``backend/_numpy.py`` or ``backend/_cupy.py``, same names) for what the two libraries spell
differently. CuPy is imported lazily, only when a CUDA device is asked for or a CuPy array is
met. Tests may hand in a CPU stand-in for CuPy (``_use_cupy_for_tests``); nothing else does.
"""

import operator

import numpy as np

from .._device import CPU, device
from . import _meta, _numpy

__all__ = ["xp_of", "get_xp", "device_of", "to_device", "helpers_for", "cupy_or_none",
           "cupyx_or_none", "cuda_unavailable", "is_device_array", "is_writeable", "to_host",
           "resolve_device", "cuda_device_count", "pin", "is_pinned", "is_meta", "meta_rng",
           "META"]

META = device("meta")
is_meta = _meta.is_meta


def meta_rng():
    """The random source of meta tensors: it draws nothing (see ``_meta.py``)."""
    return _meta.RNG


def cuda_unavailable():
    """Torch's error for a CUDA request on a machine without CUDA: ``AssertionError("Torch not
    compiled with CUDA enabled")``, with a note (shown in tracebacks, not in ``str(e)``) on how
    numtorch gets CUDA."""
    e = AssertionError("Torch not compiled with CUDA enabled")
    e.add_note("numtorch runs CUDA through CuPy: install it with `pip install numtorch[cuda12]` "
               "(or [cuda13], matching the driver's CUDA major version) on a machine with an "
               "NVIDIA GPU")
    return e


# The CuPy module pair once looked up. (Not named ``_cupy``: that is the helper submodule, and
# ``from . import _cupy`` would hand back a package attribute of the same name instead.)
_CUPY = None
_CUPYX = None
_looked_up = False
# What the device fast paths (autograd.graph, device_of) test against, set with the modules:
# CuPy's array class, and the device of every CuPy array when only one GPU is visible (then no
# array can be elsewhere and no op needs to switch devices); None otherwise.
DEVICE_ARRAY = None
ONLY_DEVICE = None
_HELPERS = None  # the _cupy helper module, imported once


def _flags_c_contiguous(a):
    return a.flags.c_contiguous


# ``c_contiguous(device_array)``: CuPy's ``flags`` builds a Python Flags object per access
# (~0.5 us); its array keeps the answer in the readonly C attribute ``_c_contiguous``
# (cupy/_core/core.pxd), read through a C-level getter when the bound module has it
DEVICE_C_CONTIGUOUS = _flags_c_contiguous


def cupy_or_none():
    """Return the ``cupy`` module if it imports and a GPU is visible, else None."""
    global _CUPY, _CUPYX, _looked_up
    if not _looked_up:
        _looked_up = True
        try:
            import cupy
            import cupyx

            if cupy.cuda.runtime.getDeviceCount() > 0:
                _CUPY, _CUPYX = cupy, cupyx
        except Exception:  # ImportError, or a CUDA runtime without a device
            _CUPY = _CUPYX = None
        if _CUPY is not None:
            _cupy_helpers()._bind(_CUPY, _CUPYX)
        _note_device_types()
    return _CUPY


def cupyx_or_none():
    """The ``cupyx`` module matching :func:`cupy_or_none` (None without CUDA)."""
    cupy_or_none()
    return _CUPYX


def cuda_device_count():
    """The number of GPUs CuPy sees (0 without CuPy or a GPU)."""
    cp = cupy_or_none()
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def _use_cupy_for_tests(cupy_module, cupyx_module):
    """Tests only: make ``cupy_module``/``cupyx_module`` numtorch's CuPy (the CPU stand-in of
    ``tests/cuda/standin``); ``(None, None)`` goes back to looking up the real one."""
    global _CUPY, _CUPYX, _looked_up
    _CUPY, _CUPYX = cupy_module, cupyx_module
    _looked_up = cupy_module is not None
    helpers = _cupy_helpers()
    helpers._bind(cupy_module, cupyx_module)
    helpers.reset_device_state()
    _note_device_types()


def _note_device_types():
    global DEVICE_ARRAY, ONLY_DEVICE, DEVICE_C_CONTIGUOUS
    cp = _CUPY
    DEVICE_ARRAY = None if cp is None else cp.ndarray
    DEVICE_C_CONTIGUOUS = operator.attrgetter("_c_contiguous") if \
        hasattr(DEVICE_ARRAY, "_c_contiguous") else _flags_c_contiguous
    ONLY_DEVICE = None
    if cp is not None and cp.cuda.runtime.getDeviceCount() == 1:
        ONLY_DEVICE = _cupy_helpers().cuda_device(0)


def _cupy_helpers():
    h = _HELPERS
    if h is None:
        return _import_helpers()
    return h


def _import_helpers():
    global _HELPERS
    from . import _cupy

    _HELPERS = _cupy
    return _cupy


def xp_of(array):
    """The array module (numpy or cupy) that owns ``array``."""
    if type(array) is np.ndarray:
        return np
    if type(array) is DEVICE_ARRAY:
        return _CUPY
    cp = _CUPY if _looked_up else cupy_or_none()
    if cp is not None and isinstance(array, cp.ndarray):
        return cp
    return np


def is_device_array(array):
    """True for a CuPy array (a CUDA tensor's data)."""
    if type(array) is np.ndarray:
        return False
    if type(array) is DEVICE_ARRAY:
        return True
    cp = _CUPY if _looked_up else cupy_or_none()
    return cp is not None and isinstance(array, cp.ndarray)


def get_xp(dev):
    """The array module for a device; raises for CUDA without CuPy/GPU."""
    if dev is None or dev.type == "cpu":
        return np
    if dev.type == "cuda":
        cp = cupy_or_none()
        if cp is None:
            raise cuda_unavailable()
        if dev.index is not None and dev.index >= cp.cuda.runtime.getDeviceCount():
            from .._errors_device import AcceleratorError  # torch's class (a RuntimeError)

            raise AcceleratorError("CUDA error: invalid device ordinal")
        return cp
    if dev.type == "meta":
        return _meta.XP  # factory functions make data-less arrays (ops still see NumPy)
    if dev.index is None and dev.type in _NOT_LINKED:  # torch's text for a CPU build
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")
    if dev.index is None and dev.type == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    raise RuntimeError(f"numtorch: tensors cannot be stored on device type '{dev.type}'; only "
                       "'cpu', 'cuda' and 'meta' are supported")


_NOT_LINKED = frozenset(("mps", "xla", "ipu", "vulkan", "ve", "mkldnn", "opengl", "opencl",
                         "ideep", "hip", "fpga", "maia"))


def resolve_device(dev):
    """``dev`` with its index filled in: ``cuda`` means the current GPU."""
    if dev.type == "cuda" and dev.index is None:
        get_xp(dev)
        return _cupy_helpers().cuda_device(_cupy_helpers().current_device_index())
    return dev


def device_of(array):
    """The ``numtorch.device`` on which ``array`` lives."""
    if type(array) is np.ndarray:
        return CPU
    if type(array) is _meta.MetaArray:
        return META
    if type(array) is DEVICE_ARRAY:
        d = ONLY_DEVICE
        # (``data.device_id``: ``array.device`` makes a new CuPy Device object every time)
        return d if d is not None else _cupy_helpers().cuda_device(array.data.device_id)
    cp = _CUPY if _looked_up else cupy_or_none()
    if cp is not None and isinstance(array, cp.ndarray):
        return _cupy_helpers().cuda_device(array.data.device_id)
    return CPU


def is_writeable(array):
    """Whether writing into ``array`` is allowed: NumPy's ``flags.writeable``. CuPy arrays
    have no such flag (every one is writeable); what the flag guards on the CPU, a view whose
    zero strides make several elements share one memory location, is refused the same way."""
    if type(array) is np.ndarray:
        return array.flags.writeable
    # an empty array has no elements to share, whatever strides it reports
    return array.size == 0 or all(s != 0 or n <= 1 for s, n in zip(array.strides, array.shape))


def to_host(array):
    """``array`` as a NumPy array (a copy from the device, or ``array`` itself)."""
    if type(array) is np.ndarray:
        return array
    if type(array) is _meta.MetaArray:
        raise _meta.no_data()
    if is_device_array(array):  # (through the helper: torch.cuda.set_sync_debug_mode)
        return _cupy_helpers().to_host(array)
    return array.get()


def to_device(array, dev, non_blocking=False):
    """Return ``array`` on device ``dev`` (no copy if it is already there).

    ``non_blocking=True`` lets a host-to-device copy from pinned memory run asynchronously on
    the current stream, and a device-to-host copy return before it finishes, as in torch.
    """
    if type(array) is _meta.MetaArray:
        if dev.type == "meta":
            return array
        raise _meta.no_data()
    if dev.type == "meta":  # keep the shape, dtype and layout; drop the data
        return _meta.as_meta(array) if isinstance(array, np.ndarray) else \
            _meta.empty(array.shape, array.dtype)
    if dev.type == "cpu":
        if type(array) is np.ndarray:
            return array
        return _cupy_helpers().to_host(array, non_blocking)
    get_xp(dev)  # torch's errors without CUDA or for a device that does not exist
    idx = _cupy_helpers().current_device_index() if dev.index is None else dev.index
    return _cupy_helpers().to_device(array, idx, non_blocking)


# -- pinned (page-locked) host memory ------------------------------------------------------------
def pin(array):
    """A copy of host array ``array`` in page-locked memory from CuPy's pinned pool (torch's
    error on a machine without CUDA)."""
    if cupy_or_none() is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return _cupy_helpers().pin(array)


def is_pinned(array):
    """True for a host array in page-locked memory (always False without CUDA)."""
    if type(array) is not np.ndarray or array.base is None or cupy_or_none() is None:
        return False
    return _cupy_helpers().is_pinned(array)


# -- random numbers on the GPU (backend/_cupy_random.py) ---------------------------------------
def device_rng(seed, index):
    """A new NumPy-Generator-like source drawing on GPU ``index`` (cuRAND through CuPy)."""
    get_xp(device("cuda", index))
    from . import _cupy_random

    return _cupy_random.DeviceRng(seed, index)


def default_device_rng(index):
    """GPU ``index``'s default generator (``torch.cuda.default_generators[index]``)."""
    get_xp(device("cuda", index))
    from . import _cupy_random

    return _cupy_random.default_rng(index)


def seed_device_rngs(seed, index=None):
    """Seed GPU ``index``'s default generator, or every GPU's (``index=None``); lazy: nothing
    touches CUDA until a generator draws, so seeding works without CuPy too."""
    from . import _cupy_random

    if index is None:
        _cupy_random.seed_all(seed)
    else:
        _cupy_random.seed_default(index, seed)


def device_rng_initial_seed(index):
    from . import _cupy_random

    return _cupy_random.initial_seed(index)


def helpers_for(xp):
    """The helper namespace (scatter_add, erf, ...) matching an array module."""
    if xp is np or xp is _meta.XP:
        return _numpy
    return _cupy_helpers()
