"""Box regression losses built on IoU: generalised, distance and complete IoU losses for
matching pairs of ``xyxy`` boxes (``boxes1[i]`` against ``boxes2[i]``)."""

import numtorch

from ._utils import _loss_inter_union, _reduce_loss, _upcast_non_float

__all__ = ["generalized_box_iou_loss", "distance_box_iou_loss", "complete_box_iou_loss"]


def _enclosing(boxes1, boxes2):
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    return (numtorch.min(x1, x1g), numtorch.min(y1, y1g), numtorch.max(x2, x2g),
            numtorch.max(y2, y2g))


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """``1 - GIoU`` of matching box pairs (gradient even for disjoint boxes).

    Args:
        boxes1 (Tensor[N, 4] or [4]), boxes2 (same shape): ``xyxy`` boxes.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"none"``.
        eps (float): keeps the divisions finite. Default: 1e-7.
    """
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    inter, union = _loss_inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    xc1, yc1, xc2, yc2 = _enclosing(boxes1, boxes2)
    area_c = (xc2 - xc1) * (yc2 - yc1)
    return _reduce_loss(1 - (iou - (area_c - union) / (area_c + eps)), reduction)


def _diou_iou_loss(boxes1, boxes2, eps=1e-7):
    inter, union = _loss_inter_union(boxes1, boxes2)
    iou = inter / (union + eps)
    xc1, yc1, xc2, yc2 = _enclosing(boxes1, boxes2)
    diagonal2 = (xc2 - xc1) ** 2 + (yc2 - yc1) ** 2 + eps
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    centers2 = ((x2 + x1) / 2 - (x1g + x2g) / 2) ** 2 + ((y2 + y1) / 2 - (y1g + y2g) / 2) ** 2
    return 1 - iou + centers2 / diagonal2, iou


def distance_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """``1 - DIoU``: IoU loss plus the squared centre distance over the squared diagonal of
    the enclosing box.

    Args:
        boxes1 (Tensor[N, 4] or [4]), boxes2 (same shape): ``xyxy`` boxes.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"none"``.
        eps (float): keeps the divisions finite. Default: 1e-7.
    """
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    loss, _ = _diou_iou_loss(boxes1, boxes2, eps)
    return _reduce_loss(loss, reduction)


def complete_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """``1 - CIoU``: the distance IoU loss plus an aspect-ratio consistency term.

    Args:
        boxes1 (Tensor[N, 4] or [4]), boxes2 (same shape): ``xyxy`` boxes.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"none"``.
        eps (float): keeps the divisions finite. Default: 1e-7.
    """
    boxes1, boxes2 = _upcast_non_float(boxes1), _upcast_non_float(boxes2)
    diou_loss, iou = _diou_iou_loss(boxes1, boxes2)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    v = (4 / (numtorch.pi ** 2)) * numtorch.pow(
        numtorch.atan((x2g - x1g) / (y2g - y1g)) - numtorch.atan((x2 - x1) / (y2 - y1)), 2)
    with numtorch.no_grad():  # the trade-off weight is a constant for the gradient
        alpha = v / (1 - iou + v + eps)
    return _reduce_loss(diou_loss + alpha * v, reduction)
