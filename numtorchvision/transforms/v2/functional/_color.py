"""Colour functionals for images and videos (tensors through the v1 kernels, PIL images
through Pillow); masks and boxes are not colour data and are not registered."""

import numtorch as torch

from .... import tv_tensors
from ... import functional as F1
from ..._functional_tensor import _max_value
from ._misc import to_dtype_image
from ._utils import _KERNELS, _call, _register

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
adjust_contrast, _v1_contrast = _functional(
    "adjust_contrast", F1.adjust_contrast, "Blend with the mean grey level.")
adjust_saturation, _v1_saturation = _functional(
    "adjust_saturation", F1.adjust_saturation, "Blend with the grayscale image.")
adjust_hue, _v1_hue = _functional(
    "adjust_hue", F1.adjust_hue, "Shift the hue by a fraction of the colour circle.")
adjust_gamma, _v1_gamma = _functional(
    "adjust_gamma", F1.adjust_gamma, "``gain * I ** gamma`` on intensities in [0, 1].")
adjust_sharpness, _v1_sharpness = _functional(
    "adjust_sharpness", F1.adjust_sharpness, "Blend with a smoothed image.")
posterize, posterize_image = _functional(
    "posterize", F1.posterize, "Keep the top ``bits`` bits of each uint8 value.")
solarize, solarize_image = _functional(
    "solarize", F1.solarize, "Invert the values at or above ``threshold``.")
