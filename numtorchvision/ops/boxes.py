"""Box utilities: areas, pairwise IoU variants, format conversion, clipping, filtering and
non-maximum suppression. Boxes are ``(x1, y1, x2, y2)`` unless a format is named."""

import numpy as np

import numtorch
from numtorch._dtype import _TYPE_DISPLAY

from ._box_convert import (
    _box_cxcywh_to_xyxy,
    _box_cxcywhr_to_xywhr,
    _box_xywh_to_xyxy,
    _box_xywhr_to_cxcywhr,
    _box_xywhr_to_xyxyxyxy,
    _box_xyxy_to_cxcywh,
    _box_xyxy_to_xywh,
    _box_xyxyxyxy_to_xywhr,
)
from ._rotated_iou import box_iou_rotated
from ._utils import _upcast

__all__ = ["nms", "batched_nms", "remove_small_boxes", "clip_boxes_to_image", "box_convert",
           "box_area", "box_iou", "generalized_box_iou", "complete_box_iou",
           "distance_box_iou", "masks_to_boxes"]

_AXIS_ALIGNED = ("xyxy", "xywh", "cxcywh")
_ROTATED = ("cxcywhr", "xywhr", "xyxyxyxy")


def _check_nms_inputs(boxes, scores):
    if boxes.dim() != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {boxes.dim()}D")
    if boxes.size(1) != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {boxes.size(1)}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if boxes.size(0) != scores.size(0):
        raise RuntimeError(f"boxes and scores should have same number of elements in dimension "
                           f"0, got {boxes.size(0)} and {scores.size(0)}")
    if boxes.device.type == "cpu" and boxes.dtype not in (numtorch.float32, numtorch.float64):
        # torchvision's CPU kernel is built for float and double only
        name = _TYPE_DISPLAY.get(str(boxes.dtype).split(".")[-1], str(boxes.dtype))
        raise RuntimeError(f'"nms_kernel" not implemented for \'{name}\'')
    if boxes.dtype != scores.dtype:
        raise RuntimeError("dets should have the same type as scores")


def _autocast_nms_inputs(boxes, scores):
    """Under autocast, torchvision's nms runs in float32: half/bfloat16 inputs are cast up
    (float64 stays)."""
    if not numtorch.is_autocast_enabled(boxes.device.type):
        return boxes, scores

    def up(t):
        return t.float() if t.is_floating_point() and t.dtype != numtorch.float64 else t
    return up(boxes), up(scores)


def _host(t):
    return t.detach().cpu().numpy()


# Above this many boxes the pairwise IoU matrix is not precomputed (n * n floats).
_FULL_MATRIX_LIMIT = 4096


def nms(boxes, scores, iou_threshold):
    """Greedy non-maximum suppression.

    Boxes are visited by decreasing score; each kept box suppresses every later box whose IoU
    with it exceeds ``iou_threshold``.

    Args:
        boxes (Tensor[N, 4]): ``(x1, y1, x2, y2)`` boxes.
        scores (Tensor[N]): their scores.
        iou_threshold (float): suppress overlaps with IoU strictly above this.

    Returns:
        Tensor[K] (int64): indices of the kept boxes, by decreasing score.
    """
    boxes, scores = _autocast_nms_inputs(boxes, scores)
    _check_nms_inputs(boxes, scores)
    n = boxes.size(0)
    if n == 0:
        return numtorch.empty((0,), dtype=numtorch.int64, device=boxes.device)
    # torchvision visits boxes in the order of a stable descending sort of the scores (equal
    # scores in index order): a NaN score sorts first (and its box is kept)
    order = _host(scores.detach().sort(stable=True, dim=0, descending=True)[1])
    with np.errstate(divide="ignore", invalid="ignore"):  # empty boxes: 0/0 is never > thr
        kept = _greedy_suppression(_host(boxes)[order], iou_threshold)
    keep = order[kept]
    return numtorch.as_tensor(keep, dtype=numtorch.int64, device=boxes.device)


