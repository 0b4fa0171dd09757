"""Operators for vision models: box utilities, NMS, RoI pooling, losses and the shared
building blocks (conv-norm-activation, squeeze-and-excitation, stochastic depth)."""

from . import ciou_loss, diou_loss, giou_loss  # noqa: F401  (torchvision's module paths)
from ._iou_losses import complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss
from ._utils import split_normalization_params
from .boxes import (batched_nms, box_area, box_convert, box_iou, clip_boxes_to_image,
                    complete_box_iou, distance_box_iou, generalized_box_iou, masks_to_boxes, nms,
                    remove_small_boxes)
from .deform_conv import DeformConv2d, deform_conv2d
from .drop_block import DropBlock2d, DropBlock3d, drop_block2d, drop_block3d
from .feature_pyramid_network import FeaturePyramidNetwork
from .focal_loss import sigmoid_focal_loss
from .misc import (MLP, Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, Permute,
                   SqueezeExcitation)
from .poolers import MultiScaleRoIAlign
from .ps_roi import PSRoIAlign, PSRoIPool, ps_roi_align, ps_roi_pool
from .roi_align import RoIAlign, roi_align
from .roi_pool import RoIPool, roi_pool
from .stochastic_depth import StochasticDepth, stochastic_depth

__all__ = ["masks_to_boxes", "box_convert", "box_area", "box_iou", "generalized_box_iou",
           "distance_box_iou", "complete_box_iou", "clip_boxes_to_image", "nms", "batched_nms",
           "remove_small_boxes", "roi_align", "RoIAlign", "roi_pool", "RoIPool",
           "ps_roi_align", "PSRoIAlign", "ps_roi_pool", "PSRoIPool", "MultiScaleRoIAlign",
           "deform_conv2d", "DeformConv2d", "sigmoid_focal_loss", "generalized_box_iou_loss",
           "distance_box_iou_loss", "complete_box_iou_loss", "Conv2dNormActivation",
           "Conv3dNormActivation", "SqueezeExcitation", "MLP", "Permute", "FrozenBatchNorm2d", "StochasticDepth",
           "stochastic_depth", "split_normalization_params", "FeaturePyramidNetwork",
           "DropBlock2d", "DropBlock3d", "drop_block2d", "drop_block3d"]
