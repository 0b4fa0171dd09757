"""Colour functionals for images and videos (tensors through the v1 kernels, PIL images
through Pillow); masks and boxes are not colour data and are not registered."""

import inspect

import numtorch as torch

from .... import tv_tensors
from ... import _functional_pil as _FP
from ... import functional as F1
from ..._functional_tensor import _max_value
from ._misc import _num_value_bits, to_dtype_image
from ._utils import _TABLE, _call, _need_chw, _register

_KINDS = (torch.Tensor, tv_tensors.Image, tv_tensors.Video, "pil")
_NO_VIDEO = (torch.Tensor, tv_tensors.Image, "pil")  # torchvision has no video kernel here


def _exact(name, params, target):
    """A function named ``name`` whose parameters are exactly ``params`` (source text:
    torchvision's signature) and that hands them to ``target`` positionally. Python's own
    TypeError for a bad call (an unknown keyword, a missing or extra argument) then names
    ``name`` and the parameters as torchvision's does."""
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]
    space = {"_target": target, "__name__": __name__}  # (__module__: this module's)
    exec(f"def {name}({params}):\n    return _target({', '.join(names)})\n", space)  # noqa: S102
    return space[name]


def _functional(name, v1, doc, params, register=True):
    """The functional ``name(inpt, <params>)``, which calls the kernel for ``inpt``'s kind
    with the parameters as keywords (as torchvision's functionals do: a kernel registered
    for a custom TVTensor may take them as ``**kwargs``), and its image kernel
    ``name_image(image, <params>)`` running ``v1``."""
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]

    def dispatch(inpt, *values):
        return _call(functional, inpt, **dict(zip(names, values)))

    functional = _exact(name, f"inpt, {params}", dispatch)
    functional.__doc__ = doc
    kernel = _exact(f"{name}_image", f"image, {params}", v1)
    if register:
        _register(functional, *_KINDS)(kernel)
    return functional, kernel


def _v2_brightness(image, brightness_factor):
    if not isinstance(image, torch.Tensor):
        return F1.adjust_brightness(image, brightness_factor)
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    # v2 reads the channel count itself (its wording; fewer than 3 dims fail on shape[-3])
    _gray_or_rgb(image)
    # v2 multiplies by the factor as given (not v1's float blend): an integer factor keeps an
    # integer image's dtype, so its products wrap around before the clamp, as torchvision's
    out = image.mul(brightness_factor).clamp_(0, _max_value(image.dtype))
    return out if image.is_floating_point() else out.to(image.dtype)


adjust_brightness, adjust_brightness_image = _functional(
    "adjust_brightness", _v2_brightness, "Multiply the intensities by a factor.",
    "brightness_factor")
adjust_contrast, _v1_contrast = _functional(
    "adjust_contrast", F1.adjust_contrast, "Blend with the mean grey level.", "contrast_factor")
adjust_saturation, _v1_saturation = _functional(
    "adjust_saturation", F1.adjust_saturation, "Blend with the grayscale image.",
    "saturation_factor")
adjust_hue, _v1_hue = _functional(
    "adjust_hue", F1.adjust_hue, "Shift the hue by a fraction of the colour circle.",
    "hue_factor")
adjust_gamma, _v1_gamma = _functional(
    "adjust_gamma", F1.adjust_gamma, "``gain * I ** gamma`` on intensities in [0, 1].",
    "gamma, gain=1")
adjust_sharpness, _v1_sharpness = _functional(
    "adjust_sharpness", F1.adjust_sharpness, "Blend with a smoothed image.",
    "sharpness_factor")
posterize, _ = _functional(  # kernels at the end: v2 takes any dtype
    "posterize", F1.posterize, "Keep the top ``bits`` bits of each value (``2**bits`` levels).",
    "bits", register=False)


def _v2_solarize(image, threshold):
    # v2's own bound check (its wording), before the v1 kernel's
    if isinstance(image, torch.Tensor) and threshold > _max_value(image.dtype):
        raise TypeError("Threshold should be less or equal the maximum value of the dtype, "
                        f"but got {threshold}")
    if isinstance(image, torch.Tensor):  # v2: elementwise, any shape and channel count
        return torch.where(image >= threshold, _v2_invert(image), image)
    return F1.solarize(image, threshold)


