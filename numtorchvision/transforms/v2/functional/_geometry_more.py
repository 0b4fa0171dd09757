"""perspective, elastic, five_crop and ten_crop for every kind they apply to (images through
the v1 kernels, masks with nearest sampling, boxes by moving their corners)."""

import numtorch as torch

from .... import tv_tensors
from ....tv_tensors._tv_tensor import _plain
from ... import functional as F1
from ..._functional_tensor_geometry import (
    _apply_grid_transform,
    _create_identity_grid,
    v2_fill_blend,
)
from ..._functional_tensor_geometry import perspective as _perspective_tensor
from ..._geometry import _get_perspective_coeffs
from ...functional import InterpolationMode
from ._geometry import _as_mask_image, _check_interpolation, _clamp, _fmt, _points_matmul
from ._meta import _convert_bounding_box_format
from ._rotated_boxes import parallelogram_to_rectangle
from ._utils import _TABLE, _call, _flat_image, _need_chw, _PILKind, _register

_XYXY = tv_tensors.BoundingBoxFormat.XYXY
_XYXYXYXY = tv_tensors.BoundingBoxFormat.XYXYXYXY
_CXCYWHR = tv_tensors.BoundingBoxFormat.CXCYWHR
_IMAGE_KINDS = (torch.Tensor, tv_tensors.Image, tv_tensors.Video)


def _perspective_coefficients(startpoints, endpoints, coefficients):
    """The 8 output-to-input coefficients: given, or solved from the corner pairs (exactly
    one of the two must be given)."""
    have_points = startpoints is not None and endpoints is not None
    if coefficients is None:
        if not have_points:
            raise ValueError("Either the startpoints/endpoints or the coefficients must have "
                             "non `None` values.")
        return _get_perspective_coeffs(startpoints, endpoints)
    if have_points:
        raise ValueError("The startpoints/endpoints and the coefficients shouldn't be "
                         "defined concurrently.")
    if len(coefficients) != 8:
        raise ValueError("Argument coefficients should have 8 float values")
    return coefficients


def perspective(inpt, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR,
                fill=None, coefficients=None):
    """Warp so that the four ``startpoints`` corners go to ``endpoints`` (or by the 8
    ``coefficients`` of the output-to-input map)."""
    return _call(perspective, inpt, startpoints=startpoints, endpoints=endpoints,
                 interpolation=interpolation, fill=fill, coefficients=coefficients)


@_register(perspective, *_IMAGE_KINDS, "pil")
def perspective_image(image, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR,
                      fill=None, coefficients=None):
    coeffs = _perspective_coefficients(startpoints, endpoints, coefficients)
    interpolation = _check_interpolation(interpolation)
    _need_chw(image, first=2)
    if not isinstance(image, torch.Tensor):
        from ..._functional_pil import perspective as _perspective_pil
        from ...functional import pil_modes_mapping

        return _perspective_pil(image, coeffs, interpolation=pil_modes_mapping[interpolation],
                                fill=fill)
    with v2_fill_blend():
        return _flat_image(image, lambda x: _perspective_tensor(x, coeffs, interpolation.value,
                                                                fill=fill))


perspective_video = perspective_image


@_register(perspective, tv_tensors.Mask)
def perspective_mask(mask, startpoints, endpoints, fill=None, coefficients=None, **kwargs):
    return _as_mask_image(perspective_image)(mask, startpoints, endpoints,
                                             interpolation=InterpolationMode.NEAREST, fill=fill,
                                             coefficients=coefficients)


def _inverse_perspective(c):
    """The forward map's coefficients (input -> output) as two 2x3 matrices: numerator rows
    and the shared denominator row."""
    denom = c[0] * c[4] - c[1] * c[3]
    if denom == 0:
        raise RuntimeError(f"Provided perspective_coeffs {c} can not be inverted to transform "
                           f"bounding boxes. Denominator is zero, denom={denom}")
    inv = [(c[4] - c[5] * c[7]) / denom, (-c[1] + c[2] * c[7]) / denom,
           (c[1] * c[5] - c[2] * c[4]) / denom, (-c[3] + c[5] * c[6]) / denom,
           (c[0] - c[2] * c[6]) / denom, (-c[0] * c[5] + c[2] * c[3]) / denom,
           (-c[4] * c[6] + c[3] * c[7]) / denom, (-c[0] * c[7] + c[1] * c[6]) / denom]
    return [inv[0:3], inv[3:6]], [[inv[6], inv[7], 1.0], [inv[6], inv[7], 1.0]]


