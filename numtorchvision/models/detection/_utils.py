"""Pieces every detector shares: box <-> regression-target coders, the IoU matchers that pair
anchors or proposals with ground truth, the positive/negative sampler, and small helpers
(FrozenBatchNorm eps, backbone channel probing, top-k bounds, the one-stage box losses)."""

import math
from collections import OrderedDict

import numtorch
from numtorch.nn import functional as F

from ...ops import complete_box_iou_loss, distance_box_iou_loss, generalized_box_iou_loss
from ...ops.misc import FrozenBatchNorm2d

__all__ = ["BalancedPositiveNegativeSampler", "BoxCoder", "BoxLinearCoder", "Matcher",
           "SSDMatcher", "encode_boxes", "overwrite_eps", "retrieve_out_channels"]


class BalancedPositiveNegativeSampler:
    """Draws a fixed-size training batch per image with at most ``positive_fraction`` positives.

    ``__call__(matched_idxs)`` takes one label vector per image (>= 1 positive, 0 negative,
    < 0 ignored) and returns two lists of uint8 masks (positives, negatives). Positives are
    drawn first, then negatives, each with ``randperm`` on the default generator, image by
    image, so a seeded run draws the same batch as torchvision.
    """

    def __init__(self, batch_size_per_image, positive_fraction):
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def _pick(self, candidates, count, like):
        order = numtorch.randperm(candidates.numel(), device=candidates.device)
        chosen = candidates[order[:count]]
        mask = numtorch.zeros_like(like, dtype=numtorch.uint8)
        mask[chosen] = 1
        return mask

    def __call__(self, matched_idxs):
        positives, negatives = [], []
        for labels in matched_idxs:
            pos = numtorch.where(labels >= 1)[0]
            neg = numtorch.where(labels == 0)[0]
            n_pos = min(pos.numel(), int(self.batch_size_per_image * self.positive_fraction))
            n_neg = min(neg.numel(), self.batch_size_per_image - n_pos)
            positives.append(self._pick(pos, n_pos, labels))
            negatives.append(self._pick(neg, n_neg, labels))
        return positives, negatives


def _centre_size(boxes):
    """(cx, cy, w, h) columns of xyxy boxes (last axis)."""
    w = boxes[..., 2] - boxes[..., 0]
    h = boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + 0.5 * w, boxes[..., 1] + 0.5 * h, w, h


def encode_boxes(reference_boxes, proposals, weights):
    """Regression targets ``(wx*dx/w, wy*dy/h, ww*log(w'/w), wh*log(h'/h))`` that move each
    proposal onto its reference box; ``weights`` is a tensor of the four weights."""
    wx, wy, ww, wh = (weights[i] for i in range(4))
    px, py, pw, ph = _centre_size(proposals)
    gx, gy, gw, gh = _centre_size(reference_boxes)
    return numtorch.stack([wx * (gx - px) / pw, wy * (gy - py) / ph,
                           ww * numtorch.log(gw / pw), wh * numtorch.log(gh / ph)], dim=1)


class BoxCoder:
    """Faster R-CNN's box parametrisation: centre offsets relative to the reference size and
    log size ratios, each scaled by ``weights``; decoding clamps the log ratios at
    ``bbox_xform_clip`` so that ``exp`` cannot overflow."""

    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes, proposals):
        """One target tensor per image, for lists of matched boxes and proposals."""
        counts = [len(b) for b in reference_boxes]
        targets = self.encode_single(numtorch.cat(reference_boxes, dim=0),
                                     numtorch.cat(proposals, dim=0))
        return targets.split(counts, 0)

    def encode_single(self, reference_boxes, proposals):
        w = numtorch.as_tensor(self.weights, dtype=reference_boxes.dtype,
                               device=reference_boxes.device)
        return encode_boxes(reference_boxes, proposals, w)

    def decode(self, rel_codes, boxes):
        """Decode ``rel_codes`` (all images' rows concatenated) against the list ``boxes``;
        returns ``(total, K, 4)`` boxes, ``K`` = ``rel_codes.shape[1] / 4``."""
        if not isinstance(boxes, (list, tuple)):
            raise AssertionError("This function expects boxes of type list or tuple.")
        if not isinstance(rel_codes, numtorch.Tensor):
            raise AssertionError("This function expects rel_codes of type torch.Tensor.")
        counts = [b.size(0) for b in boxes]
        concat = numtorch.cat(list(boxes), dim=0)
        total = sum(counts)
        if total > 0:
            rel_codes = rel_codes.reshape(total, -1)
        decoded = self.decode_single(rel_codes, concat)
        if total > 0:
            decoded = decoded.reshape(total, -1, 4)
        return decoded

    def decode_single(self, rel_codes, boxes):
        """Boxes ``(N, 4K)`` from regression codes ``(N, 4K)`` and reference boxes ``(N, 4)``."""
        boxes = boxes.to(rel_codes.dtype)
        cx, cy, w, h = (v[:, None] for v in _centre_size(boxes))
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = (rel_codes[:, 2::4] / ww).clamp(max=self.bbox_xform_clip)
        dh = (rel_codes[:, 3::4] / wh).clamp(max=self.bbox_xform_clip)
        ctr_x = dx * w + cx
        ctr_y = dy * h + cy
        half = numtorch.tensor(0.5, dtype=ctr_x.dtype, device=ctr_x.device)
        half_w = half * (numtorch.exp(dw) * w)
        half_h = half * (numtorch.exp(dh) * h)
        return numtorch.stack([ctr_x - half_w, ctr_y - half_h, ctr_x + half_w, ctr_y + half_h],
                              dim=2).flatten(1)


