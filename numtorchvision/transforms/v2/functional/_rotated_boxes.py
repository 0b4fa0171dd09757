"""Rotated bounding boxes for the v2 functionals: format conversions, the rectangle fitted
to a transformed parallelogram, flips and clamping to the canvas.

Formats (angle ``r`` in degrees, counter-clockwise): ``XYWHR`` (first corner, width, height,
angle), ``CXCYWHR`` (centre, width, height, angle) and ``XYXYXYXY`` (the four corners in
order). Each coordinate is computed with torchvision's order of float operations, so float32
results agree to the last bit where the elementwise ops do.
"""

import math

import numtorch as torch

_TO_RAD = math.pi


def _cos_sin(angle_deg):
    rad = angle_deg.mul(_TO_RAD).div(180.0)
    return rad.cos(), rad.sin()


def _halves(wh):
    """Half of width and height (integers: rounded up, as floor division of ``-wh`` by 2)."""
    return wh.div(-2, rounding_mode=None if wh.is_floating_point() else "floor").abs_()


def cxcywhr_to_xywhr(boxes, inplace=False):
    out = boxes if inplace else boxes.clone()
    half = _halves(out[..., 2:4])
    cos, sin = _cos_sin(out[..., 4])
    hw, hh = half[..., 0], half[..., 1]
    out[..., 0].sub_(hw.mul(cos)).sub_(hh.mul(sin))
    out[..., 1].add_(hw.mul(sin)).sub_(hh.mul(cos))
    return out


def xywhr_to_cxcywhr(boxes, inplace=False):
    out = boxes if inplace else boxes.clone()
    half = _halves(out[..., 2:4])
    cos, sin = _cos_sin(out[..., 4])
    hw, hh = half[..., 0], half[..., 1]
    out[..., 0].add_(hw.mul(cos)).add_(hh.mul(sin))
    out[..., 1].sub_(hw.mul(sin)).add_(hh.mul(cos))
    return out


def xywhr_to_xyxyxyxy(boxes):
    """The four corners, walking from the first one along the width, then the height. A single
    box ``[5]`` comes back as ``[1, 8]`` (as in torchvision)."""
    if boxes.ndim == 1:
        boxes = boxes.unsqueeze(0)
    w, h = boxes[..., 2], boxes[..., 3]
    cos, sin = _cos_sin(boxes[..., 4])
    x1, y1 = boxes[..., 0], boxes[..., 1]
    w_cos, w_sin, h_sin, h_cos = w.mul(cos), w.mul(sin), h.mul(sin), h.mul(cos)
    corners = (
        x1, y1,
        x1 + w_cos, y1 - w_sin,
        x1 + w_cos.add(h_sin), y1 - w_sin.sub(h_cos),
        x1 + h_sin, y1 + h_cos,
    )
    return torch.stack(corners, dim=-1)


def xyxyxyxy_to_xywhr(boxes, inplace=False):
    """First corner, the lengths of the first two edges and the first edge's angle. With
    ``inplace`` (float boxes), the result is written over the first five numbers of each box
    and returned as a view of them; the sixth then holds y3 - y2, as torchvision leaves it."""
    dtype = boxes.dtype
    floating = dtype in (torch.float32, torch.float64)
    work = boxes if floating else boxes.to(torch.float32)
    x1, y1, x2, y2, x3, y3 = (work[..., i] for i in range(6))
    angle = torch.atan2(y1.sub(y2), x2.sub(x1))
    dx12, dy12, dx23, dy23 = x2.sub(x1), y2.sub(y1), x3.sub(x2), y3.sub(y2)
    w = dx12.pow(2).add(dy12.pow(2)).sqrt()
    h = dx23.pow(2).add(dy23.pow(2)).sqrt()
    out = torch.stack((x1, y1, w, h, angle.div(math.pi).mul(180.0)), dim=-1)
    if inplace and floating:
        boxes[..., 5] = dy23
        boxes[..., :5] = out
        return boxes[..., :5]
    return out if out.dtype == dtype else out.to(dtype)


def convert_rotated(boxes, old_format, new_format, inplace=False):
    """Between the three rotated formats (names as strings: ``"XYWHR"`` ...), via XYWHR."""
    if old_format == new_format:
        return boxes
    if old_format == "CXCYWHR":
        boxes = cxcywhr_to_xywhr(boxes, inplace)
    elif old_format == "XYXYXYXY":
        boxes = xyxyxyxy_to_xywhr(boxes, inplace)
    if new_format == "CXCYWHR":
        boxes = xywhr_to_cxcywhr(boxes, inplace)
    elif new_format == "XYXYXYXY":
        boxes = xywhr_to_xyxyxyxy(boxes)
    return boxes


