"""RetinaNet (Lin et al., "Focal Loss for Dense Object Detection", 2017): a ResNet-FPN
backbone with two dense heads, class logits trained with the sigmoid focal loss and box
deltas against a grid of anchors.

The dense-head plumbing shared with FCOS and SSD also lives here: flattening per-level head
maps into one row per anchor, the training-target checks, and the score-threshold / top-k /
NMS selection of detections.
"""

import math
import warnings
from collections import OrderedDict
from functools import partial

import numtorch
from numtorch import nn

from ...ops import boxes as box_ops
from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import LastLevelP6P7
from ...ops.focal_loss import sigmoid_focal_loss
from .._api import Weights, WeightsEnum, register_model
from .._meta import _COCO_CATEGORIES
from .._utils import _load_weights, _MODELS_URL, _ovewrite_value_param, handle_legacy_interface
from ..resnet import ResNet50_Weights, resnet50
from . import _utils as det_utils
from ._utils import _box_loss, overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet_fpn_extractor, _validate_trainable_layers
from .transform import GeneralizedRCNNTransform

__all__ = [
    "RetinaNet",
    "RetinaNet_ResNet50_FPN_Weights",
    "RetinaNet_ResNet50_FPN_V2_Weights",
    "retinanet_resnet50_fpn",
    "retinanet_resnet50_fpn_v2",
]


# ---------------------------------------------------------------- shared dense-head plumbing

def _rows_per_anchor(maps, columns):
    """Per-level head maps ``(N, A*columns, H, W)`` -> one ``(N, sum(H*W*A), columns)`` tensor,
    ordered level, then row, then column, then anchor (the anchor generator's order)."""
    flat = []
    for m in maps:
        n, _, h, w = m.shape
        flat.append(m.view(n, -1, columns, h, w).permute(0, 3, 4, 1, 2).reshape(n, -1, columns))
    return numtorch.cat(flat, dim=1)


def _check_training_targets(training, targets, name_type, name_shape):
    """The training targets' checks; ``name_type`` / ``name_shape`` add what was found to
    the messages (RetinaNet says neither, FCOS the shape, SSD both)."""
    if not training:
        return
    if targets is None:
        numtorch._assert(False, "targets should not be none when in training mode")
    for target in targets:
        boxes = target["boxes"]
        found = f", got {type(boxes)}" if name_type else ""
        numtorch._assert(isinstance(boxes, numtorch.Tensor),
                         f"Expected target boxes to be of type Tensor{found}.")
        found = f", got {boxes.shape}" if name_shape else ""
        numtorch._assert(len(boxes.shape) == 2 and boxes.shape[-1] == 4,
                         f"Expected target boxes to be a tensor of shape [N, 4]{found}.")


def _check_degenerate(targets):
    """Refuse boxes with ``x2 <= x1`` or ``y2 <= y1`` (after the transform's resize)."""
    if targets is None:
        return
    for index, target in enumerate(targets):
        boxes = target["boxes"]
        bad = (boxes[:, 2:] <= boxes[:, :2]).any(dim=1)
        if bool(bad.any()):
            first = boxes[numtorch.where(bad)[0][0]].tolist()
            numtorch._assert(False, "All bounding boxes should have positive height and width. "
                             f"Found invalid box {first} for target at index {index}.")


def _prepare(model, images, targets):
    """The one-stage models' common entry: target checks, the transform, feature maps."""
    _check_training_targets(model.training, targets, *model._target_messages)
    original_sizes = []
    for img in images:
        size = img.shape[-2:]
        numtorch._assert(len(size) == 2, "expecting the last two dimensions of the Tensor to be "
                         f"H and W instead got {img.shape[-2:]}")
        original_sizes.append((size[0], size[1]))
    images, targets = model.transform(images, targets)
    _check_degenerate(targets)
    features = model.backbone(images.tensors)
    if isinstance(features, numtorch.Tensor):
        features = OrderedDict([("0", features)])
    return images, targets, list(features.values()), original_sizes


def _match_by_iou(matcher, targets, anchors):
    """Per image, the index of the ground-truth box each anchor is assigned to (negative codes
    for background / ignored); every anchor is background in an image with no boxes."""
    matched = []
    for anchors_per_image, target in zip(anchors, targets):
        if target["boxes"].numel() == 0:
            matched.append(numtorch.full((anchors_per_image.size(0),), -1, dtype=numtorch.int64,
                                         device=anchors_per_image.device))
        else:
            matched.append(matcher(box_ops.box_iou(target["boxes"], anchors_per_image)))
    return matched


