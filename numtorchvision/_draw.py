"""Drawing on (C, H, W) tensor images: bounding boxes, segmentation masks, keypoints, and the
colour coding of optical flow. Part of :mod:`numtorchvision.utils`."""

import math
import warnings

import numpy as np

import numtorch as torch

from ._pil import from_array, pil_submodule
from .utils import _check_image, _from_uint8, _parse_colors, _to_uint8


def _dashed(draw, start, end, fill, width, dash=5, gap=5):
    """A dashed straight line: ``dash`` pixels drawn, ``gap`` skipped, from ``start``."""
    (x0, y0), (x1, y1) = start, end
    remaining = math.hypot(x1 - x0, y1 - y0)
    angle = math.atan2(y1 - y0, x1 - x0)
    drawing = True
    while remaining > 0:
        step = min(remaining, dash if drawing else gap)
        nx, ny = x0 + math.cos(angle) * step, y0 + math.sin(angle) * step
        if drawing:
            draw.line([(x0, y0), (nx, ny)], fill, width, None)
        remaining -= step
        x0, y0 = nx, ny
        drawing = not drawing


def _oriented_box(draw, xy, fill, outline, width):
    """A rotated box given by its 4 corners; the edge from the first corner is dashed so the
    box's orientation shows."""
    _dashed(draw, (xy[0], xy[1]), (xy[2], xy[3]), outline, width)
    n = len(xy)
    for i in range(2, n, 2):
        draw.line(((xy[i], xy[i + 1]), (xy[(i + 2) % n], xy[(i + 3) % n])), width=width,
                  fill=outline)
    draw.polygon(xy, fill=fill, outline=None, width=0)


def draw_bounding_boxes(image, boxes, labels=None, colors=None, fill=False, width=1, font=None,
                        font_size=None, label_colors=None, label_background_colors=None,
                        fill_labels=False):
    """Draw boxes (N, 4) as (xmin, ymin, xmax, ymax), or (N, 8) rotated boxes as corners, on a
    (C, H, W) uint8 or float image, with optional text ``labels``.

    Args:
        image (Tensor): 1- or 3-channel image.
        boxes (Tensor): the boxes in pixel coordinates.
        labels (list of str, optional): one label per box.
        colors: one colour (name or RGB tuple) for all, or a list; default a fixed palette.
        fill (bool): fill the boxes with their colour at alpha 100/255.
        width (int): line width.
        font (str, optional): a TrueType font file (default: Pillow's built-in font).
        font_size (int, optional): size for ``font``.
        label_colors, label_background_colors: text and text-box colours.
        fill_labels (bool): draw a box behind each label.

    Returns:
        Tensor: a new image of the input's dtype.
    """
    _check_image(image, rgb_only=False)
    if boxes.shape[-1] == 4 and ((boxes[:, 0] > boxes[:, 2]).any()
                                 or (boxes[:, 1] > boxes[:, 3]).any()):
        raise ValueError("Boxes need to be in (xmin, ymin, xmax, ymax) format. Use "
                         "torchvision.ops.box_convert to convert them")
    num_boxes = boxes.shape[0]
    if num_boxes == 0:
        warnings.warn("boxes doesn't contain any box. No box was drawn")
        return image
    if labels is None:
        labels = [None] * num_boxes
    elif len(labels) != num_boxes:
        raise ValueError(f"Number of boxes ({num_boxes}) and labels ({len(labels)}) mismatch. "
                         f"Please specify labels for each box.")
    colors = _parse_colors(colors, num_objects=num_boxes)
    if label_colors or fill_labels:
        label_colors = _parse_colors(label_colors if label_colors else "black",
                                     num_objects=num_boxes)
    else:
        label_colors = list(colors)
    if fill_labels and label_background_colors:
        label_background_colors = _parse_colors(label_background_colors, num_objects=num_boxes)
    else:
        label_background_colors = list(colors)
    font_mod = pil_submodule("ImageFont")
    if font is None:
        if font_size is not None:
            warnings.warn("Argument 'font_size' will be ignored since 'font' is not set.")
        txt_font = font_mod.load_default()
    else:
        txt_font = font_mod.truetype(font=font, size=font_size or 10)
    if image.size(0) == 1:
        image = image.expand(3, *image.shape[1:])
    dtype, device = image.dtype, image.device
    as_bytes = _to_uint8(image) if dtype.is_floating_point else image
    canvas = from_array(as_bytes.permute(1, 2, 0).numpy(force=True), "RGB")
    draw = pil_submodule("ImageDraw").Draw(canvas, "RGBA" if fill else None)
    for box, color, label, label_color, label_bg in zip(
            boxes.to(torch.int64).tolist(), colors, labels, label_colors,
            label_background_colors):
        fill_color = color + (100,) if fill else None
        if len(box) > 4:
            _oriented_box(draw, box, fill=fill_color, outline=color, width=width)
        else:
            draw.rectangle(box, width=width, outline=color, fill=fill_color)
        if label is not None:
            margin = width + 1
            at = (box[0] + margin, box[1] + margin)
            if fill_labels:
                left, top, right, bottom = draw.textbbox(at, label, font=txt_font)
                draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=label_bg)
            draw.text(at, label, fill=label_color, font=txt_font)
    out = np.asarray(canvas).transpose(2, 0, 1)
    return _from_uint8(out, dtype, device)


