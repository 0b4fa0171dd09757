"""The second stage of the R-CNN family: pool features for each proposal, classify and
refine it (box head), and optionally predict a mask or keypoints per detection; training
pairs proposals with ground truth and samples a balanced batch; inference keeps the
confident, non-overlapping detections and maps masks and keypoint heatmaps into images."""

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ...ops import boxes as box_ops
from ...ops import roi_align
from . import _utils as det_utils

__all__ = ["RoIHeads", "fastrcnn_loss", "maskrcnn_loss", "maskrcnn_inference",
           "keypointrcnn_loss", "keypointrcnn_inference", "paste_masks_in_image",
           "keypoints_to_heatmap", "heatmaps_to_keypoints", "project_masks_on_boxes",
           "expand_boxes", "expand_masks"]

_ELEMENT_BUDGET = 1 << 24  # values per chunk of up-sampled keypoint maps


def fastrcnn_loss(class_logits, box_regression, labels, regression_targets):
    """Cross entropy over classes plus smooth-L1 (beta 1/9) of the regression of the
    ground-truth class on positive samples, summed and divided by the number of samples."""
    labels = numtorch.cat(labels, dim=0)
    regression_targets = numtorch.cat(regression_targets, dim=0)
    classification_loss = F.cross_entropy(class_logits, labels)
    positive = numtorch.where(labels > 0)[0]
    n = class_logits.shape[0]
    per_class = box_regression.reshape(n, box_regression.size(-1) // 4, 4)
    box_loss = F.smooth_l1_loss(per_class[positive, labels[positive]],
                                regression_targets[positive], beta=1 / 9, reduction="sum")
    return classification_loss, box_loss / labels.numel()


def maskrcnn_inference(x, labels):
    """Per image, the sigmoid mask ``(n, 1, M, M)`` of each detection's own class."""
    probs = x.sigmoid()
    counts = [len(lab) for lab in labels]
    labels = numtorch.cat(labels)
    picked = probs[numtorch.arange(x.shape[0], device=labels.device), labels][:, None]
    return picked.split(counts, dim=0)


def project_masks_on_boxes(gt_masks, boxes, matched_idxs, M):
    """The matched ground-truth mask cropped to each box and resampled to ``M x M``."""
    rois = numtorch.cat([matched_idxs.to(boxes)[:, None], boxes], dim=1)
    return roi_align(gt_masks[:, None].to(rois), rois, (M, M), 1.0)[:, 0]


def maskrcnn_loss(mask_logits, proposals, gt_masks, gt_labels, mask_matched_idxs):
    """Binary cross entropy of each positive's own-class mask logits against its matched
    ground-truth mask projected on the proposal."""
    size = mask_logits.shape[-1]
    labels = numtorch.cat([lab[idx] for lab, idx in zip(gt_labels, mask_matched_idxs)], dim=0)
    targets = numtorch.cat([project_masks_on_boxes(m, p, i, size)
                            for m, p, i in zip(gt_masks, proposals, mask_matched_idxs)], dim=0)
    if targets.numel() == 0:
        return mask_logits.sum() * 0
    chosen = mask_logits[numtorch.arange(labels.shape[0], device=labels.device), labels]
    return F.binary_cross_entropy_with_logits(chosen, targets)


def keypoints_to_heatmap(keypoints, rois, heatmap_size):
    """Flat heatmap index (``y * size + x``) of each keypoint inside its RoI, and whether it
    is visible and inside; a keypoint exactly on the right/bottom edge goes to the last cell."""
    x0, y0 = rois[:, 0][:, None], rois[:, 1][:, None]
    sx = heatmap_size / (rois[:, 2] - rois[:, 0])[:, None]
    sy = heatmap_size / (rois[:, 3] - rois[:, 1])[:, None]
    x, y = keypoints[..., 0], keypoints[..., 1]
    on_right = x == rois[:, 2][:, None]
    on_bottom = y == rois[:, 3][:, None]
    x = ((x - x0) * sx).floor().long()
    y = ((y - y0) * sy).floor().long()
    x[on_right] = heatmap_size - 1
    y[on_bottom] = heatmap_size - 1
    inside = (x >= 0) & (y >= 0) & (x < heatmap_size) & (y < heatmap_size)
    valid = (inside & (keypoints[..., 2] > 0)).long()
    return (y * heatmap_size + x) * valid, valid


def _cubic_weights(t):
    """The four bicubic (A = -0.75) weights for taps at offsets -1, 0, 1, 2."""
    a = -0.75

    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _resample_rows(local, out_len, in_len, cubic, dtype):
    """``(N, L, in_len)`` matrices that resample a length-``in_len`` axis to ``out_len[n]``
    samples (align_corners=False, bilinear or bicubic as torch's upsampling kernels, in
    ``dtype`` as they compute), read at the integer output positions ``local`` ``(N, L)``;
    the caller masks invalid rows."""
    out_len = out_len.to(dtype)[:, None]
    # a true division, as the kernels' float scale (a number / tensor is reciprocal * number)
    scale = numtorch.full_like(out_len, float(in_len)) / out_len
    src = scale * (local.to(dtype) + 0.5) - 0.5
    taps = numtorch.arange(in_len, device=local.device)
    if cubic:
        base = src.floor()
        weights = _cubic_weights(src - base)
        starts = base.long() - 1
        offsets = range(4)
    else:
        src = src.clamp(min=0)
        base = src.floor()
        frac = src - base
        weights = [1 - frac, frac]
        starts = base.long()
        offsets = (0, 1)
    out = 0
    for w, off in zip(weights, offsets):
        idx = (starts + off).clamp(min=0, max=in_len - 1)
        out = out + w[..., None] * (idx[..., None] == taps).to(w.dtype)
    return out


def heatmaps_to_keypoints(maps, rois):
    """Keypoint locations from heatmap logits ``(R, K, S, S)``: each map is resized
    (bicubic) to its RoI's size in pixels (rounded up) and its maximum taken; returns
    ``(R, K, 3)`` (x, y, 1) and the ``(R, K)`` maxima."""
    n_roi, n_kp, s = maps.shape[0], maps.shape[1], maps.shape[-1]
    x0, y0 = rois[:, 0], rois[:, 1]
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    wc, hc = widths.ceil(), heights.ceil()
    xy = numtorch.zeros((n_roi, 3, n_kp), dtype=numtorch.float32, device=maps.device)
    scores = numtorch.zeros((n_roi, n_kp), dtype=numtorch.float32, device=maps.device)
    if n_roi == 0:
        return xy.permute(0, 2, 1), scores
    wmax, hmax = int(wc.max().item()), int(hc.max().item())
    step = max(1, _ELEMENT_BUDGET // (n_kp * wmax * hmax))
    cols = numtorch.arange(wmax, device=maps.device)
    rows = numtorch.arange(hmax, device=maps.device)
    for lo in range(0, n_roi, step):
        part = slice(lo, lo + step)
        w_int, h_int = wc[part].long(), hc[part].long()
        m = w_int.shape[0]
        ry = _resample_rows(rows.expand(m, hmax), h_int, s, True, maps.dtype)
        rx = _resample_rows(cols.expand(m, wmax), w_int, s, True, maps.dtype)
        up = ry[:, None] @ maps[part] @ rx[:, None].transpose(-1, -2)
        outside = (rows[None, :, None] >= h_int[:, None, None]) | (
            cols[None, None, :] >= w_int[:, None, None])
        up = up.masked_fill(outside[:, None], float("-inf")).flatten(2)
        best, pos = up.max(dim=2)
        xi, yi = pos % wmax, pos // wmax
        xy[part, 0] = (xi.float() + 0.5) * (widths[part] / w_int)[:, None] + x0[part][:, None]
        xy[part, 1] = (yi.float() + 0.5) * (heights[part] / h_int)[:, None] + y0[part][:, None]
        scores[part] = best
    xy[:, 2] = 1
    return xy.permute(0, 2, 1), scores


def keypointrcnn_loss(keypoint_logits, proposals, gt_keypoints, keypoint_matched_idxs):
    """Cross entropy over the heatmap cells of every visible, in-RoI keypoint."""
    n, k, h, w = keypoint_logits.shape
    if h != w:
        raise ValueError(f"keypoint_logits height and width (last two elements of shape) "
                         f"should be equal. Instead got H = {h} and W = {w}")
    targets, valid = [], []
    for props, kps, idx in zip(proposals, gt_keypoints, keypoint_matched_idxs):
        t, v = keypoints_to_heatmap(kps[idx], props, h)
        targets.append(t.view(-1))
        valid.append(v.view(-1))
    targets = numtorch.cat(targets, dim=0)
    valid = numtorch.where(numtorch.cat(valid, dim=0).to(dtype=numtorch.uint8))[0]
    if targets.numel() == 0 or len(valid) == 0:
        return keypoint_logits.sum() * 0
    return F.cross_entropy(keypoint_logits.view(n * k, h * w)[valid], targets[valid])


def keypointrcnn_inference(x, boxes):
    """Per image, the keypoints ``(n, K, 3)`` and their scores ``(n, K)``."""
    counts = [b.size(0) for b in boxes]
    points, scores = heatmaps_to_keypoints(x, numtorch.cat(list(boxes), dim=0))
    return list(points.split(counts, dim=0)), list(scores.split(counts, dim=0))


def expand_boxes(boxes, scale):
    """Boxes scaled by ``scale`` about their centres."""
    half_w = (boxes[:, 2] - boxes[:, 0]) * 0.5 * scale
    half_h = (boxes[:, 3] - boxes[:, 1]) * 0.5 * scale
    cx = (boxes[:, 2] + boxes[:, 0]) * 0.5
    cy = (boxes[:, 3] + boxes[:, 1]) * 0.5
    return numtorch.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], dim=1)


