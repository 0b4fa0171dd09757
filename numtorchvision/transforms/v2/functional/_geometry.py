"""Geometric functionals (flips, resize, crops, pad, affine, rotate) for every input kind:
images and videos through the v1 kernels of ``transforms.functional``, masks through the
same kernels with nearest-neighbour sampling, bounding boxes by moving their coordinates
(and clamping them to the new canvas, as the boxes' ``clamping_mode`` says)."""

import math
import numbers
import warnings

import numtorch as torch
from numtorch.nn import functional as NF

from .... import tv_tensors
from ....tv_tensors._tv_tensor import _plain
from ... import functional as F1
from ..._functional_tensor_geometry import _compute_affine_output_size, v2_fill_blend
from ...functional import InterpolationMode, _interpolation_modes_from_int
from . import _rotated_boxes as R
from ._meta import _convert_bounding_box_format, clamp_bounding_boxes
from ._utils import _call, _flat_image, _need_chw, _register

_XYXY = tv_tensors.BoundingBoxFormat.XYXY
_XYXYXYXY = tv_tensors.BoundingBoxFormat.XYXYXYXY
_is_rotated = tv_tensors.is_rotated_bounding_format


def _box_width(format):
    """How many numbers one box of ``format`` has (4, 5 or 8)."""
    if format == _XYXYXYXY:
        return 8
    return 5 if _is_rotated(format) else 4


def _box_shift(format, dx, dy):
    """The per-coordinate offset that moves boxes of ``format`` by (dx, dy)."""
    if format == _XYXYXYXY:
        return [dx, dy] * 4
    if _is_rotated(format):
        return [dx, dy, 0, 0, 0]
    return [dx, dy, dx, dy] if format == _XYXY else [dx, dy, 0, 0]
_IMAGE_KINDS = (torch.Tensor, tv_tensors.Image, tv_tensors.Video)
_STRING_MODES = {m.value: m for m in InterpolationMode}


def _check_interpolation(interpolation):
    if isinstance(interpolation, str):
        if interpolation not in _STRING_MODES:
            raise ValueError(f"Invalid interpolation mode: '{interpolation}'. Supported string "
                             f"values are: {list(_STRING_MODES)}.")
        return _STRING_MODES[interpolation]
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise ValueError("Argument interpolation should be an `InterpolationMode` or a "
                         f"corresponding Pillow integer constant, but got {interpolation}.")
    return interpolation


def _as_mask_image(fn):
    """A mask kernel from an image kernel: ``[H, W]`` masks get a channel for the call."""
    def kernel(mask, *args, **kwargs):
        squeeze = mask.ndim < 3
        out = fn(mask.unsqueeze(0) if squeeze else mask, *args, **kwargs)
        return out.squeeze(0) if squeeze else out

    return kernel


def _box_kernel(fn):
    """Registered for BoundingBoxes: ``fn(plain, format, canvas_size, clamping_mode, ...)``
    returns (boxes, new canvas size)."""
    def dispatch(inpt, *args, **kwargs):
        out, canvas = fn(_plain(inpt), inpt.format, inpt.canvas_size,
                         inpt.clamping_mode, *args, **kwargs)
        return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)

    return dispatch


def _clamp(boxes, format, canvas, mode):
    return clamp_bounding_boxes(boxes, format=format, canvas_size=canvas, clamping_mode=mode)


# -- flips ------------------------------------------------------------------------------------
def horizontal_flip(inpt):
    """Mirror left-right."""
    return _call(horizontal_flip, inpt)


def vertical_flip(inpt):
    """Mirror top-bottom."""
    return _call(vertical_flip, inpt)


hflip, vflip = horizontal_flip, vertical_flip


@_register(horizontal_flip, *_IMAGE_KINDS, tv_tensors.Mask, "pil")
def horizontal_flip_image(image):
    return F1.hflip(image) if not isinstance(image, torch.Tensor) else image.flip(-1)


