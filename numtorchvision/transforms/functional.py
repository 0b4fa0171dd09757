"""``transforms.functional``: the image operations behind the transform classes.

Each function takes a PIL image (handled by Pillow in ``_functional_pil``) or a numtorch
tensor of shape ``[..., C, H, W]`` (``_functional_tensor`` and
``_functional_tensor_geometry``) and returns the same kind of image.
"""

import numbers
import sys
import warnings
from enum import Enum

import numpy as np

import numtorch as torch

from .._pil import from_array, is_pil_image
from . import _functional_pil as F_pil
from . import _functional_tensor as F_t
from . import _functional_tensor_geometry as F_g

_is_pil_image = is_pil_image


class InterpolationMode(Enum):
    """How pixels are resampled: ``nearest``, ``nearest-exact``, ``bilinear``, ``bicubic``,
    and (PIL images only) ``box``, ``hamming``, ``lanczos``."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's resampling constants, and the modes they stand for
pil_modes_mapping = {
    InterpolationMode.NEAREST: 0, InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3, InterpolationMode.NEAREST_EXACT: 0,
    InterpolationMode.BOX: 4, InterpolationMode.HAMMING: 5, InterpolationMode.LANCZOS: 1,
}
_FROM_PIL_INT = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR,
                 3: InterpolationMode.BICUBIC, 4: InterpolationMode.BOX,
                 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}


def _interpolation_modes_from_int(i):
    return _FROM_PIL_INT[i]


def _check_interpolation(interpolation):
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a "
                        "corresponding Pillow integer constant")
    return interpolation


def _is_tensor(img):
    return isinstance(img, torch.Tensor)


def get_dimensions(img):
    """``[channels, height, width]`` of a PIL image or tensor image."""
    return F_t.get_dimensions(img) if _is_tensor(img) else F_pil.get_dimensions(img)


def get_image_size(img):
    """``[width, height]`` of a PIL image or tensor image."""
    return F_t.get_image_size(img) if _is_tensor(img) else F_pil.get_image_size(img)


def get_image_num_channels(img):
    """Number of channels of a PIL image or tensor image."""
    if _is_tensor(img):
        return F_t.get_image_num_channels(img)
    return F_pil.get_image_num_channels(img)


def to_tensor(pic):
    """A PIL image or an (H, W[, C]) ndarray as a (C, H, W) tensor.

    uint8 data (and PIL modes stored as bytes) become floats in [0, 1] of the default dtype;
    other data keep their values and type.
    """
    is_array = isinstance(pic, np.ndarray)
    if not (is_pil_image(pic) or is_array):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if is_array and pic.ndim not in (2, 3):
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    float_dtype = torch.get_default_dtype()
    if is_array:
        arr = pic[:, :, None] if pic.ndim == 2 else pic
        img = torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
        return img.to(dtype=float_dtype).div(255) if img.dtype == torch.uint8 else img
    np_type = {"I": np.int32, "F": np.float32,
               "I;16" if sys.byteorder == "little" else "I;16B": np.int16}
    arr = np.array(pic, np_type.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        arr = arr * np.uint8(255)
    arr = arr.reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    if arr.dtype == np.uint8 and float_dtype in (torch.float32, torch.float64):
        # convert, divide and lay out as (C, H, W) in one pass over the pixels: the same
        # correctly rounded ``x / 255`` as ``.to(dtype).div(255)``, without two tensor ops
        np_float = np.float32 if float_dtype is torch.float32 else np.float64
        out = np.empty((arr.shape[2], arr.shape[0], arr.shape[1]), np_float)
        np.divide(arr.transpose(2, 0, 1), np_float(255), out=out)
        return torch.from_numpy(out)
    img = torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    return img.to(dtype=float_dtype).div(255) if img.dtype == torch.uint8 else img


def pil_to_tensor(pic):
    """A PIL image as a (C, H, W) tensor with the image's own values and type (16-bit
    modes ``I;16*`` as uint16, as torchvision gives them under torch >= 2.3)."""
    if not is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic, copy=True)
    arr = arr.reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    return torch.from_numpy(arr).permute((2, 0, 1))


def convert_image_dtype(image, dtype=torch.float32):
    """Cast a tensor image to ``dtype``, rescaling values between the types' ranges
    (floats span [0, 1], integers [0, max])."""
    if not _is_tensor(image):
        raise TypeError("Input img should be Tensor Image")
    return F_t.convert_image_dtype(image, dtype)


_MODES_BY_CHANNELS = {2: ["LA"], 4: ["RGBA", "CMYK", "RGBX"], 3: ["RGB", "YCbCr", "HSV"]}
_DEFAULT_MODE = {2: "LA", 3: "RGB", 4: "RGBA"}


def to_pil_image(pic, mode=None):
    """A (C, H, W) tensor or (H, W, C) ndarray as a PIL image.

    Floating data (except for ``mode='F'``) is taken as [0, 1] and scaled to bytes.
    """
    if _is_tensor(pic):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = pic.numpy(force=True)
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    channels = pic.shape[-1]
    if channels > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {channels} channels.")
    arr = pic
    if np.issubdtype(arr.dtype, np.floating) and mode != "F":
        arr = (arr * 255).astype(np.uint8)
    if channels == 1:
        arr = arr[:, :, 0]
        expected = {np.dtype(np.uint8): "L", np.dtype(np.int32): "I",
                    np.dtype(np.float32): "F",
                    np.dtype(np.int16): "I;16" if sys.byteorder == "little" else "I;16B"
                    }.get(arr.dtype)
        if mode is not None and mode != expected:
            # torchvision's message names the NumPy dtype class, whatever the array's dtype
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. "
                             f"Should be {expected}")
        mode = expected
    else:
        allowed = _MODES_BY_CHANNELS[channels]
        if mode is not None and mode not in allowed:
            kind = {2: "2D", 3: "3D", 4: "4D"}[channels]
            raise ValueError(f"Only modes {allowed} are supported for {kind} inputs")
        if mode is None and arr.dtype == np.uint8:
            mode = _DEFAULT_MODE[channels]
    if mode is None:
        raise TypeError(f"Input type {arr.dtype} is not supported")
    return from_array(arr, mode)


def normalize(tensor, mean, std, inplace=False):
    """``(tensor - mean) / std`` per channel of a float tensor image ``[..., C, H, W]``."""
    if not _is_tensor(tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    return F_t.normalize(tensor, mean=mean, std=std, inplace=inplace)


def _compute_resized_output_size(image_size, size, max_size=None, allow_size_none=False):
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if size is None:
        if not allow_size_none:
            raise ValueError("This should never happen!!")
        if not isinstance(max_size, int):
            raise ValueError(f"max_size must be an integer when size is None, but got "
                             f"{max_size} instead.")
        new_short, new_long = int(max_size * short / long), max_size
    elif len(size) == 1:
        requested = size if isinstance(size, int) else size[0]
        new_short, new_long = requested, int(requested * long / short)
        if max_size is not None:
            if max_size <= requested:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the "
                                 f"requested size for the smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
    else:
        return [size[0], size[1]]
    new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to ``size`` ((h, w), or the shorter edge when an int / 1-sequence, the other edge
    keeping the aspect ratio and capped by ``max_size``)."""
    interpolation = _check_interpolation(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in (1, 2):
            raise ValueError("Size must be an int or a 1 or 2 element tuple/list, not a "
                             f"{len(size)} element tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError("max_size should only be passed if size specifies the length of "
                             "the smaller edge, i.e. size should be an int or a sequence of "
                             "length 1 in torchscript mode.")
    _, height, width = get_dimensions(img)
    if isinstance(size, int):
        size = [size]
    out_size = _compute_resized_output_size((height, width), size, max_size)
    if [height, width] == out_size:
        return img
    if not _is_tensor(img):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument "
                          "antialias is ignored.")
        return F_pil.resize(img, size=out_size, interpolation=pil_modes_mapping[interpolation])
    return F_g.resize(img, size=out_size, interpolation=interpolation.value,
                      antialias=antialias)


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad every border (``padding``: int, (lr, tb) or (l, t, r, b)) with ``fill`` or by
    ``edge`` / ``reflect`` / ``symmetric`` copies of the border pixels."""
    if not _is_tensor(img):
        return F_pil.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)
    return F_g.pad(img, padding=padding, fill=fill, padding_mode=padding_mode)


def crop(img, top, left, height, width):
    """The ``height`` x ``width`` box at (``top``, ``left``); parts outside the image are 0."""
    if not _is_tensor(img):
        return F_pil.crop(img, top, left, height, width)
    return F_t.crop(img, top, left, height, width)


def _pair(size):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    if isinstance(size, (tuple, list)) and len(size) == 1:
        return (size[0], size[0])
    return size


def center_crop(img, output_size):
    """The centre box of ``output_size``, zero-padding an image smaller than the box."""
    crop_h, crop_w = _pair(output_size)
    _, height, width = get_dimensions(img)
    if crop_w > width or crop_h > height:
        dw, dh = max(crop_w - width, 0), max(crop_h - height, 0)
        img = pad(img, [dw // 2, dh // 2, (dw + 1) // 2, (dh + 1) // 2], fill=0)
        _, height, width = get_dimensions(img)
        if crop_w == width and crop_h == height:
            return img
    top = int(round((height - crop_h) / 2.0))
    left = int(round((width - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def resized_crop(img, top, left, height, width, size,
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
    """:func:`crop` then :func:`resize` to ``size``."""
    return resize(crop(img, top, left, height, width), size, interpolation,
                  antialias=antialias)


def hflip(img):
    """Mirror left-right."""
    return F_t.hflip(img) if _is_tensor(img) else F_pil.hflip(img)


def vflip(img):
    """Mirror top-bottom."""
    return F_t.vflip(img) if _is_tensor(img) else F_pil.vflip(img)


def five_crop(img, size):
    """The four corner crops and the centre crop of ``size``: (tl, tr, bl, br, center)."""
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    _, height, width = get_dimensions(img)
    crop_h, crop_w = size
    if crop_w > width or crop_h > height:
        raise ValueError(f"Requested crop size {size} is bigger than input size "
                         f"{(height, width)}")
    bottom, right = height - crop_h, width - crop_w
    return (crop(img, 0, 0, crop_h, crop_w), crop(img, 0, right, crop_h, crop_w),
            crop(img, bottom, 0, crop_h, crop_w), crop(img, bottom, right, crop_h, crop_w),
            center_crop(img, [crop_h, crop_w]))


def ten_crop(img, size, vertical_flip=False):
    """:func:`five_crop` of the image and of its mirror image (left-right, or top-bottom when
    ``vertical_flip``)."""
    size = _pair(size)
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def adjust_brightness(img, brightness_factor):
    """Scale intensities by ``brightness_factor`` (0: black, 1: unchanged)."""
    if not _is_tensor(img):
        return F_pil.adjust_brightness(img, brightness_factor)
    return F_t.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Blend with the mean gray level (0: flat gray, 1: unchanged)."""
    if not _is_tensor(img):
        return F_pil.adjust_contrast(img, contrast_factor)
    return F_t.adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Blend with the grayscale image (0: gray, 1: unchanged)."""
    if not _is_tensor(img):
        return F_pil.adjust_saturation(img, saturation_factor)
    return F_t.adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor):
    """Turn the hue by ``hue_factor`` of a full circle (in [-0.5, 0.5])."""
    if not _is_tensor(img):
        return F_pil.adjust_hue(img, hue_factor)
    return F_t.adjust_hue(img, hue_factor)


def adjust_gamma(img, gamma, gain=1):
    """``gain * I ** gamma`` on intensities scaled to [0, 1]."""
    if not _is_tensor(img):
        return F_pil.adjust_gamma(img, gamma, gain)
    return F_t.adjust_gamma(img, gamma, gain)


from ._functional_more import (
    adjust_sharpness,
    autocontrast,
    equalize,
    erase,
    gaussian_blur,
    invert,
    posterize,
    rgb_to_grayscale,
    solarize,
    to_grayscale,
)
from ._geometry import (  # noqa: F401  (they need InterpolationMode above)
    _get_inverse_affine_matrix,
    _get_perspective_coeffs,
    affine,
    elastic_transform,
    perspective,
    rotate,
)

__all__ = [
    "InterpolationMode", "get_dimensions", "get_image_size", "get_image_num_channels",
    "to_tensor", "pil_to_tensor", "convert_image_dtype", "to_pil_image", "normalize", "resize",
    "pad", "crop", "center_crop", "resized_crop", "hflip", "vflip", "five_crop", "ten_crop",
    "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "adjust_gamma",
    "affine", "rotate", "perspective", "elastic_transform", "to_grayscale", "rgb_to_grayscale",
    "erase", "gaussian_blur", "invert", "posterize", "solarize", "adjust_sharpness",
    "autocontrast", "equalize",
]