def perspective_bounding_boxes(bounding_boxes, format, canvas_size, startpoints, endpoints,
                               coefficients=None, clamping_mode="soft"):
    if bounding_boxes.numel() == 0:
        return bounding_boxes
    coeffs = _perspective_coefficients(startpoints, endpoints, coefficients)
    format = _fmt(format)
    shape, dtype = bounding_boxes.shape, bounding_boxes.dtype
    rotated = tv_tensors.is_rotated_bounding_format(format)
    middle = _XYXYXYXY if rotated else _XYXY
    boxes = _convert_bounding_box_format(bounding_boxes, format, middle)
    boxes = boxes.reshape(-1, 8 if rotated else 4)
    work = boxes.dtype if boxes.is_floating_point() else torch.float32
    numer, denom = _inverse_perspective(coeffs)
    theta1, theta2 = torch.tensor(numer, dtype=work), torch.tensor(denom, dtype=work)
    points = boxes if rotated else boxes[:, [[0, 1], [2, 1], [2, 3], [0, 3]]]
    points = points.reshape(-1, 2)
    points = torch.cat([points, torch.ones(points.shape[0], 1)], dim=-1)
    moved = _points_matmul(points, theta1.T).div_(_points_matmul(points, theta2.T))
    if rotated:
        out = parallelogram_to_rectangle(moved.reshape(-1, 8))
    else:
        lo, hi = torch.aminmax(moved.reshape(-1, 4, 2), dim=1)
        out = torch.cat([lo, hi], dim=1)
    out = _clamp(out, middle, canvas_size, clamping_mode)
    out = _convert_bounding_box_format(out, middle, format, inplace=True).reshape(shape)
    return out.to(dtype)


@_register(perspective, tv_tensors.BoundingBoxes, unwrap=False)
def _perspective_boxes_dispatch(inpt, startpoints, endpoints, coefficients=None, **kwargs):
    out = perspective_bounding_boxes(_plain(inpt), inpt.format,
                                     inpt.canvas_size, startpoints, endpoints,
                                     coefficients=coefficients,
                                     clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt)