@_register(vertical_flip, *_IMAGE_KINDS, tv_tensors.Mask, "pil")
def vertical_flip_image(image):
    return F1.vflip(image) if not isinstance(image, torch.Tensor) else image.flip(-2)


horizontal_flip_mask = horizontal_flip_video = horizontal_flip_image
vertical_flip_mask = vertical_flip_video = vertical_flip_image


def _flip_boxes(boxes, format, canvas_size, axis):
    """Mirror the x (axis 0) or y (axis 1) coordinates across the canvas."""
    shape = boxes.shape
    boxes = boxes.clone().reshape(-1, _box_width(format))
    if _is_rotated(format):
        return R.flip_rotated(boxes, format.value, canvas_size, axis).reshape(shape)
    extent = canvas_size[1] if axis == 0 else canvas_size[0]
    if format == _XYXY:
        boxes[:, [axis + 2, axis]] = boxes[:, [axis, axis + 2]].sub_(extent).neg_()
    elif format == tv_tensors.BoundingBoxFormat.XYWH:
        boxes[:, axis].add_(boxes[:, axis + 2]).sub_(extent).neg_()
    else:
        boxes[:, axis].sub_(extent).neg_()
    return boxes.reshape(shape)


def horizontal_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    return _flip_boxes(bounding_boxes, _fmt(format), canvas_size, 0)


def vertical_flip_bounding_boxes(bounding_boxes, format, canvas_size):
    return _flip_boxes(bounding_boxes, _fmt(format), canvas_size, 1)


def _fmt(format):
    return tv_tensors.BoundingBoxFormat[format.upper()] if isinstance(format, str) else format


@_register(horizontal_flip, tv_tensors.BoundingBoxes, unwrap=False)
def _hflip_boxes_dispatch(inpt):
    out = horizontal_flip_bounding_boxes(_plain(inpt), inpt.format,
                                         inpt.canvas_size)
    return tv_tensors.wrap(out, like=inpt)


@_register(vertical_flip, tv_tensors.BoundingBoxes, unwrap=False)
def _vflip_boxes_dispatch(inpt):
    out = vertical_flip_bounding_boxes(_plain(inpt), inpt.format,
                                       inpt.canvas_size)
    return tv_tensors.wrap(out, like=inpt)


# -- resize -----------------------------------------------------------------------------------
def _resized_hw(canvas_size, size, max_size=None):
    """(height, width) after a resize to ``size`` (int or [int]: the shorter edge)."""
    size = [size] if isinstance(size, int) else size
    if size is not None and len(size) != 1 and max_size is not None:
        raise ValueError("max_size should only be passed if size is None or specifies the "
                         "length of the smaller edge, i.e. size should be an int or a sequence "
                         "of length 1 in torchscript mode.")
    return F1._compute_resized_output_size(canvas_size, size=size, max_size=max_size,
                                           allow_size_none=True)


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
           antialias=True):
    """Resize to ``size`` ((h, w); an int or [int]: the shorter edge, keeping the aspect
    ratio; None: the longer edge becomes ``max_size``)."""
    return _call(resize, inpt, size=size, interpolation=interpolation, max_size=max_size,
                 antialias=antialias)


@_register(resize, *_IMAGE_KINDS, "pil")
def resize_image(image, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
                 antialias=True):
    interpolation = _check_interpolation(interpolation)
    if not isinstance(image, torch.Tensor):  # Pillow always antialiases: the flag is ignored
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument "
                          "antialias is ignored.")
        antialias = True
    antialias = bool(antialias)  # None: off
    _need_chw(image)
    if not antialias and interpolation == InterpolationMode.LANCZOS:
        raise ValueError("InterpolationMode.LANCZOS requires antialias=True")
    old_h, old_w = F1.get_dimensions(image)[1:]
    new_size = _resized_hw((old_h, old_w), size=size, max_size=max_size)
    if tuple(new_size) == (old_h, old_w):
        return image
    if not isinstance(image, torch.Tensor):
        return F1.resize(image, new_size, interpolation=interpolation)
    if image.numel() == 0:
        return image.reshape(tuple(image.shape[:-2]) + tuple(new_size))
    return _interpolate(image, new_size, interpolation, antialias)


