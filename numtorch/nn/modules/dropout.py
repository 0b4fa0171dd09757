"""nn modules: dropout (torch's file of the same name; forward passes call nn.functional).

The modules only hold ``p`` and ``inplace``; they apply dropout in training mode and are the
identity in eval mode (``module.eval()``).
"""

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """Base of the dropout modules: checks ``p`` and prints ``p`` and ``inplace``."""

    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` while training and scale the others by
    ``1 / (1 - p)`` (see :func:`numtorch.nn.functional.dropout`).

    Args:
        p (float): the probability of zeroing an element. Default: 0.5.
        inplace (bool): operate in place. Default: False.

    Shape:
        - Input: any shape. Output: the same shape.

    Example:
        >>> m = torch.nn.Dropout(0.5).eval()
        >>> m(torch.ones(3))
        tensor([1., 1., 1.])
    """

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` inputs with probability ``p`` (see
    :func:`numtorch.nn.functional.dropout1d`).

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> y = torch.nn.Dropout1d()(torch.ones(2, 4, 3))
        >>> bool((y == y[..., :1]).all())
        True
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` or ``(C, H, W)`` inputs with probability ``p``
    (see :func:`numtorch.nn.functional.dropout2d`).

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> y = torch.nn.Dropout2d()(torch.ones(2, 4, 3, 3))
        >>> bool((y == y[..., :1, :1]).all())
        True
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs with probability
    ``p`` (see :func:`numtorch.nn.functional.dropout3d`).

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): operate in place. Default: False.

    Example:
        >>> y = torch.nn.Dropout3d()(torch.ones(2, 4, 2, 2, 2))
        >>> bool((y == y[..., :1, :1, :1]).all())
        True
    """

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks: keeps zero mean and unit variance (see
    :func:`numtorch.nn.functional.alpha_dropout`).

    Args:
        p (float): the drop probability. Default: 0.5.
        inplace (bool): accepted for compatibility; like torch, the module does not operate
            in place.

    Example:
        >>> torch.nn.AlphaDropout(0.2).eval()(torch.ones(2))
        tensor([1., 1.])
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (see
    :func:`numtorch.nn.functional.feature_alpha_dropout`).

    Args:
        p (float): the drop probability. Default: 0.5.
        inplace (bool): accepted for compatibility; like torch, the module does not operate
            in place.

    Example:
        >>> y = torch.nn.FeatureAlphaDropout(0.5)(torch.ones(2, 3, 4))
        >>> bool((y == y[..., :1]).all())
        True
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
