"""Upsampling layers (torch's file of the same name): Upsample, UpsamplingNearest2d and
UpsamplingBilinear2d. Each ``forward`` is one call of :func:`numtorch.nn.functional.interpolate`.
"""

from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resize 1-D, 2-D or 3-D signals to a ``size`` or by a ``scale_factor``.

    Args:
        size (int or tuple, optional): output spatial size.
        scale_factor (float or tuple, optional): spatial multiplier.
        mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'``, ``'bilinear'``,
            ``'bicubic'`` or ``'trilinear'``. Default: ``'nearest'``.
        align_corners (bool, optional): see :func:`numtorch.nn.functional.interpolate`.
        recompute_scale_factor (bool, optional): see
            :func:`numtorch.nn.functional.interpolate`.

    Shape:
        - Input: ``(N, C, *in)``; Output: ``(N, C, *out)``.

    Example:
        >>> torch.nn.Upsample(scale_factor=2)(torch.ones(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name",
                     "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """Resize ``input`` (see :func:`numtorch.nn.functional.interpolate`)."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def __setstate__(self, state):
        if "recompute_scale_factor" not in state:  # pickles from before the option existed
            state["recompute_scale_factor"] = True
        super().__setstate__(state)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-D upsampling (``Upsample(..., mode='nearest')``).

    Example:
        >>> torch.nn.UpsamplingNearest2d(scale_factor=2)(torch.ones(1, 1, 2, 3)).shape
        torch.Size([1, 1, 4, 6])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-D upsampling with ``align_corners=True`` (torch's legacy behaviour).

    Example:
        >>> torch.nn.UpsamplingBilinear2d(size=4)(torch.ones(1, 1, 2, 2)).shape
        torch.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
