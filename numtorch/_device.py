"""``numtorch.device``: a device type ('cpu', 'cuda', ...) and an optional index.

Besides naming where a tensor lives, a device works as a context manager that makes factory
functions (``zeros``, ``tensor``, ``rand``...) create tensors there, as in torch.
"""

from ._class_repr import TorchNamed
import re

__all__ = ["device", "set_default_device", "get_default_device"]

# every type torch's parser accepts; only cpu and cuda can hold numtorch tensors
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
          "privateuseone")
_PATTERN = re.compile(r"([A-Za-z_]+)(?::(0|[1-9][0-9]*))?")

_default_stack = [None]  # the default factory device; None means the CPU


class device(metaclass=TorchNamed):
    """A place where a tensor's memory lives, e.g. ``device('cpu')`` or ``device('cuda', 0)``.

    Args:
        type (str or device): ``'cpu'``, ``'cuda'``, ``'cuda:N'``, or an existing device.
        index (int, optional): the device ordinal, given separately from the type string.

    Devices compare equal only to devices (``device('cpu') == 'cpu'`` is False, as in
    torch) and are hashable and immutable.

    Example:
        >>> torch.device("cuda:1")
        device(type='cuda', index=1)
        >>> str(torch.device("cuda", 0))
        'cuda:0'
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's argument name
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): argument 'type' (position 1) must be str, not "
                                "torch.device")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            self._type, self._index = _accelerator(type)
            return
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({_type_name(type)}), but expected one of: (torch.device device) "
                            f"or (str type, int index = -1)")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{_type_name(index)}")
        name, idx = _parse(type)
        if idx is not None and index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {type}")
        if index is not None:
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            idx = index
        self._type, self._index = name, idx

    @property
    def type(self):
        """The device type, e.g. ``'cpu'`` or ``'cuda'``."""
        return self._type

    @property
    def index(self):
        """The device ordinal, or None when none was given."""
        return self._index

    def __eq__(self, other):
        if type(other) is not device:
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __ne__(self, other):
        if type(other) is not device:
            return NotImplemented
        return not (self._type == other._type and self._index == other._index)

    def __hash__(self):
        return hash((self._type, self._index))

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __format__(self, spec):
        return format(str(self), spec)

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __reduce__(self):
        return (device, (self._type, self._index) if self._index is not None else (self._type,))

    def __enter__(self):
        _default_stack.append(self)
        return self

    def __exit__(self, *exc):
        _default_stack.pop()


device.__module__ = "numtorch"  # shown and pickled as torch.device is


def _type_name(x):
    t = type(x)
    return "torch.device" if t is device else t.__name__


def _parse(text):
    if not text:
        raise RuntimeError("Device string must not be empty")
    m = _PATTERN.fullmatch(text)
    if m is None:  # torch checks the form first ("float32", "cuda:x"), then the type's name
        raise RuntimeError(f"Invalid device string: '{text}'")
    name, idx = m.group(1), m.group(2)
    if name not in _TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device "
                           f"string: {name}")
    if idx is not None and int(idx) >= 1 << 31:  # torch reads the index as a C int
        raise RuntimeError(f"Could not parse device index '{idx}' in device string '{text}'")
    return name, None if idx is None else int(idx)


def _accelerator(index):
    """A bare integer names a device of the accelerator (CUDA through CuPy), as in torch."""
    from . import backend

    if index < 0:
        raise RuntimeError("Device index must not be negative")
    if backend.cupy_or_none() is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return "cuda", index


CPU = device("cpu")


def as_device(d):
    """Accept a device, a string or an int (a CUDA ordinal) and return a device (None stays)."""
    if d is None or type(d) is device:
        return d
    return device(d)


def default_device(d):
    """``d`` as a device, or the default factory device when ``d`` is None."""
    if d is None:
        return _default_stack[-1]
    return d if type(d) is device else device(d)


def set_default_device(device):  # noqa: A002 - torch's argument name
    """Make factory functions create tensors on ``device`` by default (None means the CPU).

    Args:
        device (device or str or None): the new default device.

    Example:
        >>> torch.set_default_device("cpu")
        >>> torch.zeros(1).device
        device(type='cpu')
    """
    _default_stack[0] = as_device(device)


def get_default_device():
    """Return the device factory functions use when none is given.

    Example:
        >>> torch.get_default_device()
        device(type='cpu')
    """
    return _default_stack[-1] or CPU
