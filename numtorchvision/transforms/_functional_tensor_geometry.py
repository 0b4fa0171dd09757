"""Geometric transforms of ``[..., C, H, W]`` numtorch tensors: padding, resizing, affine,
rotation, perspective and elastic warps (through ``grid_sample``) and Gaussian blur.

The sampling grids follow torchvision's conventions (pixel centres at half-integers, the
affine matrix given in pixel units around the image centre), so the output matches
torchvision's tensor path.
"""

import contextlib
import contextvars
import warnings

import numpy as np

import numtorch as torch
import numtorch.nn.functional as NF
from numtorch.nn.functional import _memory_format as _mf

from ._functional_tensor import _assert_image_tensor, get_dimensions
from ._grid_sample_exact import grid_sample as _exact_grid_sample
from ._resize_exact import resize_integer_aa, resize_integer_plain

_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def _cast_squeeze_in(img, req_dtypes):
    """Make ``img`` 4-D (N, C, H, W) and of one of ``req_dtypes`` for the nn kernels."""
    squeeze = img.ndim < 4
    if squeeze:
        img = img.unsqueeze(dim=0)
    out_dtype = img.dtype
    need_cast = out_dtype not in req_dtypes
    if need_cast:
        img = img.to(req_dtypes[0])
    return img, need_cast, squeeze, out_dtype


def _cast_squeeze_out(img, need_cast, squeeze, out_dtype):
    if squeeze:
        img = img.squeeze(dim=0)
    if need_cast:
        # round, then cast, for integer images: v1 for its five signed/uint8 kinds (uint16
        # and wider unsigned truncate there), v2's kernels for every integer kind
        if out_dtype in _INT_DTYPES or (_V2_BLEND.get() and not out_dtype.is_floating_point):
            img = torch.round(img)
        img = img.to(out_dtype)
    return img


def _flatten_batch(img):
    """(N, C, H, W) view of an image with any number of leading dimensions."""
    lead = tuple(img.shape[:-3])
    if img.ndim > 4:
        return img.reshape(-1, *img.shape[-3:]), lead
    return img, None


def _parse_pad_padding(padding):
    """[left, right, top, bottom] from an int or a 1-, 2- or 4-sequence."""
    if isinstance(padding, int):
        return [padding] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return [padding[0], padding[2], padding[1], padding[3]]


def _pad_symmetric(img, lrtb):
    # negative padding crops
    if min(lrtb) < 0:
        cl, cr, ct, cb = (max(-p, 0) for p in lrtb)
        img = img[..., ct:img.shape[-2] - cb, cl:img.shape[-1] - cr]
        lrtb = [max(p, 0) for p in lrtb]
    left, right, top, bottom = lrtb

    def mirrored(n, before, after):
        # edge-repeating reflection: [before-1 .. 0] + [0 .. n-1] + [n-1 .. n-after]
        idx = np.arange(-before, n + after)
        idx = np.where(idx < 0, -idx - 1, idx)
        return np.where(idx >= n, 2 * n - idx - 1, idx)

    rows = torch.as_tensor(mirrored(img.shape[-2], top, bottom), device=img.device)
    cols = torch.as_tensor(mirrored(img.shape[-1], left, right), device=img.device)
    return img[..., rows[:, None], cols[None, :]]


def pad(img, padding, fill=0, padding_mode="constant"):
    _assert_image_tensor(img)
    if fill is None:
        fill = 0
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    lrtb = _parse_pad_padding(padding)
    if padding_mode == "symmetric":
        return _pad_symmetric(img, lrtb)
    mode = "replicate" if padding_mode == "edge" else padding_mode
    squeeze = img.ndim < 4
    if squeeze:
        img = img.unsqueeze(dim=0)
    out_dtype = img.dtype
    # the non-constant nn padding kernels work on floating images only
    need_cast = mode != "constant" and out_dtype not in (torch.float32, torch.float64)
    if need_cast:
        img = img.to(torch.float32)
    if mode == "constant":
        img = NF.pad(img, lrtb, mode="constant", value=float(fill))
    else:
        img = NF.pad(img, lrtb, mode=mode)
    if squeeze:
        img = img.squeeze(dim=0)
    return img.to(out_dtype) if need_cast else img