# torchvision v2 resizes uint8 images with torch's native uint8 kernels for these modes on
# x86 CPUs with AVX2 (and ARM); numtorch's interpolate reproduces those kernels. Other integer
# images go through float32 and are rounded back.
_NATIVE_UINT8 = (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT,
                 InterpolationMode.BILINEAR, InterpolationMode.BICUBIC, InterpolationMode.LANCZOS)


# the modes that take antialias and align_corners=False (LANCZOS only with antialias)
_SMOOTH = (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC, InterpolationMode.LANCZOS)
_OVERSHOOTING = (InterpolationMode.BICUBIC, InterpolationMode.LANCZOS)
_ROUNDED_KINDS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def _interpolate(image, size, interpolation, antialias):
    smooth = interpolation in _SMOOTH  # only these take antialias and align_corners
    kind = image.dtype
    via_float = kind not in (torch.float32, torch.float64) and not (
        kind == torch.uint8 and interpolation in _NATIVE_UINT8)
    batch = image.reshape((-1,) + tuple(image.shape[-3:]))
    strides = batch.stride()
    if batch.shape[0] == 1 and strides[0] != batch.numel() and \
            batch.is_contiguous(memory_format=torch.channels_last):
        # a single channels-last image (an HWC array permuted): interpolate would return a
        # row-major result for its batch stride; torchvision gives that dim the full extent
        # so the result stays channels-last, as the input
        batch = batch.as_strided(tuple(batch.shape), (batch.numel(),) + tuple(strides[1:]))
    out = NF.interpolate(batch.to(torch.float32) if via_float else batch, size=list(size),
                         mode=interpolation.value, align_corners=False if smooth else None,
                         antialias=antialias and smooth)
    if via_float:
        if kind == torch.uint8 and interpolation in _OVERSHOOTING:
            out = out.clamp_(min=0, max=255)
        # torchvision rounds its five signed/uint8 integer kinds; uint16 and wider truncate
        out = (out.round_() if kind in _ROUNDED_KINDS else out).to(kind)
    return out.reshape(tuple(image.shape[:-2]) + tuple(size))


resize_video = resize_image


@_register(resize, tv_tensors.Mask)
def resize_mask(mask, size, interpolation=InterpolationMode.NEAREST, max_size=None,
                antialias=None):
    interpolation = _check_interpolation(interpolation)
    if interpolation not in (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT):
        interpolation = InterpolationMode.NEAREST  # masks keep their label values
    return _as_mask_image(resize_image)(mask, size=size, interpolation=interpolation,
                                        max_size=max_size)


def resize_bounding_boxes(bounding_boxes, canvas_size, size, max_size=None, format=_XYXY,
                          clamping_mode="soft"):
    old_h, old_w = canvas_size
    new_h, new_w = _resized_hw(canvas_size, size=size, max_size=max_size)
    if (new_h, new_w) == (old_h, old_w):
        return bounding_boxes, canvas_size
    format = _fmt(format)
    if _is_rotated(format):
        # the corners scaled, the parallelogram made a rectangle again, clamped
        corners = _convert_bounding_box_format(bounding_boxes, format, _XYXYXYXY).reshape(-1, 8)
        scale = torch.tensor([new_w / old_w, new_h / old_h] * 4)
        out = R.parallelogram_to_rectangle(corners.mul(scale))
        out = _clamp(out, _XYXYXYXY, (new_h, new_w), clamping_mode)
        out = _convert_bounding_box_format(out, _XYXYXYXY, format)
        return out.to(bounding_boxes.dtype).reshape(bounding_boxes.shape), (new_h, new_w)
    ratios = torch.tensor([new_w / old_w, new_h / old_h, new_w / old_w, new_h / old_h])
    return bounding_boxes.mul(ratios).to(bounding_boxes.dtype), (new_h, new_w)


