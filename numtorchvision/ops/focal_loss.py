"""Focal loss (Lin et al., "Focal Loss for Dense Object Detection", 2017)."""

import numtorch
from numtorch.nn import functional as F

from ._utils import _reduce_loss

__all__ = ["sigmoid_focal_loss"]


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    """Binary cross-entropy on logits, down-weighted by ``(1 - p_t) ** gamma`` for examples
    that are already classified well, and balanced between classes by ``alpha``.

    Args:
        inputs (Tensor): logits of any shape.
        targets (Tensor): same shape, 1 for positives and 0 for negatives.
        alpha (float): weight of the positives in [0, 1] (negatives get ``1 - alpha``); -1
            turns the weighting off. Default: 0.25.
        gamma (float): focusing exponent. Default: 2.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"none"``.
    """
    if not 0 <= alpha <= 1 and alpha != -1:
        raise ValueError(f"Invalid alpha value: {alpha}. alpha must be in the range [0,1] or -1 "
                         f"for ignore.")
    p = numtorch.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    return _reduce_loss(loss, reduction)