def draw_segmentation_masks(image, masks, alpha=0.8, colors=None):
    """Blend boolean ``masks`` ((H, W) or (N, H, W)) into an RGB image with weight ``alpha``;
    pixels covered by more than one mask become black before blending.

    Returns:
        Tensor: a new image of the input's dtype.
    """
    _check_image(image, rgb_only=True)
    if masks.ndim == 2:
        masks = masks[None, :, :]
    if masks.ndim != 3:
        raise ValueError("masks must be of shape (H, W) or (batch_size, H, W)")
    if masks.dtype != torch.bool:
        raise ValueError(f"The masks must be of dtype bool. Got {masks.dtype}")
    if masks.shape[-2:] != image.shape[-2:]:
        raise ValueError("The image and the masks must have the same height and width")
    num = masks.size()[0]
    if num == 0:
        warnings.warn("masks doesn't contain any mask. No mask was drawn")
        return image
    dtype = image.dtype
    palette = torch.tensor(_parse_colors(colors, num_objects=num, dtype=dtype), dtype=dtype,
                           device=image.device)
    with torch.no_grad():
        m = masks.to(torch.int64)
        # the last mask covering a pixel gives its colour (later masks paint over earlier)
        last = (m * torch.arange(1, num + 1, device=image.device).view(-1, 1, 1)).amax(dim=0)
        covered = last > 0
        painted = palette[(last - 1).clamp(min=0)].permute(2, 0, 1)
        painted = torch.where(covered, painted, image)
        painted = torch.where(m.sum(dim=0) > 1, torch.zeros_like(painted), painted)
        out = image * (1 - alpha) + painted * alpha
    return out.to(dtype)


def draw_keypoints(image, keypoints, connectivity=None, colors=None, radius=2, width=3,
                   visibility=None):
    """Draw keypoints (N, K, 2) as filled circles of ``radius`` on an RGB image, joined by
    lines for each (i, j) pair in ``connectivity``; points with ``visibility`` False are
    skipped.

    Returns:
        Tensor: a new image of the input's dtype.
    """
    _check_image(image, rgb_only=True)
    if keypoints.ndim != 3:
        raise ValueError("keypoints must be of shape (num_instances, K, 2)")
    if visibility is None:
        visibility = torch.ones(keypoints.shape[:-1], dtype=torch.bool)
    if visibility.ndim == 3:
        visibility = visibility.squeeze(-1)
    if visibility.ndim != 2:
        raise ValueError(f"visibility must be of shape (num_instances, K). Got "
                         f"ndim={visibility.ndim}")
    if visibility.shape != keypoints.shape[:-1]:
        raise ValueError("keypoints and visibility must have the same dimensionality for "
                         f"num_instances and K. Got visibility.shape={visibility.shape!r} and "
                         f"keypoints.shape={keypoints.shape!r}")
    dtype, device = image.dtype, image.device
    as_bytes = _to_uint8(image) if dtype.is_floating_point else image
    canvas = from_array(as_bytes.permute(1, 2, 0).numpy(force=True), "RGB")
    draw = pil_submodule("ImageDraw").Draw(canvas)
    for points, visible in zip(keypoints.to(torch.int64).tolist(), visibility.bool().tolist()):
        for (x, y), vis in zip(points, visible):
            if vis:
                draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=colors,
                             outline=None, width=0)
        for a, b in connectivity or ():
            if visible[a] and visible[b]:
                draw.line(((points[a][0], points[a][1]), (points[b][0], points[b][1])),
                          width=width)
    return _from_uint8(np.asarray(canvas).transpose(2, 0, 1), dtype, device)


def _color_wheel():
    """The 55-entry optical-flow colour wheel (Baker et al.): red-yellow-green-cyan-blue-
    magenta, with 15, 6, 4, 11, 13, 6 steps."""
    steps = (15, 6, 4, 11, 13, 6)
    wheel = np.zeros((sum(steps), 3), dtype=np.float32)
    # (channel held at 255, channel ramping, ramp direction) for each segment
    plan = ((0, 1, 1), (1, 0, -1), (1, 2, 1), (2, 1, -1), (2, 0, 1), (0, 2, -1))
    start = 0
    for n, (full, ramp, sign) in zip(steps, plan):
        seg = slice(start, start + n)
        wheel[seg, full] = 255
        up = np.floor(255 * np.arange(n, dtype=np.float32) / n)
        wheel[seg, ramp] = up if sign > 0 else 255 - up
        start += n
    return wheel


def flow_to_image(flow):
    """Colour-code an optical flow field (2, H, W) or (N, 2, H, W) of float32: direction as
    hue, magnitude (relative to the largest) as saturation. Returns uint8 RGB images."""
    if flow.dtype != torch.float32:
        raise ValueError(f"Flow should be of dtype torch.float, got {flow.dtype}.")
    orig_shape = flow.shape
    if flow.ndim == 3:
        flow = flow[None]
    if flow.ndim != 4 or flow.shape[1] != 2:
        raise ValueError(f"Input flow should have shape (2, H, W) or (N, 2, H, W), got "
                         f"{orig_shape}.")
    f = flow.numpy(force=True)
    max_norm = np.sqrt((f ** 2).sum(axis=1)).max()
    f = f / (max_norm + np.finfo(np.float32).eps)
    wheel = _color_wheel()
    ncols = wheel.shape[0]
    norm = np.sqrt((f ** 2).sum(axis=1))
    a = np.arctan2(-f[:, 1], -f[:, 0]) / np.float32(np.pi)
    fk = (a + 1) / 2 * (ncols - 1)
    k0 = np.floor(fk).astype(np.int64)
    k1 = np.where(k0 + 1 == ncols, 0, k0 + 1)
    frac = fk - k0
    col0, col1 = wheel[k0] / 255.0, wheel[k1] / 255.0  # (N, H, W, 3)
    col = (1 - frac)[..., None] * col0 + frac[..., None] * col1
    col = 1 - norm[..., None] * (1 - col)
    img = np.floor(255 * col).astype(np.uint8).transpose(0, 3, 1, 2)
    out = torch.from_numpy(np.ascontiguousarray(img)).to(flow.device)
    return out[0] if len(orig_shape) == 3 else out