@_register(resize, tv_tensors.BoundingBoxes, unwrap=False)
def _resize_boxes_dispatch(inpt, size, max_size=None, **kwargs):
    out, canvas = resize_bounding_boxes(_plain(inpt), inpt.canvas_size,
                                        size=size, max_size=max_size, format=inpt.format,
                                        clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)


# -- pad --------------------------------------------------------------------------------------
# where left, right, top and bottom come from in a padding list of each allowed length
_PAD_SOURCES = {1: (0, 0, 0, 0), 2: (0, 0, 1, 1), 4: (0, 2, 1, 3)}


def pad_sides(padding):
    """``padding`` (int, [all], [lr, tb] or [l, t, r, b]) as [left, right, top, bottom]."""
    if isinstance(padding, int):
        return [padding] * 4
    if not isinstance(padding, (tuple, list)):
        raise TypeError(f"`padding` should be an integer or tuple or list of integers, but got "
                        f"{padding}")
    if len(padding) not in _PAD_SOURCES:
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    return [padding[i] for i in _PAD_SOURCES[len(padding)]]


def pad(inpt, padding, fill=None, padding_mode="constant"):
    """Pad the borders (``padding``: int, [lr, tb] or [l, t, r, b]) with ``fill`` (a number or
    one value per channel) or by ``edge`` / ``reflect`` / ``symmetric`` copies."""
    return _call(pad, inpt, padding=padding, fill=fill, padding_mode=padding_mode)


@_register(pad, *_IMAGE_KINDS, "pil")
def pad_image(image, padding, fill=None, padding_mode="constant"):
    if not isinstance(image, torch.Tensor):
        return F1.pad(image, padding, fill=0 if fill is None else fill,
                      padding_mode=padding_mode)
    left, right, top, bottom = pad_sides(padding)
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("`padding_mode` should be either `'constant'`, `'edge'`, `'reflect'` "
                         f"or `'symmetric'`, but got `'{padding_mode}'`.")
    _need_chw(image)
    if fill is None:
        fill = 0
    vector = isinstance(fill, (list, tuple)) and len(fill) != 1
    if isinstance(fill, (list, tuple)) and not vector:
        fill = fill[0]
    if vector and padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported if fill is not scalar")
    lrtb = [left, top, right, bottom]
    out = _flat_image(image, lambda x: F1.pad(x, lrtb, fill=0 if vector else fill,
                                              padding_mode=padding_mode))
    if vector:
        value = torch.tensor(fill).to(dtype=image.dtype).reshape(-1, 1, 1)
        if top > 0:
            out[..., :top, :] = value
        if left > 0:
            out[..., :, :left] = value
        if bottom > 0:
            out[..., -bottom:, :] = value
        if right > 0:
            out[..., :, -right:] = value
    return out


pad_video = pad_image


@_register(pad, tv_tensors.Mask)
def pad_mask(mask, padding, fill=None, padding_mode="constant"):
    if fill is None:
        fill = 0
    if isinstance(fill, (tuple, list)):
        raise ValueError("Non-scalar fill value is not supported")
    return _as_mask_image(pad_image)(mask, padding=padding, fill=fill,
                                     padding_mode=padding_mode)


def pad_bounding_boxes(bounding_boxes, format, canvas_size, padding, padding_mode="constant",
                       clamping_mode="soft"):
    if padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported with bounding boxes")
    left, right, top, bottom = pad_sides(padding)
    shift = _box_shift(_fmt(format), left, top)
    boxes = bounding_boxes + torch.tensor(shift, dtype=bounding_boxes.dtype)
    canvas = (canvas_size[0] + top + bottom, canvas_size[1] + left + right)
    return _clamp(boxes, _fmt(format), canvas, clamping_mode), canvas


@_register(pad, tv_tensors.BoundingBoxes, unwrap=False)
def _pad_boxes_dispatch(inpt, padding, fill=None, padding_mode="constant"):
    out, canvas = pad_bounding_boxes(_plain(inpt), inpt.format,
                                     inpt.canvas_size, padding, padding_mode,
                                     clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)