solarize, solarize_image = _functional(
    "solarize", _v2_solarize, "Invert the values at or above ``threshold``.", "threshold")
autocontrast, _v1_autocontrast = _functional(
    "autocontrast", F1.autocontrast, "Stretch each channel to the full range.", "")
equalize, _ = _functional(
    "equalize", F1.equalize, "Equalize each channel's histogram.", "", register=False)


def _v2_invert(image):
    # v2 inverts tensors elementwise (any shape, any channel count), unlike v1
    if not isinstance(image, torch.Tensor):
        return F1.invert(image)
    if image.is_floating_point():
        return 1.0 - image
    if image.dtype == torch.uint8:
        return image.bitwise_not()
    return (1 << _num_value_bits(image.dtype)) - 1 - image


invert, invert_image = _functional("invert", _v2_invert, "Invert the intensities.", "")


def _tensor_kernel(pil_kernel):
    """Decorates a tensor kernel so that PIL images go to ``pil_kernel`` instead."""
    def wrap(tensor_kernel):
        def either(image, *values):
            if isinstance(image, torch.Tensor):
                return tensor_kernel(image, *values)
            return pil_kernel(image, *values)

        # the tensor kernel's own signature (torchvision's), for its TypeError texts
        kernel = _exact(tensor_kernel.__name__,
                        str(inspect.signature(tensor_kernel))[1:-1], either)
        kernel.__doc__ = tensor_kernel.__doc__
        return kernel
    return wrap


def _as_three_channels(image):
    lead = (1,) * (image.ndim - 3)
    return image.repeat(lead + (3, 1, 1))


def rgb_to_grayscale(inpt, num_output_channels=1):
    """Luma of an RGB image as 1 or 3 channels."""
    return _call(rgb_to_grayscale, inpt, num_output_channels=num_output_channels)


def _pil_grayscale(image, num_output_channels=1):
    return F1.rgb_to_grayscale(image, num_output_channels)


@_register(rgb_to_grayscale, *_NO_VIDEO)
def rgb_to_grayscale_image(image, num_output_channels=1):
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels must be 1 or 3, got {num_output_channels}.")
    return _grayscale_tensor(image, num_output_channels)


@_tensor_kernel(_pil_grayscale)
def _grayscale_tensor(image, channels):
    if image.shape[-3] == 1:
        return image.clone() if channels == 1 else _as_three_channels(image)
    gray = _luma(image).to(image.dtype)
    return gray if channels == 1 else gray.expand(image.shape)


to_grayscale = rgb_to_grayscale


def grayscale_to_rgb(inpt):
    """A one-channel image repeated to three channels (three-channel images unchanged)."""
    return _call(grayscale_to_rgb, inpt)


@_register(grayscale_to_rgb, *_NO_VIDEO)
@_tensor_kernel(lambda image: image.convert(mode="RGB"))
def grayscale_to_rgb_image(image):
    channels = image.shape[-3]
    if channels > 2:
        return image
    if channels != 1:  # torchvision reads two channels as r, g, b
        raise ValueError(f"not enough values to unpack (expected 3, got {channels})")
    return _as_three_channels(image)


def permute_channels(inpt, permutation):
    """The channels reordered by ``permutation``."""
    return _call(permute_channels, inpt, permutation=permutation)


def _pil_permute(image, permutation):
    as_tensor = permute_channels_image(F1.pil_to_tensor(image), permutation)
    return F1.to_pil_image(as_tensor, mode=image.mode)


@_register(permute_channels, *_KINDS)
@_tensor_kernel(_pil_permute)
def permute_channels_image(image, permutation):
    _need_chw(image)
    channels = image.shape[-3]
    if len(permutation) != channels:
        raise ValueError("Length of permutation does not match number of channels: "
                         f"{len(permutation)} != {channels}")
    return image[..., permutation, :, :]