def _greedy_suppression(b, iou_threshold):
    """Positions (in ``b``'s order, best first) that greedy NMS keeps. One vectorised IoU row
    per kept box; the rows come from a precomputed matrix when it is small enough."""
    n = b.shape[0]
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    area = (x2 - x1) * (y2 - y1)

    def ious(i, rest):
        iw = np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest])
        ih = np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest])
        inter = np.clip(iw, 0, None) * np.clip(ih, 0, None)
        return inter / (area[i] + area[rest] - inter)

    full = None
    if n <= _FULL_MATRIX_LIMIT:
        full = ious(np.arange(n)[:, None], np.arange(n)[None])
    alive = np.ones(n, dtype=bool)
    kept = []
    i = 0
    while True:
        kept.append(i)
        row = full[i, i + 1:] if full is not None else ious(i, slice(i + 1, None))
        alive[i + 1:] &= ~(row > iou_threshold)
        later = np.flatnonzero(alive[i + 1:])
        if later.size == 0:
            return np.asarray(kept, dtype=np.int64)
        i += 1 + int(later[0])


def batched_nms(boxes, scores, idxs, iou_threshold):
    """Non-maximum suppression within each category: boxes of different ``idxs`` never
    suppress each other.

    Args:
        boxes (Tensor[N, 4]): ``(x1, y1, x2, y2)`` boxes.
        scores (Tensor[N]): their scores.
        idxs (Tensor[N]): the category of each box.
        iou_threshold (float): as for :func:`nms`.

    Returns:
        Tensor[K] (int64): kept indices by decreasing score.
    """
    if boxes.numel() > 4000:
        return _batched_nms_vanilla(boxes, scores, idxs, iou_threshold)
    return _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold)


def _batched_nms_coordinate_trick(boxes, scores, idxs, iou_threshold):
    # shift each category far enough that boxes of different categories cannot overlap
    if boxes.numel() == 0:
        return numtorch.empty((0,), dtype=numtorch.int64, device=boxes.device)
    offsets = idxs.to(boxes) * (boxes.max() + numtorch.tensor(1).to(boxes))
    return nms(boxes + offsets[:, None], scores, iou_threshold)


def _batched_nms_vanilla(boxes, scores, idxs, iou_threshold):
    keep_mask = numtorch.zeros_like(scores, dtype=numtorch.bool)
    for class_id in numtorch.unique(idxs):
        members = numtorch.where(idxs == class_id)[0]
        keep_mask[members[nms(boxes[members], scores[members], iou_threshold)]] = True
    keep = numtorch.where(keep_mask)[0]
    return keep[scores[keep].sort(descending=True)[1]]


def remove_small_boxes(boxes, min_size):
    """Indices of the boxes whose width and height are both at least ``min_size``.

    Args:
        boxes (Tensor[..., 4]): ``(x1, y1, x2, y2)`` boxes.
        min_size (float): minimum side.
    """
    ws, hs = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return numtorch.where((ws >= min_size) & (hs >= min_size))[0]


def clip_boxes_to_image(boxes, size):
    """Clamp ``(x1, y1, x2, y2)`` boxes to an image of ``size = (height, width)``.

    Args:
        boxes (Tensor[..., 4]): the boxes.
        size (tuple of 2 ints): ``(height, width)``.
    """
    height, width = size
    xs = boxes[..., 0::2].clamp(min=0, max=width)
    ys = boxes[..., 1::2].clamp(min=0, max=height)
    return numtorch.stack((xs, ys), dim=boxes.dim()).reshape(boxes.shape)


_CONVERSIONS = {
    ("xywh", "xyxy"): (_box_xywh_to_xyxy,),
    ("cxcywh", "xyxy"): (_box_cxcywh_to_xyxy,),
    ("xyxy", "xywh"): (_box_xyxy_to_xywh,),
    ("xyxy", "cxcywh"): (_box_xyxy_to_cxcywh,),
    ("xywh", "cxcywh"): (_box_xywh_to_xyxy, _box_xyxy_to_cxcywh),
    ("cxcywh", "xywh"): (_box_cxcywh_to_xyxy, _box_xyxy_to_xywh),
    ("cxcywhr", "xywhr"): (_box_cxcywhr_to_xywhr,),
    ("xywhr", "cxcywhr"): (_box_xywhr_to_cxcywhr,),
    ("cxcywhr", "xyxyxyxy"): (_box_cxcywhr_to_xywhr, _box_xywhr_to_xyxyxyxy),
    ("xyxyxyxy", "cxcywhr"): (_box_xyxyxyxy_to_xywhr, _box_xywhr_to_cxcywhr),
    ("xywhr", "xyxyxyxy"): (_box_xywhr_to_xyxyxyxy,),
    ("xyxyxyxy", "xywhr"): (_box_xyxyxyxy_to_xywhr,),
}


