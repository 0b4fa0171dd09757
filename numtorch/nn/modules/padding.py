"""Padding layers (torch's file of the same name): Reflection/Replication/Zero/Constant/Circular
padding in 1, 2 and 3 dims. Each ``forward`` is one call of :func:`numtorch.nn.functional.pad`.
"""

from .. import functional as F
from .module import Module

__all__ = ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "CircularPad1d", "CircularPad2d",
           "CircularPad3d"]


def _pads(padding, nd):
    """An int pads every side; a tuple is taken as given (last dim first, as ``F.pad``)."""
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * (2 * nd)


class _PadNd(Module):
    """Pad the last ``_nd`` dims with ``F.pad`` in mode ``_mode``."""

    __constants__ = ["padding"]
    _nd = 0
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _pads(padding, self._nd)

    def forward(self, input):
        """Pad ``input`` (see :func:`numtorch.nn.functional.pad`)."""
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def _check_input_dim(self, input):
        n = self._nd
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        """Pad ``input`` circularly (wrapping around)."""
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class _ConstantPadNd(_PadNd):
    """Constant padding with a fill ``value``."""

    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        """Pad ``input`` with ``value``."""
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _doc(kind, nd, example):
    shape = {1: "(N, C, W)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}[nd]
    order = {1: "(left, right)", 2: "(left, right, top, bottom)",
             3: "(left, right, top, bottom, front, back)"}[nd]
    return (f"{kind} of the last {nd} dim{'s' if nd > 1 else ''} of a {shape} input (or one "
            f"without the batch dim).\n\n"
            f"    Args:\n"
            f"        padding (int or tuple): the same amount on every side, or {order}.\n\n"
            f"    Example:\n"
            f"        >>> {example}\n")


class ReflectionPad1d(_PadNd):
    __doc__ = _doc("Mirror padding (edge not repeated)", 1,
                   "torch.nn.ReflectionPad1d(2)(torch.ones(1, 2, 4)).shape\n"
                   "        torch.Size([1, 2, 8])")
    _nd, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    __doc__ = _doc("Mirror padding (edge not repeated)", 2,
                   "torch.nn.ReflectionPad2d((1, 1, 2, 0))(torch.ones(1, 1, 3, 3)).shape\n"
                   "        torch.Size([1, 1, 5, 5])")
    _nd, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    __doc__ = _doc("Mirror padding (edge not repeated)", 3,
                   "torch.nn.ReflectionPad3d(1)(torch.ones(1, 1, 2, 2, 2)).shape\n"
                   "        torch.Size([1, 1, 4, 4, 4])")
    _nd, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    __doc__ = _doc("Edge-repeating padding", 1,
                   "torch.nn.ReplicationPad1d((3, 1))(torch.ones(1, 2, 4)).shape\n"
                   "        torch.Size([1, 2, 8])")
    _nd, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    __doc__ = _doc("Edge-repeating padding", 2,
                   "torch.nn.ReplicationPad2d(2)(torch.ones(1, 1, 3, 3)).shape\n"
                   "        torch.Size([1, 1, 7, 7])")
    _nd, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    __doc__ = _doc("Edge-repeating padding", 3,
                   "torch.nn.ReplicationPad3d(1)(torch.ones(1, 1, 2, 2, 2)).shape\n"
                   "        torch.Size([1, 1, 4, 4, 4])")
    _nd, _mode = 3, "replicate"


class CircularPad1d(_CircularPadNd):
    __doc__ = _doc("Wrap-around padding", 1,
                   "torch.nn.CircularPad1d(2)(torch.ones(1, 2, 4)).shape\n"
                   "        torch.Size([1, 2, 8])")
    _nd = 1


class CircularPad2d(_CircularPadNd):
    __doc__ = _doc("Wrap-around padding", 2,
                   "torch.nn.CircularPad2d(1)(torch.ones(1, 1, 3, 3)).shape\n"
                   "        torch.Size([1, 1, 5, 5])")
    _nd = 2


class CircularPad3d(_CircularPadNd):
    __doc__ = _doc("Wrap-around padding", 3,
                   "torch.nn.CircularPad3d(1)(torch.ones(1, 1, 2, 2, 2)).shape\n"
                   "        torch.Size([1, 1, 4, 4, 4])")
    _nd = 3


class ConstantPad1d(_ConstantPadNd):
    __doc__ = _doc("Constant-value padding (``ConstantPad1d(padding, value)``)", 1,
                   "torch.nn.ConstantPad1d(2, 3.5)(torch.ones(1, 2, 4)).shape\n"
                   "        torch.Size([1, 2, 8])")
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    __doc__ = _doc("Constant-value padding (``ConstantPad2d(padding, value)``)", 2,
                   "torch.nn.ConstantPad2d((1, 0, 2, 0), 1.0)(torch.ones(1, 3, 3)).shape\n"
                   "        torch.Size([1, 5, 4])")
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    __doc__ = _doc("Constant-value padding (``ConstantPad3d(padding, value)``)", 3,
                   "torch.nn.ConstantPad3d(1, 0.5)(torch.ones(1, 1, 2, 2, 2)).shape\n"
                   "        torch.Size([1, 1, 4, 4, 4])")
    _nd = 3


class ZeroPad1d(ConstantPad1d):
    __doc__ = _doc("Zero padding", 1, "torch.nn.ZeroPad1d(2)(torch.ones(1, 2, 4)).shape\n"
                                      "        torch.Size([1, 2, 8])")

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    __doc__ = _doc("Zero padding", 2, "torch.nn.ZeroPad2d(1)(torch.ones(1, 1, 3, 3)).shape\n"
                                      "        torch.Size([1, 1, 5, 5])")

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    __doc__ = _doc("Zero padding", 3,
                   "torch.nn.ZeroPad3d(1)(torch.ones(1, 1, 2, 2, 2)).shape\n"
                   "        torch.Size([1, 1, 4, 4, 4])")

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
