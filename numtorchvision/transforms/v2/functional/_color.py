"""Colour functionals for images and videos (tensors through the v1 kernels, PIL images
through Pillow); masks and boxes are not colour data and are not registered."""

import numtorch as torch

from .... import tv_tensors
from ... import functional as F1
from ._utils import _call, _register

_KINDS = (torch.Tensor, tv_tensors.Image, tv_tensors.Video, "pil")
_NO_VIDEO = (torch.Tensor, tv_tensors.Image, "pil")  # torchvision has no video kernel here


def _functional(name, v1, doc):
    def functional(inpt, *args, **kwargs):
        return _call(functional, inpt, *args, **kwargs)

    def kernel(image, *args, **kwargs):
        return v1(image, *args, **kwargs)

    functional.__name__ = functional.__qualname__ = name
    functional.__doc__ = doc
    kernel.__name__ = f"{name}_image"
    _register(functional, *_KINDS)(kernel)
    return functional, kernel


adjust_brightness, adjust_brightness_image = _functional(
    "adjust_brightness", F1.adjust_brightness, "Multiply the intensities by a factor.")
adjust_contrast, adjust_contrast_image = _functional(
    "adjust_contrast", F1.adjust_contrast, "Blend with the mean grey level.")
adjust_saturation, adjust_saturation_image = _functional(
    "adjust_saturation", F1.adjust_saturation, "Blend with the grayscale image.")
adjust_hue, adjust_hue_image = _functional(
    "adjust_hue", F1.adjust_hue, "Shift the hue by a fraction of the colour circle.")
adjust_gamma, adjust_gamma_image = _functional(
    "adjust_gamma", F1.adjust_gamma, "``gain * I ** gamma`` on intensities in [0, 1].")
adjust_sharpness, adjust_sharpness_image = _functional(
    "adjust_sharpness", F1.adjust_sharpness, "Blend with a smoothed image.")
posterize, posterize_image = _functional(
    "posterize", F1.posterize, "Keep the top ``bits`` bits of each uint8 value.")
solarize, solarize_image = _functional(
    "solarize", F1.solarize, "Invert the values at or above ``threshold``.")
autocontrast, autocontrast_image = _functional(
    "autocontrast", F1.autocontrast, "Stretch each channel to the full range.")
equalize, equalize_image = _functional(
    "equalize", F1.equalize, "Equalize each channel's histogram.")
invert, invert_image = _functional("invert", F1.invert, "Invert the intensities.")


def rgb_to_grayscale(inpt, num_output_channels=1):
    """Luma of an RGB image as 1 or 3 channels."""
    return _call(rgb_to_grayscale, inpt, num_output_channels=num_output_channels)


@_register(rgb_to_grayscale, *_NO_VIDEO)
def rgb_to_grayscale_image(image, num_output_channels=1):
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels must be 1 or 3, got {num_output_channels}.")
    if isinstance(image, torch.Tensor) and image.shape[-3] == 1 and num_output_channels == 1:
        return image.clone()
    if isinstance(image, torch.Tensor) and image.shape[-3] == 1:
        return image.expand(tuple(image.shape[:-3]) + (3,) + tuple(image.shape[-2:])).clone()
    return F1.rgb_to_grayscale(image, num_output_channels)


to_grayscale = rgb_to_grayscale


def grayscale_to_rgb(inpt):
    """A one-channel image repeated to three channels (three-channel images unchanged)."""
    return _call(grayscale_to_rgb, inpt)


@_register(grayscale_to_rgb, *_NO_VIDEO)
def grayscale_to_rgb_image(image):
    if not isinstance(image, torch.Tensor):
        return image.convert(mode="RGB")
    if image.shape[-3] >= 3:
        return image
    return image.repeat(tuple(1 for _ in image.shape[:-3]) + (3, 1, 1))


def permute_channels(inpt, permutation):
    """The channels reordered by ``permutation``."""
    return _call(permute_channels, inpt, permutation=permutation)


@_register(permute_channels, *_KINDS)
def permute_channels_image(image, permutation):
    if not isinstance(image, torch.Tensor):
        from ... import functional as F1

        return F1.to_pil_image(permute_channels_image(F1.pil_to_tensor(image), permutation),
                               mode=image.mode)
    return image[..., permutation, :, :]