# -- crops ------------------------------------------------------------------------------------
def crop(inpt, top, left, height, width):
    """The ``height`` x ``width`` box at (``top``, ``left``); outside the image: zeros."""
    return _call(crop, inpt, top=top, left=left, height=height, width=width)


@_register(crop, *_IMAGE_KINDS, tv_tensors.Mask, "pil")
def crop_image(image, top, left, height, width):
    if isinstance(image, torch.Tensor) and image.ndim < 2:
        _need_chw(image, first=2)
    if not isinstance(image, torch.Tensor) or image.ndim >= 3:
        return F1.crop(image, top, left, height, width)
    return F1.crop(image.unsqueeze(0), top, left, height, width).squeeze(0)


crop_mask = crop_video = crop_image


def crop_bounding_boxes(bounding_boxes, format, top, left, height, width,
                        clamping_mode="soft"):
    shift = _box_shift(_fmt(format), left, top)
    boxes = bounding_boxes - torch.tensor(shift, dtype=bounding_boxes.dtype)
    canvas = (height, width)
    if _fmt(format) == _XYXYXYXY:
        boxes = R.parallelogram_to_rectangle(boxes)
    return _clamp(boxes, _fmt(format), canvas, clamping_mode), canvas


@_register(crop, tv_tensors.BoundingBoxes, unwrap=False)
def _crop_boxes_dispatch(inpt, top, left, height, width):
    out, canvas = crop_bounding_boxes(_plain(inpt), inpt.format, top=top,
                                      left=left, height=height, width=width,
                                      clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)


def _center_crop_parse_output_size(output_size):
    if isinstance(output_size, numbers.Number):
        return [int(output_size), int(output_size)]
    if isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        return [output_size[0], output_size[0]]
    return list(output_size)


def center_crop(inpt, output_size):
    """The centre box of ``output_size`` (zero-padded when the input is smaller)."""
    return _call(center_crop, inpt, output_size=output_size)


@_register(center_crop, *_IMAGE_KINDS, tv_tensors.Mask, "pil")
def center_crop_image(image, output_size):
    crop_h, crop_w = _center_crop_parse_output_size(output_size)
    if isinstance(image, torch.Tensor) and image.ndim < 2:
        _need_chw(image, first=2)
    if isinstance(image, torch.Tensor) and image.numel() == 0:
        return image.reshape(tuple(image.shape[:-2]) + (crop_h, crop_w))
    if isinstance(image, torch.Tensor) and image.ndim < 3:
        return F1.center_crop(image.unsqueeze(0), [crop_h, crop_w]).squeeze(0)
    return F1.center_crop(image, [crop_h, crop_w])


center_crop_mask = center_crop_video = center_crop_image


def center_crop_bounding_boxes(bounding_boxes, format, canvas_size, output_size,
                               clamping_mode="soft"):
    crop_h, crop_w = _center_crop_parse_output_size(output_size)
    top = round((canvas_size[0] - crop_h) / 2.0)
    left = round((canvas_size[1] - crop_w) / 2.0)
    return crop_bounding_boxes(bounding_boxes, format, top, left, crop_h, crop_w,
                               clamping_mode=clamping_mode)


@_register(center_crop, tv_tensors.BoundingBoxes, unwrap=False)
def _center_crop_boxes_dispatch(inpt, output_size):
    out, canvas = center_crop_bounding_boxes(_plain(inpt), inpt.format,
                                             inpt.canvas_size, output_size,
                                             clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)


def resized_crop(inpt, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR,
                 antialias=True):
    """:func:`crop` then :func:`resize` to ``size``."""
    return _call(resized_crop, inpt, top=top, left=left, height=height, width=width, size=size,
                 interpolation=interpolation, antialias=antialias)


@_register(resized_crop, *_IMAGE_KINDS, "pil")
def resized_crop_image(image, top, left, height, width, size,
                       interpolation=InterpolationMode.BILINEAR, antialias=True):
    image = crop_image(image, top, left, height, width)
    return resize_image(image, size, interpolation=interpolation, antialias=antialias)


