"""Where torchvision keeps this loss (`from torchvision.ops.diou_loss import ...`)."""

from ._iou_losses import distance_box_iou_loss

__all__ = ["distance_box_iou_loss"]
