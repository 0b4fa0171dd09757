"""SSD (Liu et al., "SSD: Single Shot MultiBox Detector", 2016): class scores (softmax with a
background class) and box deltas predicted on a fixed set of default boxes over several
feature maps, trained with hard negative mining (3 negatives per positive)."""

import warnings
from collections import OrderedDict

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ...ops import boxes as box_ops
from .._api import WeightsEnum, register_model
from .._utils import _load_weights, handle_legacy_interface
from ..vgg import VGG16_Weights, vgg16
from . import _utils as det_utils
from .anchor_utils import DefaultBoxGenerator
from .backbone_utils import _validate_trainable_layers
from .retinanet import (_PAPER_DOCS, _coco_weights, _eager_result, _match_by_iou, _prepare,
                        _returned, _rows_per_anchor, _settings, _settle_classes)
from .transform import GeneralizedRCNNTransform

__all__ = ["SSD300_VGG16_Weights", "ssd300_vgg16"]


def _init_convs(module, draw):
    """Every convolution's weight from ``draw``, its bias zero."""
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            draw(m.weight)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0.0)


def _xavier_init(module):
    _init_convs(module, nn.init.xavier_uniform_)


class SSDScoringHead(nn.Module):
    """One predictor per feature map; the outputs become ``(N, sum(H*W*A), num_columns)``.

    Args:
        module_list (nn.ModuleList): the per-map predictors, in feature-map order.
        num_columns (int): values per default box (classes, or 4 box deltas).
    """

    def __init__(self, module_list, num_columns):
        super().__init__()
        self.module_list = module_list
        self.num_columns = num_columns

    def _get_result_from_module_list(self, x, idx):
        return self.module_list[idx](x)

    def forward(self, x):
        return _rows_per_anchor([self._get_result_from_module_list(f, i) for i, f in enumerate(x)],
                                self.num_columns)


def _conv_predictors(in_channels, num_anchors, columns):
    convs = nn.ModuleList([nn.Conv2d(c, columns * a, kernel_size=3, padding=1)
                           for c, a in zip(in_channels, num_anchors)])
    _xavier_init(convs)
    return convs


class SSDClassificationHead(SSDScoringHead):
    """3x3 convolutions giving ``num_classes`` logits (background is class 0) per default box.

    Args:
        in_channels (list of int): channels of each feature map.
        num_anchors (list of int): default boxes per location of each map.
        num_classes (int): classes, background included.
    """

    def __init__(self, in_channels, num_anchors, num_classes):
        super().__init__(_conv_predictors(in_channels, num_anchors, num_classes), num_classes)


class SSDRegressionHead(SSDScoringHead):
    """3x3 convolutions giving 4 box deltas per default box.

    Args:
        in_channels (list of int): channels of each feature map.
        num_anchors (list of int): default boxes per location of each map.
    """

    def __init__(self, in_channels, num_anchors):
        super().__init__(_conv_predictors(in_channels, num_anchors, 4), 4)


class _PairedHeads(nn.Module):
    """A classification and a regression head run on the same maps."""

    def __init__(self, classification_head, regression_head):
        super().__init__()
        self.classification_head = classification_head
        self.regression_head = regression_head

    def forward(self, x):
        return {"bbox_regression": self.regression_head(x),
                "cls_logits": self.classification_head(x)}


class SSDHead(_PairedHeads):
    """SSD's classification and regression heads.

    Args:
        in_channels (list of int): channels of each feature map.
        num_anchors (list of int): default boxes per location of each map.
        num_classes (int): classes, background included.
    """

    def __init__(self, in_channels, num_anchors, num_classes):
        cls_head = SSDClassificationHead(in_channels, num_anchors, num_classes)
        super().__init__(cls_head, SSDRegressionHead(in_channels, num_anchors))


def _hardest_negatives(ce, positive, ratio):
    """Per image, the ``ratio * #positives`` background boxes with the largest loss.

    Positives sort last (their loss is set to -inf); ties keep box order.
    """
    with numtorch.no_grad():
        loss = ce.detach().clone()
        loss[positive] = -float("inf")
        order = loss.argsort(dim=1, descending=True, stable=True)
        rank = numtorch.empty_like(order)
        rank.scatter_(1, order, numtorch.arange(order.size(1), device=order.device)
                      .expand_as(order).contiguous())
        return rank < ratio * positive.sum(1, keepdim=True)


