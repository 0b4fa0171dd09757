"""Where torchvision keeps this loss (`from torchvision.ops.ciou_loss import ...`)."""

from ._iou_losses import complete_box_iou_loss

__all__ = ["complete_box_iou_loss"]
