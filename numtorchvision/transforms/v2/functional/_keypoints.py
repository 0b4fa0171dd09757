"""The KeyPoints kernels of the geometric functionals (points move as the pixels do; unlike
boxes they are not clamped), and clamp_keypoints / sanitize_keypoints."""

import numtorch as torch

from .... import tv_tensors
from ....tv_tensors._tv_tensor import _plain
from ..._functional_tensor_geometry import _create_identity_grid
from . import _geometry as G
from . import _geometry_more as GM
from . import _meta as M
from ._utils import _register, _takes_metadata

KeyPoints = tv_tensors.KeyPoints


def _dispatch(functional, fn):
    """Register ``fn(plain, canvas_size, *args, **kwargs) -> (points, canvas)`` for
    KeyPoints in ``functional``."""
    @_register(functional, KeyPoints, unwrap=False)
    def dispatch(inpt, *args, **kwargs):
        out, canvas = fn(_plain(inpt), inpt.canvas_size, *args, **kwargs)
        return tv_tensors.wrap(out, like=inpt, canvas_size=canvas)

    return dispatch


def _flip(points, canvas_size, axis):
    shape = points.shape
    points = points.clone().reshape(-1, 2)
    extent = canvas_size[1] if axis == 0 else canvas_size[0]
    points[..., axis] = points[..., axis].sub_(extent - 1).neg_()
    return points.reshape(shape)


def horizontal_flip_keypoints(keypoints, canvas_size):
    return _flip(keypoints, canvas_size, 0)


def vertical_flip_keypoints(keypoints, canvas_size):
    return _flip(keypoints, canvas_size, 1)


def resize_keypoints(keypoints, size, canvas_size, max_size=None):
    old_h, old_w = canvas_size
    new_h, new_w = G._resized_hw(canvas_size, size=size, max_size=max_size)
    if (new_h, new_w) == (old_h, old_w):
        return keypoints, canvas_size
    ratios = torch.tensor([new_w / old_w, new_h / old_h])
    return keypoints.mul(ratios).to(keypoints.dtype), (new_h, new_w)


def pad_keypoints(keypoints, canvas_size, padding, padding_mode="constant"):
    if padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported with KeyPoints "
                         "(supported modes are constant)")
    left, right, top, bottom = G.pad_sides(padding)
    shift = torch.tensor([left, top], dtype=keypoints.dtype)
    return keypoints + shift, (canvas_size[0] + top + bottom, canvas_size[1] + left + right)


def crop_keypoints(keypoints, top, left, height, width):
    return keypoints - torch.tensor([left, top], dtype=keypoints.dtype), (height, width)


def center_crop_keypoints(inpt, canvas_size, output_size):
    crop_h, crop_w = G._center_crop_parse_output_size(output_size)
    top = round((canvas_size[0] - crop_h) / 2.0)
    left = round((canvas_size[1] - crop_w) / 2.0)
    return crop_keypoints(inpt, top=top, left=left, height=crop_h, width=crop_w)


def resized_crop_keypoints(keypoints, top, left, height, width, size):
    keypoints, canvas = crop_keypoints(keypoints, top, left, height, width)
    return resize_keypoints(keypoints, size=size, canvas_size=canvas)


def _affine_keypoints_with_expand(keypoints, canvas_size, angle, translate, scale, shear,
                                  center=None, expand=False):
    if keypoints.numel() == 0:
        return keypoints, canvas_size
    dtype, shape = keypoints.dtype, keypoints.shape
    keypoints = keypoints.clone() if keypoints.is_floating_point() else keypoints.float()
    moved, canvas_size = G.affine_points(keypoints.reshape(-1, 2), canvas_size, angle,
                                         translate, scale, shear, center, expand)
    return moved.reshape(shape).to(dtype), canvas_size


def affine_keypoints(keypoints, canvas_size, angle, translate, scale, shear, center=None):
    return _affine_keypoints_with_expand(keypoints, canvas_size, angle, translate, scale, shear,
                                         center=center)


def rotate_keypoints(keypoints, canvas_size, angle, expand=False, center=None):
    return _affine_keypoints_with_expand(keypoints, canvas_size, -angle, [0.0, 0.0], 1.0,
                                         [0.0, 0.0], center=center, expand=expand)


def perspective_keypoints(keypoints, canvas_size, startpoints, endpoints, coefficients=None):
    if keypoints.numel() == 0:
        return keypoints
    work = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    shape = keypoints.shape
    points = keypoints.clone().reshape(-1, 2)
    coeffs = GM._perspective_coefficients(startpoints, endpoints, coefficients)
    if coeffs[0] * coeffs[4] - coeffs[1] * coeffs[3] == 0:
        raise RuntimeError(f"Provided perspective_coeffs {coeffs} can not be inverted to "
                           "transform keypoints. Denominator is zero, denom=0")
    numer, denom = GM._inverse_perspective(coeffs)
    theta1, theta2 = torch.tensor(numer, dtype=work), torch.tensor(denom, dtype=work)
    points = torch.cat([points, torch.ones(points.shape[0], 1)], dim=-1)
    moved = G._points_matmul(points, theta1.T).div_(G._points_matmul(points, theta2.T))
    return moved.to(keypoints.dtype).reshape(shape)


