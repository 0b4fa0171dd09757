"""Sizes of any input kind, and bounding-box format conversion and clamping."""

import numtorch as torch

from .... import tv_tensors
from ...._pil import is_pil_image
from ....tv_tensors._tv_tensor import _plain
from ... import functional as F1
from . import _rotated_boxes as R
from ._utils import _call, _register, _takes_metadata

BoundingBoxFormat = tv_tensors.BoundingBoxFormat


def get_dimensions(inpt):
    """``[channels, height, width]`` of an image or video."""
    return _call(get_dimensions, inpt)


@_register(get_dimensions, torch.Tensor, tv_tensors.Image, tv_tensors.Video, "pil",
           unwrap=False)
def get_dimensions_image(image):
    if is_pil_image(image):
        return F1.get_dimensions(image)
    chw = list(image.shape[-3:])
    if len(chw) == 3:
        return chw
    if len(chw) == 2:
        chw.insert(0, 1)
        return chw
    raise TypeError(f"Input tensor should have at least two dimensions, but got {len(chw)}")


def get_num_channels(inpt):
    """The number of channels of an image or video."""
    return _call(get_num_channels, inpt)


@_register(get_num_channels, torch.Tensor, tv_tensors.Image, tv_tensors.Video, "pil",
           unwrap=False)
def get_num_channels_image(image):
    return get_dimensions_image(image)[0]


def get_size(inpt):
    """``[height, width]`` of an image, video, mask or the canvas of bounding boxes."""
    return _call(get_size, inpt)


@_register(get_size, torch.Tensor, tv_tensors.Image, tv_tensors.Video, "pil",
           unwrap=False)
def get_size_image(image):
    return get_dimensions_image(image)[1:]


@_register(get_size, tv_tensors.Mask, unwrap=False)
def get_size_mask(mask):
    return list(mask.shape[-2:])


@_register(get_size, tv_tensors.BoundingBoxes, unwrap=False)
def get_size_bounding_boxes(bounding_box):
    return list(bounding_box.canvas_size)


def get_num_frames(inpt):
    """The number of frames of a video (``shape[-4]``)."""
    return _call(get_num_frames, inpt)


@_register(get_num_frames, torch.Tensor, tv_tensors.Video, unwrap=False)
def get_num_frames_video(video):
    return video.shape[-4]


# -- box formats (torchvision's in-place arithmetic, so integer boxes round as there) -----------
def _xywh_to_xyxy(b, inplace):
    b = b if inplace else b.clone()
    b[..., 2:] += b[..., :2]
    return b


def _xyxy_to_xywh(b, inplace):
    b = b if inplace else b.clone()
    b[..., 2:] -= b[..., :2]
    return b


def _floor_div(t, by):
    return t.div(by, rounding_mode=None if t.is_floating_point() else "floor")


def _xywh_to_cxcywh(b, inplace):
    b = b if inplace else b.clone()
    b[..., :2].add_(_floor_div(b[..., 2:], 2))
    return b


def _xyxy_to_cxcywh(b, inplace):
    b = b if inplace else b.clone()
    b[..., 2:].sub_(b[..., :2])
    corner = b[..., :2]
    corner.mul_(2).add_(b[..., 2:])
    corner.copy_(_floor_div(corner, 2))
    return b


def _from_cxcywh(b, inplace, to_xyxy):
    # integer boxes go through float so that the half sizes are not floored
    original, dtype = b, b.dtype
    need_cast = not b.is_floating_point()
    if need_cast:
        b = b.float()
    elif not inplace:
        b = b.clone()
    b[..., :2].sub_(b[..., 2:] / 2)
    if to_xyxy:
        b[..., 2:].add_(b[..., :2])
        if need_cast:
            b = b.to(dtype)
    elif need_cast:
        far = (b[..., :2] + b[..., 2:]).to(dtype)
        b = b.to(dtype)
        b[..., 2:] = far - b[..., :2]
    if need_cast and inplace:
        original[:] = b
        return original
    return b


