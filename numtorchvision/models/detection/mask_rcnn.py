"""Mask R-CNN (He et al., 2017): Faster R-CNN plus a small FCN predicting a per-class mask
on each detection; ResNet-50 FPN v1 and v2 (batch-norm heads)."""

from collections import OrderedDict

from numtorch import nn

from ...ops import MultiScaleRoIAlign
from ...ops import misc as misc_nn_ops
from .._api import WeightsEnum, register_model
from .._utils import handle_legacy_interface
from ..resnet import ResNet50_Weights
from ._utils import _init_convs
from .faster_rcnn import (_ENHANCED_DOCS, _RECIPES, FasterRCNN, _attach_branch, _check_components,
                          _coco_weights, _finish, _resnet50_fpn, _settle_classes, _v2_heads)

__all__ = ["MaskRCNN", "MaskRCNN_ResNet50_FPN_Weights", "MaskRCNN_ResNet50_FPN_V2_Weights",
           "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2"]


class MaskRCNNHeads(nn.Sequential):
    """3x3 conv (+ norm) + ReLU layers over the pooled mask features.

    Args:
        in_channels (int): input channels.
        layers (list of int): output channels of each layer.
        dilation (int): dilation (and padding) of the convolutions.
        norm_layer (callable, optional): norm after each convolution.
    """

    _version = 2

    def __init__(self, in_channels, layers, dilation, norm_layer=None):
        blocks = []
        for out in layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(
                in_channels, out, kernel_size=3, stride=1, padding=dilation, dilation=dilation,
                norm_layer=norm_layer))
            in_channels = out
        super().__init__(*blocks)
        _init_convs(self, nn.Conv2d)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # version 1 named the convolutions mask_fcn1, mask_fcn2, ...
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for i in range(len(self)):
                for kind in ("weight", "bias"):
                    old = f"{prefix}mask_fcn{i + 1}.{kind}"
                    if old in state_dict:
                        state_dict[f"{prefix}{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class MaskRCNNPredictor(nn.Sequential):
    """2x up-sampling transposed convolution, ReLU, 1x1 convolution to one mask per class."""

    def __init__(self, in_channels, dim_reduced, num_classes):
        super().__init__(OrderedDict([
            ("conv5_mask", nn.ConvTranspose2d(in_channels, dim_reduced, 2, 2, 0)),
            ("relu", nn.ReLU(inplace=True)),
            ("mask_fcn_logits", nn.Conv2d(dim_reduced, num_classes, 1, 1, 0)),
        ]))
        # weights only: the biases keep the layers' default initialisation
        _init_convs(self, (nn.ConvTranspose2d, nn.Conv2d), zero_bias=False)


class MaskRCNN(FasterRCNN):
    """Faster R-CNN with a mask branch.

    Training adds ``loss_mask`` (targets need ``masks``: ``(N, H, W)`` uint8 per image);
    evaluation adds ``masks``: ``(N, 1, H, W)`` probabilities in the input images.

    Args (besides :class:`FasterRCNN`'s):
        mask_roi_pool (MultiScaleRoIAlign, optional): default 14x14 over levels 0-3.
        mask_head (nn.Module, optional): default four 256-channel conv layers.
        mask_predictor (nn.Module, optional): default :class:`MaskRCNNPredictor`; with it
            ``num_classes`` must be None.
    """

    def __init__(self, backbone, num_classes=None, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, rpn_anchor_generator=None, rpn_head=None,
                 rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000, rpn_nms_thresh=0.7,
                 rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3, rpn_batch_size_per_image=256,
                 rpn_positive_fraction=0.5, rpn_score_thresh=0.0, box_roi_pool=None,
                 box_head=None, box_predictor=None, box_score_thresh=0.05, box_nms_thresh=0.5,
                 box_detections_per_img=100, box_fg_iou_thresh=0.5, box_bg_iou_thresh=0.5,
                 box_batch_size_per_image=512, box_positive_fraction=0.25,
                 bbox_reg_weights=None, mask_roi_pool=None, mask_head=None, mask_predictor=None,
                 **kwargs):
        _check_components(backbone, num_classes, mask_predictor, "mask_predictor",
                          [("mask_roi_pool", mask_roi_pool, MultiScaleRoIAlign)])
        channels = backbone.out_channels
        if mask_roi_pool is None:
            mask_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"],
                                               output_size=14, sampling_ratio=2)
        if mask_head is None:
            mask_head = MaskRCNNHeads(channels, (256, 256, 256, 256), 1)
        if mask_predictor is None:
            mask_predictor = MaskRCNNPredictor(256, 256, num_classes)
        super().__init__(
            backbone, num_classes, min_size, max_size, image_mean, image_std,
            rpn_anchor_generator, rpn_head, rpn_pre_nms_top_n_train, rpn_pre_nms_top_n_test,
            rpn_post_nms_top_n_train, rpn_post_nms_top_n_test, rpn_nms_thresh,
            rpn_fg_iou_thresh, rpn_bg_iou_thresh, rpn_batch_size_per_image,
            rpn_positive_fraction, rpn_score_thresh, box_roi_pool, box_head, box_predictor,
            box_score_thresh, box_nms_thresh, box_detections_per_img, box_fg_iou_thresh,
            box_bg_iou_thresh, box_batch_size_per_image, box_positive_fraction,
            bbox_reg_weights, **kwargs)
        _attach_branch(self.roi_heads, "mask", mask_roi_pool, mask_head, mask_predictor)


