"""Process-wide switches torch programs set at start-up: warn-always, flush-denormal, the
deterministic debug mode, anomaly mode, and ``get_device_module``."""

from . import _compat
from .autograd import anomaly_mode as _anomaly

__all__ = ["set_warn_always", "is_warn_always_enabled", "set_flush_denormal",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode",
           "set_anomaly_enabled", "get_device_module"]

_warn = {"always": False}


def set_warn_always(b, /):
    """Ask for warnings that torch gives once per process to be given every time.

    numtorch records the flag (``is_warn_always_enabled`` reads it back); its own
    warnings go through Python's ``warnings`` filters, which decide repetition.
    """
    _warn["always"] = bool(b)


def is_warn_always_enabled():
    """True after ``set_warn_always(True)``."""
    return _warn["always"]


def set_flush_denormal(mode):
    """Ask for subnormal floats to be flushed to zero; returns whether that is supported.

    Note: NumPy offers no flush-to-zero mode, so numtorch always returns False (torch's
    answer on a CPU without the feature) and computes with subnormals.
    """
    return False


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    """Set the deterministic mode by level: 0/"default" off, 1/"warn" on with warnings
    only, 2/"error" on; the same switch as :func:`numtorch.use_deterministic_algorithms`."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, "
                               f"`warn`, `error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                               f"{debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    _compat.use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The level set by :func:`set_deterministic_debug_mode` (0 off, 1 warn, 2 error)."""
    if not _compat.are_deterministic_algorithms_enabled():
        return 0
    return 1 if _compat.is_deterministic_algorithms_warn_only_enabled() else 2


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn autograd's anomaly detection on or off for the rest of the process; see
    :class:`numtorch.autograd.set_detect_anomaly`."""
    _anomaly._flags.update(enabled=bool(enabled), check_nan=bool(check_nan))


def get_device_module(device=None):
    """The module of a device type: ``numtorch.cuda`` for ``"cuda"``/``device("cuda:1")``,
    ``numtorch.cpu`` for the CPU; with no argument, that of the current accelerator (CUDA
    when available) or the CPU."""
    import importlib

    import numtorch

    if device is None:
        return numtorch.cuda if numtorch.cuda.is_available() else numtorch.cpu
    if isinstance(device, str):
        device = numtorch.device(device)
    elif not isinstance(device, numtorch.device):
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, "
                           f"or None")
    try:
        return importlib.import_module("numtorch." + device.type)
    except ImportError:
        raise RuntimeError(f"Device '{device.type}' does not have a corresponding module "
                           f"registered as 'torch.{device.type}'.") from None