def resize(img, size, interpolation="bilinear", antialias=True):
    _assert_image_tensor(img)
    size = list(size)
    if antialias is None or interpolation not in ("bilinear", "bicubic"):
        antialias = False  # only these two modes have an antialiased form
    if img.dtype in _INT_DTYPES and img.device.type == "cpu" and min(size) > 0 \
            and img.numel() > 0 and interpolation in ("bilinear", "bicubic") and img.ndim > 2:
        # (interpolate reports bad sizes)
        return _resize_integer(img, size, interpolation, antialias)
    x, need_cast, squeeze, out_dtype = _cast_squeeze_in(img, [torch.float32, torch.float64])
    x, lead = _flatten_batch(x)
    align = False if interpolation in ("bilinear", "bicubic") else None
    x = NF.interpolate(x, size=size, mode=interpolation, align_corners=align,
                       antialias=antialias)
    if interpolation == "bicubic" and out_dtype == torch.uint8:
        x = x.clamp(min=0, max=255)  # cubic overshoots
    if lead is not None:
        x = x.reshape(*lead, *x.shape[-3:])
    return _cast_squeeze_out(x, need_cast, squeeze, out_dtype)


def _resize_integer(img, size, interpolation, antialias):
    """Bilinear or bicubic resize of an integer image, rounded as torch's float32 kernels
    round so that the pixels equal torchvision's (see ``_resize_exact``)."""
    x4 = img if img.ndim == 4 else img.unsqueeze(0) if img.ndim == 3 else \
        img.reshape(-1, *img.shape[-3:])
    # torch's kernels (and its output's layout) follow its memory-format suggestion, which
    # reads the batch stride too: a permuted HWC array with a batch dim of 1 added, (3, 1,
    # 3W, 3) strides, is channels-last by is_contiguous but resized as row-major
    channels_last = _mf.suggest(x4) is not None
    if antialias:
        x = torch.from_numpy(resize_integer_aa(img.numpy(), size, interpolation))
    else:
        arr = resize_integer_plain(x4.numpy(), size, interpolation, torch.get_num_threads(),
                                   channels_last)
        x = torch.from_numpy(arr.reshape(*img.shape[:-2], *size))
    if channels_last and img.ndim == 4:
        x = x.contiguous(memory_format=torch.channels_last)  # torch keeps the layout
    if interpolation == "bicubic" and img.dtype == torch.uint8:
        x = x.clamp(min=0, max=255)  # cubic overshoots
    return torch.round(x).to(img.dtype)


def _assert_grid_transform_inputs(img, matrix, interpolation, fill, supported, coeffs=None):
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor")
    _assert_image_tensor(img)
    if matrix is not None and not isinstance(matrix, list):
        raise TypeError("Argument matrix should be a list")
    if matrix is not None and len(matrix) != 6:
        raise ValueError("Argument matrix should have 6 float values")
    if coeffs is not None and len(coeffs) != 8:
        raise ValueError("Argument coeffs should have 8 float values")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        warnings.warn("Argument fill should be either int, float, tuple or list")
    channels = get_dimensions(img)[0]
    if isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != channels:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number "
                         f"of channels of the image ({len(fill)} != {channels})")
    if interpolation not in supported:
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


def _grid_dtype(img):
    return img.dtype if img.is_floating_point() else torch.float32


def _pixel_centres(n, start):
    """``n`` float32 pixel-centre coordinates beginning at ``start`` (step 1)."""
    return (start + np.arange(n, dtype=np.float64)).astype(np.float32)


_V2_BLEND = contextvars.ContextVar("v2_fill_blend", default=False)