def parallelogram_to_rectangle(corners):
    """The rectangle (``[..., 8]`` corners) that keeps a parallelogram's centre and the ends of
    its longer diagonal: what affine maps, perspective and non-uniform resizes leave of a
    rotated box."""
    shape, dtype = corners.shape, corners.dtype
    if dtype not in (torch.float32, torch.float64):
        corners = corners.to(torch.float32)
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    cx, cy = (x1 + x3) / 2, (y1 + y3) / 2
    side_w = torch.sqrt((x2 - x1).pow(2) + (y2 - y1).pow(2))
    side_h = torch.sqrt((x4 - x1).pow(2) + (y4 - y1).pow(2))
    angle_w = torch.atan2(y1 - y2, x2 - x1)
    angle_h = torch.atan2(y1 - y4, x4 - x1)
    between = angle_w - angle_h
    sign = torch.where(between > math.pi / 2, -1, 1)
    cos_b, sin_b = between.cos(), between.sin()
    w = torch.where(side_w < side_h, side_w * sin_b, side_w + side_h * cos_b * sign)
    h = torch.where(side_w > side_h, side_h * sin_b, side_h + side_w * cos_b * sign)
    angle = torch.where(side_h > side_w, angle_h + math.pi / 2, angle_w)
    cos, sin = angle.cos(), angle.sin()
    dx_w, dy_w = w / 2 * cos, w / 2 * sin
    dx_h, dy_h = h / 2 * sin, h / 2 * cos
    out = torch.stack((
        cx - dx_w - dx_h, cy - dy_h + dy_w,
        cx + dx_w - dx_h, cy - dy_h - dy_w,
        cx + dx_w + dx_h, cy + dy_h - dy_w,
        cx - dx_w + dx_h, cy + dy_h + dy_w,
    ), dim=-1).reshape(shape)
    return out if out.dtype == dtype else out.to(dtype)


# -- flips ------------------------------------------------------------------------------------
_SWAP_CORNERS = [2, 3, 0, 1, 6, 7, 4, 5]  # a mirror reverses the corners' order


def flip_rotated(boxes, format, canvas_size, axis):
    """Mirror rotated boxes left-right (``axis`` 0) or top-bottom (``axis`` 1); ``boxes`` is a
    ``[N, K]`` copy that may be changed."""
    if format == "XYXYXYXY":
        extent = canvas_size[1] if axis == 0 else canvas_size[0]
        boxes[:, axis::2].sub_(extent).neg_()
        return boxes[:, _SWAP_CORNERS]
    if format == "XYWHR":
        cos, sin = _cos_sin(boxes[:, 4])
        along_x, along_y = boxes[:, 2].mul(cos), boxes[:, 2].mul(sin)
        if axis == 0:
            boxes[:, 0].add_(along_x).sub_(canvas_size[1]).neg_()
            boxes[:, 1].sub_(along_y)
        else:
            boxes[:, 1].sub_(along_y).sub_(canvas_size[0]).neg_()
            boxes[:, 0].add_(along_x)
    else:  # CXCYWHR: only the centre moves
        boxes[:, axis].sub_(canvas_size[1 - axis]).neg_()
    if axis == 0:
        boxes[:, 4].neg_()
    else:
        boxes[:, 4].neg_().add_(180)
    return boxes


# -- clamping ---------------------------------------------------------------------------------
def _rolled(corners, shift):
    """The corners (``[N, 8]``) with their order rotated so that corner ``shift`` comes
    first (``shift``: ``[N]`` integer corner indices)."""
    index = (torch.arange(8).unsqueeze(0) + 2 * shift.unsqueeze(1)).remainder(8)
    return corners.gather(1, index)


def _leftmost_corner(corners):
    """Per box, the corner with the smallest x (ties: the smallest y), by the same weighted
    score as torchvision (y over its largest magnitude plus 100 times x over its own)."""
    x, y = corners[:, 0::2], corners[:, 1::2]
    x_scale = x.abs().max(dim=1, keepdim=True)[0]
    y_scale = y.abs().max(dim=1, keepdim=True)[0]
    return (y / y_scale + (x / x_scale) * 100).min(dim=1)[1]


def _lines(corners):
    """Slope and y-intercept of the four edges (edge i joins corner i to corner i + 1)."""
    x, y = corners[:, 0::2], corners[:, 1::2]
    slope = y.diff(append=y[:, 0:1]) / x.diff(append=x[:, 0:1])
    return slope, y - slope * x


def _meeting_points(slope, intercept):
    """Where each edge meets the previous one, as ``[N, 8]`` corners."""
    x = intercept.diff(prepend=intercept[:, 3:4]).neg() / slope.diff(prepend=slope[:, 3:4])
    y = slope * x + intercept
    return torch.stack((x, y), dim=-1).reshape(slope.shape[0], 8)


