"""Conversions between box formats; every function maps ``(..., K)`` to ``(..., K')``.

Axis-aligned: ``xyxy`` (corners), ``xywh`` (top-left corner, size), ``cxcywh`` (centre, size).
Rotated (angle ``r`` in degrees, counter-clockwise): ``xywhr`` (first corner, size, angle),
``cxcywhr`` (centre, size, angle), ``xyxyxyxy`` (the four corners in order).
Integer boxes stay integer: rotated conversions round their float results back.
"""

import math

import numtorch


def _box_cxcywh_to_xyxy(boxes):
    cx, cy, w, h = boxes.unbind(-1)
    return numtorch.stack((cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h), dim=-1)


def _box_xyxy_to_cxcywh(boxes):
    x1, y1, x2, y2 = boxes.unbind(-1)
    return numtorch.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)


def _box_xywh_to_xyxy(boxes):
    x, y, w, h = boxes.unbind(-1)
    return numtorch.stack([x, y, x + w, y + h], dim=-1)


def _box_xyxy_to_xywh(boxes):
    x1, y1, x2, y2 = boxes.unbind(-1)
    return numtorch.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)


def _rotated(fn):
    """Run a rotated conversion in floating point and round back for integer boxes."""
    def wrapper(boxes):
        out = fn(boxes)
        if not boxes.is_floating_point():
            out = out.round().to(boxes.dtype)
        return out

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _cos_sin(r):
    rad = r * math.pi / 180.0
    return numtorch.cos(rad), numtorch.sin(rad)


@_rotated
def _box_cxcywhr_to_xywhr(boxes):
    cx, cy, w, h, r = boxes.unbind(-1)
    cos, sin = _cos_sin(r)
    x1 = cx - w / 2 * cos - h / 2 * sin
    y1 = cy - h / 2 * cos + w / 2 * sin
    return numtorch.stack((x1, y1, w, h, r), dim=-1)


@_rotated
def _box_xywhr_to_cxcywhr(boxes):
    x1, y1, w, h, r = boxes.unbind(-1)
    cos, sin = _cos_sin(r)
    cx = x1 + w / 2 * cos + h / 2 * sin
    cy = y1 - w / 2 * sin + h / 2 * cos
    return numtorch.stack([cx, cy, w, h, r], dim=-1)


@_rotated
def _box_xywhr_to_xyxyxyxy(boxes):
    x1, y1, w, h, r = boxes.unbind(-1)
    cos, sin = _cos_sin(r)
    # walk the edges from the first corner: along the width, then down the height
    x2, y2 = x1 + w * cos, y1 - w * sin
    x3, y3 = x2 + h * sin, y2 + h * cos
    x4, y4 = x1 + h * sin, y1 + h * cos
    return numtorch.stack((x1, y1, x2, y2, x3, y3, x4, y4), dim=-1)


@_rotated
def _box_xyxyxyxy_to_xywhr(boxes):
    x1, y1, x2, y2, x3, y3, _, _ = boxes.unbind(-1)
    r = numtorch.atan2(y1 - y2, x2 - x1) * 180 / math.pi
    w = ((x2 - x1) ** 2 + (y1 - y2) ** 2).sqrt()
    h = ((x3 - x2) ** 2 + (y3 - y2) ** 2).sqrt()
    return numtorch.stack((x1, y1, w, h, r), dim=-1)