@contextlib.contextmanager
def v2_fill_blend():
    """Within it, bilinear fills are blended with torchvision v2's arithmetic (the v2
    geometry kernels reuse these v1 ones; the two round differently by an ulp)."""
    token = _V2_BLEND.set(True)
    try:
        yield
    finally:
        _V2_BLEND.reset(token)


def _sample(x, grid, mode):
    """grid_sample with torch's float32 rounding where no gradient is wanted (integer images
    round these values: an ulp decides a pixel); numtorch's differentiable one otherwise."""
    if (x.ndim == 4 and x.dtype == torch.float32 and grid.dtype == torch.float32
            and x.device.type == "cpu" and x.numel() > 0
            and not (x.requires_grad or grid.requires_grad) and mode in ("bilinear", "nearest")):
        g = grid.numpy()
        if np.isfinite(g).all():
            return torch.from_numpy(_exact_grid_sample(np.ascontiguousarray(x.numpy()), g, mode))
    return NF.grid_sample(x, grid, mode=mode, padding_mode="zeros", align_corners=False)


def _apply_grid_transform(img, grid, mode, fill):
    """Sample ``img`` at ``grid`` (normalised coordinates); outside points get ``fill``."""
    if img.numel() == 0 and _V2_BLEND.get():  # v2 gives empty images back (v1: grid_sample
        # refuses the empty batch)
        return img.reshape(tuple(img.shape[:-2]) + tuple(grid.shape[1:3]))
    x, need_cast, squeeze, out_dtype = _cast_squeeze_in(img, [grid.dtype])
    x, lead = _flatten_batch(x)
    if x.shape[0] > 1:
        grid = grid.expand(x.shape[0], *grid.shape[1:])
    if fill is not None:
        # an extra all-ones channel measures how much of each output pixel came from inside
        ones = torch.ones((x.shape[0], 1, x.shape[2], x.shape[3]), dtype=x.dtype,
                          device=x.device)
        x = torch.cat((x, ones), dim=1)
    x = _sample(x, grid, mode)
    if fill is not None:
        x, mask = x[:, :-1], x[:, -1:].expand(x.shape[0], x.shape[1] - 1, *x.shape[2:])
        values = list(fill) if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = torch.tensor(values, dtype=x.dtype, device=x.device).view(
            1, len(values), 1, 1).expand_as(x)
        if mode == "nearest":
            x = torch.where(mask < 0.5, fill_img, x)
        elif _V2_BLEND.get():  # v2's kernels blend as (x - fill) * mask + fill
            x = (x - fill_img).mul_(mask).add_(fill_img)
        else:
            x = x * mask + (1.0 - mask) * fill_img
    if lead is not None:
        x = x.reshape(*lead, *x.shape[-3:])
    return _cast_squeeze_out(x, need_cast, squeeze, out_dtype)


def _rowwise(xs, ys, coeffs):
    """``x * c0 + y * c1 + c2`` over the (len(ys), len(xs)) grid, summed left to right in the
    grid's precision (the order torch's small matrix product uses, so ties in nearest
    sampling fall the same way)."""
    return (xs[None, :] * coeffs[0] + ys[:, None] * coeffs[1]) + coeffs[2]


def _half_round(dtype):
    """Rounding of float32 NumPy values to ``dtype`` (float16 / bfloat16), kept as float32."""
    if dtype == torch.float16:
        return lambda a: np.asarray(a, dtype=np.float32).astype(np.float16).astype(np.float32)
    return lambda a: torch.from_numpy(np.asarray(a, dtype=np.float32)).to(dtype).float().numpy()