autocontrast, _v1_autocontrast = _functional(
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
        return image.repeat(tuple(1 for _ in image.shape[:-3]) + (3, 1, 1))
    if not isinstance(image, torch.Tensor):
        return F1.rgb_to_grayscale(image, num_output_channels)
    gray = _luma(image).to(image.dtype)
    return gray.expand(image.shape) if num_output_channels == 3 else gray


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
    if isinstance(image, torch.Tensor) and len(permutation) != image.shape[-3]:
        raise ValueError("Length of permutation does not match number of channels: "
                         f"{len(permutation)} != {image.shape[-3]}")
    if not isinstance(image, torch.Tensor):
        from ... import functional as F1

        return F1.to_pil_image(permute_channels_image(F1.pil_to_tensor(image), permutation),
                               mode=image.mode)
    return image[..., permutation, :, :]


# -- kernels whose float arithmetic differs from v1's in torchvision (a uint8 pixel can land
#    one level apart): torchvision v2's order of operations, for tensors; PIL images keep the
#    v1 (Pillow) kernels registered above
def _check_channels(image):
    c = image.shape[-3]
    if c not in [1, 3]:
        raise TypeError(f"Input image tensor permitted channel values are 1 or 3, but found {c}")
    return c


def _add_scaled(a, b, alpha):
    """``a + alpha * b`` as torch's CPU kernel computes it for float32: one fused
    multiply-add with alpha rounded to float32 (emulated in float64, where the product is
    exact). numtorch's ``add(alpha=)`` rounds the product first."""
    if a.dtype != torch.float32:
        return a.add(b, alpha=alpha)
    alpha32 = float(torch.tensor(alpha, dtype=torch.float32))
    return (a.double() + b.double() * alpha32).float()


def _blend(image1, image2, ratio):
    ratio = float(ratio)
    out = _add_scaled(image1.mul(ratio), image2, 1.0 - ratio).clamp_(0, _max_value(image1.dtype))
    return out if image1.is_floating_point() else out.to(image1.dtype)


def _luma(image):
    r, g, b = image.unbind(dim=-3)
    return _add_scaled(_add_scaled(r.mul(0.2989), g, 0.587), b, 0.114).unsqueeze(dim=-3)


def adjust_contrast_image(image, contrast_factor):
    if not isinstance(image, torch.Tensor):
        return _v1_contrast(image, contrast_factor)
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    fp = image.is_floating_point()
    if _check_channels(image) == 3:
        gray = _luma(image)
        if not fp:
            gray = gray.floor_()
    else:
        gray = image if fp else image.to(torch.float32)
    mean = torch.mean(gray, dim=(-3, -2, -1), keepdim=True)
    return _blend(image, mean, contrast_factor)


def adjust_saturation_image(image, saturation_factor):
    if not isinstance(image, torch.Tensor):
        return _v1_saturation(image, saturation_factor)
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    if _check_channels(image) == 1:  # a gray image has no saturation (as in PIL)
        return image
    gray = _luma(image)
    if not image.is_floating_point():
        gray = gray.floor_()
    return _blend(image, gray, saturation_factor)


def autocontrast_image(image):
    if not isinstance(image, torch.Tensor):
        return _v1_autocontrast(image)
    _check_channels(image)
    if image.numel() == 0:
        return image
    bound = _max_value(image.dtype)
    fp = image.is_floating_point()
    x = image if fp else image.to(torch.float32)
    low = x.amin(dim=(-2, -1), keepdim=True)
    high = x.amax(dim=(-2, -1), keepdim=True)
    flat = high == low  # a constant channel stays as it is
    inv_scale = high.sub_(low).mul_(1.0 / bound)
    low[flat] = 0.0
    inv_scale[flat] = 1.0
    diff = x.sub(low) if fp else x.sub_(low)
    return diff.div_(inv_scale).clamp_(0, bound).to(image.dtype)


def _rgb_to_hsv(image):
    r, g, _ = image.unbind(dim=-3)
    minc, maxc = torch.aminmax(image, dim=-3)
    gray = maxc == minc  # hue and saturation 0; dividing by 1 there avoids NaN
    chroma = maxc - minc
    ones = torch.ones_like(maxc)
    s = chroma / torch.where(gray, ones, maxc)
    divisor = torch.where(gray, ones, chroma).unsqueeze_(dim=-3)
    rc, gc, bc = ((maxc.unsqueeze(dim=-3) - image) / divisor).unbind(dim=-3)
    not_r = maxc != r
    is_g = maxc == g
    hg = rc.add(2.0).sub_(bc).mul_(is_g & not_r)
    hr = bc.sub_(gc).mul_(~not_r)
    hb = gc.add_(4.0).sub_(rc).mul_(not_r & ~is_g)
    h = hr.add_(hg).add_(hb).mul_(1.0 / 6.0).add_(1.0).fmod_(1.0)
    return torch.stack((h, s, maxc), dim=-3)


# which of (v, p, q, t) each output channel takes in each hue sector
_SECTORS = [[0, 2, 1, 1, 3, 0], [3, 0, 0, 2, 1, 1], [1, 1, 3, 0, 0, 2]]


def _hsv_to_rgb(image):
    h, s, v = image.unbind(dim=-3)
    h6 = h.mul(6)
    i = torch.floor(h6)
    f = h6.sub_(i)
    i = i.to(dtype=torch.int32).remainder_(6)
    sxf = s * f
    one_minus_s = 1.0 - s
    q = (1.0 - sxf).mul_(v).clamp_(0.0, 1.0)
    t = sxf.add_(one_minus_s).mul_(v).clamp_(0.0, 1.0)
    p = one_minus_s.mul_(v).clamp_(0.0, 1.0)
    vpqt = torch.stack((v, p, q, t), dim=-3)
    select = torch.tensor(_SECTORS, dtype=torch.long)[:, i.long()]
    if select.ndim > 3:
        select = select.moveaxis(0, -3)
    return vpqt.gather(-3, select)


def adjust_hue_image(image, hue_factor):
    if not isinstance(image, torch.Tensor):
        return _v1_hue(image, hue_factor)
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if _check_channels(image) == 1 or image.numel() == 0:
        return image
    orig_dtype = image.dtype
    hsv = _rgb_to_hsv(to_dtype_image(image, torch.float32, scale=True))
    h, s, v = hsv.unbind(dim=-3)
    h.add_(hue_factor).remainder_(1.0)
    rgb = _hsv_to_rgb(torch.stack((h, s, v), dim=-3))
    return to_dtype_image(rgb, orig_dtype, scale=True)


def adjust_sharpness_image(image, sharpness_factor):
    if not isinstance(image, torch.Tensor):
        return _v1_sharpness(image, sharpness_factor)
    num_channels, height, width = image.shape[-3:]
    if num_channels not in (1, 3):
        raise TypeError(f"Input image tensor can have 1 or 3 channels, but found {num_channels}")
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    if image.numel() == 0 or height <= 2 or width <= 2:
        return image
    from numtorch.nn.functional import conv2d

    fp = image.is_floating_point()
    shape = image.shape
    x = image.reshape(-1, num_channels, height, width)
    kernel_dtype = image.dtype if fp else torch.float32
    a, b = 1.0 / 13.0, 5.0 / 13.0
    kernel = torch.tensor([[a, a, a], [a, b, a], [a, a, a]], dtype=kernel_dtype)
    output = x.to(dtype=kernel_dtype, copy=True)
    blurred = conv2d(output, kernel.expand(num_channels, 1, 3, 3), groups=num_channels)
    if not fp:
        blurred = blurred.round_()
    inner = output[..., 1:-1, 1:-1]
    inner.copy_(_add_scaled(inner, blurred.sub_(inner), 1.0 - sharpness_factor))
    output = output.clamp_(0, _max_value(image.dtype))
    if not fp:
        output = output.to(image.dtype)
    return output.reshape(shape)


def adjust_gamma_image(image, gamma, gain=1.0):
    if not isinstance(image, torch.Tensor):
        return _v1_gamma(image, gamma, gain)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    if not image.is_floating_point():
        output = to_dtype_image(image, torch.float32, scale=True).pow_(gamma)
    else:
        output = image.pow(gamma)
    if gain != 1.0:
        output = output.mul_(gain).clamp_(0.0, 1.0)
    return to_dtype_image(output, image.dtype, scale=True)


for _functional_, _kernel in ((adjust_saturation, adjust_saturation_image),
                              (adjust_sharpness, adjust_sharpness_image),
                              (adjust_gamma, adjust_gamma_image),
                              (adjust_contrast, adjust_contrast_image),
                              (autocontrast, autocontrast_image), (adjust_hue, adjust_hue_image)):
    _KERNELS.pop(_functional_)
    _register(_functional_, *_KINDS)(_kernel)