def _clamped_intercepts(corners, original, canvas_size, clamping_mode):
    """The edges' y-intercepts moved so the box's left side stays on the canvas (``soft``:
    the smallest same-angle box around the part on the canvas; ``hard``: the largest one
    inside it), kept within the original box's intercepts."""
    height, width = canvas_size
    a1, a2, a3, a4 = _lines(corners)[0].unbind(-1)
    b1, b2, b3, b4 = _lines(corners)[1].unbind(-1)
    m1, m2, m3, m4 = _lines(original)[1].unbind(-1)
    new_b1 = torch.minimum(torch.maximum(b2, b1), b3).clamp(0, height)
    new_b4 = torch.minimum(torch.maximum(b3, b2), b4).clamp(0, height)
    new_b2, new_b3 = b2, b3
    if clamping_mode == "hard":
        new_b1 = new_b4 = (new_b1 + new_b4) / 2
        low = torch.stack([new_b1 * a2 / a1, b3 * a2 / a3, (a1 - a2) * width + new_b1,
                           (a3 - a2) * width + b3], dim=1)
        new_b2 = low.max(dim=1)[0].clamp(max=b2)
        high = torch.stack([height * (1 - a3 / a4) + new_b4 * a3 / a4,
                            height * (1 - a3 / a2) + new_b2 * a3 / a2,
                            (a2 - a3) * width + new_b2, (a4 - a3) * width + new_b4], dim=1)
        new_b3 = high.min(dim=1)[0].clamp(min=b3)
        # in hard mode the first and last intercepts are one value, bounded by both ranges
        new_b1 = new_b4 = new_b1.clamp(m1, m3).clamp(m2, m4)
        return torch.stack([new_b1, new_b2.clamp(m2, m4), new_b3.clamp(m1, m3), new_b4],
                           dim=-1)
    return torch.stack([new_b1.clamp(m1, m3), new_b2.clamp(m2, m4), new_b3.clamp(m1, m3),
                        new_b4.clamp(m2, m4)], dim=-1)


def _clamp_left_side(corners, original, canvas_size, clamping_mode):
    """Boxes (leftmost corner first) moved off the region left of x = 0."""
    slope, _ = _lines(corners)
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    intercept = _clamped_intercepts(corners, original, canvas_size, clamping_mode)
    met = _meeting_points(slope, intercept)
    shifted = corners.clone()
    shifted[:, 0].clamp_(0)
    shifted[:, 6].clamp_(0)
    use_met = (x1 < 0) & ~met.isnan().any(-1)
    flat = y1.isclose(y2) | y3.isclose(y4)
    gone = ((x1 <= 0) & (x2 <= 0) & (x3 <= 0) & (x4 <= 0)) | y1.isclose(y4) | \
        y2.isclose(y3) | (flat & x1.isclose(x2))
    out = torch.where(use_met.unsqueeze(1), met, corners)
    out = torch.where(flat.unsqueeze(1), shifted, out)
    return torch.where(gone.unsqueeze(1), torch.zeros_like(shifted), out)


def clamp_rotated(boxes, format, canvas_size, clamping_mode):
    """Rotated boxes cut to the canvas, one side at a time: the box is clamped on its left,
    then the picture is turned a quarter and the next side follows."""
    if clamping_mode is None:
        return boxes.clone()
    shape = boxes.shape
    out = convert_rotated(boxes.clone(), format, "XYXYXYXY", inplace=True).reshape(-1, 8)
    original = out.clone()
    height, width = canvas_size
    for _ in range(4):
        first = _leftmost_corner(out)
        # torchvision re-applies the same roll after clamping, so each pass rolls by twice
        out = _rolled(_clamp_left_side(_rolled(out, first), _rolled(original, first),
                                       (height, width), clamping_mode), first)
        original = _rolled(_rolled(original, first), first)
        out = _quarter_turn(out, width)
        original = _quarter_turn(original, width)
        height, width = width, height
    return convert_rotated(out, "XYXYXYXY", format, inplace=True).reshape(shape)


def _quarter_turn(corners, width):
    """Corners turned a quarter counter-clockwise on a canvas ``width`` wide: (x, y) goes to
    (y, width - x)."""
    x, y = corners[:, 0::2], corners[:, 1::2]
    return torch.stack((y, width - x), dim=-1).reshape(corners.shape)


def sanitize_rotated_mask(corners, canvas_size, min_size, min_area):
    """Which rotated boxes (``[N, 8]`` corners) are large enough and on the canvas, measured
    as torchvision 0.28 measures them (its height pairs y2 - y3 with x3 - x4)."""
    c = corners
    ws = torch.sqrt((c[..., 0] - c[..., 2]).pow(2) + (c[..., 1] - c[..., 3]).pow(2))
    hs = torch.sqrt((c[..., 3] - c[..., 5]).pow(2) + (c[..., 4] - c[..., 6]).pow(2))
    height, width = canvas_size
    valid = (ws >= min_size) & (hs >= min_size) & (c >= 0).all(dim=-1) & (ws * hs >= min_area)
    for i in range(0, 8, 2):
        valid &= (c[:, i] <= width) & (c[:, i + 1] <= height)
    return valid
