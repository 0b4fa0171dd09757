"""nn modules: fractional max pooling and adaptive max/average pooling (output size fixed,
windows derived from the input size).

They belong to torch's ``nn.modules.pooling`` and are re-exported there; ``__module__`` names
that file, so reprs, pickles and saved models use torch's path.
"""

from .. import functional as F
from .module import Module

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(value, n):
    """``value`` as an ``n``-tuple (a tuple or list is kept as given)."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


class _FractionalMaxPoolNd(Module):
    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _nd = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        nd = self._nd
        self.kernel_size = _ntuple(kernel_size, nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, nd) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, nd) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             f"ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over pseudo-randomly placed 2-d windows (B. Graham, 2014).

    Args:
        kernel_size (int or tuple): window size.
        output_size (int or tuple, optional): output size ``(H_out, W_out)``.
        output_ratio (float or tuple, optional): output size as a fraction (in (0, 1)) of the
            input size; exactly one of the two must be given.
        return_indices (bool): also return the positions of the maxima. Default: False.
        _random_samples (Tensor, optional): fixed ``(N, C, 2)`` window placements (a buffer).

    Example:
        >>> torch.nn.FractionalMaxPool2d(3, output_ratio=0.5)(torch.randn(1, 2, 10, 10)).shape
        torch.Size([1, 2, 5, 5])
    """

    _nd = 2

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over pseudo-randomly placed 3-d windows; see
    :class:`FractionalMaxPool2d` (``_random_samples`` is ``(N, C, 3)``)."""

    _nd = 3

    def forward(self, input):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output length (windows ``[floor(i*L/out), ceil((i+1)*L/out))``).

    Args:
        output_size (int): the output length.
        return_indices (bool): also return the positions of the maxima. Default: False.

    Example:
        >>> torch.nn.AdaptiveMaxPool1d(2)(torch.tensor([[1., 5., 2., 4., 3.]]))
        tensor([[5., 4.]])
    """

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed ``(H_out, W_out)``; None entries keep the input's size."""

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed ``(D_out, H_out, W_out)``; None entries keep the input's size."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output length (windows as :class:`AdaptiveMaxPool1d`).

    Example:
        >>> torch.nn.AdaptiveAvgPool1d(2)(torch.tensor([[1., 3., 2., 6.]]))
        tensor([[2., 4.]])
    """

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``(H_out, W_out)``; None entries keep the input's size.

    Example:
        >>> torch.nn.AdaptiveAvgPool2d((1, 1))(torch.randn(8, 16, 7, 7)).shape
        torch.Size([8, 16, 1, 1])
    """

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``(D_out, H_out, W_out)``; None entries keep the input's
    size."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


for _cls in (_FractionalMaxPoolNd, FractionalMaxPool2d, FractionalMaxPool3d, _AdaptiveMaxPoolNd,
             AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, _AdaptiveAvgPoolNd,
             AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d):
    _cls.__module__ = "numtorch.nn.modules.pooling"