def box_convert(boxes, in_fmt, out_fmt):
    """Convert boxes between formats.

    Args:
        boxes (Tensor[..., K]): the boxes.
        in_fmt (str), out_fmt (str): one of ``"xyxy"``, ``"xywh"``, ``"cxcywh"`` (K = 4) or the
            rotated ``"xywhr"``, ``"cxcywhr"`` (K = 5, angle in degrees) and ``"xyxyxyxy"``
            (K = 8).

    Returns:
        Tensor[..., K']: the converted boxes (a copy when the formats are equal).
    """
    allowed = _AXIS_ALIGNED + ("xywhr", "cxcywhr", "xyxyxyxy")
    if in_fmt not in allowed or out_fmt not in allowed:
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and "
                         f"out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    steps = _CONVERSIONS.get((in_fmt, out_fmt))
    if steps is None:  # between an axis-aligned and a rotated format (torch's class)
        raise NotImplementedError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and "
                         f"out_fmt {out_fmt}")
    for step in steps:
        boxes = step(boxes)
    return boxes


def box_area(boxes, fmt="xyxy"):
    """Areas of boxes.

    Args:
        boxes (Tensor[..., 4]): the boxes.
        fmt (str): ``"xyxy"`` (default), ``"xywh"`` or ``"cxcywh"``.

    Returns:
        Tensor[...]: the areas (int8/int16/float16 inputs are upcast first).
    """
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported Bounding Box area for given format {fmt}")
    boxes = _upcast(boxes)
    if fmt == "xyxy":
        return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return boxes[..., 2] * boxes[..., 3]


def _corners(boxes, fmt):
    """Top-left and bottom-right corners, ``[..., None, :2]`` style, of ``fmt`` boxes."""
    if fmt == "xyxy":
        return boxes[..., :2], boxes[..., 2:]
    if fmt == "xywh":
        return boxes[..., :2], boxes[..., :2] + boxes[..., 2:]
    return boxes[..., :2] - boxes[..., 2:] / 2, boxes[..., :2] + boxes[..., 2:] / 2


