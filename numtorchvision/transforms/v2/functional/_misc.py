"""normalize, gaussian_blur, to_dtype, erase and sanitize_bounding_boxes for every kind."""

import math

import numtorch as torch

from .... import tv_tensors
from ....tv_tensors._tv_tensor import _plain
from ... import _functional_tensor_geometry as F_g
from ... import functional as F1
from ..._functional_tensor import _max_value
from ._meta import _convert_bounding_box_format, _parse_format
from ._rotated_boxes import sanitize_rotated_mask
from ._utils import _call, _flat_image, _register, _takes_metadata

_IMAGE_KINDS = (torch.Tensor, tv_tensors.Image, tv_tensors.Video)


def normalize(inpt, mean, std, inplace=False):
    """``(x - mean) / std`` per channel (floating images and videos)."""
    return _call(normalize, inpt, mean=mean, std=std, inplace=inplace)


@_register(normalize, *_IMAGE_KINDS)
def normalize_image(image, mean, std, inplace=False):
    if not image.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {image.dtype}.")
    if image.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"{image.shape}.")
    many = isinstance(std, (tuple, list))
    if (not all(std)) if many else (isinstance(std, (int, float)) and std == 0):
        raise ValueError("std evaluated to zero, leading to division by zero.")

    def per_channel(values):  # a 1-D list broadcasts over (C, 1, 1)
        t = torch.as_tensor(values, dtype=image.dtype)
        return t.view(-1, 1, 1) if t.ndim == 1 else t

    shift, spread = per_channel(mean), per_channel(std)
    centred = image.sub_(shift) if inplace else image - shift
    return centred.div_(spread)


normalize_video = normalize_image