resized_crop_video = resized_crop_image


@_register(resized_crop, tv_tensors.Mask)
def resized_crop_mask(mask, top, left, height, width, size, **kwargs):
    return resize_mask(crop_image(mask, top, left, height, width), size)


def resized_crop_bounding_boxes(bounding_boxes, format, top, left, height, width, size,
                                clamping_mode="soft"):
    boxes, canvas = crop_bounding_boxes(bounding_boxes, format, top, left, height, width,
                                        clamping_mode=clamping_mode)
    return resize_bounding_boxes(boxes, canvas, size=size, format=format,
                                 clamping_mode=clamping_mode)


@_register(resized_crop, tv_tensors.BoundingBoxes, unwrap=False)
def _resized_crop_boxes_dispatch(inpt, top, left, height, width, size, **kwargs):
    out, canvas = resized_crop_bounding_boxes(_plain(inpt), inpt.format,
                                              top, left, height, width, size,
                                              clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)


# -- affine and rotate ------------------------------------------------------------------------
def affine_args(angle, translate, scale, shear, center):
    """The affine arguments checked (torchvision's errors, in its order) and normalised:
    (float angle, translate list, [shear x, shear y], center as floats or None)."""
    rules = (
        (lambda: isinstance(angle, (int, float)), TypeError,
         "Argument angle should be int or float"),
        (lambda: isinstance(translate, (list, tuple)), TypeError,
         "Argument translate should be a sequence"),
        (lambda: len(translate) == 2, ValueError,
         "Argument translate should be a sequence of length 2"),
        (lambda: scale > 0.0, ValueError, "Argument scale should be positive"),
        (lambda: isinstance(shear, (numbers.Number, list, tuple)), TypeError,
         "Shear should be either a single value or a sequence of two values"),
    )
    for holds, error, message in rules:
        if not holds():
            raise error(message)
    if isinstance(shear, numbers.Number):
        shears = [shear, 0.0]
    else:
        shears = list(shear) * 2 if len(shear) == 1 else list(shear)
    if len(shears) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shears}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    pivot = None if center is None else [float(c) for c in center]
    return float(angle), list(translate), shears, pivot


def affine(inpt, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST,
           fill=None, center=None):
    """Rotate (degrees, clockwise), scale and shear about ``center`` (default: the centre),
    then translate; the canvas keeps its size."""
    return _call(affine, inpt, angle=angle, translate=translate, scale=scale, shear=shear,
                 interpolation=interpolation, fill=fill, center=center)


@_register(affine, *_IMAGE_KINDS, "pil")
def affine_image(image, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST,
                 fill=None, center=None):
    interpolation = _check_interpolation(interpolation)
    angle, translate, shear, center = affine_args(angle, translate, scale, shear, center)
    _need_chw(image, first=2)
    if not isinstance(image, torch.Tensor):
        return F1.affine(image, angle, translate, scale, shear, interpolation=interpolation,
                         fill=fill, center=center)
    with v2_fill_blend():
        return _flat_image(image, lambda x: F1.affine(x, angle, translate, scale, shear,
                                                      interpolation=interpolation, fill=fill,
                                                      center=center))


affine_video = affine_image


@_register(affine, tv_tensors.Mask)
def affine_mask(mask, angle, translate, scale, shear, fill=None, center=None, **kwargs):
    return _as_mask_image(affine_image)(mask, angle, translate, scale, shear,
                                        interpolation=InterpolationMode.NEAREST, fill=fill,
                                        center=center)


def _points_matmul(points, matrix):
    """``points @ matrix`` for (N, K) points and a small (K, M) matrix, summed term by term
    (``p0*m0 + p1*m1``, then ``+ p2*m2``) as torch's CPU matmul rounds these shapes;
    numtorch's BLAS product lands an ulp away in about a third of the coordinates. float16
    and bfloat16 are summed in float32 and rounded once, as torch's CPU product does."""
    half = points.dtype in (torch.float16, torch.bfloat16)
    if half:
        dtype, points, matrix = points.dtype, points.float(), matrix.float()
    out = points[:, :1] * matrix[0]
    for k in range(1, matrix.shape[0]):
        out = out + points[:, k:k + 1] * matrix[k]
    return out.to(dtype) if half else out