# -- kernels whose float arithmetic differs from v1's in torchvision (a uint8 pixel can land
#    one level apart): torchvision v2's order of operations, for tensors; PIL images keep the
#    v1 (Pillow) kernels registered above
def _gray_or_rgb(image, message="Input image tensor permitted channel values are 1 or 3, but "
                                "found {}"):
    channels = image.shape[-3]
    if channels != 1 and channels != 3:
        raise TypeError(message.format(channels))
    return channels


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


def _gray_reference(image):
    """The luma an RGB image is blended with (floored for integer images)."""
    gray = _luma(image)
    return gray if image.is_floating_point() else gray.floor_()


def _non_negative(value, name):
    if value < 0:
        raise ValueError(f"{name} ({value}) is not non-negative.")


@_tensor_kernel(_v1_contrast)
def adjust_contrast_image(image, contrast_factor):
    _non_negative(contrast_factor, "contrast_factor")
    if _gray_or_rgb(image) == 3:
        reference = _gray_reference(image)
    else:
        reference = image if image.is_floating_point() else image.to(torch.float32)
    level = reference.mean(dim=(-3, -2, -1), keepdim=True)
    return _blend(image, level, contrast_factor)


@_tensor_kernel(_v1_saturation)
def adjust_saturation_image(image, saturation_factor):
    _non_negative(saturation_factor, "saturation_factor")
    if _gray_or_rgb(image) == 1:  # a gray image has no saturation (as in PIL)
        return image
    return _blend(image, _gray_reference(image), saturation_factor)


@_tensor_kernel(_v1_autocontrast)
def autocontrast_image(image):
    _gray_or_rgb(image)
    if image.numel() == 0:
        return image
    top = _max_value(image.dtype)
    is_float = image.is_floating_point()
    work = image if is_float else image.to(torch.float32)
    lo = work.amin(dim=(-2, -1), keepdim=True)
    hi = work.amax(dim=(-2, -1), keepdim=True)
    constant = hi == lo  # a constant channel stays as it is
    step = (hi - lo).mul_(1.0 / top)
    lo[constant] = 0.0
    step[constant] = 1.0
    shifted = work - lo if is_float else work.sub_(lo)
    return shifted.div_(step).clamp_(0, top).to(image.dtype)


def _rgb_to_hsv(image):
    red, green, _ = image.unbind(dim=-3)
    low, value = torch.aminmax(image, dim=-3)
    flat = value == low  # hue and saturation 0; dividing by 1 there avoids NaN
    spread = value - low
    one = torch.ones_like(value)
    saturation = spread / torch.where(flat, one, value)
    scaled = (value.unsqueeze(dim=-3) - image) / torch.where(flat, one, spread).unsqueeze_(-3)
    dr, dg, db = scaled.unbind(dim=-3)
    red_top = value == red
    green_top = (value == green) & ~red_top
    blue_top = ~red_top & ~(value == green)
    # the three sectors' hues, each zeroed outside its sector, summed
    hue = (db - dg) * red_top
    hue = hue + (dr + 2.0 - db) * green_top
    hue = hue + (dg + 4.0 - dr) * blue_top
    hue = torch.fmod(hue * (1.0 / 6.0) + 1.0, 1.0)
    return torch.stack((hue, saturation, value), dim=-3)


# which of (v, p, q, t) each output channel takes in each hue sector
_SECTORS = [[0, 2, 1, 1, 3, 0], [3, 0, 0, 2, 1, 1], [1, 1, 3, 0, 0, 2]]


def _hsv_to_rgb(image):
    hue, sat, val = image.unbind(dim=-3)
    sixths = hue * 6
    whole = torch.floor(sixths)
    frac = sixths - whole
    sector = whole.to(dtype=torch.int32).remainder_(6).long()
    sf = sat * frac
    grey = 1.0 - sat
    candidates = torch.stack((val, (grey * val).clamp_(0.0, 1.0),
                              ((1.0 - sf) * val).clamp_(0.0, 1.0),
                              ((sf + grey) * val).clamp_(0.0, 1.0)), dim=-3)
    pick = torch.tensor(_SECTORS, dtype=torch.long)[:, sector]
    return candidates.gather(-3, pick.moveaxis(0, -3) if pick.ndim > 3 else pick)