def expand_masks(mask, padding):
    """Masks zero-padded by ``padding`` on every side, and the matching box scale."""
    m = mask.shape[-1]
    return F.pad(mask, (padding,) * 4), float(m + 2 * padding) / m


def expand_masks_tracing_scale(M, padding):
    """The box scale that padding an ``M``-wide mask by ``padding`` implies (a float32
    0-d tensor)."""
    size = numtorch.tensor(M + 2 * padding).to(numtorch.float32)
    return size / numtorch.tensor(M).to(numtorch.float32)


def paste_mask_in_image(mask, box, im_h, im_w):
    """One ``(M, M)`` mask resized (bilinear) onto the integer ``box`` (corners inclusive)
    of an ``(im_h, im_w)`` image of zeros, the part outside the image dropped."""
    x0, y0, x1, y1 = (int(v) for v in box[:4])
    w, h = max(x1 - x0 + 1, 1), max(y1 - y0 + 1, 1)
    resized = F.interpolate(mask.expand(1, 1, -1, -1), size=(h, w), mode="bilinear",
                            align_corners=False)[0, 0]
    out = numtorch.zeros((im_h, im_w), dtype=mask.dtype, device=mask.device)
    left, right = max(x0, 0), min(x1 + 1, im_w)
    top, bottom = max(y0, 0), min(y1 + 1, im_h)
    out[top:bottom, left:right] = resized[top - y0:bottom - y0, left - x0:right - x0]
    return out


