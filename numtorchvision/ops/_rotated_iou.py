"""Pairwise IoU of rotated boxes ``(cx, cy, w, h, angle)`` (torchvision's box_iou_rotated).

The intersection of two rectangles is a convex polygon whose corners are the corners of
each rectangle lying inside the other and the crossings of their edges; its area comes from
those points ordered by angle around their mean. All pairs are done at once, in float64, a
block of rows at a time; the IoU is float32, as torchvision's kernel returns it.
"""

import numpy as np

_PAIRS_PER_BLOCK = 65536
_EPS = 1e-6  # corners on the other box's border count as inside


def _corners(boxes):
    """``[N, 4, 2]`` corners; the width runs along (cos a, -sin a), the height along
    (sin a, cos a) (image coordinates, y down; angle in degrees, counter-clockwise)."""
    cx, cy, w, h, a = (boxes[:, i] for i in range(5))
    rad = np.deg2rad(a)
    cos, sin = np.cos(rad), np.sin(rad)
    half_w = np.stack([cos, -sin], -1) * (w / 2)[:, None]
    half_h = np.stack([sin, cos], -1) * (h / 2)[:, None]
    centre = np.stack([cx, cy], -1)
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)
    return (centre[:, None] + signs[None, :, :1] * half_w[:, None]
            + signs[None, :, 1:] * half_h[:, None])


def _inside(points, rect):
    """Whether ``points`` ``[..., P, 2]`` lie in the rectangles ``rect`` ``[..., 4, 2]``."""
    origin = rect[..., :1, :]
    ab = rect[..., 1:2, :] - origin
    ad = rect[..., 3:4, :] - origin
    ap = points - origin
    along_ab = (ap * ab).sum(-1)
    along_ad = (ap * ad).sum(-1)
    ab2, ad2 = (ab * ab).sum(-1), (ad * ad).sum(-1)
    return ((along_ab > -_EPS) & (along_ab < ab2 + _EPS)
            & (along_ad > -_EPS) & (along_ad < ad2 + _EPS))


def _crossings(p, q):
    """Edge crossings of the quadrilaterals ``p`` ``[B, 4, 2]`` and ``q`` ``[B, 4, 2]``:
    points ``[B, 16, 2]`` and which of them exist."""
    a0 = p[:, :, None, :]
    b0 = q[:, None, :, :]
    da = (np.roll(p, -1, axis=1) - p)[:, :, None, :]
    db = (np.roll(q, -1, axis=1) - q)[:, None, :, :]
    det = da[..., 0] * db[..., 1] - da[..., 1] * db[..., 0]
    diff = b0 - a0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (diff[..., 0] * db[..., 1] - diff[..., 1] * db[..., 0]) / det
        u = (diff[..., 0] * da[..., 1] - diff[..., 1] * da[..., 0]) / det
    ok = (np.abs(det) > 1e-14) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
    points = a0 + da * np.where(ok, t, 0.0)[..., None]
    batch = p.shape[0]
    return points.reshape(batch, 16, 2), ok.reshape(batch, 16)


def _intersection_area(p, q):
    """Area of the overlap of the rectangles ``p`` and ``q`` (``[B, 4, 2]`` each)."""
    cross_pts, cross_ok = _crossings(p, q)
    points = np.concatenate([p, q, cross_pts], axis=1)  # [B, 24, 2]
    valid = np.concatenate([_inside(p, q), _inside(q, p), cross_ok], axis=1)
    count = valid.sum(1)
    # points that do not exist stand in for the first that does (a zero-length edge)
    first = np.argmax(valid, axis=1)
    stand_in = points[np.arange(points.shape[0]), first][:, None, :]
    points = np.where(valid[..., None], points, stand_in)
    centre = (points * valid[..., None]).sum(1) / np.maximum(count, 1)[:, None]
    rel = points - centre[:, None, :]
    order = np.argsort(np.arctan2(rel[..., 1], rel[..., 0]), axis=1, kind="stable")
    ring = np.take_along_axis(rel, order[..., None], axis=1)
    nxt = np.roll(ring, -1, axis=1)
    area = np.abs((ring[..., 0] * nxt[..., 1] - ring[..., 1] * nxt[..., 0]).sum(1)) / 2
    return np.where(count > 2, area, 0.0)


def box_iou_rotated(boxes1, boxes2):
    """``[N, M]`` float32 IoU of ``[N, 5]`` and ``[M, 5]`` CXCYWHR NumPy boxes."""
    b1, b2 = boxes1.astype(np.float64), boxes2.astype(np.float64)
    n, m = b1.shape[0], b2.shape[0]
    out = np.zeros((n, m), dtype=np.float32)
    if n == 0 or m == 0:
        return out
    # the pair's mean centre moved to the origin first (as torchvision, for precision)
    c1, c2 = _corners(b1 - np.pad(b1[:, :2], ((0, 0), (0, 3)))), \
        _corners(b2 - np.pad(b2[:, :2], ((0, 0), (0, 3))))
    area1, area2 = b1[:, 2] * b1[:, 3], b2[:, 2] * b2[:, 3]
    radius1, radius2 = np.hypot(b1[:, 2], b1[:, 3]) / 2, np.hypot(b2[:, 2], b2[:, 3]) / 2
    rows = max(1, _PAIRS_PER_BLOCK // m)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        k = stop - start
        shift = (b1[start:stop, None, :2] - b2[None, :, :2]) / 2  # [k, M, 2]
        # only pairs whose circumscribed circles meet can overlap
        near = np.hypot(shift[..., 0], shift[..., 1]) * 2 <= \
            radius1[start:stop, None] + radius2[None, :] + _EPS
        rows_i, cols_j = np.nonzero(near)
        inter = np.zeros((k, m))
        if rows_i.size:
            s = shift[rows_i, cols_j][:, None, :]
            inter[rows_i, cols_j] = _intersection_area(c1[start + rows_i] + s, c2[cols_j] - s)
        a1, a2 = area1[start:stop, None], area2[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = inter / (a1 + a2 - inter)
        out[start:stop] = np.where((a1 < 1e-14) | (a2 < 1e-14), 0.0, iou)
    return out