def elastic_keypoints(keypoints, canvas_size, displacement):
    GM._check_displacement(displacement, canvas_size)
    if keypoints.numel() == 0:
        return keypoints
    work = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    displacement = displacement.to(dtype=work)
    shape = keypoints.shape
    points = keypoints.clone().reshape(-1, 2)
    inv_grid = _create_identity_grid(list(canvas_size), work).sub_(displacement)
    index = points.to(dtype=torch.long)
    index_x = index[:, 0].clamp(0, inv_grid.shape[2] - 1)
    index_y = index[:, 1].clamp(0, inv_grid.shape[1] - 1)
    t_size = torch.tensor(canvas_size[::-1], dtype=displacement.dtype)
    moved = inv_grid[0, index_y, index_x, :].add_(1).mul_(0.5 * t_size).sub_(0.5)
    return moved.to(keypoints.dtype).reshape(shape)


_dispatch(G.horizontal_flip, lambda p, c: (horizontal_flip_keypoints(p, c), c))
_dispatch(G.vertical_flip, lambda p, c: (vertical_flip_keypoints(p, c), c))
_dispatch(G.resize, lambda p, c, size, max_size=None, **k: resize_keypoints(p, size, c, max_size))
_dispatch(G.pad, lambda p, c, padding, fill=None, padding_mode="constant":
          pad_keypoints(p, c, padding, padding_mode))
_dispatch(G.crop, lambda p, c, top, left, height, width: crop_keypoints(p, top, left, height,
                                                                          width))
_dispatch(G.center_crop, lambda p, c, output_size: center_crop_keypoints(p, c, output_size))
_dispatch(G.resized_crop, lambda p, c, top, left, height, width, size, **k:
          resized_crop_keypoints(p, top, left, height, width, size))
_dispatch(G.affine, lambda p, c, angle, translate, scale, shear, center=None, **k:
          affine_keypoints(p, c, angle, translate, scale, shear, center=center))
_dispatch(G.rotate, lambda p, c, angle, expand=False, center=None, **k:
          rotate_keypoints(p, c, angle, expand=expand, center=center))
_dispatch(GM.perspective, lambda p, c, startpoints, endpoints, coefficients=None, **k:
          (perspective_keypoints(p, c, startpoints, endpoints, coefficients), c))
_dispatch(GM.elastic, lambda p, c, displacement, **k: (elastic_keypoints(p, c, displacement), c))


@_register(M.get_size, KeyPoints, unwrap=False)
def get_size_keypoints(keypoints):
    return list(keypoints.canvas_size)


def _onto_last_pixel(points, canvas_size):
    """x in [0, width - 1], y in [0, height - 1]: the last pixel, not the canvas edge as for
    boxes (computed in float for integer points)."""
    work = points.clone() if points.is_floating_point() else points.float()
    height, width = canvas_size
    for axis, extent in ((0, width), (1, height)):
        work[..., axis].clamp_(min=0, max=extent - 1)
    return work.to(dtype=points.dtype)


def clamp_keypoints(inpt, canvas_size=None):
    """Points moved onto the nearest pixel of their canvas."""
    own = _takes_metadata(
        inpt, KeyPoints, canvas_size is not None,
        "For pure tensor inputs, `canvas_size` has to be passed.", canvas_size is None,
        "For keypoints tv_tensor inputs, `canvas_size` must not be passed.",
        TypeError("Input can either be a plain tensor or a keypoints tv_tensor, but got "
                  f"{type(inpt)} instead."))
    if not own:
        return _onto_last_pixel(inpt, canvas_size)
    return tv_tensors.wrap(_onto_last_pixel(_plain(inpt), inpt.canvas_size), like=inpt)


def _sanitize_keypoints_mask(key_points, canvas_size):
    """Per point (or per group along the first dimension): all of it on the canvas."""
    height, width = canvas_size
    xs, ys = key_points[..., 0], key_points[..., 1]
    inside = (xs >= 0) & (ys >= 0) & (xs < width) & (ys < height)
    return inside if inside.ndim < 2 else inside.flatten(start_dim=1).all(dim=1)


def sanitize_keypoints(key_points, canvas_size=None):
    """The points (or point groups) inside their canvas, and the mask that picks them."""
    own = _takes_metadata(
        key_points, KeyPoints, canvas_size is not None,
        "canvas_size cannot be None if key_points is a pure tensor. Set it to an appropriate "
        "value or pass key_points as a tv_tensors.KeyPoints object.", canvas_size is None,
        f"canvas_size must be None when key_points is a tv_tensors.KeyPoints instance. Got "
        f"canvas_size={canvas_size}. Leave it to None or pass key_points as a pure tensor.",
        ValueError("key_points must be a tv_tensors.KeyPoints instance or a pure tensor."))
    data = _plain(key_points) if own else key_points
    valid = _sanitize_keypoints_mask(data, key_points.canvas_size if own else canvas_size)
    kept = data[valid]
    return (tv_tensors.wrap(kept, like=key_points) if own else kept), valid
