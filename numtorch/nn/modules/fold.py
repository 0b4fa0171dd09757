"""Sliding-block layers (torch's file of the same name): Fold (col2im) and Unfold (im2col)."""

from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sum sliding local blocks ``(N, C * prod(kernel_size), L)`` into ``(N, C, *output_size)``.

    Args:
        output_size (int or tuple): spatial size of the result.
        kernel_size (int or tuple): size of each block.
        dilation (int or tuple): spacing between block elements. Default: 1.
        padding (int or tuple): implicit zero padding on both sides. Default: 0.
        stride (int or tuple): step between blocks. Default: 1.

    Example:
        >>> torch.nn.Fold(output_size=(4, 5), kernel_size=2)(torch.ones(1, 12, 12)).shape
        torch.Size([1, 3, 4, 5])
    """

    __constants__ = ["output_size", "kernel_size", "dilation", "padding", "stride"]

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """See :func:`numtorch.nn.functional.fold`."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extract sliding local blocks of ``(N, C, H, W)`` as ``(N, C * prod(kernel_size), L)``.

    Args:
        kernel_size (int or tuple): size of each block.
        dilation (int or tuple): spacing between block elements. Default: 1.
        padding (int or tuple): zero padding on both sides. Default: 0.
        stride (int or tuple): step between blocks. Default: 1.

    Example:
        >>> torch.nn.Unfold(kernel_size=(2, 3))(torch.ones(2, 5, 3, 4)).shape
        torch.Size([2, 30, 4])
    """

    __constants__ = ["kernel_size", "dilation", "padding", "stride"]

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """See :func:`numtorch.nn.functional.unfold`."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