def paste_masks_in_image(masks, boxes, img_shape, padding=1):
    """Paste ``(N, 1, M, M)`` masks into ``(N, 1, H, W)`` images: each mask, padded by
    ``padding``, is resized (bilinear) onto its box expanded to match the padding and
    rounded to integer pixel corners (inclusive), clipped to the image."""
    masks, scale = expand_masks(masks, padding=padding)
    boxes = expand_boxes(boxes, scale).to(dtype=numtorch.int64)
    im_h, im_w = int(img_shape[0]), int(img_shape[1])
    n, size = masks.shape[0], masks.shape[-1]
    if n == 0:
        return masks.new_empty((0, 1, im_h, im_w))
    x0, y0, x1, y1 = boxes.unbind(1)
    w = (x1 - x0 + 1).clamp(min=1)
    h = (y1 - y0 + 1).clamp(min=1)
    ys = numtorch.arange(im_h, device=boxes.device)[None, :] - y0[:, None]
    xs = numtorch.arange(im_w, device=boxes.device)[None, :] - x0[:, None]
    ry = _resample_rows(ys, h, size, False, masks.dtype)
    rx = _resample_rows(xs, w, size, False, masks.dtype)
    ry = ry * ((ys >= 0) & (ys <= (y1 - y0)[:, None])).to(ry.dtype)[..., None]
    rx = rx * ((xs >= 0) & (xs <= (x1 - x0)[:, None])).to(rx.dtype)[..., None]
    return (ry @ masks[:, 0] @ rx.transpose(1, 2))[:, None]