def _top_candidates(scores, threshold, k, num_classes):
    """Of a flat ``(anchors * classes)`` score vector: the scores above ``threshold``, at most
    ``k`` of the best, with their anchor indices and labels."""
    kept = numtorch.where(scores > threshold)[0]
    best, order = scores[kept].topk(min(k, kept.size(0)))
    kept = kept[order]
    return best, numtorch.div(kept, num_classes, rounding_mode="floor"), kept % num_classes


def _final_detections(boxes, scores, labels, nms_thresh, limit):
    """Per-class NMS over an image's candidates, best first, at most ``limit`` kept."""
    boxes, scores, labels = numtorch.cat(boxes), numtorch.cat(scores), numtorch.cat(labels)
    keep = box_ops.batched_nms(boxes, scores, labels, nms_thresh)[:limit]
    return {"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]}


def _split_levels(tensors, features):
    """Cut per-anchor rows back into pyramid levels (rows per level proportional to H*W)."""
    cells = [f.size(2) * f.size(3) for f in features]
    per_cell = tensors[0].size(1) // sum(cells)
    sizes = [c * per_cell for c in cells]
    return [list(t.split(sizes, dim=1)) for t in tensors], sizes


def _eager_result(model, losses, detections):
    return losses if model.training else detections


def _settings(model, **values):
    """The selection settings every one-stage model keeps as plain attributes."""
    for key, value in values.items():
        setattr(model, key, value)
    model._has_warned = False


def _returned(model, losses, detections):
    """Scripted models return both dicts (warning once); eager ones what their mode makes."""
    if numtorch.jit.is_scripting():
        if not model._has_warned:
            warnings.warn(f"{type(model).__name__} always returns a (Losses, Detections) tuple "
                          f"in scripting")
            model._has_warned = True
        return losses, detections
    return model.eager_outputs(losses, detections)


def _coco_weights(file, num_params, box_map, ops, file_size, recipe, docs):
    """A :class:`Weights` entry for a COCO-trained detector."""
    from ...transforms._presets import ObjectDetection

    return Weights(url=_MODELS_URL + file, transforms=ObjectDetection,
                   meta={"categories": _COCO_CATEGORIES, "min_size": (1, 1),
                         "num_params": num_params, "recipe": recipe,
                         "_metrics": {"COCO-val2017": {"box_map": box_map}},
                         "_ops": ops, "_file_size": file_size, "_docs": docs})


_PAPER_DOCS = "These weights were produced by following a similar training recipe as on the paper."


def _settle_classes(weights, weights_backbone, num_classes):
    """Pretrained detector weights fix the class count and make the backbone checkpoint moot;
    random models default to COCO's 91 classes."""
    if weights is not None:
        return None, _ovewrite_value_param("num_classes", num_classes,
                                           len(weights.meta["categories"]))
    return weights_backbone, 91 if num_classes is None else num_classes


# ---------------------------------------------------------------- RetinaNet heads

def _tower(in_channels, norm_layer):
    """Four 3x3 conv(-norm)-ReLU blocks (drawn again by :func:`_redraw_tower`)."""
    return nn.Sequential(*[misc_nn_ops.Conv2dNormActivation(in_channels, in_channels,
                                                            norm_layer=norm_layer)
                           for _ in range(4)])


def _redraw_tower(tower):
    """The tower's convolutions from N(0, 0.01) with zero bias. The classification head draws
    them before building its predictor, the regression head after (torchvision's order of
    random draws, kept so that seeded models agree)."""
    for m in tower.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.normal_(m.weight, std=0.01)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)


def _predictor(in_channels, out_channels, bias):
    conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
    nn.init.normal_(conv.weight, std=0.01)
    nn.init.constant_(conv.bias, bias)
    return conv