@_tensor_kernel(_v1_hue)
def adjust_hue_image(image, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    if _gray_or_rgb(image) == 1 or image.numel() == 0:
        return image
    hsv = _rgb_to_hsv(to_dtype_image(image, torch.float32, scale=True))
    turned = torch.cat([(hsv[..., :1, :, :] + hue_factor).remainder_(1.0),
                        hsv[..., 1:, :, :]], dim=-3)
    return to_dtype_image(_hsv_to_rgb(turned), image.dtype, scale=True)


@_tensor_kernel(_v1_sharpness)
def adjust_sharpness_image(image, sharpness_factor):
    from numtorch.nn.functional import conv2d

    _need_chw(image)
    channels = _gray_or_rgb(image, "Input image tensor can have 1 or 3 channels, but found {}")
    _non_negative(sharpness_factor, "sharpness_factor")
    height, width = image.shape[-2:]
    if image.numel() == 0 or min(height, width) <= 2:
        return image
    is_float = image.is_floating_point()
    work_dtype = image.dtype if is_float else torch.float32
    # 3x3 smoothing: weight 5 in the middle, 1 around, over 13
    weights = torch.full((3, 3), 1.0 / 13.0, dtype=work_dtype)
    weights[1, 1] = 5.0 / 13.0
    work = image.reshape(-1, channels, height, width).to(dtype=work_dtype, copy=True)
    smooth = conv2d(work, weights.expand(channels, 1, 3, 3), groups=channels)
    if not is_float:
        smooth = smooth.round_()
    middle = work[..., 1:-1, 1:-1]  # the border keeps its pixels
    middle.copy_(_add_scaled(middle, smooth - middle, 1.0 - sharpness_factor))
    work = work.clamp_(0, _max_value(image.dtype))
    return (work if is_float else work.to(image.dtype)).reshape(image.shape)


@_tensor_kernel(_v1_gamma)
def adjust_gamma_image(image, gamma, gain=1.0):
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    unit = image if image.is_floating_point() else to_dtype_image(image, torch.float32,
                                                                  scale=True)
    powered = unit.pow(gamma)
    if gain != 1.0:
        powered = (powered * gain).clamp_(0.0, 1.0)
    return to_dtype_image(powered, image.dtype, scale=True)


for _functional_, _kernel in ((adjust_saturation, adjust_saturation_image),
                              (adjust_sharpness, adjust_sharpness_image),
                              (adjust_gamma, adjust_gamma_image),
                              (adjust_contrast, adjust_contrast_image),
                              (autocontrast, autocontrast_image), (adjust_hue, adjust_hue_image)):
    _TABLE.pop(_functional_)
    _register(_functional_, *_KINDS)(_kernel)


@_tensor_kernel(_FP.posterize)  # (v2 hands PIL images to Pillow without v1's range check)
def posterize_image(image, bits):
    """Any dtype and channel count: floats snap down to ``2**bits`` levels of [0, 1),
    integers keep the top ``bits`` of their value bits."""
    if not isinstance(bits, int) or not 0 <= bits <= 8:
        raise TypeError(f"bits must be a positive integer in the range [0, 8], got {bits} "
                        f"instead.")
    if image.is_floating_point():
        levels = 1 << bits
        return image.mul(levels).floor_().clamp_(0, levels - 1).mul_(1.0 / levels)
    value_bits = _num_value_bits(image.dtype)
    if bits >= value_bits:
        return image
    return image & (((1 << bits) - 1) << (value_bits - bits))


@_tensor_kernel(F1.equalize)
def equalize_image(image):
    """Any dtype and channel count: the histogram is taken on the image as uint8 (scaled)
    and the equalized result scaled back to the image's dtype."""
    if image.ndim < 2:  # torchvision reads the last two dims first
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "-2)")
    if image.numel() == 0:
        return image
    as_bytes = to_dtype_image(image, torch.uint8, scale=True)
    planes = as_bytes.reshape(-1, 1, *as_bytes.shape[-2:])
    equalized = F1.equalize(planes).reshape(as_bytes.shape)
    return to_dtype_image(equalized, image.dtype, scale=True)


_register(posterize, *_KINDS)(posterize_image)
_register(equalize, *_KINDS)(equalize_image)