def _convert_bounding_box_format(boxes, old_format, new_format, inplace=False):
    if new_format == old_format:
        return boxes
    rotated = tv_tensors.is_rotated_bounding_format(old_format)
    if rotated != tv_tensors.is_rotated_bounding_format(new_format):
        raise ValueError("Cannot convert between rotated and unrotated bounding boxes.")
    if rotated:
        return R.convert_rotated(boxes, old_format.value, new_format.value, inplace)
    X = BoundingBoxFormat
    if old_format == X.XYWH and new_format == X.CXCYWH:
        return _xywh_to_cxcywh(boxes, inplace)
    if old_format == X.CXCYWH and new_format == X.XYWH:
        return _from_cxcywh(boxes, inplace, to_xyxy=False)
    if old_format == X.XYWH:
        boxes = _xywh_to_xyxy(boxes, inplace)
    elif old_format == X.CXCYWH:
        boxes = _from_cxcywh(boxes, inplace, to_xyxy=True)
    if new_format == X.XYWH:
        boxes = _xyxy_to_xywh(boxes, inplace)
    elif new_format == X.CXCYWH:
        boxes = _xyxy_to_cxcywh(boxes, inplace)
    return boxes


def _parse_format(fmt):
    return BoundingBoxFormat[fmt.upper()] if isinstance(fmt, str) else fmt


def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace=False):
    """Boxes in ``new_format``; ``old_format`` only for plain tensors (BoundingBoxes carry
    theirs)."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format() missing 1 required argument: "
                        "'new_format'")
    old_format, new_format = _parse_format(old_format), _parse_format(new_format)
    boxed = _takes_metadata(
        inpt, tv_tensors.BoundingBoxes, old_format is not None,
        "For pure tensor inputs, `old_format` has to be passed.", old_format is None,
        "For bounding box tv_tensor inputs, `old_format` must not be passed.",
        _not_boxes(inpt))
    if not boxed:
        return _convert_bounding_box_format(inpt, old_format, new_format, inplace)
    out = _convert_bounding_box_format(_plain(inpt), inpt.format, new_format, inplace)
    return tv_tensors.wrap(out, like=inpt, format=new_format)


def _not_boxes(inpt):
    return TypeError("Input can either be a plain tensor or a bounding box tv_tensor, but got "
                     f"{type(inpt)} instead.")


def _clamp_bounding_boxes(boxes, format, canvas_size, clamping_mode):
    if clamping_mode is None:
        return boxes.clone()
    in_dtype = boxes.dtype
    boxes = boxes.clone() if boxes.is_floating_point() else boxes.float()
    xyxy = _convert_bounding_box_format(boxes, format, BoundingBoxFormat.XYXY, inplace=True)
    # "soft" and "hard" agree for axis-aligned boxes
    xyxy[..., 0::2].clamp_(min=0, max=canvas_size[1])
    xyxy[..., 1::2].clamp_(min=0, max=canvas_size[0])
    out = _convert_bounding_box_format(xyxy, BoundingBoxFormat.XYXY, format, inplace=True)
    return out.to(in_dtype)


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="auto"):
    """Boxes cut to their canvas (``clamping_mode`` ``"auto"``: the boxes' own mode)."""
    if clamping_mode is not None and clamping_mode not in ("soft", "hard", "auto"):
        raise ValueError(f"clamping_mode must be soft, hard, auto or None, got {clamping_mode}")
    no_meta = format is None and canvas_size is None
    boxed = _takes_metadata(
        inpt, tv_tensors.BoundingBoxes,
        format is not None and canvas_size is not None and clamping_mode != "auto",
        "For pure tensor inputs, `format`, `canvas_size` and `clamping_mode` have to be "
        "passed.", no_meta,
        "For bounding box tv_tensor inputs, `format` and `canvas_size` must not be passed.",
        _not_boxes(inpt))
    if not boxed:
        return _clamp_any(inpt, _parse_format(format), canvas_size, clamping_mode)
    mode = inpt.clamping_mode if clamping_mode == "auto" else clamping_mode
    out = _clamp_any(_plain(inpt), inpt.format, inpt.canvas_size, mode)
    return tv_tensors.wrap(out, like=inpt)


def _clamp_any(boxes, format, canvas_size, clamping_mode):
    if tv_tensors.is_rotated_bounding_format(format):
        return R.clamp_rotated(boxes, format.value, canvas_size, clamping_mode)
    return _clamp_bounding_boxes(boxes, format, canvas_size, clamping_mode)