class BoxLinearCoder:
    """FCOS's parametrisation: distances from the reference box centre to the four sides of
    the target box, divided by the reference size when ``normalize_by_size``."""

    def __init__(self, normalize_by_size=True):
        self.normalize_by_size = normalize_by_size

    def _sizes(self, boxes):
        w = boxes[..., 2] - boxes[..., 0]
        h = boxes[..., 3] - boxes[..., 1]
        return numtorch.stack([w, h, w, h], dim=-1)

    def encode(self, reference_boxes, proposals):
        cx = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        cy = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        targets = numtorch.stack([cx - proposals[..., 0], cy - proposals[..., 1],
                                  proposals[..., 2] - cx, proposals[..., 3] - cy], dim=-1)
        if self.normalize_by_size:
            targets = targets / self._sizes(reference_boxes)
        return targets

    def decode(self, rel_codes, boxes):
        boxes = boxes.to(dtype=rel_codes.dtype)
        cx = 0.5 * (boxes[..., 0] + boxes[..., 2])
        cy = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            rel_codes = rel_codes * self._sizes(boxes)
        return numtorch.stack([cx - rel_codes[..., 0], cy - rel_codes[..., 1],
                               cx + rel_codes[..., 2], cy + rel_codes[..., 3]], dim=-1)


class Matcher:
    """Matches each prediction (column of an ``M x N`` quality matrix, rows = ground truth)
    to its best ground truth: the index when the quality is >= ``high_threshold``,
    ``BELOW_LOW_THRESHOLD`` (-1) under ``low_threshold`` and ``BETWEEN_THRESHOLDS`` (-2)
    in between. With ``allow_low_quality_matches`` every ground truth also keeps the
    predictions that tie for its best quality, whatever their value."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, high_threshold, low_threshold, allow_low_quality_matches=False):
        if low_threshold > high_threshold:
            raise AssertionError("low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix):
        if match_quality_matrix.numel() == 0:
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images "
                                 "during training")
            raise ValueError("No proposal boxes available for one of the images during "
                             "training")
        best, matches = match_quality_matrix.max(dim=0)
        raw = matches.clone() if self.allow_low_quality_matches else None
        matches[best < self.low_threshold] = self.BELOW_LOW_THRESHOLD
        matches[(best >= self.low_threshold) & (best < self.high_threshold)] = (
            self.BETWEEN_THRESHOLDS)
        if raw is not None:
            self.set_low_quality_matches_(matches, raw, match_quality_matrix)
        return matches

    def set_low_quality_matches_(self, matches, all_matches, match_quality_matrix):
        """Give back, to every ground truth, the predictions reaching its highest quality."""
        per_gt_best = match_quality_matrix.max(dim=1)[0]
        rescued = numtorch.where(match_quality_matrix == per_gt_best[:, None])[1]
        matches[rescued] = all_matches[rescued]


class SSDMatcher(Matcher):
    """One threshold, and every ground truth forced onto its best prediction."""

    def __init__(self, threshold):
        super().__init__(threshold, threshold, allow_low_quality_matches=False)

    def __call__(self, match_quality_matrix):
        matches = super().__call__(match_quality_matrix)
        best_pred = match_quality_matrix.max(dim=1)[1]
        matches[best_pred] = numtorch.arange(best_pred.size(0), dtype=numtorch.int64,
                                             device=best_pred.device)
        return matches


def _init_convs(module, kinds, zero_bias=True):
    """He-normal (fan-out, ReLU gain) weights, and zero biases, for every ``kinds`` layer
    inside ``module`` (the R-CNN heads' initialisation)."""
    for m in module.modules():
        if isinstance(m, kinds):
            numtorch.nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if zero_bias and m.bias is not None:
                numtorch.nn.init.zeros_(m.bias)


def overwrite_eps(model, eps):
    """Set ``eps`` of every FrozenBatchNorm2d (the first COCO checkpoints were trained with 0)."""
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def retrieve_out_channels(model, size):
    """Channels of each feature map ``model`` returns for a zero image of ``size`` (w, h)."""
    was_training = model.training
    model.eval()
    with numtorch.no_grad():
        device = next(model.parameters()).device
        features = model(numtorch.zeros((1, 3, size[1], size[0]), device=device))
        if isinstance(features, numtorch.Tensor):
            features = OrderedDict([("0", features)])
        channels = [x.size(1) for x in features.values()]
    if was_training:
        model.train()
    return channels


def _topk_min(input, orig_kval, axis):
    """``k`` for a top-k along ``axis`` that never exceeds that axis' length."""
    return min(int(orig_kval), int(input.size(axis)))


def _box_loss(type, box_coder, anchors_per_image, matched_gt_boxes_per_image,
              bbox_regression_per_image, cnf=None):
    """Summed box-regression loss of one image for the one-stage detectors: ``l1`` or
    ``smooth_l1`` on encoded targets, or an IoU-family loss on decoded boxes."""
    cnf = cnf or {}
    if type in ("l1", "smooth_l1"):
        target = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        if type == "l1":
            return F.l1_loss(bbox_regression_per_image, target, reduction="sum")
        return F.smooth_l1_loss(bbox_regression_per_image, target, reduction="sum",
                                beta=cnf.get("beta", 1.0))
    iou_losses = {"ciou": complete_box_iou_loss, "diou": distance_box_iou_loss,
                  "giou": generalized_box_iou_loss}
    if type not in iou_losses:
        raise ValueError(f"Unsupported loss: {type}")
    decoded = box_coder.decode_single(bbox_regression_per_image, anchors_per_image)
    return iou_losses[type](decoded, matched_gt_boxes_per_image, reduction="sum",
                            eps=cnf.get("eps", 1e-7))
