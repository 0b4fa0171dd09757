"""Keypoint R-CNN (He et al., 2017): Faster R-CNN plus a branch predicting one heatmap per
keypoint on each detection (COCO person keypoints)."""

from numtorch import nn
from numtorch.nn import functional as F

from ...ops import MultiScaleRoIAlign
from .._api import WeightsEnum, register_model
from .._meta import _COCO_PERSON_CATEGORIES, _COCO_PERSON_KEYPOINT_NAMES
from .._utils import _ovewrite_value_param, handle_legacy_interface
from ..resnet import ResNet50_Weights
from ._utils import _init_convs
from .faster_rcnn import (_RECIPES, FasterRCNN, _attach_branch, _coco_weights, _finish,
                          _resnet50_fpn)

__all__ = ["KeypointRCNN", "KeypointRCNN_ResNet50_FPN_Weights", "keypointrcnn_resnet50_fpn"]


class KeypointRCNNHeads(nn.Sequential):
    """3x3 conv + ReLU layers over the pooled keypoint features."""

    def __init__(self, in_channels, layers):
        blocks = []
        for out in layers:
            blocks += [nn.Conv2d(in_channels, out, 3, stride=1, padding=1), nn.ReLU(inplace=True)]
            in_channels = out
        super().__init__(*blocks)
        _init_convs(self, nn.Conv2d)


class KeypointRCNNPredictor(nn.Module):
    """Keypoint heatmap logits: a stride-2 4x4 transposed convolution, then 2x bilinear
    up-sampling."""

    def __init__(self, in_channels, num_keypoints):
        super().__init__()
        kernel = 4
        self.kps_score_lowres = nn.ConvTranspose2d(in_channels, num_keypoints, kernel, stride=2,
                                                   padding=kernel // 2 - 1)
        _init_convs(self, nn.ConvTranspose2d)
        self.out_channels, self.up_scale = num_keypoints, 2

    def forward(self, x):
        return F.interpolate(self.kps_score_lowres(x), scale_factor=float(self.up_scale),
                             mode="bilinear", align_corners=False, recompute_scale_factor=False)


class KeypointRCNN(FasterRCNN):
    """Faster R-CNN with a keypoint branch.

    Training adds ``loss_keypoint`` (targets need ``keypoints``: ``(N, K, 3)`` float
    x, y, visibility); evaluation adds ``keypoints`` ``(N, K, 3)`` and
    ``keypoints_scores`` ``(N, K)``.

    Args (besides :class:`FasterRCNN`'s; ``min_size`` defaults to the multi-scale
    training sizes 640-800):
        keypoint_roi_pool (MultiScaleRoIAlign, optional): default 14x14 over levels 0-3.
        keypoint_head (nn.Module, optional): default eight 512-channel conv layers.
        keypoint_predictor (nn.Module, optional): default :class:`KeypointRCNNPredictor`.
        num_keypoints (int, optional): 17 unless a predictor is given.
    """

    def __init__(self, backbone, num_classes=None, min_size=None, max_size=1333, image_mean=None,
                 image_std=None, rpn_anchor_generator=None, rpn_head=None,
                 rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000, rpn_nms_thresh=0.7,
                 rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3, rpn_batch_size_per_image=256,
                 rpn_positive_fraction=0.5, rpn_score_thresh=0.0, box_roi_pool=None,
                 box_head=None, box_predictor=None, box_score_thresh=0.05, box_nms_thresh=0.5,
                 box_detections_per_img=100, box_fg_iou_thresh=0.5, box_bg_iou_thresh=0.5,
                 box_batch_size_per_image=512, box_positive_fraction=0.25,
                 bbox_reg_weights=None, keypoint_roi_pool=None, keypoint_head=None,
                 keypoint_predictor=None, num_keypoints=None, **kwargs):
        if not isinstance(keypoint_roi_pool, (MultiScaleRoIAlign, type(None))):
            # torchvision's message, its unfilled placeholder included
            raise TypeError("keypoint_roi_pool should be of type MultiScaleRoIAlign or None "
                            "instead of {type(keypoint_roi_pool)}")
        if min_size is None:
            min_size = (640, 672, 704, 736, 768, 800)
        if num_keypoints is not None:
            if keypoint_predictor is not None:
                raise ValueError("num_keypoints should be None when keypoint_predictor is "
                                 "specified")
        else:
            num_keypoints = 17
        channels = backbone.out_channels
        if keypoint_roi_pool is None:
            keypoint_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"],
                                                   output_size=14, sampling_ratio=2)
        if keypoint_head is None:
            keypoint_head = KeypointRCNNHeads(channels, tuple(512 for _ in range(8)))
        if keypoint_predictor is None:
            keypoint_predictor = KeypointRCNNPredictor(512, num_keypoints)
        super().__init__(
            backbone, num_classes, min_size, max_size, image_mean, image_std,
            rpn_anchor_generator, rpn_head, rpn_pre_nms_top_n_train, rpn_pre_nms_top_n_test,
            rpn_post_nms_top_n_train, rpn_post_nms_top_n_test, rpn_nms_thresh,
            rpn_fg_iou_thresh, rpn_bg_iou_thresh, rpn_batch_size_per_image,
            rpn_positive_fraction, rpn_score_thresh, box_roi_pool, box_head, box_predictor,
            box_score_thresh, box_nms_thresh, box_detections_per_img, box_fg_iou_thresh,
            box_bg_iou_thresh, box_batch_size_per_image, box_positive_fraction,
            bbox_reg_weights, **kwargs)
        _attach_branch(self.roi_heads, "keypoint", keypoint_roi_pool, keypoint_head,
                       keypoint_predictor)