def elastic(inpt, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Move every pixel by ``displacement`` ([1, H, W, 2], in grid_sample's [-1, 1] units)."""
    return _call(elastic, inpt, displacement=displacement, interpolation=interpolation,
                 fill=fill)


elastic_transform = elastic


@_register(elastic, *_IMAGE_KINDS, "pil")
def elastic_image(image, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    if not isinstance(displacement, torch.Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    mode = _check_interpolation(interpolation)
    if isinstance(image, torch.Tensor) and image.ndim < 2:
        _need_chw(image, first=2)

    if not isinstance(image, torch.Tensor):  # PIL
        return F1.elastic_transform(image, displacement, interpolation=mode, fill=fill)
    want = (1, *image.shape[-2:], 2)
    if tuple(displacement.shape) != want:
        raise ValueError(f"Argument displacement shape should be {want}, but given "
                         f"{displacement.shape}")
    _need_chw(image)
    # v2 builds the grid in the image's float dtype (v1: always float32); float16 images on
    # the CPU go through float32 and back, as in torchvision
    work = image.dtype if image.is_floating_point() else torch.float32
    half_cpu = work == torch.float16 and image.device.type == "cpu"
    if half_cpu:
        image, work = image.to(torch.float32), torch.float32
    grid = _create_identity_grid(list(image.shape[-2:]), work).add_(displacement.to(work))
    with v2_fill_blend():
        out = _flat_image(image, lambda x: _apply_grid_transform(x, grid, mode.value, fill))
    return out.to(torch.float16) if half_cpu else out


elastic_video = elastic_image


@_register(elastic, tv_tensors.Mask)
def elastic_mask(mask, displacement, fill=None, **kwargs):
    return _as_mask_image(elastic_image)(mask, displacement,
                                         interpolation=InterpolationMode.NEAREST, fill=fill)


def _check_displacement(displacement, canvas_size):
    """The elastic displacement field must be a (1, H, W, 2) tensor of the canvas's size."""
    expected = (1, canvas_size[0], canvas_size[1], 2)
    if not isinstance(displacement, torch.Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    if tuple(displacement.shape) != expected:
        raise ValueError(f"Argument displacement shape should be {expected}, but given "
                         f"{displacement.shape}")


def elastic_bounding_boxes(bounding_boxes, format, canvas_size, displacement,
                           clamping_mode="soft"):
    """Each corner moved by the inverse displacement sampled at its (rounded up) pixel."""
    _check_displacement(displacement, canvas_size)
    if bounding_boxes.numel() == 0:
        return bounding_boxes
    format = _fmt(format)
    work = bounding_boxes.dtype if bounding_boxes.is_floating_point() else torch.float32
    displacement = displacement.to(dtype=work)
    shape = bounding_boxes.shape
    rotated = tv_tensors.is_rotated_bounding_format(format)
    middle = _CXCYWHR if rotated else _XYXY  # rotated boxes: only the centre moves
    boxes = _convert_bounding_box_format(bounding_boxes.clone(), format, middle)
    boxes = boxes.reshape(-1, 5 if rotated else 4)
    inv_grid = _create_identity_grid(list(canvas_size), work).sub_(displacement)
    points = boxes[:, :2] if rotated else boxes[:, [[0, 1], [2, 1], [2, 3], [0, 3]]]
    points = points.reshape(-1, 2)
    if points.is_floating_point():
        points = points.ceil_()
    index = points.to(dtype=torch.long)
    index_x = index[:, 0].clamp(0, inv_grid.shape[2] - 1)
    index_y = index[:, 1].clamp(0, inv_grid.shape[1] - 1)
    t_size = torch.tensor(canvas_size[::-1], dtype=displacement.dtype)
    moved = inv_grid[0, index_y, index_x, :].add_(1).mul_(0.5 * t_size).sub_(0.5)
    if rotated:
        out = torch.cat([moved.reshape(-1, 2), boxes[:, 2:]], dim=1).to(boxes.dtype)
    else:
        lo, hi = torch.aminmax(moved.reshape(-1, 4, 2), dim=1)
        out = torch.cat([lo, hi], dim=1).to(boxes.dtype)
    out = _clamp(out, middle, canvas_size, clamping_mode)
    return _convert_bounding_box_format(out, middle, format).reshape(shape)


@_register(elastic, tv_tensors.BoundingBoxes, unwrap=False)
def _elastic_boxes_dispatch(inpt, displacement, **kwargs):
    out = elastic_bounding_boxes(_plain(inpt), inpt.format, inpt.canvas_size,
                                 displacement, clamping_mode=inpt.clamping_mode)
    return tv_tensors.wrap(out, like=inpt)


def _register_crops(functional, kernel):
    """five/ten crop kernels: each crop of a TVTensor is wrapped back into its kind."""
    def wrapped(inpt, *args, **kwargs):
        return tuple(tv_tensors.wrap(o, like=inpt)
                     for o in kernel(_plain(inpt), *args, **kwargs))

    registry = _TABLE.setdefault(functional, {})
    registry[torch.Tensor] = registry[_PILKind] = kernel
    registry[tv_tensors.Image] = registry[tv_tensors.Video] = wrapped


def five_crop(inpt, size):
    """The four corner crops and the centre crop: (tl, tr, bl, br, center)."""
    return _call(five_crop, inpt, size=size)


def five_crop_image(image, size):
    return F1.five_crop(image, size)


def ten_crop(inpt, size, vertical_flip=False):
    """:func:`five_crop` of the input and of its mirror image."""
    return _call(ten_crop, inpt, size=size, vertical_flip=vertical_flip)


def ten_crop_image(image, size, vertical_flip=False):
    return F1.ten_crop(image, size, vertical_flip=vertical_flip)


five_crop_video, ten_crop_video = five_crop_image, ten_crop_image
_register_crops(five_crop, five_crop_image)
_register_crops(ten_crop, ten_crop_image)