def _box_inter_union(boxes1, boxes2, fmt="xyxy"):
    area1 = box_area(boxes1, fmt=fmt)
    area2 = box_area(boxes2, fmt=fmt)
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported Box IoU Calculation for given fmt {fmt}.")
    lt1, rb1 = _corners(boxes1, fmt)
    lt2, rb2 = _corners(boxes2, fmt)
    lt = numtorch.max(lt1[..., None, :], lt2[..., None, :, :])  # [..., N, M, 2]
    rb = numtorch.min(rb1[..., None, :], rb2[..., None, :, :])
    wh = _upcast(rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area1[..., None] + area2[..., None, :] - inter
    return inter, union


def box_iou(boxes1, boxes2, fmt="xyxy"):
    """Pairwise intersection over union.

    Args:
        boxes1 (Tensor[..., N, 4]), boxes2 (Tensor[..., M, 4]): two sets of boxes.
        fmt (str): ``"xyxy"`` (default), ``"xywh"`` or ``"cxcywh"``; or rotated
            ``"cxcywhr"``, ``"xywhr"`` (K = 5, angle in degrees) or ``"xyxyxyxy"`` (K = 8),
            for ``[N, K]`` boxes only.

    Returns:
        Tensor[..., N, M]: the IoU of every pair (float32 for rotated boxes).
    """
    if fmt in _AXIS_ALIGNED:
        inter, union = _box_inter_union(boxes1, boxes2, fmt=fmt)
        return inter / union
    if fmt in _ROTATED:
        if fmt != "cxcywhr":
            boxes1 = box_convert(boxes1, in_fmt=fmt, out_fmt="cxcywhr")
            boxes2 = box_convert(boxes2, in_fmt=fmt, out_fmt="cxcywhr")
        for i, b in ((1, boxes1), (2, boxes2)):
            if b.dim() != 2 or b.shape[1] != 5:
                raise RuntimeError(f"boxes{i} should have shape (N, 5), got {list(b.shape)}")
        ious = box_iou_rotated(boxes1.detach().numpy(force=True), boxes2.detach().numpy(force=True))
        return numtorch.from_numpy(ious).to(boxes1.device)
    raise ValueError(f"Unsupported format '{fmt}'. Supported axis-aligned formats: "
                     f"{_AXIS_ALIGNED}. Supported rotated formats: {_ROTATED}.")


def _enclosing_wh(boxes1, boxes2):
    lti = numtorch.min(boxes1[..., None, :2], boxes2[..., None, :, :2])
    rbi = numtorch.max(boxes1[..., None, 2:], boxes2[..., None, :, 2:])
    return _upcast(rbi - lti).clamp(min=0)


def generalized_box_iou(boxes1, boxes2):
    """Pairwise generalised IoU: IoU minus the fraction of the smallest enclosing box not
    covered by the union.

    Args:
        boxes1 (Tensor[..., N, 4]), boxes2 (Tensor[..., M, 4]): ``xyxy`` boxes.

    Returns:
        Tensor[..., N, M]: values in [-1, 1].
    """
    inter, union = _box_inter_union(boxes1, boxes2)
    whi = _enclosing_wh(boxes1, boxes2)
    enclosing = whi[..., 0] * whi[..., 1]
    return inter / union - (enclosing - union) / enclosing


def _box_diou_iou(boxes1, boxes2, eps=1e-7):
    iou = box_iou(boxes1, boxes2)
    whi = _enclosing_wh(boxes1, boxes2)
    diagonal2 = whi[..., 0] ** 2 + whi[..., 1] ** 2 + eps
    xp, yp = (boxes1[..., 0] + boxes1[..., 2]) / 2, (boxes1[..., 1] + boxes1[..., 3]) / 2
    xg, yg = (boxes2[..., 0] + boxes2[..., 2]) / 2, (boxes2[..., 1] + boxes2[..., 3]) / 2
    centers2 = (_upcast(xp[..., None] - xg[..., None, :]) ** 2
                + _upcast(yp[..., None] - yg[..., None, :]) ** 2)
    return iou - centers2 / diagonal2, iou


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """Pairwise distance IoU: IoU minus the squared centre distance over the squared diagonal
    of the enclosing box.

    Args:
        boxes1 (Tensor[..., N, 4]), boxes2 (Tensor[..., M, 4]): ``xyxy`` boxes.
        eps (float): keeps the division finite. Default: 1e-7.
    """
    diou, _ = _box_diou_iou(_upcast(boxes1), _upcast(boxes2), eps=eps)
    return diou


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """Pairwise complete IoU: distance IoU minus an aspect-ratio consistency term.

    Args:
        boxes1 (Tensor[..., N, 4]), boxes2 (Tensor[..., M, 4]): ``xyxy`` boxes.
        eps (float): keeps the divisions finite. Default: 1e-7.
    """
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    diou, iou = _box_diou_iou(boxes1, boxes2, eps)
    w_pred = boxes1[..., None, 2] - boxes1[..., None, 0]
    h_pred = boxes1[..., None, 3] - boxes1[..., None, 1]
    w_gt = boxes2[..., None, :, 2] - boxes2[..., None, :, 0]
    h_gt = boxes2[..., None, :, 3] - boxes2[..., None, :, 1]
    v = (4 / (numtorch.pi ** 2)) * numtorch.pow(
        numtorch.atan(w_pred / h_pred) - numtorch.atan(w_gt / h_gt), 2)
    with numtorch.no_grad():  # the trade-off weight is a constant for the gradient
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def masks_to_boxes(masks):
    """The tight ``xyxy`` box around each mask (``[0, 0, 0, 0]`` for an empty mask).

    Args:
        masks (Tensor[N, H, W]): the masks (nonzero = inside).

    Returns:
        Tensor[N, 4] (float32).
    """
    if masks.numel() == 0:
        return numtorch.zeros((0, 4), device=masks.device, dtype=numtorch.float)
    _, h, w = masks.shape
    m = masks.bool()
    rows = numtorch.any(m, dim=2).float()
    cols = numtorch.any(m, dim=1).float()
    empty = ~numtorch.any(rows.bool(), dim=1)
    y1 = rows.argmax(dim=1)
    x1 = cols.argmax(dim=1)
    y2 = (h - 1) - rows.flip(1).argmax(dim=1)
    x2 = (w - 1) - cols.flip(1).argmax(dim=1)
    out = numtorch.stack([x1, y1, x2, y2], dim=1).float()
    out[empty] = 0
    return out
