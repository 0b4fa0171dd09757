"""DLPack exchange: ``torch.from_dlpack`` and ``torch.utils.dlpack.to_dlpack``.

A numtorch tensor shares its memory with the producer (NumPy, CuPy, torch, JAX, ...) and
the other way round; no data is copied.
"""

from . import backend
from ._device import device as _device
from ._tensor import Tensor, _make

__all__ = ["from_dlpack", "to_dlpack"]

_KDLCPU, _KDLCUDA = 1, 2


class _Capsule:
    """An object with ``__dlpack__`` around a bare capsule (the legacy protocol), so the
    array libraries' ``from_dlpack`` accept it; the capsule does not say its device, so the
    CPU is assumed unless ``device`` says otherwise."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor sharing the memory of ``ext_tensor``: any object with ``__dlpack__`` (a NumPy
    or CuPy array, a torch tensor, ...) or a DLPack capsule (CPU memory). ``device`` moves
    the result there, ``copy=True`` gives it memory of its own.

    Example:
        >>> import numpy as np
        >>> a = np.arange(3.0)
        >>> t = torch.from_dlpack(a)
        >>> t[0] = 7.0
        >>> a[0]
        np.float64(7.0)
    """
    if device is not None or copy:
        out = from_dlpack(ext_tensor)
        if device is not None:
            out = out.to(device)
        return out.clone() if copy and out.data_ptr() == _data_ptr(ext_tensor) else out
    if isinstance(ext_tensor, Tensor):
        return ext_tensor.detach()  # a new tensor on the same memory, as torch's
    if not hasattr(ext_tensor, "__dlpack__"):
        if type(ext_tensor).__name__ != "PyCapsule":
            raise TypeError(f"from_dlpack(): expected an object with __dlpack__ or a DLPack "
                            f"capsule, but got {type(ext_tensor).__name__}")
        ext_tensor = _Capsule(ext_tensor, (_KDLCPU, 0))
    device_type = ext_tensor.__dlpack_device__()[0]
    if device_type in (_KDLCPU, _KDLCUDA):
        xp = backend.get_xp(None if device_type == _KDLCPU else _device("cuda"))
    else:
        raise RuntimeError(f"from_dlpack(): unsupported device type {device_type} (numtorch "
                           f"holds CPU and CUDA memory)")
    return _make(xp.from_dlpack(ext_tensor))


def _data_ptr(obj):
    if isinstance(obj, Tensor):
        return obj.data_ptr()
    iface = getattr(obj, "__array_interface__", None)
    return iface["data"][0] if iface else None


def to_dlpack(tensor):
    """A DLPack capsule holding ``tensor``'s memory (shared, not copied), for libraries that
    take capsules; newer ones accept the tensor itself through ``__dlpack__``."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()