def _affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """v2's 2x3 affine matrix (the map about ``center`` by rotation, shear, scale and
    ``translate``; inverted by default). The same matrix as the v1 helper's, with v2's order
    of float operations (the translation column can differ from v1's by an ulp)."""
    rot = math.radians(angle)
    shear_x, shear_y = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    moved_x, moved_y = cx + translate[0], cy + translate[1]
    cos_y, tan_x = math.cos(shear_y), math.tan(shear_x)
    a = math.cos(rot - shear_y) / cos_y
    b = -(a * tan_x + math.sin(rot))
    c = math.sin(rot - shear_y) / cos_y
    d = math.cos(rot) - c * tan_x
    if inverted:
        m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
        m[2] += cx - m[0] * moved_x - m[1] * moved_y
        m[5] += cy - m[3] * moved_x - m[4] * moved_y
    else:
        m = [a * scale, b * scale, 0.0, c * scale, d * scale, 0.0]
        m[2] += moved_x - m[0] * cx - m[1] * cy
        m[5] += moved_y - m[3] * cx - m[4] * cy
    return m


def affine_points(points, canvas_size, angle, translate, scale, shear, center=None,
                  expand=False, shift_later=False):
    """Float points ``[N, 2]`` moved by the forward affine map about ``center`` (default: the
    canvas centre), and the canvas size; with ``expand``, the points are shifted onto the
    canvas that holds the whole transformed image, whose size is returned instead
    (``shift_later``: not shifted; the shift ``[1, 2]`` is returned as a third value)."""
    angle, translate, shear, center = affine_args(angle, translate, scale, shear, center)
    height, width = canvas_size
    pivot = [width * 0.5, height * 0.5] if center is None else center
    forward = _affine_matrix(pivot, angle, translate, scale, shear, inverted=False)
    to_xy = torch.tensor(forward, dtype=points.dtype).reshape(2, 3).T

    def apply(xy):
        ones = torch.ones(xy.shape[0], 1, dtype=xy.dtype)
        return _points_matmul(torch.cat([xy, ones], dim=-1), to_xy)

    moved = apply(points)
    if not expand:
        return moved, canvas_size
    frame = torch.tensor([[0.0, 0.0], [0.0, float(height)], [float(width), float(height)],
                          [float(width), 0.0]], dtype=points.dtype)
    origin = torch.amin(apply(frame), dim=0, keepdim=True)
    inverse = _affine_matrix(pivot, angle, translate, scale, shear)
    new_w, new_h = _compute_affine_output_size(inverse, width, height)
    if shift_later:
        return moved, (new_h, new_w), origin
    # subtracting before taking the boxes' min/max is exact: rounding is monotonic
    return moved - origin, (new_h, new_w)


def _affine_boxes_with_expand(boxes, format, canvas_size, angle, translate, scale, shear,
                              center=None, expand=False, clamping_mode="soft"):
    """Each box's four corners moved by the forward affine map, the box around them, then
    (with ``expand``) shifted onto the enlarged canvas and clamped to it."""
    if boxes.numel() == 0:
        return boxes, canvas_size
    format = _fmt(format)
    shape, dtype = boxes.shape, boxes.dtype
    need_cast = not boxes.is_floating_point()
    boxes = boxes.float() if need_cast else boxes.clone()
    rotated = _is_rotated(format)
    middle = _XYXYXYXY if rotated else _XYXY
    boxes = _convert_bounding_box_format(boxes, format, middle, inplace=True)
    boxes = boxes.reshape(-1, 8 if rotated else 4)
    corners = boxes if rotated else boxes[:, [[0, 1], [2, 1], [2, 3], [0, 3]]]
    if rotated:
        # the rectangle is fitted before the shift onto an expanded canvas, as in torchvision
        moved = affine_points(corners.reshape(-1, 2), canvas_size, angle, translate, scale,
                              shear, center, expand, shift_later=True)
        out = R.parallelogram_to_rectangle(moved[0].reshape(-1, 8))
        if expand:
            out = out - moved[2].repeat(1, 4)
        canvas_size = moved[1]
    else:
        moved, canvas_size = affine_points(corners.reshape(-1, 2), canvas_size, angle,
                                           translate, scale, shear, center, expand)
        lo, hi = torch.aminmax(moved.reshape(-1, 4, 2), dim=1)
        out = torch.cat([lo, hi], dim=1)
    out = _clamp(out, middle, canvas_size, clamping_mode)
    out = _convert_bounding_box_format(out, middle, format, inplace=True).reshape(shape)
    return (out.to(dtype) if need_cast else out), canvas_size


