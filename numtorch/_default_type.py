"""``torch.set_default_tensor_type``: the pre-2.1 way of choosing the default float type.

Deprecated in torch (one warning per process) but still called by older programs; it sets the
default dtype, and a ``torch.cuda.*Tensor`` type also makes CUDA the default device.
"""

import importlib
import warnings

from . import _device, _dtype
from ._legacy_types import LegacyTensorType as _LegacyTensorType

__all__ = ["set_default_tensor_type"]

_warned = []
_cuda_default = [False]  # whether the default device came from a CUDA tensor type


def _resolve(name):
    """A dotted name such as ``'torch.DoubleTensor'`` or ``'torch.cuda.FloatTensor'``; the
    leading ``torch`` means numtorch, and errors name the module as torch would."""
    parts = name.split(".")
    shown = parts[0]
    obj = importlib.import_module("numtorch" if parts[0] == "torch" else parts[0])
    for part in parts[1:]:
        if not hasattr(obj, part):
            raise AttributeError(f"module '{shown}' has no attribute '{part}'")
        obj = getattr(obj, part)
        shown = f"{shown}.{part}"
    return obj


def set_default_tensor_type(t):
    """Make ``t`` (a type such as ``torch.DoubleTensor``, or its name as a string) the type of
    new floating-point tensors.

    Deprecated (as in torch): use :func:`set_default_dtype` and :func:`set_default_device`.

    Args:
        t (type or str): a floating-point tensor type; a ``torch.cuda`` type needs CUDA.

    Example:
        >>> torch.set_default_tensor_type(torch.DoubleTensor)  # doctest: +SKIP
        >>> torch.tensor([1.5]).dtype  # doctest: +SKIP
        torch.float64
    """
    if not _warned:
        _warned.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                      "use torch.set_default_dtype() and torch.set_default_device() as "
                      "alternatives.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        t = _resolve(t)
    if not isinstance(t, _LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if t.is_cuda:
        from . import cuda

        if not cuda.is_available():
            raise TypeError(f"type torch.cuda.{t.__name__} not available. Torch not compiled "
                            "with CUDA enabled.")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(t.dtype)
    if t.is_cuda:
        _device.set_default_device("cuda")
        _cuda_default[0] = True
    elif _cuda_default[0]:  # back from a CUDA type: new tensors live on the CPU again
        _device.set_default_device(None)
        _cuda_default[0] = False
