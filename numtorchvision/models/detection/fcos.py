"""FCOS (Tian et al., "FCOS: Fully Convolutional One-Stage Object Detection", 2019): one
point per feature-map cell predicts class logits, its distances to the four sides of a box
and a centre-ness logit; no anchor boxes beyond the cell's own square."""

import math
from functools import partial

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ...ops import boxes as box_ops
from ...ops import misc as misc_nn_ops
from ...ops._iou_losses import generalized_box_iou_loss
from ...ops.feature_pyramid_network import LastLevelP6P7
from ...ops.focal_loss import sigmoid_focal_loss
from .._api import WeightsEnum, register_model
from .._utils import _load_weights, handle_legacy_interface
from ..resnet import ResNet50_Weights, resnet50
from . import _utils as det_utils
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .retinanet import (_PAPER_DOCS, _coco_weights, _eager_result, _final_detections, _prepare,
                        _redraw_tower, _returned, _rows_per_anchor, _settings, _settle_classes,
                        _split_levels, _top_candidates)
from .transform import GeneralizedRCNNTransform

__all__ = ["FCOS", "FCOS_ResNet50_FPN_Weights", "fcos_resnet50_fpn"]


def _gn_tower(in_channels, num_convs, norm_layer):
    """``num_convs`` x (3x3 conv, norm, ReLU) as one flat Sequential (drawn again by
    :func:`_redraw_tower`); the norm defaults to GroupNorm with 32 groups."""
    norm_layer = partial(nn.GroupNorm, 32) if norm_layer is None else norm_layer
    layers = []
    for _ in range(num_convs):
        conv = nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1)
        layers += [conv, norm_layer(in_channels), nn.ReLU()]
    return nn.Sequential(*layers)


def _conv3x3(in_channels, out_channels):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)


def _redraw(conv, bias):
    nn.init.normal_(conv.weight, std=0.01)
    nn.init.constant_(conv.bias, bias)


class FCOSClassificationHead(nn.Module):
    """Class logits per location: ``(N, sum(H*W*A), num_classes)``.

    Args:
        in_channels (int): channels of every pyramid level.
        num_anchors (int): points per location (1 for FCOS).
        num_classes (int): number of classes.
        num_convs (int): depth of the conv tower. Default: 4.
        prior_probability (float): starting probability of every class. Default: 0.01.
        norm_layer (callable, optional): default ``GroupNorm(32, C)``.
    """

    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4,
                 prior_probability=0.01, norm_layer=None):
        super().__init__()
        self.num_anchors = num_anchors
        self.num_classes = num_classes
        self.conv = _gn_tower(in_channels, num_convs, norm_layer)
        _redraw_tower(self.conv)
        self.cls_logits = _conv3x3(in_channels, num_anchors * num_classes)
        _redraw(self.cls_logits, -math.log((1 - prior_probability) / prior_probability))

    def forward(self, x):
        return _rows_per_anchor([self.cls_logits(self.conv(f)) for f in x], self.num_classes)


class FCOSRegressionHead(nn.Module):
    """Per location, the (ReLU'd) distances to the box sides ``(N, sum(H*W*A), 4)`` and a
    centre-ness logit ``(N, sum(H*W*A), 1)``.

    Args:
        in_channels (int): channels of every pyramid level.
        num_anchors (int): points per location.
        num_convs (int): depth of the conv tower. Default: 4.
        norm_layer (callable, optional): default ``GroupNorm(32, C)``.
    """

    def __init__(self, in_channels, num_anchors, num_convs=4, norm_layer=None):
        super().__init__()
        self.conv = _gn_tower(in_channels, num_convs, norm_layer)
        self.bbox_reg = _conv3x3(in_channels, num_anchors * 4)
        self.bbox_ctrness = _conv3x3(in_channels, num_anchors)
        # both predictors are drawn before the tower (torchvision's draw order)
        for conv in (self.bbox_reg, self.bbox_ctrness):
            _redraw(conv, 0.0)
        _redraw_tower(self.conv)

    def forward(self, x):
        towers = [self.conv(f) for f in x]
        return (_rows_per_anchor([F.relu(self.bbox_reg(t)) for t in towers], 4),
                _rows_per_anchor([self.bbox_ctrness(t) for t in towers], 1))


