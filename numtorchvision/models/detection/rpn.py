"""Region Proposal Network (Ren et al., 2015): an objectness score and box deltas per anchor,
decoded into proposals, filtered per level and by NMS; trained with a balanced sample of
anchors matched to the ground truth."""

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ...ops import boxes as box_ops
from ...ops.misc import Conv2dNormActivation
from . import _utils as det_utils
from .anchor_utils import AnchorGenerator  # noqa: F401  (torchvision's module exposes it)
from .image_list import ImageList  # noqa: F401

__all__ = ["RPNHead", "RegionProposalNetwork", "concat_box_prediction_layers",
           "permute_and_flatten"]


class RPNHead(nn.Module):
    """``conv_depth`` 3x3 conv + ReLU layers shared by all levels, then 1x1 convolutions to
    ``num_anchors`` objectness logits and ``4 * num_anchors`` box deltas.

    Args:
        in_channels (int): channels of every feature map.
        num_anchors (int): anchors per location.
        conv_depth (int): number of shared 3x3 layers. Default: 1.
    """

    _version = 2

    def __init__(self, in_channels, num_anchors, conv_depth=1):
        super().__init__()
        self.conv = nn.Sequential(*[Conv2dNormActivation(in_channels, in_channels,
                                                         kernel_size=3, norm_layer=None)
                                    for _ in range(conv_depth)])
        # per anchor: one objectness logit, four box deltas
        for name, per_anchor in (("cls_logits", 1), ("bbox_pred", 4)):
            setattr(self, name, nn.Conv2d(in_channels, num_anchors * per_anchor, 1, 1))
        convs = [m for m in self.modules() if isinstance(m, nn.Conv2d)]
        for conv in convs:
            nn.init.normal_(conv.weight, std=0.01)
            nn.init.constant_(conv.bias, 0)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # version 1 had one plain conv: conv.weight instead of conv.0.0.weight
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for kind in ("weight", "bias"):
                old = f"{prefix}conv.{kind}"
                if old in state_dict:
                    state_dict[f"{prefix}conv.0.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, x):
        logits, deltas = [], []
        for feature in x:
            t = self.conv(feature)
            logits.append(self.cls_logits(t))
            deltas.append(self.bbox_pred(t))
        return logits, deltas


def permute_and_flatten(layer, N, A, C, H, W):
    """``(N, A*C, H, W)`` -> ``(N, H*W*A, C)``: location-major, anchors of a cell together."""
    return layer.view(N, -1, C, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, C)


def concat_box_prediction_layers(box_cls, box_regression):
    """All levels' per-anchor outputs in anchor order: ``(N*total, C)`` class logits and
    ``(N*total, 4)`` deltas (image-major)."""
    classes, deltas = [], []
    for cls, reg in zip(box_cls, box_regression):
        n, a_c, h, w = cls.shape
        a = reg.shape[1] // 4
        classes.append(permute_and_flatten(cls, n, a, a_c // a, h, w))
        deltas.append(permute_and_flatten(reg, n, a, 4, h, w))
    return (numtorch.cat(classes, dim=1).flatten(0, -2),
            numtorch.cat(deltas, dim=1).reshape(-1, 4))


class RegionProposalNetwork(nn.Module):
    """Proposals from anchors.

    Args:
        anchor_generator (AnchorGenerator): anchors of every feature map.
        head (nn.Module): objectness and deltas per level (e.g. :class:`RPNHead`).
        fg_iou_thresh, bg_iou_thresh (float): IoU for a positive / under which negative.
        batch_size_per_image (int), positive_fraction (float): the training sample.
        pre_nms_top_n, post_nms_top_n (dict): ``{"training": n, "testing": n}``: the best
            ``pre`` per level before NMS, the best ``post`` per image after.
        nms_thresh (float): NMS IoU threshold.
        score_thresh (float): minimum objectness probability. Default: 0.
    """

    __annotations__ = {"box_coder": det_utils.BoxCoder, "proposal_matcher": det_utils.Matcher,
                       "fg_bg_sampler": det_utils.BalancedPositiveNegativeSampler}

    def __init__(self, anchor_generator, head, fg_iou_thresh, bg_iou_thresh,
                 batch_size_per_image, positive_fraction, pre_nms_top_n, post_nms_top_n,
                 nms_thresh, score_thresh=0.0):
        super().__init__()
        self.anchor_generator, self.head = anchor_generator, head
        self.box_coder = det_utils.BoxCoder(weights=(1.0,) * 4)
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh,
                                                  allow_low_quality_matches=True)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image,
                                                                       positive_fraction)
        self._pre_nms_top_n, self._post_nms_top_n = pre_nms_top_n, post_nms_top_n
        self.nms_thresh, self.score_thresh = nms_thresh, score_thresh
        self.min_size = 1e-3  # proposals narrower or lower than this are dropped

    def _mode(self):
        return "training" if self.training else "testing"

    def pre_nms_top_n(self):
        return self._pre_nms_top_n[self._mode()]

    def post_nms_top_n(self):
        return self._post_nms_top_n[self._mode()]

    def assign_targets_to_anchors(self, anchors, targets):
        """Per image, anchor labels (1 positive, 0 negative, -1 ignored) and the matched
        ground-truth box of each anchor."""
        labels, matched_boxes = [], []
        for anchors_i, target in zip(anchors, targets):
            gt = target["boxes"]
            if gt.numel() == 0:
                matched = numtorch.zeros(anchors_i.shape, dtype=numtorch.float32,
                                         device=anchors_i.device)
                lab = numtorch.zeros((anchors_i.shape[0],), dtype=numtorch.float32,
                                     device=anchors_i.device)
            else:
                idx = self.proposal_matcher(self.box_similarity(gt, anchors_i))
                matched = gt[idx.clamp(min=0)]
                lab = (idx >= 0).to(dtype=numtorch.float32)
                lab[idx == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0.0
                lab[idx == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1.0
            labels.append(lab)
            matched_boxes.append(matched)
        return labels, matched_boxes

    def _get_top_n_idx(self, objectness, num_anchors_per_level):
        picks, offset = [], 0
        for level in objectness.split(num_anchors_per_level, 1):
            k = det_utils._topk_min(level, self.pre_nms_top_n(), 1)
            picks.append(level.topk(k, dim=1)[1] + offset)
            offset += level.shape[1]
        return numtorch.cat(picks, dim=1)

    def filter_proposals(self, proposals, objectness, image_shapes, num_anchors_per_level):
        """The best ``pre_nms_top_n`` per level, clipped, small and low-score boxes
        dropped, NMS per level, then the best ``post_nms_top_n`` per image."""
        n_img = proposals.shape[0]
        objectness = objectness.detach().reshape(n_img, -1)
        levels = numtorch.cat([numtorch.full((n,), i, dtype=numtorch.int64,
                                             device=proposals.device)
                               for i, n in enumerate(num_anchors_per_level)], 0)
        levels = levels.reshape(1, -1).expand_as(objectness)
        top = self._get_top_n_idx(objectness, num_anchors_per_level)
        rows = numtorch.arange(n_img, device=proposals.device)[:, None]
        objectness, levels, proposals = objectness[rows, top], levels[rows, top], proposals[
            rows, top]
        probs = numtorch.sigmoid(objectness)
        final_boxes, final_scores = [], []
        for boxes, scores, lvl, shape in zip(proposals, probs, levels, image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, shape)
            for keep in (lambda: box_ops.remove_small_boxes(boxes, self.min_size),
                         lambda: numtorch.where(scores >= self.score_thresh)[0],
                         lambda: box_ops.batched_nms(boxes, scores, lvl, self.nms_thresh)[
                             :self.post_nms_top_n()]):
                k = keep()
                boxes, scores, lvl = boxes[k], scores[k], lvl[k]
            final_boxes.append(boxes)
            final_scores.append(scores)
        return final_boxes, final_scores

    def compute_loss(self, objectness, pred_bbox_deltas, labels, regression_targets):
        """Binary cross entropy of the sampled anchors' objectness and smooth-L1 (beta 1/9)
        of the positives' deltas, summed over the sample size."""
        pos, neg = self.fg_bg_sampler(labels)
        pos = numtorch.where(numtorch.cat(pos, dim=0))[0]
        neg = numtorch.where(numtorch.cat(neg, dim=0))[0]
        sampled = numtorch.cat([pos, neg], dim=0)
        objectness = objectness.flatten()
        labels = numtorch.cat(labels, dim=0)
        regression_targets = numtorch.cat(regression_targets, dim=0)
        box_loss = F.smooth_l1_loss(pred_bbox_deltas[pos], regression_targets[pos],
                                    beta=1 / 9, reduction="sum") / sampled.numel()
        objectness_loss = F.binary_cross_entropy_with_logits(objectness[sampled],
                                                             labels[sampled])
        return objectness_loss, box_loss

    def forward(self, images, features, targets=None):
        features = list(features.values())
        objectness, deltas = self.head(features)
        anchors = self.anchor_generator(images, features)
        n_img = len(anchors)
        per_level = [int(o[0].shape[0] * o[0].shape[1] * o[0].shape[2]) for o in objectness]
        objectness, deltas = concat_box_prediction_layers(objectness, deltas)
        proposals = self.box_coder.decode(deltas.detach(), anchors).view(n_img, -1, 4)
        boxes, _ = self.filter_proposals(proposals, objectness, images.image_sizes, per_level)
        losses = {}
        if self.training:
            if targets is None:
                raise ValueError("targets should not be None")
            labels, matched = self.assign_targets_to_anchors(anchors, targets)
            regression_targets = self.box_coder.encode(matched, anchors)
            loss_objectness, loss_rpn_box_reg = self.compute_loss(objectness, deltas, labels,
                                                                  regression_targets)
            losses = {"loss_objectness": loss_objectness, "loss_rpn_box_reg": loss_rpn_box_reg}
        return boxes, losses