def _affine_grid_half(theta, w, h, ow, oh, dtype):
    """:func:`_affine_grid` for float16 / bfloat16 images: torch builds the grid in the
    image's dtype (the matrix and its scaling rounded to it, the small product summed in
    float32 and rounded once)."""
    rnd = _half_round(dtype)
    xs = rnd(_pixel_centres(ow, -ow * 0.5 + 0.5))
    ys = rnd(_pixel_centres(oh, -oh * 0.5 + 0.5))
    scale = rnd(np.array([0.5 * w, 0.5 * h], dtype=np.float32))
    scaled = rnd(rnd(np.asarray(theta, dtype=np.float32).reshape(2, 3)) / scale[:, None])
    grid = np.stack([_rowwise(xs, ys, scaled[0]), _rowwise(xs, ys, scaled[1])], axis=-1)
    return torch.from_numpy(np.ascontiguousarray(grid[None])).to(dtype)


def _affine_grid(theta, w, h, ow, oh, dtype):
    """Sampling grid (1, oh, ow, 2) for the 2x3 pixel-unit matrix ``theta``.

    Output pixel centres, measured from the output centre, go through ``theta`` and are then
    normalised by the input size; normalising by the input (not the output) size is what lets
    ``rotate(expand=True)`` draw a larger canvas.
    """
    if dtype in (torch.float16, torch.bfloat16):
        return _affine_grid_half(theta, w, h, ow, oh, dtype)
    np_dtype = np.float64 if dtype == torch.float64 else np.float32
    xs = _pixel_centres(ow, -ow * 0.5 + 0.5).astype(np_dtype)
    ys = _pixel_centres(oh, -oh * 0.5 + 0.5).astype(np_dtype)
    scaled = (np.asarray(theta, dtype=np_dtype).reshape(2, 3)
              / np.array([0.5 * w, 0.5 * h], dtype=np_dtype)[:, None])
    grid = np.stack([_rowwise(xs, ys, scaled[0]), _rowwise(xs, ys, scaled[1])], axis=-1)
    return torch.from_numpy(np.ascontiguousarray(grid[None]))


def affine(img, matrix, interpolation="nearest", fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    h, w = img.shape[-2], img.shape[-1]
    grid = _affine_grid(matrix, w, h, w, h, _grid_dtype(img)).to(img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)


def _compute_affine_output_size(matrix, w, h):
    """(width, height) of the canvas that holds the whole image after ``matrix``."""
    corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                        [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], dtype=np.float32)
    theta = np.asarray(matrix, dtype=np.float32).reshape(2, 3)
    moved = corners @ theta.T
    offset = np.array([w * 0.5, h * 0.5], dtype=np.float32)
    lo, hi = moved.min(axis=0) + offset, moved.max(axis=0) + offset
    # cut the coordinates to 1e-4 first so that 1e-15 of rounding does not add a pixel
    tol = np.float32(1e-4)
    size = np.ceil(np.trunc(hi / tol) * tol) - np.floor(np.trunc(lo / tol) * tol)
    return int(size[0]), int(size[1])


