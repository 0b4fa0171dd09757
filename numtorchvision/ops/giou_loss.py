"""Where torchvision keeps this loss (`from torchvision.ops.giou_loss import ...`)."""

from ._iou_losses import generalized_box_iou_loss

__all__ = ["generalized_box_iou_loss"]