class MaskRCNN_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = _coco_weights("maskrcnn_resnet50_fpn_coco-bf2d0c1e.pth", 44401393,
                            f"{_RECIPES}#mask-r-cnn", {"box_map": 37.9, "mask_map": 34.6},
                            134.38, 169.84)
    DEFAULT = COCO_V1


class MaskRCNN_ResNet50_FPN_V2_Weights(WeightsEnum):
    COCO_V1 = _coco_weights("maskrcnn_resnet50_fpn_v2_coco-73cbd019.pth", 46359409,
                            "https://github.com/pytorch/vision/pull/5773",
                            {"box_map": 47.4, "mask_map": 41.8}, 333.577, 177.219,
                            docs=_ENHANCED_DOCS)
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", MaskRCNN_ResNet50_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def maskrcnn_resnet50_fpn(*, weights: MaskRCNN_ResNet50_FPN_Weights | None = None,
                          progress: bool = True, num_classes: int | None = None,
                          weights_backbone: ResNet50_Weights | None = (
                              ResNet50_Weights.IMAGENET1K_V1),
                          trainable_backbone_layers: int | None = None, **kwargs):
    """Mask R-CNN with a ResNet-50 FPN backbone (arguments as
    :func:`~numtorchvision.models.detection.fasterrcnn_resnet50_fpn`)."""
    weights = MaskRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    backbone = _resnet50_fpn(weights, weights_backbone, progress, trainable_backbone_layers,
                             v2=False)
    model = MaskRCNN(backbone, num_classes=num_classes, **kwargs)
    return _finish(model, weights, progress, MaskRCNN_ResNet50_FPN_Weights.COCO_V1)


@register_model()
@handle_legacy_interface(weights=("pretrained", MaskRCNN_ResNet50_FPN_V2_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def maskrcnn_resnet50_fpn_v2(*, weights: MaskRCNN_ResNet50_FPN_V2_Weights | None = None,
                             progress: bool = True, num_classes: int | None = None,
                             weights_backbone: ResNet50_Weights | None = None,
                             trainable_backbone_layers: int | None = None, **kwargs):
    """Mask R-CNN v2 (batch-norm box and mask heads) with a ResNet-50 FPN backbone."""
    weights = MaskRCNN_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    backbone = _resnet50_fpn(weights, weights_backbone, progress, trainable_backbone_layers,
                             v2=True)
    mask_head = MaskRCNNHeads(backbone.out_channels, [256, 256, 256, 256], 1,
                              norm_layer=nn.BatchNorm2d)
    model = MaskRCNN(backbone, num_classes=num_classes, mask_head=mask_head,
                     **_v2_heads(backbone.out_channels), **kwargs)
    return _finish(model, weights, progress)