_PERSON = {"categories": _COCO_PERSON_CATEGORIES, "keypoint_names": _COCO_PERSON_KEYPOINT_NAMES}
# the legacy entry's description is kept as published, indentation included
_LEGACY_DOCS = ("\n" + " " * 16 + "These weights were produced by following a similar training "
                "recipe as on the paper but use a checkpoint\n" + " " * 16
                + "from an early epoch.\n" + " " * 12)


class KeypointRCNN_ResNet50_FPN_Weights(WeightsEnum):
    COCO_LEGACY = _coco_weights("keypointrcnn_resnet50_fpn_coco-9f466800.pth", 59137258,
                                "https://github.com/pytorch/vision/issues/1606",
                                {"box_map": 50.6, "kp_map": 61.1}, 133.924, 226.054,
                                docs=_LEGACY_DOCS, **_PERSON)
    COCO_V1 = _coco_weights("keypointrcnn_resnet50_fpn_coco-fc266e95.pth", 59137258,
                            f"{_RECIPES}#keypoint-r-cnn", {"box_map": 54.6, "kp_map": 65.0},
                            137.42, 226.054, **_PERSON)
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", lambda kwargs: KeypointRCNN_ResNet50_FPN_Weights.COCO_LEGACY
             if kwargs["pretrained"] == "legacy" else KeypointRCNN_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1))
def keypointrcnn_resnet50_fpn(*, weights: KeypointRCNN_ResNet50_FPN_Weights | None = None,
                              progress: bool = True, num_classes: int | None = None,
                              num_keypoints: int | None = None,
                              weights_backbone: ResNet50_Weights | None = (
                                  ResNet50_Weights.IMAGENET1K_V1),
                              trainable_backbone_layers: int | None = None, **kwargs):
    """Keypoint R-CNN with a ResNet-50 FPN backbone.

    Args:
        weights (KeypointRCNN_ResNet50_FPN_Weights, optional): pretrained detector.
        progress (bool): show a download progress bar.
        num_classes (int, optional): classes with background (2: no person, person).
        num_keypoints (int, optional): keypoints per instance (17).
        weights_backbone (ResNet50_Weights, optional): backbone weights.
        trainable_backbone_layers (int, optional): trainable ResNet stages (0-5).
        **kwargs: passed to :class:`KeypointRCNN`.
    """
    weights = KeypointRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes,
                                            len(weights.meta["categories"]))
        num_keypoints = _ovewrite_value_param("num_keypoints", num_keypoints,
                                              len(weights.meta["keypoint_names"]))
    else:
        num_classes = 2 if num_classes is None else num_classes
        num_keypoints = 17 if num_keypoints is None else num_keypoints
    backbone = _resnet50_fpn(weights, weights_backbone, progress, trainable_backbone_layers,
                             v2=False)
    model = KeypointRCNN(backbone, num_classes, num_keypoints=num_keypoints, **kwargs)
    return _finish(model, weights, progress, KeypointRCNN_ResNet50_FPN_Weights.COCO_V1)
