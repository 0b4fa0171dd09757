"""``nn.LinearCrossEntropyLoss``: a linear classifier head and its cross entropy as one
module (torch keeps it in ``torch.nn.modules.loss``)."""

import math

from .. import functional as F
from .linear import Linear
from .module import Module

__all__ = ["LinearCrossEntropyLoss"]


class LinearCrossEntropyLoss(Module):
    """Cross entropy of ``Linear(in_features, num_classes * prod(out_features))``'s logits.

    Args:
        in_features (int): features of each input sample.
        num_classes (int): the number of classes ``C``.
        out_features (tuple of int): extra dimensions ``(d_1, ..., d_K)`` of a K-dimensional
            loss. Default: ``()``.
        bias (bool): give the linear layer a bias. Default: False.
        weight (Tensor, optional): per-class rescaling (a buffer).
        reduction, ignore_index, label_smoothing, options: as for
            :func:`numtorch.nn.functional.linear_cross_entropy`.

    The linear layer (``self.linear``) stores its weight flat,
    ``(C * prod(out_features), in_features)``, as torch does, so state dicts match.
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        super().__init__()
        self.in_features, self.num_classes = in_features, num_classes
        self.out_features = tuple(out_features)
        self.reduction, self.ignore_index = reduction, ignore_index
        self.label_smoothing, self.options = label_smoothing, options
        self.has_bias = bias
        self.register_buffer("weight", weight)
        rows = num_classes * math.prod(self.out_features)
        self.linear = Linear(in_features, rows, bias=bias, device=device, dtype=dtype)

    def forward(self, input, target):
        """The loss of ``input`` ``(N, in_features)`` against ``target``."""
        shape = (self.num_classes,) + self.out_features
        bias = self.linear.bias
        return F.linear_cross_entropy(
            input, self.linear.weight.reshape(shape + (self.in_features,)), target,
            linear_bias=None if bias is None else bias.reshape(shape), weight=self.weight,
            reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.has_bias}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


LinearCrossEntropyLoss.__module__ = "numtorch.nn.modules.loss"
