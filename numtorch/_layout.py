"""``torch.layout`` and ``torch.memory_format``: their values, and memory formats on tensors.

Dense tensors are ``torch.strided``; sparse COO tensors (``numtorch._sparse``) and the compressed
CSR/CSC/BSR/BSC ones (``numtorch.sparse._compressed``) report their own layout. A memory format is a stride order: ``contiguous_format``
is row-major, ``channels_last`` keeps the channel of a 4-d ``(N, C, H, W)`` tensor innermost
(strides ``(HWC, 1, WC, C)``), ``channels_last_3d`` the same for 5-d tensors;
``preserve_format`` keeps the input's order.
"""

from . import backend
from ._class_repr import TorchNamed

__all__ = ["layout", "memory_format", "strided", "sparse_coo", "sparse_csr", "sparse_csc",
           "sparse_bsr", "sparse_bsc", "jagged", "contiguous_format", "channels_last",
           "channels_last_3d", "preserve_format", "legacy_contiguous_format"]


class _Named(metaclass=TorchNamed):
    """A constant that prints and pickles as ``torch.<name>``."""

    __slots__ = ("_name",)

    def __new__(cls, *args):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name):
        obj = object.__new__(cls)
        obj._name = name
        return obj

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # pickled by reference: the constant numtorch.<name>


class layout(_Named):  # noqa: N801 - torch's name
    """How a tensor's elements are stored (``Tensor.layout``); numtorch tensors are strided."""

    __slots__ = ()


class memory_format(_Named):  # noqa: N801 - torch's name
    """The order of a dense tensor's dimensions in memory (see the module docstring)."""

    __slots__ = ()


# public as torch.layout / torch.memory_format; the constants pickle as numtorch.<name>
layout.__module__ = memory_format.__module__ = "numtorch"


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")
_mkldnn = layout._make("_mkldnn")

contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")
legacy_contiguous_format = contiguous_format  # one object under two names, as in torch

# dimension order from innermost to outermost
_ORDER = {channels_last: (1, 3, 2, 0), channels_last_3d: (1, 4, 3, 2, 0)}


def check(fmt, fn):
    """Raise torch's TypeError unless ``fmt`` is a memory format."""
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(fmt).__name__}")


def _order(fmt, ndim):
    order = _ORDER[fmt]
    if ndim != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use "
                           f"{fmt._name} format")
    return order


def is_contiguous_as(shape, strides, fmt):
    """Whether ``strides`` lay ``shape`` out densely in ``fmt``'s order (size-1 dimensions,
    whose stride never matters, are not checked)."""
    if fmt not in _ORDER:
        order = range(len(shape) - 1, -1, -1)
    elif len(shape) != len(_ORDER[fmt]):
        return False
    else:
        order = _ORDER[fmt]
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def to_format(tensor, fmt, node="CloneBackward0"):
    """A copy of ``tensor`` laid out in ``fmt`` (a channels-last format) with torch's exact
    strides (size-1 dims included), recorded for autograd as torch's ``node``."""
    _order(fmt, tensor.dim())
    from .autograd.graph import rename_node
    from .nn.functional._memory_format import ToFormat

    return rename_node(ToFormat.apply(tensor, fmt=fmt), node)


def to_memory_format(tensor, fmt):
    """``Tensor.to(memory_format=fmt)``: ``tensor`` itself when torch would suggest ``fmt``
    for it already, else a copy laid out so."""
    if fmt in _ORDER:
        from .nn.functional._memory_format import suggest

        _order(fmt, tensor.dim())
        return tensor if suggest(tensor) is fmt else to_format(tensor, fmt, "ToCopyBackward0")
    return tensor.contiguous(memory_format=fmt)


def contiguous(tensor, fmt):
    """``Tensor.contiguous(memory_format=fmt)``: ``tensor`` itself when already laid out so."""
    check(fmt, "contiguous")
    if fmt in _ORDER:
        _order(fmt, tensor.dim())
    if is_contiguous_as(tensor.shape, tensor.stride(), fmt):
        return tensor
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if fmt in _ORDER:
        return to_format(tensor, fmt)
    return None  # row-major: the caller's own contiguous copy


def array_in_format(array, fmt):
    """``array`` laid out in ``fmt``: a copy in channels-last order, else ``array`` itself
    (for new tensors, which have no autograd history to keep)."""
    if fmt not in _ORDER:
        return array
    _order(fmt, array.ndim)
    from .nn.functional._memory_format import array_as

    return array_as(backend.xp_of(array), array, fmt)
