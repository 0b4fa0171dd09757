"""Top-level forms of small Tensor queries and copies: ``torch.detach``, ``torch.is_signed``,
``torch.is_same_size``, ``torch.get_device``, ``torch.fill`` and ``torch.typename``."""

from ._inplace_functions import _require_tensor
from ._tensor import Tensor

__all__ = ["detach", "is_signed", "is_same_size", "get_device", "fill", "typename",
           "nonzero_static"]


def detach(input):
    """A tensor sharing ``input``'s data, cut from the autograd graph; see
    :meth:`numtorch.Tensor.detach`."""
    _require_tensor("detach", input)
    return input.detach()


def is_signed(input):
    """True if ``input``'s dtype can hold negative values (complex counts as signed)."""
    _require_tensor("is_signed", input)
    return input.is_signed()


def is_same_size(input, other):
    """True if ``input`` and ``other`` have the same shape."""
    _require_tensor("is_same_size", input)
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return tuple(input.shape) == tuple(other.shape)


def get_device(input):
    """The CUDA device index of ``input``, or -1 for a CPU tensor."""
    _require_tensor("get_device", input)
    return input.get_device()


def fill(input, value):
    """A new tensor of ``input``'s shape, dtype and device holding ``value`` everywhere
    (``value`` may be a number or a 0-d tensor); gradients reach ``value`` only."""
    _require_tensor("fill", input)
    from .ops.inplace_writes import check_fill_value

    check_fill_value("fill", value, method=False)
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.dim()} dimensions.")
    return input.detach().clone().fill_(value)


def typename(obj):
    """The type name torch prints for ``obj``: ``'torch.FloatTensor'`` and the like for a
    tensor, ``module.QualifiedName`` for other objects (bare for builtins).

    Note: numtorch's own classes are named under ``torch.`` as torch names them, so code
    comparing the strings keeps working.
    """
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    if module in ("builtins", "__builtin__"):
        return name
    if module == "numtorch" or module.startswith("numtorch."):
        module = "torch" + module[len("numtorch"):]
    return f"{module}.{name}"


def nonzero_static(input, *, size, fill_value=-1):
    """The indices of ``input``'s non-zero elements, cut or padded with ``fill_value`` to
    exactly ``size`` rows; see :meth:`numtorch.Tensor.nonzero_static`."""
    _require_tensor("nonzero_static", input)
    return input.nonzero_static(size=size, fill_value=fill_value)