def rotate(img, matrix, interpolation="nearest", expand=False, fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    w, h = img.shape[-1], img.shape[-2]
    ow, oh = _compute_affine_output_size(matrix, w, h) if expand else (w, h)
    grid = _affine_grid(matrix, w, h, ow, oh, _grid_dtype(img)).to(img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)


def _perspective_grid_half(coeffs, ow, oh, dtype):
    """:func:`_perspective_grid` for float16 / bfloat16 images, in the image's dtype as torch
    builds it (each product of the small matrices summed in float32 and rounded once)."""
    rnd = _half_round(dtype)
    c = rnd(np.asarray(coeffs, dtype=np.float32))
    xs = rnd(_pixel_centres(ow, 0.5))
    ys = rnd(_pixel_centres(oh, 0.5))
    half = rnd(np.array([0.5 * ow, 0.5 * oh], dtype=np.float32))
    den = rnd(_rowwise(xs, ys, np.array([c[6], c[7], 1.0], dtype=np.float32)))
    grid = [rnd(rnd(_rowwise(xs, ys, rnd(c[3 * k:3 * k + 3] / half[k]))) / den) - 1.0
            for k in (0, 1)]
    return torch.from_numpy(np.ascontiguousarray(np.stack(grid, axis=-1)[None])).to(dtype)


def _perspective_grid(coeffs, ow, oh, dtype):
    if dtype in (torch.float16, torch.bfloat16):
        return _perspective_grid_half(coeffs, ow, oh, dtype)
    np_dtype = np.float64 if dtype == torch.float64 else np.float32
    c = np.asarray(coeffs, dtype=np_dtype)
    xs = _pixel_centres(ow, 0.5).astype(np_dtype)
    ys = _pixel_centres(oh, 0.5).astype(np_dtype)
    half = np.array([0.5 * ow, 0.5 * oh], dtype=np_dtype)
    den = _rowwise(xs, ys, np.array([c[6], c[7], 1.0], dtype=np_dtype))
    grid = [_rowwise(xs, ys, c[3 * k:3 * k + 3] / half[k]) / den - np_dtype(1.0)
            for k in (0, 1)]
    return torch.from_numpy(np.ascontiguousarray(np.stack(grid, axis=-1)[None]))


def perspective(img, perspective_coeffs, interpolation="bilinear", fill=None):
    if not isinstance(img, torch.Tensor):
        raise TypeError("Input img should be Tensor.")
    _assert_image_tensor(img)
    _assert_grid_transform_inputs(img, None, interpolation, fill, ["nearest", "bilinear"],
                                  coeffs=perspective_coeffs)
    grid = _perspective_grid(perspective_coeffs, img.shape[-1], img.shape[-2],
                             _grid_dtype(img)).to(img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)


def _gaussian_kernel1d(kernel_size, sigma, dtype):
    # numtorch's linspace/exp/sum round as torch's do; NumPy's (float64 linspace, its own
    # exp and pairwise sum) left kernel taps an ulp off and blurred pixels rounded the other way
    half = (kernel_size - 1) * 0.5
    x = torch.linspace(-half, half, steps=kernel_size, dtype=dtype)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size, sigma, kernel1d=_gaussian_kernel1d):
    """``kernel1d(size, sigma, dtype)`` gives each axis's taps (v2 computes them its own way)."""
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    _assert_image_tensor(img)
    dtype = _grid_dtype(img)
    kx = kernel1d(kernel_size[0], sigma[0], dtype)
    ky = kernel1d(kernel_size[1], sigma[1], dtype)
    kernel = torch.mm(ky[:, None], kx[None, :]).to(img.device)
    kernel = kernel.expand(img.shape[-3], 1, *kernel.shape)
    x, need_cast, squeeze, out_dtype = _cast_squeeze_in(img, [kernel.dtype])
    x, lead = _flatten_batch(x)
    half_x, half_y = kernel_size[0] // 2, kernel_size[1] // 2
    x = NF.pad(x, [half_x, half_x, half_y, half_y], mode="reflect")
    x = NF.conv2d(x, kernel, groups=x.shape[-3])
    if lead is not None:
        x = x.reshape(*lead, *x.shape[-3:])
    return _cast_squeeze_out(x, need_cast, squeeze, out_dtype)


def _create_identity_grid(size, dtype=torch.float32):
    """(1, H, W, 2) pixel centres in [-1, 1], from torch's linspace in ``dtype`` (NumPy's
    float64 linspace cast down differs from it by an ulp, enough to move a box corner)."""
    h, w = size
    ys = torch.linspace((-h + 1) / h, (h - 1) / h, h, dtype=dtype)
    xs = torch.linspace((-w + 1) / w, (w - 1) / w, w, dtype=dtype)
    grid = torch.empty(1, h, w, 2, dtype=dtype)
    grid[..., 0] = xs
    grid[..., 1] = ys[:, None]
    return grid


def elastic_transform(img, displacement, interpolation="bilinear", fill=None):
    if not isinstance(img, torch.Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    size = list(img.shape[-2:])
    grid = _create_identity_grid(size).to(img.device) + displacement.to(img.device)
    return _apply_grid_transform(img, grid, interpolation, fill)