def _per_class_top(scores, threshold, k):
    """Of ``(boxes, classes)`` probabilities, for every class but background: the boxes above
    ``threshold``, at most ``k`` per class, best first within a class, classes in order.
    Returns (scores, box indices, labels)."""
    by_class = scores[:, 1:].t()
    values, boxes = by_class.sort(dim=1, descending=True, stable=True)
    rank = numtorch.arange(values.size(1), device=values.device)
    keep = (values > threshold) & (rank < k)
    cls, pos = numtorch.where(keep)
    return values[cls, pos], boxes[cls, pos], cls + 1


def _check_map_count(channels, anchor_generator, style):
    """One aspect-ratio list per feature map (``style`` wraps the counts: SSD puts them in
    parentheses, SSDlite does not)."""
    maps, ratios = len(channels), len(anchor_generator.aspect_ratios)
    if maps != ratios:
        raise ValueError(f"The length of the output channels from the backbone "
                         f"{style.format(maps)} do not match the length of the anchor "
                         f"generator aspect ratios {style.format(ratios)}")


def _fixed_size_note(kwargs):
    if "size" in kwargs:
        warnings.warn("The size of the model is already fixed; ignoring the parameter.")


class SSD(nn.Module):
    """SSD: in training, ``model(images, targets)`` returns ``bbox_regression`` (smooth L1)
    and ``classification`` (cross-entropy over the positives and the hardest negatives), both
    divided by the number of positives; in eval, one dict per image with ``boxes``,
    ``scores`` and ``labels``.

    Args:
        backbone (nn.Module): returns a dict (or one tensor) of feature maps.
        anchor_generator (DefaultBoxGenerator): the default boxes of each map.
        size (tuple of int): the fixed input size the transform resizes to.
        num_classes (int): classes, background included.
        image_mean, image_std (list of float, optional): normalisation (default: none).
        head (nn.Module, optional): default :class:`SSDHead` on the backbone's channels.
        score_thresh (float): minimum class probability kept. Default: 0.01.
        nms_thresh (float): per-class NMS IoU threshold. Default: 0.45.
        detections_per_img (int): detections kept per image. Default: 200.
        iou_thresh (float): IoU for a default box to match a ground truth. Default: 0.5.
        topk_candidates (int): best boxes kept per class before NMS. Default: 400.
        positive_fraction (float): positives' share of the classification loss's samples
            (0.25: three negatives per positive). Default: 0.25.
        **kwargs: passed to :class:`GeneralizedRCNNTransform`.
    """

    __annotations__ = {"box_coder": det_utils.BoxCoder,
                       "proposal_matcher": det_utils.Matcher}
    _target_messages = (True, True)

    def __init__(self, backbone, anchor_generator, size, num_classes, image_mean=None,
                 image_std=None, head=None, score_thresh=0.01, nms_thresh=0.45,
                 detections_per_img=200, iou_thresh=0.5, topk_candidates=400,
                 positive_fraction=0.25, **kwargs):
        super().__init__()
        if head is None:
            channels = getattr(backbone, "out_channels", None)
            if channels is None:
                channels = det_utils.retrieve_out_channels(backbone, size)
            _check_map_count(channels, anchor_generator, "({})")
            head = SSDHead(channels, anchor_generator.num_anchors_per_location(), num_classes)
        # (10, 10, 5, 5): the centre deltas are scaled by 10, the log-size deltas by 5
        self.box_coder = det_utils.BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        self.proposal_matcher = det_utils.SSDMatcher(iou_thresh)
        for key, part in (("backbone", backbone), ("anchor_generator", anchor_generator),
                          ("head", head)):
            setattr(self, key, part)
        self.transform = GeneralizedRCNNTransform(
            min(size), max(size), [0.0, 0.0, 0.0] if image_mean is None else image_mean,
            [1.0, 1.0, 1.0] if image_std is None else image_std, size_divisible=1,
            fixed_size=size, **kwargs)
        # positive_fraction 0.25: three hard negatives per positive
        _settings(self, score_thresh=score_thresh, nms_thresh=nms_thresh,
                  detections_per_img=detections_per_img, topk_candidates=topk_candidates,
                  neg_to_pos_ratio=(1.0 - positive_fraction) / positive_fraction)

    def eager_outputs(self, losses, detections):
        return _eager_result(self, losses, detections)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        logits = head_outputs["cls_logits"]
        box_losses, classes = [], []
        num_foreground = 0
        for target, deltas_i, logits_i, anchors_i, matched in zip(
                targets, head_outputs["bbox_regression"], logits, anchors, matched_idxs):
            fg = numtorch.where(matched >= 0)[0]
            gt = matched[fg]
            num_foreground += gt.numel()
            wanted = self.box_coder.encode_single(target["boxes"][gt], anchors_i[fg, :])
            box_losses.append(F.smooth_l1_loss(deltas_i[fg, :], wanted, reduction="sum"))
            cls = numtorch.zeros((logits_i.size(0),), dtype=target["labels"].dtype,
                                 device=logits_i.device)
            cls[fg] = target["labels"][gt]
            classes.append(cls)
        classes = numtorch.stack(classes)
        ce = F.cross_entropy(logits.view(-1, logits.size(-1)), classes.view(-1),
                             reduction="none").view(classes.size())
        positive = classes > 0
        negative = _hardest_negatives(ce, positive, self.neg_to_pos_ratio)
        n = max(1, num_foreground)
        return {"bbox_regression": numtorch.stack(box_losses).sum() / n,
                "classification": (ce[positive].sum() + ce[negative].sum()) / n}

    def postprocess_detections(self, head_outputs, image_anchors, image_shapes):
        """Per image: softmax over classes, all boxes decoded and clipped; per class the
        probabilities above ``score_thresh``, at most ``topk_candidates``; then per-class NMS."""
        probs = F.softmax(head_outputs["cls_logits"], dim=-1)
        detections = []
        for deltas, scores, anchors, shape in zip(head_outputs["bbox_regression"], probs,
                                                  image_anchors, image_shapes):
            boxes = box_ops.clip_boxes_to_image(self.box_coder.decode_single(deltas, anchors),
                                                shape)
            best, rows, labels = _per_class_top(scores, self.score_thresh, self.topk_candidates)
            keep = box_ops.batched_nms(boxes[rows], best, labels, self.nms_thresh)
            keep = keep[:self.detections_per_img]
            detections.append({"boxes": boxes[rows][keep], "scores": best[keep],
                               "labels": labels[keep]})
        return detections

    def forward(self, images, targets=None):
        images, targets, features, original_sizes = _prepare(self, images, targets)
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        losses, detections = {}, []
        if self.training:
            if targets is None:
                numtorch._assert(False, "targets should not be none when in training mode")
            matched = _match_by_iou(self.proposal_matcher, targets, anchors)
            losses = self.compute_loss(targets, head_outputs, anchors, matched)
        else:
            detections = self.postprocess_detections(head_outputs, anchors, images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes,
                                                    original_sizes)
        return _returned(self, losses, detections)