def affine_bounding_boxes(bounding_boxes, format, canvas_size, angle, translate, scale, shear,
                          center=None, clamping_mode="soft"):
    return _affine_boxes_with_expand(bounding_boxes, format, canvas_size, angle, translate,
                                     scale, shear, center=center,
                                     clamping_mode=clamping_mode)[0]


@_register(affine, tv_tensors.BoundingBoxes, unwrap=False)
def _affine_boxes_dispatch(inpt, angle, translate, scale, shear, center=None, **kwargs):
    out = affine_bounding_boxes(_plain(inpt), inpt.format, inpt.canvas_size,
                                angle, translate, scale, shear, center=center,
                                clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt)


def rotate(inpt, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None,
           fill=None):
    """Rotate by ``angle`` degrees counter-clockwise about ``center``; ``expand`` grows the
    canvas to hold the whole result."""
    return _call(rotate, inpt, angle=angle, interpolation=interpolation, expand=expand,
                 center=center, fill=fill)


@_register(rotate, *_IMAGE_KINDS, "pil")
def rotate_image(image, angle, interpolation=InterpolationMode.NEAREST, expand=False,
                 center=None, fill=None):
    if not isinstance(image, torch.Tensor):
        return F1.rotate(image, angle, interpolation=_check_interpolation(interpolation),
                         expand=expand, center=center, fill=fill)
    _need_chw(image, first=2)
    angle = angle % 360
    # quarter turns about the centre are exact transposes, as in torchvision; odd ones only
    # when the canvas may change shape or is square
    turns = _QUARTERS.get(angle) if center is None else None
    if turns is not None and (turns % 2 == 0 or expand or image.shape[-1] == image.shape[-2]):
        return torch.rot90(image, k=turns, dims=(-2, -1)) if turns else image.clone()
    interpolation = _check_interpolation(interpolation)
    with v2_fill_blend():
        return _flat_image(image, lambda x: F1.rotate(x, float(angle),
                                                      interpolation=interpolation,
                                                      expand=expand, center=center, fill=fill))


rotate_video = rotate_image
_QUARTERS = {0: 0, 90: 1, 180: 2, 270: 3}


@_register(rotate, tv_tensors.Mask)
def rotate_mask(mask, angle, expand=False, center=None, fill=None, **kwargs):
    return _as_mask_image(rotate_image)(mask, angle, interpolation=InterpolationMode.NEAREST,
                                        expand=expand, center=center, fill=fill)


def rotate_bounding_boxes(bounding_boxes, format, canvas_size, angle, expand=False, center=None,
                          clamping_mode="soft"):
    return _affine_boxes_with_expand(bounding_boxes, format, canvas_size, -angle, [0.0, 0.0],
                                     1.0, [0.0, 0.0], center=center, expand=expand,
                                     clamping_mode=clamping_mode)


@_register(rotate, tv_tensors.BoundingBoxes, unwrap=False)
def _rotate_boxes_dispatch(inpt, angle, expand=False, center=None, **kwargs):
    out, canvas = rotate_bounding_boxes(_plain(inpt), inpt.format,
                                        inpt.canvas_size, angle, expand=expand, center=center,
                                        clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)
