"""The PIL-image side of ``transforms.functional``: each function is a thin layer over Pillow,
so its pixels are Pillow's."""

import numbers

import numpy as np

from .._pil import from_array, is_pil_image, pil, pil_submodule

_is_pil_image = is_pil_image


def _need_pil(img):
    if not is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img):
    """``[channels, height, width]`` of a PIL image."""
    if not is_pil_image(img):
        raise TypeError(f"Unexpected type {type(img)}")
    return [len(img.getbands()), img.size[1], img.size[0]]


def get_image_size(img):
    """``[width, height]`` of a PIL image."""
    if not is_pil_image(img):
        raise TypeError(f"Unexpected type {type(img)}")
    return list(img.size)


def get_image_num_channels(img):
    """Number of bands of a PIL image."""
    if not is_pil_image(img):
        raise TypeError(f"Unexpected type {type(img)}")
    return len(img.getbands())


def hflip(img):
    _need_pil(img)
    return img.transpose(pil().Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    _need_pil(img)
    return img.transpose(pil().Transpose.FLIP_TOP_BOTTOM)


def _enhance(kind, img, factor):
    _need_pil(img)
    return getattr(pil_submodule("ImageEnhance"), kind)(img).enhance(factor)


def adjust_brightness(img, brightness_factor):
    return _enhance("Brightness", img, brightness_factor)


def adjust_contrast(img, contrast_factor):
    return _enhance("Contrast", img, contrast_factor)


def adjust_saturation(img, saturation_factor):
    return _enhance("Color", img, saturation_factor)


def adjust_sharpness(img, sharpness_factor):
    return _enhance("Sharpness", img, sharpness_factor)


def adjust_hue(img, hue_factor):
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _need_pil(img)
    mode = img.mode
    if mode in ("L", "1", "I", "F"):
        return img  # no hue to turn
    Image = pil()
    h, s, v = img.convert("HSV").split()
    # the hue band is a uint8 angle: adding wraps around the colour circle
    shift = np.uint8(np.int32(hue_factor * 255) & 0xFF)
    hue = np.asarray(h, dtype=np.uint8) + shift
    return Image.merge("HSV", (from_array(hue, "L"), s, v)).convert(mode)


def adjust_gamma(img, gamma, gain=1.0):
    _need_pil(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    mode = img.mode
    # 255.999 instead of 256 so that only an input of 255 with gain 1 reaches 255
    table = [int((255 + 1 - 1e-3) * gain * pow(level / 255.0, gamma)) for level in range(256)]
    return img.convert("RGB").point(table * 3).convert(mode)


def _border(padding):
    """(left, top, right, bottom) from an int or a 1-, 2- or 4-sequence."""
    if isinstance(padding, numbers.Number):
        return (int(padding),) * 4
    if len(padding) == 1:
        return (int(padding[0]),) * 4
    if len(padding) == 2:
        return (padding[0], padding[1], padding[0], padding[1])
    return tuple(padding)


def pad(img, padding, fill=0, padding_mode="constant"):
    _need_pil(img)
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (list, tuple)) and len(padding) not in (1, 2, 4):
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    left, top, right, bottom = _border(padding)
    Image = pil()
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        ops = pil_submodule("ImageOps")
        border = padding if isinstance(padding, numbers.Number) else (left, top, right, bottom)
        out = ops.expand(img, border=border, **_parse_fill(fill, img, name="fill"))
    else:
        # negative padding crops first
        c_left, c_top, c_right, c_bottom = (max(-p, 0) for p in (left, top, right, bottom))
        if c_left or c_top or c_right or c_bottom:
            img = img.crop((c_left, c_top, img.width - c_right, img.height - c_bottom))
        left, top, right, bottom = (max(p, 0) for p in (left, top, right, bottom))
        arr = np.asarray(img)
        widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
        out = Image.fromarray(np.pad(arr, widths, mode=padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    _need_pil(img)
    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation=2):
    _need_pil(img)
    if not (isinstance(size, list) and len(size) == 2):
        raise TypeError(f"Got inappropriate size arg: {size}")
    return img.resize((size[1], size[0]), interpolation)


def _parse_fill(fill, img, name="fillcolor"):
    """Pillow's keyword for a fill colour: one value per band, ints unless mode ``F``."""
    bands = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = (fill,) * bands
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError("The number of elements in 'fill' does not match the number of "
                             f"channels of the image ({len(fill)} != {bands})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(v) for v in fill) if isinstance(fill, tuple) else int(fill)
    return {name: fill}


def affine(img, matrix, interpolation=0, fill=None):
    _need_pil(img)
    return img.transform(img.size, pil().Transform.AFFINE, matrix, interpolation,
                         **_parse_fill(fill, img))


def rotate(img, angle, interpolation=0, expand=False, center=None, fill=None):
    _need_pil(img)
    return img.rotate(angle, interpolation, expand, center, **_parse_fill(fill, img))


def perspective(img, perspective_coeffs, interpolation=3, fill=None):
    _need_pil(img)
    return img.transform(img.size, pil().Transform.PERSPECTIVE, perspective_coeffs,
                         interpolation, **_parse_fill(fill, img))


def to_grayscale(img, num_output_channels):
    _need_pil(img)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = img.convert("L")
    if num_output_channels == 1:
        return gray
    arr = np.asarray(gray, dtype=np.uint8)
    return from_array(np.stack([arr, arr, arr], axis=-1), "RGB")


def invert(img):
    _need_pil(img)
    return pil_submodule("ImageOps").invert(img)


def posterize(img, bits):
    _need_pil(img)
    return pil_submodule("ImageOps").posterize(img, bits)


def solarize(img, threshold):
    _need_pil(img)
    return pil_submodule("ImageOps").solarize(img, threshold)


def autocontrast(img):
    _need_pil(img)
    return pil_submodule("ImageOps").autocontrast(img)


def equalize(img):
    _need_pil(img)
    return pil_submodule("ImageOps").equalize(img)