class SSDFeatureExtractorVGG(nn.Module):
    """VGG's conv layers as SSD's multi-scale extractor: conv4_3 (L2-normalised per location
    and scaled by a learnt per-channel weight, initially 20), then conv5 with a dilated
    fc6/fc7, then 4 (SSD300) or 5 (SSD512, ``highres``) extra stride-2 / valid blocks.

    Args:
        backbone (nn.Sequential): VGG's ``features`` (five conv stages, each ending in a max
            pool). Its third pool is switched to ``ceil_mode`` as the paper's sizes need.
        highres (bool): add SSD512's extra block.
    """

    def __init__(self, backbone, highres):
        super().__init__()
        pools = [i for i, layer in enumerate(backbone) if isinstance(layer, nn.MaxPool2d)]
        pool3, pool4 = pools[2], pools[3]
        backbone[pool3].ceil_mode = True
        self.scale_weight = nn.Parameter(numtorch.ones(512) * 20)
        self.features = nn.Sequential(*backbone[:pool4])  # through conv4_3 and its ReLU

        # (in, mid, out, stride, padding, kernel) of each extra block: 1x1 down to mid, then
        # a kxk conv to out
        shapes = [(1024, 256, 512, 2, 1, 3), (512, 128, 256, 2, 1, 3),
                  (256, 128, 256, 1, 0, 3), (256, 128, 256, 1, 0, 3)]
        if highres:
            shapes.append((256, 128, 256, 1, 0, 4))
        extra = nn.ModuleList([
            nn.Sequential(nn.Conv2d(cin, mid, kernel_size=1), nn.ReLU(inplace=True),
                          nn.Conv2d(mid, cout, kernel_size=k, padding=pad, stride=stride),
                          nn.ReLU(inplace=True))
            for cin, mid, cout, stride, pad, k in shapes])
        _xavier_init(extra)
        # pool5 becomes 3x3 stride 1; fc6 is a 3x3 conv dilated by 6, fc7 a 1x1 conv
        fc = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=False),
            nn.Conv2d(in_channels=512, out_channels=1024, kernel_size=3, padding=6, dilation=6),
            nn.ReLU(inplace=True),
            nn.Conv2d(in_channels=1024, out_channels=1024, kernel_size=1),
            nn.ReLU(inplace=True))
        _xavier_init(fc)
        # pool4 and conv5 (VGG's last pool dropped), then fc6/fc7
        extra.insert(0, nn.Sequential(*backbone[pool4:-1], fc))
        self.extra = extra

    def forward(self, x):
        conv4_3 = self.features(x)
        maps = [self.scale_weight.view(1, -1, 1, 1) * F.normalize(conv4_3)]
        x = conv4_3
        for block in self.extra:
            x = block(x)
            maps.append(x)
        return OrderedDict((str(i), m) for i, m in enumerate(maps))