class RoIHeads(nn.Module):
    """Box head (and optional mask and keypoint heads) over pooled proposal features.

    Args:
        box_roi_pool, box_head, box_predictor: pooling, feature head and the
            (class logits, box deltas) predictor.
        fg_iou_thresh, bg_iou_thresh (float): IoU for a positive / below which negative.
        batch_size_per_image (int), positive_fraction (float): the training sample.
        bbox_reg_weights (tuple of float, optional): box coder weights; (10, 10, 5, 5).
        score_thresh, nms_thresh (float), detections_per_img (int): inference filtering.
        mask_roi_pool, mask_head, mask_predictor: the mask branch (all three, or none).
        keypoint_roi_pool, keypoint_head, keypoint_predictor: the keypoint branch.
    """

    __annotations__ = {"box_coder": det_utils.BoxCoder, "proposal_matcher": det_utils.Matcher,
                       "fg_bg_sampler": det_utils.BalancedPositiveNegativeSampler}

    def __init__(self, box_roi_pool, box_head, box_predictor, fg_iou_thresh, bg_iou_thresh,
                 batch_size_per_image, positive_fraction, bbox_reg_weights, score_thresh,
                 nms_thresh, detections_per_img, mask_roi_pool=None, mask_head=None,
                 mask_predictor=None, keypoint_roi_pool=None, keypoint_head=None,
                 keypoint_predictor=None):
        super().__init__()
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh,
                                                  allow_low_quality_matches=False)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image,
                                                                       positive_fraction)
        self.box_coder = det_utils.BoxCoder(bbox_reg_weights if bbox_reg_weights is not None
                                            else (10.0, 10.0, 5.0, 5.0))
        # registration order is the state dict's order: box, then mask, then keypoint parts
        parts = {"box": (box_roi_pool, box_head, box_predictor),
                 "mask": (mask_roi_pool, mask_head, mask_predictor),
                 "keypoint": (keypoint_roi_pool, keypoint_head, keypoint_predictor)}
        for branch, modules in parts.items():
            for role, module in zip(("roi_pool", "head", "predictor"), modules):
                setattr(self, f"{branch}_{role}", module)
        self.score_thresh, self.nms_thresh = score_thresh, nms_thresh
        self.detections_per_img = detections_per_img

    def has_mask(self):
        return not any(m is None for m in (self.mask_roi_pool, self.mask_head,
                                           self.mask_predictor))

    def has_keypoint(self):
        return not any(m is None for m in (self.keypoint_roi_pool, self.keypoint_head,
                                           self.keypoint_predictor))

    def assign_targets_to_proposals(self, proposals, gt_boxes, gt_labels):
        """Per image, the matched ground-truth index (clamped to >= 0) of each proposal and
        its label: the class, 0 for background, -1 for ignored."""
        matched, labels = [], []
        for props, gt, gt_lab in zip(proposals, gt_boxes, gt_labels):
            if gt.numel() == 0:
                idx = numtorch.zeros((props.shape[0],), dtype=numtorch.int64,
                                     device=props.device)
                lab = numtorch.zeros((props.shape[0],), dtype=numtorch.int64,
                                     device=props.device)
            else:
                raw = self.proposal_matcher(box_ops.box_iou(gt, props))
                idx = raw.clamp(min=0)
                lab = gt_lab[idx].to(dtype=numtorch.int64)
                lab[raw == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0
                lab[raw == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1
            matched.append(idx)
            labels.append(lab)
        return matched, labels

    def subsample(self, labels):
        pos, neg = self.fg_bg_sampler(labels)
        return [numtorch.where(p | q)[0] for p, q in zip(pos, neg)]

    def add_gt_proposals(self, proposals, gt_boxes):
        return [numtorch.cat((p, g)) for p, g in zip(proposals, gt_boxes)]

    def check_targets(self, targets):
        if targets is None:
            raise ValueError("targets should not be None")
        for key in ("boxes", "labels") + (("masks",) if self.has_mask() else ()):
            if not all(key in t for t in targets):
                raise ValueError(f"Every element of targets should have a {key} key")

    def select_training_samples(self, proposals, targets):
        """The sampled proposals (ground truth appended), their matched indices, labels
        and regression targets."""
        self.check_targets(targets)
        dtype, device = proposals[0].dtype, proposals[0].device
        gt_boxes = [t["boxes"].to(dtype) for t in targets]
        gt_labels = [t["labels"] for t in targets]
        proposals = self.add_gt_proposals(proposals, gt_boxes)
        matched_idxs, labels = self.assign_targets_to_proposals(proposals, gt_boxes, gt_labels)
        keep = self.subsample(labels)
        proposals = [p[k] for p, k in zip(proposals, keep)]
        labels = [lab[k] for lab, k in zip(labels, keep)]
        matched_idxs = [m[k] for m, k in zip(matched_idxs, keep)]
        matched_boxes = []
        for gt, idx in zip(gt_boxes, matched_idxs):
            if gt.numel() == 0:
                gt = numtorch.zeros((1, 4), dtype=dtype, device=device)
            matched_boxes.append(gt[idx])
        regression_targets = self.box_coder.encode(matched_boxes, proposals)
        return proposals, matched_idxs, labels, regression_targets

    def postprocess_detections(self, class_logits, box_regression, proposals, image_shapes):
        """Per image: one candidate per (proposal, non-background class), clipped; keep
        scores above ``score_thresh``, boxes of at least 0.01 px, class-wise NMS, and the
        best ``detections_per_img``."""
        num_classes = class_logits.shape[-1]
        counts = [p.shape[0] for p in proposals]
        all_boxes = self.box_coder.decode(box_regression, proposals).split(counts, 0)
        all_scores = F.softmax(class_logits, -1).split(counts, 0)
        out_boxes, out_scores, out_labels = [], [], []
        for boxes, scores, shape in zip(all_boxes, all_scores, image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, shape)
            labels = numtorch.arange(num_classes, device=boxes.device).view(1, -1).expand_as(
                scores)
            boxes = boxes[:, 1:].reshape(-1, 4)
            scores = scores[:, 1:].reshape(-1)
            labels = labels[:, 1:].reshape(-1)
            for keep in (lambda: numtorch.where(scores > self.score_thresh)[0],
                         lambda: box_ops.remove_small_boxes(boxes, min_size=1e-2),
                         lambda: box_ops.batched_nms(boxes, scores, labels,
                                                     self.nms_thresh)[:self.detections_per_img]):
                k = keep()
                boxes, scores, labels = boxes[k], scores[k], labels[k]
            out_boxes.append(boxes)
            out_scores.append(scores)
            out_labels.append(labels)
        return out_boxes, out_scores, out_labels

    @staticmethod
    def _positives(proposals, matched_idxs, labels):
        boxes, idxs = [], []
        for props, idx, lab in zip(proposals, matched_idxs, labels):
            pos = numtorch.where(lab > 0)[0]
            boxes.append(props[pos])
            idxs.append(idx[pos])
        return boxes, idxs

    def forward(self, features, proposals, image_shapes, targets=None):
        if targets is not None:
            for t in targets:
                if t["boxes"].dtype not in (numtorch.float, numtorch.double, numtorch.half):
                    raise TypeError(f"target boxes must of float type, instead got "
                                    f"{t['boxes'].dtype}")
                if t["labels"].dtype != numtorch.int64:
                    raise TypeError(f"target labels must of int64 type, instead got "
                                    f"{t['labels'].dtype}")
                if self.has_keypoint() and t["keypoints"].dtype != numtorch.float32:
                    raise TypeError(f"target keypoints must of float type, instead got "
                                    f"{t['keypoints'].dtype}")
        labels = regression_targets = matched_idxs = None
        if self.training:
            proposals, matched_idxs, labels, regression_targets = (
                self.select_training_samples(proposals, targets))
        pooled = self.box_head(self.box_roi_pool(features, proposals, image_shapes))
        class_logits, box_regression = self.box_predictor(pooled)
        result, losses = [], {}
        if self.training:
            if labels is None:
                raise ValueError("labels cannot be None")
            if regression_targets is None:
                raise ValueError("regression_targets cannot be None")
            loss_classifier, loss_box_reg = fastrcnn_loss(class_logits, box_regression, labels,
                                                          regression_targets)
            losses = {"loss_classifier": loss_classifier, "loss_box_reg": loss_box_reg}
        else:
            boxes, scores, det_labels = self.postprocess_detections(
                class_logits, box_regression, proposals, image_shapes)
            result = [{"boxes": b, "labels": lab, "scores": s}
                      for b, s, lab in zip(boxes, scores, det_labels)]
        if self.has_mask():
            losses.update(self._mask_branch(features, proposals, image_shapes, targets,
                                            matched_idxs, labels, result))
        if self.has_keypoint():
            losses.update(self._keypoint_branch(features, proposals, image_shapes, targets,
                                                matched_idxs, labels, result))
        return result, losses

    def _branch_inputs(self, proposals, matched_idxs, labels, result):
        if not self.training:
            return [r["boxes"] for r in result], None
        if matched_idxs is None:
            raise ValueError("if in training, matched_idxs should not be None")
        return self._positives(proposals, matched_idxs, labels)

    def _mask_branch(self, features, proposals, image_shapes, targets, matched_idxs, labels,
                     result):
        boxes, pos_idxs = self._branch_inputs(proposals, matched_idxs, labels, result)
        logits = self.mask_predictor(self.mask_head(self.mask_roi_pool(features, boxes,
                                                                       image_shapes)))
        if not self.training:
            for probs, r in zip(maskrcnn_inference(logits, [r["labels"] for r in result]),
                                result):
                r["masks"] = probs
            return {}
        if targets is None or pos_idxs is None or logits is None:
            raise ValueError("targets, pos_matched_idxs, mask_logits cannot be None when "
                             "training")
        return {"loss_mask": maskrcnn_loss(logits, boxes, [t["masks"] for t in targets],
                                           [t["labels"] for t in targets], pos_idxs)}

    def _keypoint_branch(self, features, proposals, image_shapes, targets, matched_idxs,
                         labels, result):
        boxes, pos_idxs = self._branch_inputs(proposals, matched_idxs, labels, result)
        logits = self.keypoint_predictor(self.keypoint_head(
            self.keypoint_roi_pool(features, boxes, image_shapes)))
        if not self.training:
            points, scores = keypointrcnn_inference(logits, boxes)
            for p, s, r in zip(points, scores, result):
                r["keypoints"] = p
                r["keypoints_scores"] = s
            return {}
        if targets is None or pos_idxs is None:
            raise ValueError("both targets and pos_matched_idxs should not be None when in "
                             "training mode")
        return {"loss_keypoint": keypointrcnn_loss(logits, boxes,
                                                   [t["keypoints"] for t in targets],
                                                   pos_idxs)}