class FCOSHead(nn.Module):
    """FCOS's classification and regression heads, and its three losses (focal, GIoU,
    centre-ness BCE, each divided by the number of foreground locations of the batch).

    Args:
        in_channels (int): channels of every pyramid level.
        num_anchors (int): points per location.
        num_classes (int): number of classes.
        num_convs (int, optional): depth of both towers. Default: 4.
    """

    __annotations__ = {"box_coder": det_utils.BoxLinearCoder}

    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4):
        super().__init__()
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        self.classification_head = FCOSClassificationHead(in_channels, num_anchors, num_classes,
                                                          num_convs)
        self.regression_head = FCOSRegressionHead(in_channels, num_anchors, num_convs)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        cls_logits = head_outputs["cls_logits"]
        matched = numtorch.stack(matched_idxs)
        anchors = numtorch.stack(anchors)
        # gather each location's box and class; empty images get zeros (all background)
        gt_boxes, gt_labels = [], []
        for target, m in zip(targets, matched_idxs):
            if len(target["labels"]) == 0:
                gt_boxes.append(target["boxes"].new_zeros((len(m), 4)))
                gt_labels.append(target["labels"].new_zeros((len(m),)))
            else:
                safe = m.clip(min=0)
                gt_boxes.append(target["boxes"][safe])
                gt_labels.append(target["labels"][safe])
        gt_boxes, gt_labels = numtorch.stack(gt_boxes), numtorch.stack(gt_labels)
        fg = matched >= 0
        count = max(1, fg.sum().item())

        one_hot = numtorch.zeros_like(cls_logits)
        one_hot[fg, gt_labels[fg]] = 1.0
        loss_cls = sigmoid_focal_loss(cls_logits, one_hot, reduction="sum")

        pred_boxes = self.box_coder.decode(head_outputs["bbox_regression"], anchors)
        loss_box = generalized_box_iou_loss(pred_boxes[fg], gt_boxes[fg], reduction="sum")

        # centre-ness target: sqrt(min/max of the left-right distances * same top-bottom)
        dist = self.box_coder.encode(anchors, gt_boxes)
        if len(dist) == 0:
            ctr_target = dist.new_zeros(dist.size()[:-1])
        else:
            pairs = dist.view(*dist.shape[:-1], 2, 2)  # [[l, t], [r, b]]
            ratio = pairs.min(dim=-2).values / pairs.max(dim=-2).values
            ctr_target = numtorch.sqrt(ratio[..., 0] * ratio[..., 1])
        ctr_logit = head_outputs["bbox_ctrness"].squeeze(dim=2)
        loss_ctr = F.binary_cross_entropy_with_logits(ctr_logit[fg], ctr_target[fg],
                                                      reduction="sum")
        return {"classification": loss_cls / count, "bbox_regression": loss_box / count,
                "bbox_ctrness": loss_ctr / count}

    def forward(self, x):
        cls_logits = self.classification_head(x)
        bbox_regression, bbox_ctrness = self.regression_head(x)
        return {"cls_logits": cls_logits, "bbox_regression": bbox_regression,
                "bbox_ctrness": bbox_ctrness}