def _blur_args(kernel_size, sigma):
    """(kernel_size, sigma) as two-item sequences, checked with torchvision's messages."""
    sizes = [kernel_size] * 2 if isinstance(kernel_size, int) else kernel_size
    if len(sizes) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(sizes)}")
    if any(k < 0 or k % 2 == 0 for k in sizes):
        raise ValueError(f"kernel_size should have odd and positive integers. Got {sizes}")
    if sigma is None:  # grows with the kernel
        sigmas = [0.15 * k + 0.35 for k in sizes]
    elif isinstance(sigma, (int, float)):
        sigmas = [float(sigma)] * 2
    elif not isinstance(sigma, (list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    elif len(sigma) in (1, 2):
        sigmas = [sigma[0]] * 2 if len(sigma) == 1 else sigma
    else:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    if min(sigmas) <= 0.0:
        raise ValueError(f"sigma should have positive values. Got {sigmas}")
    return sizes, sigmas


def gaussian_blur(inpt, kernel_size, sigma=None):
    """Blur with a separable Gaussian kernel (odd sizes; ``sigma`` defaults to
    ``0.15 * size + 0.35``), reflecting at the borders."""
    return _call(gaussian_blur, inpt, kernel_size=kernel_size, sigma=sigma)


def _v2_gaussian_kernel1d(kernel_size, sigma, dtype):
    # v2's taps: a softmax over -(x / sigma)^2 with x spaced by 1/sqrt(2); the same Gaussian
    # as v1's, rounded differently (blurred uint8 pixels land on the other side of .5)
    lim = (kernel_size - 1) / (2.0 * math.sqrt(2.0))
    x = torch.linspace(-lim, lim, steps=kernel_size, dtype=dtype)
    return torch.softmax(x.div(sigma).pow(2).neg(), dim=0)


def _blur_tensor(image, kernel_size, sigma):
    with F_g.v2_fill_blend():  # v2's rounding back to integer kinds (uint16 too)
        return _flat_image(image, lambda x: F_g.gaussian_blur(
            x, list(kernel_size), list(sigma), kernel1d=_v2_gaussian_kernel1d))


@_register(gaussian_blur, *_IMAGE_KINDS, "pil")
def gaussian_blur_image(image, kernel_size, sigma=None):
    kernel_size, sigma = _blur_args(kernel_size, sigma)
    if isinstance(image, torch.Tensor) and image.ndim < 3:  # torchvision reads shape[-3]
        raise IndexError("tuple index out of range")
    if isinstance(image, torch.Tensor) and image.numel() == 0:
        return image
    if not isinstance(image, torch.Tensor):
        blurred = _blur_tensor(F1.pil_to_tensor(image), kernel_size, sigma)
        return F1.to_pil_image(blurred, mode=image.mode)
    return _blur_tensor(image, kernel_size, sigma)


gaussian_blur_video = gaussian_blur_image


def _num_value_bits(dtype):
    bits = {torch.uint8: 8, torch.int8: 7, torch.int16: 15, torch.uint16: 16, torch.int32: 31,
            torch.int64: 63}
    if dtype not in bits:
        raise TypeError(f"Number of value bits is only defined for integer dtypes, but got "
                        f"{dtype}.")
    return bits[dtype]


def to_dtype(inpt, dtype=torch.float32, scale=False):
    """``inpt`` in ``dtype``; with ``scale``, images and videos are rescaled from their
    dtype's value range to the new one (masks and boxes are only cast)."""
    return _call(to_dtype, inpt, dtype=dtype, scale=scale)


@_register(to_dtype, *_IMAGE_KINDS)
def to_dtype_image(image, dtype=torch.float32, scale=False):
    if image.dtype == dtype:
        return image
    if not scale:
        return image.to(dtype)
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if (image.dtype == torch.float32 and dtype in (torch.int32, torch.int64)) or (
                image.dtype == torch.float64 and dtype == torch.int64):
            raise RuntimeError(f"The conversion from {image.dtype} to {dtype} cannot be "
                               "performed safely.")
        # 1.0 maps to the top value; the 1e-3 keeps it from overflowing
        return image.mul(float(_max_value(dtype)) + 1.0 - 1e-3).to(dtype)
    if dtype.is_floating_point:
        return image.to(dtype).mul_(1.0 / _max_value(image.dtype))
    bits_in, bits_out = _num_value_bits(image.dtype), _num_value_bits(dtype)
    if bits_in > bits_out:
        return image.bitwise_right_shift(bits_in - bits_out).to(dtype)
    return image.to(dtype).bitwise_left_shift_(bits_out - bits_in)


to_dtype_video = to_dtype_image


@_register(to_dtype, tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints,
           unwrap=False)
def _to_dtype_tensor_dispatch(inpt, dtype, scale=False):
    return inpt.to(dtype)  # TVTensor.to keeps the kind and metadata


def convert_image_dtype(image, dtype=torch.float32):
    """``to_dtype(image, dtype, scale=True)`` (the v1 name)."""
    return to_dtype(image, dtype=dtype, scale=True)


def erase(inpt, i, j, h, w, v, inplace=False):
    """Overwrite the ``h`` x ``w`` box at row ``i``, column ``j`` with ``v``."""
    return _call(erase, inpt, i=i, j=j, h=h, w=w, v=v, inplace=inplace)


@_register(erase, *_IMAGE_KINDS)
def erase_image(image, i, j, h, w, v, inplace=False):
    if not inplace:
        image = image.clone()
    image[..., i:i + h, j:j + w] = v
    return image


erase_video = erase_image


@_register(erase, "pil")
def _erase_image_pil(image, i, j, h, w, v, inplace=False):
    t = F1.pil_to_tensor(image)
    return F1.to_pil_image(erase_image(t, i, j, h, w, v, inplace=inplace), mode=image.mode)


def _sanitize_mask(boxes, format, canvas_size, min_size=1.0, min_area=1.0):
    """Which boxes are big enough and lie on the canvas (no negative or too large corner)."""
    if tv_tensors.is_rotated_bounding_format(format):
        corners = _convert_bounding_box_format(boxes, format,
                                               tv_tensors.BoundingBoxFormat.XYXYXYXY)
        return sanitize_rotated_mask(corners, canvas_size, min_size, min_area)
    corners = _convert_bounding_box_format(boxes, format, tv_tensors.BoundingBoxFormat.XYXY)
    x0, y0, x1, y1 = (corners[:, i] for i in range(4))
    wide, tall = x1 - x0, y1 - y0
    height, width = canvas_size
    big_enough = (wide >= min_size) & (tall >= min_size) & (wide * tall >= min_area)
    on_canvas = (corners >= 0).all(dim=-1) & (x0 <= width) & (x1 <= width) & \
        (y0 <= height) & (y1 <= height)
    return big_enough & on_canvas


def sanitize_bounding_boxes(bounding_boxes, format=None, canvas_size=None, min_size=1.0,
                            min_area=1.0):
    """The boxes that are at least ``min_size`` wide and high, ``min_area`` in area and
    inside the canvas, and the boolean mask that picks them (for labels and masks)."""
    given = f"format={format} and canvas_size={canvas_size}"
    boxed = _takes_metadata(
        bounding_boxes, tv_tensors.BoundingBoxes, format is not None and canvas_size is not None,
        f"format and canvas_size cannot be None if bounding_boxes is a pure tensor. Got {given}."
        "Set those to appropriate values or pass bounding_boxes as a tv_tensors.BoundingBoxes "
        "object.", format is None and canvas_size is None,
        "format and canvas_size must be None when bounding_boxes is a tv_tensors.BoundingBoxes "
        f"instance. Got {given}. Leave those to None or pass bounding_boxes as a pure tensor.",
        ValueError("bounding_boxes must be a tv_tensors.BoundingBoxes instance or a pure "
                   "tensor."))
    if not boxed:
        valid = _sanitize_mask(bounding_boxes, _parse_format(format), canvas_size, min_size,
                               min_area)
        return bounding_boxes[valid], valid
    data = _plain(bounding_boxes)
    valid = _sanitize_mask(data, bounding_boxes.format, bounding_boxes.canvas_size, min_size,
                           min_area)
    return tv_tensors.wrap(data[valid], like=bounding_boxes), valid


def gaussian_noise(inpt, mean=0.0, sigma=0.1, clip=True):
    """Add normal noise of ``mean`` and ``sigma`` (in [0, 1] units; uint8 images in 0-255
    units), clipped to the value range with ``clip``."""
    return _call(gaussian_noise, inpt, mean=mean, sigma=sigma, clip=clip)


@_register(gaussian_noise, *_IMAGE_KINDS)
def gaussian_noise_image(image, mean=0.0, sigma=0.1, clip=True):
    if sigma < 0:
        raise ValueError(f"sigma shouldn't be negative. Got {sigma}")
    is_float = image.is_floating_point()
    if not is_float and image.dtype != torch.uint8:
        raise ValueError(f"Input tensor is expected to be in uint8 or float dtype, got "
                         f"dtype={image.dtype}")
    if is_float:  # noise in [0, 1] units
        noisy = image + (mean + torch.randn_like(image) * sigma)
        return noisy.clamp(0, 1) if clip else noisy
    # uint8: noise in 0-255 units, truncated to whole levels before it is added
    draw = torch.randn_like(image, dtype=torch.float32)
    noisy = image + (mean * 255 + draw * (sigma * 255)).to(torch.int16)
    return (noisy.clamp(0, 255) if clip else noisy).to(torch.uint8)


gaussian_noise_video = gaussian_noise_image


@_register(gaussian_noise, "pil")
def _gaussian_noise_pil(image, mean=0.0, sigma=0.1, clip=True):
    raise ValueError("Gaussian Noise is not implemented for PIL images.")


def uniform_temporal_subsample(inpt, num_samples):
    """``num_samples`` frames evenly spaced over the video (dimension -4)."""
    return _call(uniform_temporal_subsample, inpt, num_samples=num_samples)


@_register(uniform_temporal_subsample, torch.Tensor, tv_tensors.Video)
def uniform_temporal_subsample_video(video, num_samples):
    indices = torch.linspace(0, video.shape[-4] - 1, num_samples).long()
    return torch.index_select(video, -4, indices)


def to_tensor(inpt):
    """Deprecated: ``to_image`` followed by ``to_dtype(..., torch.float32, scale=True)``."""
    import warnings

    warnings.warn("The function `to_tensor(...)` is deprecated and will be removed in a future "
                  "release. Instead, please use `to_image(...)` followed by `to_dtype(..., "
                  "dtype=torch.float32, scale=True)`.")
    return F1.to_tensor(inpt)


def get_image_size(inpt):
    """Deprecated: ``[width, height]`` (``get_size`` gives ``[height, width]``)."""
    import warnings

    warnings.warn("The function `get_image_size(...)` is deprecated and will be removed in a "
                  "future release. Instead, please use `get_size(...)` which returns `[h, w]` "
                  "instead of `[w, h]`.")
    return F1.get_image_size(inpt)