def _vgg_extractor(backbone, highres, trainable_layers):
    features = backbone.features
    # a stage starts at the input or right after a max pool; VGG's last pool starts none
    starts = [0] + [i for i, layer in enumerate(features) if isinstance(layer, nn.MaxPool2d)][:-1]
    numtorch._assert(0 <= trainable_layers <= len(starts),
                     f"trainable_layers should be in the range [0, {len(starts)}]. Instead got "
                     f"{trainable_layers}")
    frozen = len(features) if trainable_layers == 0 else starts[len(starts) - trainable_layers]
    for layer in features[:frozen]:
        for p in layer.parameters():
            p.requires_grad_(False)
    return SSDFeatureExtractorVGG(features, highres)


class SSD300_VGG16_Weights(WeightsEnum):
    COCO_V1 = _coco_weights(
        "ssd300_vgg16_coco-b556d3b4.pth", 35641826, 25.1, 34.858, 135.988,
        "https://github.com/pytorch/vision/tree/main/references/detection#ssd300-vgg16",
        _PAPER_DOCS)
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", SSD300_VGG16_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", VGG16_Weights.IMAGENET1K_FEATURES))
def ssd300_vgg16(*, weights: SSD300_VGG16_Weights | None = None, progress: bool = True,
                 num_classes: int | None = None,
                 weights_backbone: VGG16_Weights | None = VGG16_Weights.IMAGENET1K_FEATURES,
                 trainable_backbone_layers: int | None = None, **kwargs) -> SSD:
    """SSD300 on a VGG-16 backbone (input resized to 300x300).

    Args:
        weights (SSD300_VGG16_Weights, optional): pretrained weights.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): classes, background included (91 without weights).
        weights_backbone (VGG16_Weights, optional): backbone weights when ``weights`` is None.
        trainable_backbone_layers (int, optional): VGG stages left trainable, 0-5 (4 when
            pretrained).
        **kwargs: passed to :class:`SSD`.
    """
    weights = SSD300_VGG16_Weights.verify(weights)
    weights_backbone = VGG16_Weights.verify(weights_backbone)
    _fixed_size_note(kwargs)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    trainable = _validate_trainable_layers(weights is not None or weights_backbone is not None,
                                           trainable_backbone_layers, 5, 4)
    backbone = _vgg_extractor(vgg16(weights=weights_backbone, progress=progress), False,
                              trainable)
    anchor_generator = DefaultBoxGenerator(
        [[2], [2, 3], [2, 3], [2, 3], [2], [2]],
        scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05], steps=[8, 16, 32, 64, 100, 300])
    # the backbone expects 0-255 inputs less the mean pixel, as the original Caffe model did
    kwargs = {"image_mean": [0.48235, 0.45882, 0.40784],
              "image_std": [1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0], **kwargs}
    model = SSD(backbone, anchor_generator, (300, 300), num_classes, **kwargs)
    return model if weights is None else _load_weights(model, weights, progress)