class FCOS(nn.Module):
    """FCOS: in training, ``model(images, targets)`` returns the loss dict
    (``classification``, ``bbox_regression``, ``bbox_ctrness``); in eval, one dict per image
    with ``boxes``, ``scores`` (``sqrt(class prob * centre-ness)``) and ``labels``.

    Args:
        backbone (nn.Module): feature maps with an ``out_channels`` attribute.
        num_classes (int): classes of the head (ignored when ``head`` is given).
        min_size, max_size (int): resize range of the transform. Default: 800, 1333.
        image_mean, image_std (list of float, optional): normalisation (ImageNet's).
        anchor_generator (AnchorGenerator, optional): one square per location, side 8..128 over
            the five levels (the point is its centre; the side sets the level's size range).
        head (nn.Module, optional): default :class:`FCOSHead`.
        center_sampling_radius (float): a location is positive for a box only within this many
            of its level's strides of the box centre. Default: 1.5.
        score_thresh (float): minimum score kept. Default: 0.2.
        nms_thresh (float): per-class NMS IoU threshold. Default: 0.6.
        detections_per_img (int): detections kept per image. Default: 100.
        topk_candidates (int): best candidates per level before NMS. Default: 1000.
        **kwargs: passed to :class:`GeneralizedRCNNTransform`.
    """

    __annotations__ = {"box_coder": det_utils.BoxLinearCoder}
    _target_messages = (False, True)

    def __init__(self, backbone, num_classes, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, anchor_generator=None, head=None, center_sampling_radius=1.5,
                 score_thresh=0.2, nms_thresh=0.6, detections_per_img=100,
                 topk_candidates=1000, **kwargs):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the "
                             "number of output channels (assumed to be the same for all the "
                             "levels)")
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(f"anchor_generator should be of type AnchorGenerator or None, "
                            f"instead  got {type(anchor_generator)}")
        if anchor_generator is None:
            sizes = tuple((8 << k,) for k in range(5))
            anchor_generator = AnchorGenerator(sizes, ((1.0,),) * len(sizes))
        self.anchor_generator = anchor_generator
        if anchor_generator.num_anchors_per_location()[0] != 1:
            raise ValueError(f"anchor_generator.num_anchors_per_location()[0] should be 1 instead "
                             f"of {anchor_generator.num_anchors_per_location()[0]}")
        if head is None:
            head = FCOSHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0],
                            num_classes)
        self.head = head
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        self.transform = GeneralizedRCNNTransform(
            min_size, max_size, [0.485, 0.456, 0.406] if image_mean is None else image_mean,
            [0.229, 0.224, 0.225] if image_std is None else image_std, **kwargs)
        _settings(self, center_sampling_radius=center_sampling_radius,
                  score_thresh=score_thresh, nms_thresh=nms_thresh,
                  detections_per_img=detections_per_img, topk_candidates=topk_candidates)

    def eager_outputs(self, losses, detections):
        return _eager_result(self, losses, detections)

    def _assign(self, anchors, boxes, num_anchors_per_level):
        """Index of the box each location is responsible for, -1 for background.

        A location (an anchor's centre, with the anchor's side ``s``) may take a box when it
        lies inside it, within ``center_sampling_radius * s`` of its centre (Chebyshev
        distance), and its largest side distance falls in the level's range ``(4s, 8s)``,
        open-ended below for the first level and above for the last. Among several boxes the
        smallest by area wins.
        """
        centres = (anchors[:, :2] + anchors[:, 2:]) / 2
        side = anchors[:, 2] - anchors[:, 0]
        box_centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        near = ((centres[:, None, :] - box_centres[None]).abs().max(dim=2).values
                < self.center_sampling_radius * side[:, None])
        # distances to the left, top, right and bottom sides: (locations, boxes, 4)
        dist = numtorch.cat([centres[:, None, :] - boxes[None, :, :2],
                             boxes[None, :, 2:] - centres[:, None, :]], dim=2)
        lo = side * 4
        lo[:num_anchors_per_level[0]] = 0
        hi = side * 8
        hi[-num_anchors_per_level[-1]:] = float("inf")
        reach = dist.max(dim=2).values
        ok = (near & (dist.min(dim=2).values > 0)
              & (reach > lo[:, None]) & (reach < hi[:, None]))
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        # rank candidates by 1e8 - area (float32): the smallest box scores highest
        score, index = (ok.to(numtorch.float32) * (1e8 - area[None, :])).max(dim=1)
        index[score < 1e-5] = -1
        return index

    def compute_loss(self, targets, head_outputs, anchors, num_anchors_per_level):
        matched = []
        for anchors_i, target in zip(anchors, targets):
            if target["boxes"].numel() == 0:
                matched.append(numtorch.full((anchors_i.size(0),), -1, dtype=numtorch.int64,
                                             device=anchors_i.device))
            else:
                matched.append(self._assign(anchors_i, target["boxes"], num_anchors_per_level))
        return self.head.compute_loss(targets, head_outputs, anchors, matched)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Per image and level: ``sqrt(sigmoid(class) * sigmoid(centre-ness))`` above
        ``score_thresh``, the best ``topk_candidates`` decoded and clipped; then per-class NMS."""
        logits = head_outputs["cls_logits"]
        deltas = head_outputs["bbox_regression"]
        ctrness = head_outputs["bbox_ctrness"]
        detections = []
        for i, (anchors_i, shape) in enumerate(zip(anchors, image_shapes)):
            boxes, scores, labels = [], [], []
            for lg, dl, ct, an in zip(logits, deltas, ctrness, anchors_i):
                score = numtorch.sqrt(numtorch.sigmoid(lg[i]) * numtorch.sigmoid(ct[i])).flatten()
                best, rows, cls = _top_candidates(score, self.score_thresh, self.topk_candidates,
                                                  lg.shape[-1])
                decoded = self.box_coder.decode(dl[i][rows], an[rows])
                boxes.append(box_ops.clip_boxes_to_image(decoded, shape))
                scores.append(best)
                labels.append(cls)
            detections.append(_final_detections(boxes, scores, labels, self.nms_thresh,
                                                self.detections_per_img))
        return detections

    def forward(self, images, targets=None):
        images, targets, features, original_sizes = _prepare(self, images, targets)
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        per_level_cells = [f.size(2) * f.size(3) for f in features]
        losses, detections = {}, []
        if self.training:
            if targets is None:
                numtorch._assert(False, "targets should not be none when in training mode")
            losses = self.compute_loss(targets, head_outputs, anchors, per_level_cells)
        else:
            names = list(head_outputs)
            split, sizes = _split_levels([head_outputs[k] for k in names], features)
            split_anchors = [list(a.split(sizes)) for a in anchors]
            detections = self.postprocess_detections(dict(zip(names, split)), split_anchors,
                                                     images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes,
                                                    original_sizes)
        return _returned(self, losses, detections)


class FCOS_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = _coco_weights(
        "fcos_resnet50_fpn_coco-99b0c9b7.pth", 32269600, 39.2, 128.207, 123.608,
        "https://github.com/pytorch/vision/tree/main/references/detection#fcos-resnet-50-fpn",
        _PAPER_DOCS)
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FCOS_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1))
def fcos_resnet50_fpn(*, weights: FCOS_ResNet50_FPN_Weights | None = None,
                      progress: bool = True, num_classes: int | None = None,
                      weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
                      trainable_backbone_layers: int | None = None, **kwargs) -> FCOS:
    """FCOS with a ResNet-50-FPN backbone (P3-P7).

    Args:
        weights (FCOS_ResNet50_FPN_Weights, optional): pretrained weights.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): classes, background included (91 without weights).
        weights_backbone (ResNet50_Weights, optional): backbone weights when ``weights`` is
            None.
        trainable_backbone_layers (int, optional): ResNet stages left trainable, 0-5 (3 when
            pretrained).
        **kwargs: passed to :class:`FCOS`.
    """
    weights = FCOS_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    resnet = resnet50(weights=weights_backbone, progress=progress,
                      norm_layer=misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d)
    backbone = _resnet_fpn_extractor(resnet, trainable, returned_layers=[2, 3, 4],
                                     extra_blocks=LastLevelP6P7(256, 256))
    model = FCOS(backbone, num_classes, **kwargs)
    return model if weights is None else _load_weights(model, weights, progress)
