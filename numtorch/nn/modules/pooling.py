"""nn modules: pooling (torch's file of the same name; forward passes call nn.functional): max,
max-unpool, average and power-average pooling here; the fractional and adaptive poolings are
defined in ``_adaptive_pooling.py`` and re-exported here, torch's path for them.

The modules keep their constructor arguments as given (as torch does: ``MaxPool2d(3).stride`` is
``3``, ``AvgPool1d(3).stride`` is ``(3,)``), so reprs and attributes match torch's.
"""

from .. import functional as F
from ._adaptive_pooling import (  # noqa: F401  (torch's path for them)
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
    AdaptiveMaxPool3d, FractionalMaxPool2d, FractionalMaxPool3d, _AdaptiveAvgPoolNd,
    _AdaptiveMaxPoolNd, _FractionalMaxPoolNd, _ntuple,
)
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max pooling over sliding windows of ``(N, C, L)`` or ``(C, L)`` inputs.

    Args:
        kernel_size (int or tuple): window length.
        stride (int or tuple, optional): window step. Default: ``kernel_size``.
        padding (int or tuple): implicit -inf padding, at most half the kernel. Default: 0.
        dilation (int or tuple): spacing between window elements. Default: 1.
        return_indices (bool): also return the positions of the maxima (for
            :class:`MaxUnpool1d`). Default: False.
        ceil_mode (bool): round the output length up. Default: False.

    Shape:
        ``L_out = floor((L + 2*padding - dilation*(kernel_size-1) - 1) / stride) + 1``.

    Example:
        >>> torch.nn.MaxPool1d(2)(torch.tensor([[1., 3., 2., 0.]]))
        tensor([[3., 2.]])
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max pooling over sliding 2-d windows of ``(N, C, H, W)`` or ``(C, H, W)`` inputs.

    Arguments as :class:`MaxPool1d` (ints or pairs); see :func:`numtorch.nn.functional.max_pool2d`.

    Example:
        >>> torch.nn.MaxPool2d(2)(torch.randn(8, 3, 32, 32)).shape
        torch.Size([8, 3, 16, 16])
    """

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """Max pooling over sliding 3-d windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs.

    Arguments as :class:`MaxPool1d` (ints or triples).

    Example:
        >>> torch.nn.MaxPool3d(2)(torch.randn(1, 2, 4, 4, 4)).shape
        torch.Size([1, 2, 2, 2, 2])
    """

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class _MaxUnpoolNd(Module):
    _nd = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._nd)
        self.stride = _ntuple(stride if (stride is not None) else kernel_size, self._nd)
        self.padding = _ntuple(padding, self._nd)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool1d`: each value goes back to its index, zeros elsewhere.

    Args:
        kernel_size, stride, padding: those of the pooling (stride defaults to the kernel).

    ``forward(input, indices, output_size=None)``; ``output_size`` picks among the input lengths
    that pool to the same length.

    Example:
        >>> pool, unpool = torch.nn.MaxPool1d(2, return_indices=True), torch.nn.MaxUnpool1d(2)
        >>> unpool(*pool(torch.tensor([[1., 3., 2., 0.]])))
        tensor([[0., 3., 2., 0.]])
    """

    _nd = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool2d`; see :class:`MaxUnpool1d`."""

    _nd = 2

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool3d`; see :class:`MaxUnpool1d`."""

    _nd = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Average pooling over sliding windows of ``(N, C, L)`` or ``(C, L)`` inputs.

    Args:
        kernel_size (int or tuple): window length.
        stride (int or tuple, optional): window step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding, at most half the kernel. Default: 0.
        ceil_mode (bool): round the output length up. Default: False.
        count_include_pad (bool): count padded zeros in the divisor. Default: True.

    Example:
        >>> torch.nn.AvgPool1d(2)(torch.tensor([[1., 3., 2., 0.]]))
        tensor([[2., 1.]])
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolOverride(_AvgPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


class AvgPool2d(_AvgPoolOverride):
    """Average pooling over sliding 2-d windows of ``(N, C, H, W)`` or ``(C, H, W)`` inputs.

    Args as :class:`AvgPool1d`, plus ``divisor_override`` (int, optional): divide each window
    sum by this instead of the window size.

    Example:
        >>> torch.nn.AvgPool2d(2)(torch.ones(1, 4, 4)).shape
        torch.Size([1, 2, 2])
    """

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3d(_AvgPoolOverride):
    """Average pooling over sliding 3-d windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    Arguments as :class:`AvgPool2d` (ints or triples).
    """

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling: ``(sum over each window of x**p) ** (1/p)``.

    Args:
        norm_type (float): the power ``p``.
        kernel_size (int): window length.
        stride (int, optional): window step. Default: ``kernel_size``.
        ceil_mode (bool): round the output length up. Default: False.

    Example:
        >>> torch.nn.LPPool1d(2, 2)(torch.tensor([[3., 4.]]))
        tensor([[5.]])
    """

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over 2-d windows; see :class:`LPPool1d`."""

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over 3-d windows; see :class:`LPPool1d`."""

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)
