"""Affine, rotation, perspective and elastic warps for PIL images and tensors, and the
matrices they are built from."""

import math
import numbers
import warnings

import numpy as np

import numtorch as torch

from .._pil import is_pil_image
from . import _functional_pil as F_pil
from . import _functional_tensor_geometry as F_g
from .functional import (
    InterpolationMode,
    _check_interpolation,
    _interpolation_modes_from_int,
    get_dimensions,
    pil_modes_mapping,
    pil_to_tensor,
    to_pil_image,
)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    """The 2x3 affine matrix (row-major, 6 floats) of rotate-scale-shear about ``center``
    followed by ``translate``; its inverse (output -> input, what samplers need) by default.

    The linear part is R(angle) @ Shear_y(shear[1]) @ Shear_x(shear[0]) times ``scale``
    (angles in degrees, clockwise in image coordinates, which point down).
    """
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    # R @ SHy @ SHx; its determinant is 1
    cos_rs, sin_rs, cos_y = math.cos(rot - sy), math.sin(rot - sy), math.cos(sy)
    a = cos_rs / cos_y
    b = -cos_rs * math.tan(sx) / cos_y - math.sin(rot)
    c = sin_rs / cos_y
    d = -sin_rs * math.tan(sx) / cos_y + math.cos(rot)
    if inverted:
        m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
        # undo the translation and the shift to the centre, then shift back
        m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
        m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
        m[2] += cx
        m[5] += cy
        return m
    m = [v * scale for v in (a, b, 0.0, c, d, 0.0)]
    m[2] += m[0] * (-cx) + m[1] * (-cy)
    m[5] += m[3] * (-cx) + m[4] * (-cy)
    m[2] += cx + tx
    m[5] += cy + ty
    return m


def _get_perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients (a..h) mapping an output pixel (x, y) to the input pixel
    ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)), such that the four
    ``endpoints`` land on the four ``startpoints``."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} "
                         f"startpoints and {len(endpoints)} endpoints.")
    rows = []
    for (x, y), (u, v) in zip(endpoints, startpoints):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    lhs = np.array(rows, dtype=np.float64)
    rhs = np.array(startpoints, dtype=np.float64).reshape(8)
    # double precision for the solve, then float32 like torchvision's coefficients
    sol = np.linalg.lstsq(lhs, rhs, rcond=None)[0].astype(np.float32)
    return sol.tolist()


def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None,
           fill=None):
    """Rotate by ``angle`` degrees counter-clockwise about ``center`` (default: the image
    centre); ``expand`` grows the canvas to hold the whole rotated image."""
    interpolation = _check_interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, torch.Tensor):
        return F_pil.rotate(img, angle=angle, interpolation=pil_modes_mapping[interpolation],
                            expand=expand, center=center, fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:
        _, height, width = get_dimensions(img)
        # tensor grids measure from the image centre
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    # the affine convention turns clockwise, rotate() counter-clockwise
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return F_g.rotate(img, matrix=matrix, interpolation=interpolation.value, expand=expand,
                      fill=fill)


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST,
           fill=None, center=None):
    """Rotate (``angle`` degrees clockwise), scale and shear about ``center`` (default: the
    image centre), then shift by ``translate`` pixels; the canvas keeps its size."""
    interpolation = _check_interpolation(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    angle = float(angle)
    translate = list(translate)
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    _, height, width = get_dimensions(img)
    if not isinstance(img, torch.Tensor):
        # Pillow measures from the top-left corner; the centre without the half-pixel
        # offset keeps a 90-degree turn aligned with the tensor result
        if center is None:
            center = [width * 0.5, height * 0.5]
        matrix = _get_inverse_affine_matrix(center, angle, translate, scale, shear)
        return F_pil.affine(img, matrix=matrix, interpolation=pil_modes_mapping[interpolation],
                            fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_f, angle, [1.0 * t for t in translate], scale,
                                        shear)
    return F_g.affine(img, matrix=matrix, interpolation=interpolation.value, fill=fill)


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR,
                fill=None):
    """Warp so that the four ``startpoints`` corners ([top-left, top-right, bottom-right,
    bottom-left], each [x, y]) move to ``endpoints``."""
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    interpolation = _check_interpolation(interpolation)
    if not isinstance(img, torch.Tensor):
        return F_pil.perspective(img, coeffs, interpolation=pil_modes_mapping[interpolation],
                                 fill=fill)
    return F_g.perspective(img, coeffs, interpolation=interpolation.value, fill=fill)


def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Move every pixel by ``displacement`` (shape [1, H, W, 2], in the [-1, 1] units of
    ``grid_sample``)."""
    if isinstance(interpolation, int):
        warnings.warn("Argument interpolation should be of type InterpolationMode instead of "
                      "int. Please, use InterpolationMode enum.")
        interpolation = _interpolation_modes_from_int(interpolation)
    if not isinstance(displacement, torch.Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    t_img = img
    if not isinstance(img, torch.Tensor):
        if not is_pil_image(img):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        t_img = pil_to_tensor(img)
    expected = (1,) + tuple(t_img.shape[-2:]) + (2,)
    if expected != tuple(displacement.shape):
        raise ValueError(f"Argument displacement shape should be {torch.Size(expected)}, but given "
                         f"{displacement.shape}")
    out = F_g.elastic_transform(t_img, displacement, interpolation=interpolation.value,
                                fill=fill)
    return out if isinstance(img, torch.Tensor) else to_pil_image(out, mode=img.mode)