class _TowerHead(nn.Module):
    """A conv tower then a 3x3 predictor. Version-1 checkpoints had a flat tower (conv, ReLU,
    conv, ...: convolutions at ``conv.0/2/4/6``); version 2 has one conv-norm-activation
    block per convolution (``conv.<k>.0``)."""

    _version = 2

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        if (local_metadata.get("version") or 0) < 2:
            for k in range(4):
                for kind in ("weight", "bias"):
                    flat = f"{prefix}conv.{2 * k}.{kind}"
                    if flat in state_dict:
                        state_dict[f"{prefix}conv.{k}.0.{kind}"] = state_dict.pop(flat)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class RetinaNetClassificationHead(_TowerHead):
    """Class logits per anchor: ``(N, sum(H*W*A), num_classes)``.

    Args:
        in_channels (int): channels of every pyramid level.
        num_anchors (int): anchors per location.
        num_classes (int): number of classes (background is implicit: all sigmoids low).
        prior_probability (float): the predictor's bias makes every class start at this
            probability. Default: 0.01.
        norm_layer (callable, optional): normalisation in the tower (None: conv bias only).
    """

    def __init__(self, in_channels, num_anchors, num_classes, prior_probability=0.01,
                 norm_layer=None):
        super().__init__()
        self.num_anchors = num_anchors
        self.num_classes = num_classes
        self.conv = _tower(in_channels, norm_layer)
        _redraw_tower(self.conv)
        self.cls_logits = _predictor(in_channels, num_anchors * num_classes,
                                     -math.log((1 - prior_probability) / prior_probability))

    def compute_loss(self, targets, head_outputs, matched_idxs):
        """Sigmoid focal loss summed over the anchors that are not ignored, divided by the
        image's foreground count, averaged over images."""
        total = 0
        for logits, target, matched in zip(head_outputs["cls_logits"], targets, matched_idxs):
            foreground = matched >= 0
            wanted = numtorch.zeros_like(logits)
            wanted[foreground, target["labels"][matched[foreground]]] = 1.0
            counted = matched != det_utils.Matcher.BETWEEN_THRESHOLDS
            loss = sigmoid_focal_loss(logits[counted], wanted[counted], reduction="sum")
            total = total + loss / max(1, foreground.sum())
        return total / len(targets)

    def forward(self, x):
        return _rows_per_anchor([self.cls_logits(self.conv(f)) for f in x], self.num_classes)


class RetinaNetRegressionHead(_TowerHead):
    """Box deltas per anchor: ``(N, sum(H*W*A), 4)``.

    Args:
        in_channels (int): channels of every pyramid level.
        num_anchors (int): anchors per location.
        norm_layer (callable, optional): normalisation in the tower (None: conv bias only).
    """

    def __init__(self, in_channels, num_anchors, norm_layer=None):
        super().__init__()
        self._loss_type = "l1"
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self.conv = _tower(in_channels, norm_layer)
        self.bbox_reg = _predictor(in_channels, num_anchors * 4, 0.0)
        _redraw_tower(self.conv)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        """The box loss (``_loss_type``) over each image's foreground anchors, divided by their
        count, averaged over images."""
        total = 0
        for deltas, target, anchors_i, matched in zip(head_outputs["bbox_regression"], targets,
                                                      anchors, matched_idxs):
            fg = numtorch.where(matched >= 0)[0]
            loss = _box_loss(self._loss_type, self.box_coder, anchors_i[fg, :],
                             target["boxes"][matched[fg]], deltas[fg, :])
            total = total + loss / max(1, fg.numel())
        return total / max(1, len(targets))

    def forward(self, x):
        return _rows_per_anchor([self.bbox_reg(self.conv(f)) for f in x], 4)


class RetinaNetHead(nn.Module):
    """RetinaNet's classification and regression heads.

    Args:
        in_channels (int): channels of every pyramid level.
        num_anchors (int): anchors per location.
        num_classes (int): number of classes.
        norm_layer (callable, optional): normalisation in both towers.
    """

    def __init__(self, in_channels, num_anchors, num_classes, norm_layer=None):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(in_channels, num_anchors,
                                                               num_classes,
                                                               norm_layer=norm_layer)
        self.regression_head = RetinaNetRegressionHead(in_channels, num_anchors,
                                                       norm_layer=norm_layer)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        return {
            "classification": self.classification_head.compute_loss(targets, head_outputs,
                                                                     matched_idxs),
            "bbox_regression": self.regression_head.compute_loss(targets, head_outputs, anchors,
                                                                 matched_idxs),
        }

    def forward(self, x):
        return {"cls_logits": self.classification_head(x),
                "bbox_regression": self.regression_head(x)}


# ---------------------------------------------------------------- the model

