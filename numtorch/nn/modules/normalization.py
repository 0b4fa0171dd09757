"""nn modules: normalization (torch's file of the same name; forward passes call nn.functional)."""

import numbers

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


def _as_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)



def _affine_parameters(module, enabled, bias, shape, factory):
    """Register the learnable ``weight`` (and, with ``bias``, ``bias``) of a normalization
    layer, of ``shape``, uninitialised; both are registered as None when not ``enabled``, as
    torch does (so they appear, empty, in attribute lookups and the repr)."""
    if enabled:
        module.weight = Parameter(_creation.empty(shape, **factory))
        if bias:
            module.bias = Parameter(_creation.empty(shape, **factory))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module, enabled):
    """Set a normalization layer's weight to ones and its bias (if any) to zeros."""
    if enabled:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)

class LocalResponseNorm(Module):
    """Normalise each value by its neighbours across channels (see
    :func:`numtorch.nn.functional.local_response_norm`).

    Args:
        size (int): number of neighbouring channels in the window.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Shape:
        - Input: ``(N, C, *)``. Output: same shape.

    Example:
        >>> torch.nn.LocalResponseNorm(2)(torch.randn(2, 4, 3)).shape
        torch.Size([2, 4, 3])
    """

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """Lua torch's cross-channel LRN for 4-D inputs, with its legacy window and gradient.

    Args:
        size (int): window size.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.

    Shape:
        - Input: ``(N, C, H, W)``. Output: same shape.

    Example:
        >>> torch.nn.CrossMapLRN2d(3)(torch.randn(1, 4, 2, 2)).shape
        torch.Size([1, 4, 2, 2])

    Note:
        As in torch, the first channel always joins the window sum (a quirk of the original
        running-sum implementation), and the gradient is the legacy formula rather than the
        exact derivative; it can be taken once only.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        from ...ops.norm_ops import cross_map_lrn2d

        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class LayerNorm(Module):
    """Layer normalization over the trailing ``normalized_shape`` dims.

    .. math:: y = \\frac{x - \\mathrm{E}[x]}{\\sqrt{\\mathrm{Var}[x] + \\epsilon}}
              * \\gamma + \\beta

    Args:
        normalized_shape (int or sequence of int): the trailing shape to normalise over.
        eps (float): added to the variance. Default: 1e-5.
        elementwise_affine (bool): learn an elementwise ``weight`` (ones) and ``bias``
            (zeros) of shape ``normalized_shape``. Default: True.
        bias (bool): with ``elementwise_affine``, also learn the bias. Default: True.

    Shape:
        - Input: ``(*, *normalized_shape)``. Output: same shape.

    Example:
        >>> torch.nn.LayerNorm(4)(torch.randn(2, 3, 4)).shape
        torch.Size([2, 3, 4])
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, bias, self.normalized_shape, factory)
        self.reset_parameters()

    def reset_parameters(self):
        """Set the weight to ones and the bias to zeros."""
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalization: standardise groups of channels of each sample.

    Args:
        num_groups (int): number of groups; must divide ``num_channels``.
        num_channels (int): the number of channels ``C``.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): learn a per-channel ``weight`` (ones) and ``bias`` (zeros).
            Default: True.
        bias (bool, keyword): with ``affine``, also learn the bias. Default: True.

    Shape:
        - Input: ``(N, C, *)``. Output: same shape.

    Example:
        >>> torch.nn.GroupNorm(2, 4)(torch.randn(3, 4, 5)).shape
        torch.Size([3, 4, 5])
    """

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        factory = {"device": device, "dtype": dtype}
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, bias, num_channels, factory)
        self.reset_parameters()

    def reset_parameters(self):
        """Set the weight to ones and the bias to zeros."""
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims.

    .. math:: y = \\frac{x}{\\sqrt{\\mathrm{E}[x^2] + \\epsilon}} * \\gamma

    Args:
        normalized_shape (int or sequence of int): the trailing shape to normalise over.
        eps (float, optional): added to the mean square; None uses the machine epsilon of
            the input's dtype. Default: None.
        elementwise_affine (bool): learn an elementwise ``weight`` (ones). Default: True.

    Shape:
        - Input: ``(*, *normalized_shape)``. Output: same shape.

    Example:
        >>> torch.nn.RMSNorm(4)(torch.randn(2, 4)).shape
        torch.Size([2, 4])
    """

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_creation.empty(self.normalized_shape, device=device,
                                                    dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Set the weight to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
