"""The rest of ``transforms.functional``: grayscale, erasing, blur and the per-pixel colour
operations that AutoAugment and friends use."""

import numtorch as torch

from .._pil import is_pil_image
from . import _functional_pil as F_pil
from . import _functional_tensor as F_t
from . import _functional_tensor_geometry as F_g
from .functional import pil_to_tensor, to_pil_image


def _is_tensor(img):
    return isinstance(img, torch.Tensor)


def to_grayscale(img, num_output_channels=1):
    """A PIL image in mode ``L`` (one channel) or as three equal RGB channels."""
    if is_pil_image(img):
        return F_pil.to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def rgb_to_grayscale(img, num_output_channels=1):
    """Luma (0.2989 R + 0.587 G + 0.114 B) of an RGB image, as 1 or 3 channels."""
    if not _is_tensor(img):
        return F_pil.to_grayscale(img, num_output_channels)
    return F_t.rgb_to_grayscale(img, num_output_channels)


def erase(img, i, j, h, w, v, inplace=False):
    """Overwrite the box of size ``h`` x ``w`` at row ``i``, column ``j`` of a tensor image
    with ``v``."""
    if not _is_tensor(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace=inplace)


def gaussian_blur(img, kernel_size, sigma=None):
    """Blur with a Gaussian kernel (``kernel_size`` odd, (kx, ky) or one int; ``sigma``
    defaulting to ``0.15 * size + 0.35``), reflecting the image at its borders."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError("kernel_size should be int or a sequence of integers. Got "
                        f"{type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError("If kernel_size is a sequence its length should be 2. Got "
                         f"{len(kernel_size)}")
    for k in kernel_size:
        if k % 2 == 0 or k < 0:
            raise ValueError(f"kernel_size should have odd and positive integers. Got "
                             f"{kernel_size}")
    if sigma is None:
        sigma = [k * 0.15 + 0.35 for k in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    if _is_tensor(img):
        return F_g.gaussian_blur(img, kernel_size, sigma)
    if not is_pil_image(img):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
    out = F_g.gaussian_blur(pil_to_tensor(img), kernel_size, sigma)
    return to_pil_image(out, mode=img.mode)


def invert(img):
    """``max - I`` for every channel."""
    return F_t.invert(img) if _is_tensor(img) else F_pil.invert(img)


def posterize(img, bits):
    """Keep the top ``bits`` bits (0-8) of each uint8 channel value."""
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    return F_t.posterize(img, bits) if _is_tensor(img) else F_pil.posterize(img, bits)


def solarize(img, threshold):
    """Invert the values at or above ``threshold``."""
    return F_t.solarize(img, threshold) if _is_tensor(img) else F_pil.solarize(img, threshold)


def adjust_sharpness(img, sharpness_factor):
    """Blend with a smoothed copy (0: smooth, 1: unchanged, 2: sharper)."""
    if not _is_tensor(img):
        return F_pil.adjust_sharpness(img, sharpness_factor)
    return F_t.adjust_sharpness(img, sharpness_factor)


def autocontrast(img):
    """Stretch each channel so its darkest value becomes 0 and its brightest the maximum."""
    return F_t.autocontrast(img) if _is_tensor(img) else F_pil.autocontrast(img)


def equalize(img):
    """Histogram-equalise each channel of a uint8 image."""
    return F_t.equalize(img) if _is_tensor(img) else F_pil.equalize(img)