def _default_anchorgen():
    # three octave scales (2^0, 2^(1/3), 2^(2/3)) of 32..512 and three aspect ratios
    sizes = tuple(tuple(int(s * 2 ** (k / 3.0)) for k in range(3)) for s in (32, 64, 128, 256, 512))
    return AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))


class RetinaNet(nn.Module):
    """RetinaNet: in training, ``model(images, targets)`` returns the loss dict
    (``classification``, ``bbox_regression``); in eval, ``model(images)`` returns one dict per
    image with ``boxes`` (``xyxy``, input coordinates), ``scores`` and ``labels``.

    Args:
        backbone (nn.Module): returns a dict (or one tensor) of feature maps and has an
            ``out_channels`` attribute, the same for every level.
        num_classes (int): classes of the head (ignored when ``head`` is given).
        min_size, max_size (int): resize range of the transform. Default: 800, 1333.
        image_mean, image_std (list of float, optional): normalisation (ImageNet's).
        anchor_generator (AnchorGenerator, optional): default: 3 scales x 3 ratios on 32..512.
        head (nn.Module, optional): default: :class:`RetinaNetHead`.
        proposal_matcher (Matcher, optional): anchor-to-box assignment; default: IoU
            ``fg_iou_thresh`` / ``bg_iou_thresh`` with low-quality matches allowed.
        score_thresh (float): minimum class probability kept. Default: 0.05.
        nms_thresh (float): IoU threshold of the per-class NMS. Default: 0.5.
        detections_per_img (int): detections kept per image. Default: 300.
        fg_iou_thresh, bg_iou_thresh (float): matcher thresholds. Default: 0.5, 0.4.
        topk_candidates (int): best candidates kept per level before NMS. Default: 1000.
        **kwargs: passed to :class:`GeneralizedRCNNTransform`.
    """

    _target_messages = (False, False)

    def __init__(self, backbone, num_classes, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, anchor_generator=None, head=None, proposal_matcher=None,
                 score_thresh=0.05, nms_thresh=0.5, detections_per_img=300, fg_iou_thresh=0.5,
                 bg_iou_thresh=0.4, topk_candidates=1000, **kwargs):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the "
                             "number of output channels (assumed to be the same for all the "
                             "levels)")
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError(f"anchor_generator should be of type AnchorGenerator or None instead "
                            f"of {type(anchor_generator)}")
        self.backbone = backbone
        self.anchor_generator = (_default_anchorgen() if anchor_generator is None
                                 else anchor_generator)
        self.head = head if head is not None else RetinaNetHead(
            backbone.out_channels, self.anchor_generator.num_anchors_per_location()[0],
            num_classes)
        self.proposal_matcher = proposal_matcher if proposal_matcher is not None else (
            det_utils.Matcher(fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True))
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self.transform = GeneralizedRCNNTransform(
            min_size, max_size, [0.485, 0.456, 0.406] if image_mean is None else image_mean,
            [0.229, 0.224, 0.225] if image_std is None else image_std, **kwargs)
        _settings(self, score_thresh=score_thresh, nms_thresh=nms_thresh,
                  detections_per_img=detections_per_img, topk_candidates=topk_candidates)

    def eager_outputs(self, losses, detections):
        return _eager_result(self, losses, detections)

    def compute_loss(self, targets, head_outputs, anchors):
        matched = _match_by_iou(self.proposal_matcher, targets, anchors)
        return self.head.compute_loss(targets, head_outputs, anchors, matched)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Per image: per level, class probabilities above ``score_thresh``, the best
        ``topk_candidates`` decoded against their anchors and clipped; then per-class NMS."""
        logits, deltas = head_outputs["cls_logits"], head_outputs["bbox_regression"]
        detections = []
        for i, (anchors_i, shape) in enumerate(zip(anchors, image_shapes)):
            boxes, scores, labels = [], [], []
            for level_logits, level_deltas, level_anchors in zip(logits, deltas, anchors_i):
                best, rows, cls = _top_candidates(numtorch.sigmoid(level_logits[i]).flatten(),
                                                  self.score_thresh, self.topk_candidates,
                                                  level_logits.shape[-1])
                decoded = self.box_coder.decode_single(level_deltas[i][rows], level_anchors[rows])
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
        losses, detections = {}, []
        if self.training:
            if targets is None:
                numtorch._assert(False, "targets should not be none when in training mode")
            losses = self.compute_loss(targets, head_outputs, anchors)
        else:
            names = list(head_outputs)
            split, sizes = _split_levels([head_outputs[k] for k in names], features)
            per_level = dict(zip(names, split))
            split_anchors = [list(a.split(sizes)) for a in anchors]
            detections = self.postprocess_detections(per_level, split_anchors,
                                                     images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes,
                                                    original_sizes)
        return _returned(self, losses, detections)


# ---------------------------------------------------------------- weights and builders

class RetinaNet_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = _coco_weights(
        "retinanet_resnet50_fpn_coco-eeacb38b.pth", 34014999, 36.4, 151.54, 130.267,
        "https://github.com/pytorch/vision/tree/main/references/detection#retinanet",
        _PAPER_DOCS)
    DEFAULT = COCO_V1


class RetinaNet_ResNet50_FPN_V2_Weights(WeightsEnum):
    COCO_V1 = _coco_weights(
        "retinanet_resnet50_fpn_v2_coco-5905b1c5.pth", 38198935, 41.5, 152.238, 146.037,
        "https://github.com/pytorch/vision/pull/5756",
        "These weights were produced using an enhanced training recipe to boost the model "
        "accuracy.")
    DEFAULT = COCO_V1


def _retinanet(weights, weights_backbone, progress, num_classes, trainable_backbone_layers,
               kwargs, v2):
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    anchor_generator = _default_anchorgen() if v2 else None
    if v2:
        resnet = resnet50(weights=weights_backbone, progress=progress)
    else:
        resnet = resnet50(weights=weights_backbone, progress=progress,
                          norm_layer=misc_nn_ops.FrozenBatchNorm2d if is_trained
                          else nn.BatchNorm2d)
    # v1 builds P6 from P5 (256 channels), v2 from C5 (2048)
    backbone = _resnet_fpn_extractor(resnet, trainable, returned_layers=[2, 3, 4],
                                     extra_blocks=LastLevelP6P7(2048 if v2 else 256, 256))
    head = None
    if v2:
        head = RetinaNetHead(backbone.out_channels,
                             anchor_generator.num_anchors_per_location()[0], num_classes,
                             norm_layer=partial(nn.GroupNorm, 32))
        head.regression_head._loss_type = "giou"
    model = RetinaNet(backbone, num_classes, anchor_generator=anchor_generator, head=head,
                      **kwargs)
    if weights is not None:
        _load_weights(model, weights, progress)
    if weights == RetinaNet_ResNet50_FPN_Weights.COCO_V1:
        overwrite_eps(model, 0.0)  # its FrozenBatchNorm statistics were fitted without eps
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", RetinaNet_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1))
def retinanet_resnet50_fpn(*, weights: RetinaNet_ResNet50_FPN_Weights | None = None,
                           progress: bool = True, num_classes: int | None = None,
                           weights_backbone: ResNet50_Weights | None = (
                               ResNet50_Weights.IMAGENET1K_V1),
                           trainable_backbone_layers: int | None = None,
                           **kwargs) -> RetinaNet:
    """RetinaNet with a ResNet-50-FPN backbone (P3-P7, P6 from P5).

    Args:
        weights (RetinaNet_ResNet50_FPN_Weights, optional): pretrained weights.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): classes, background included (91 without weights).
        weights_backbone (ResNet50_Weights, optional): backbone weights when ``weights`` is
            None.
        trainable_backbone_layers (int, optional): ResNet stages left trainable, 0-5 (3 when
            pretrained).
        **kwargs: passed to :class:`RetinaNet`.
    """
    weights = RetinaNet_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    return _retinanet(weights, weights_backbone, progress, num_classes,
                      trainable_backbone_layers, kwargs, v2=False)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", RetinaNet_ResNet50_FPN_V2_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1))
def retinanet_resnet50_fpn_v2(*, weights: RetinaNet_ResNet50_FPN_V2_Weights | None = None,
                              progress: bool = True, num_classes: int | None = None,
                              weights_backbone: ResNet50_Weights | None = None,
                              trainable_backbone_layers: int | None = None,
                              **kwargs) -> RetinaNet:
    """RetinaNet v2 (Zhang et al., 2019 recipe): P6 from C5, GroupNorm in the heads, GIoU box
    loss, plain BatchNorm in the backbone. Arguments as :func:`retinanet_resnet50_fpn`."""
    weights = RetinaNet_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    return _retinanet(weights, weights_backbone, progress, num_classes,
                      trainable_backbone_layers, kwargs, v2=True)
