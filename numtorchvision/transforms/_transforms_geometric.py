"""Transform classes that move pixels with randomly drawn parameters: random resized crops,
perspective, rotation, affine and elastic warps."""

import math
import numbers
import warnings
from collections.abc import Sequence

import numtorch as torch
from numtorch import nn

from . import functional as F
from .functional import InterpolationMode
from .transforms import (
    _SIZE_MSG,
    _check_sequence_input,
    _mode,
    _randint,
    _setup_angle,
    _setup_size,
    _uniform,
)


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _tensor_fill(img, fill, channels):
    """Tensor kernels take one float per channel."""
    if not isinstance(img, torch.Tensor) or fill is None:
        return fill
    if isinstance(fill, (int, float)):
        return [float(fill)] * channels
    return [float(f) for f in fill]


class RandomResizedCrop(nn.Module):
    """Crop a random box (area ``scale`` of the image, aspect ratio in ``ratio``, drawn
    log-uniformly) and resize it to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)")
        self.interpolation = _mode(interpolation)
        self.antialias, self.scale, self.ratio = antialias, scale, ratio

    @staticmethod
    def get_params(img, scale, ratio):
        """A random (top, left, height, width) box; after 10 misses, the largest centred box
        whose aspect ratio is within ``ratio``."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_lo, log_hi = math.log(ratio[0]), math.log(ratio[1])
        for _ in range(10):
            target = area * _uniform(scale[0], scale[1])
            aspect = math.exp(_uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(0, height - h + 1), _randint(0, width - w + 1), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation,
                              antialias=self.antialias)

    def __repr__(self):
        return (f"{self.__class__.__name__}(size={self.size}, "
                f"scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, "
                f"interpolation={self.interpolation.value}, antialias={self.antialias})")


class RandomSizedCrop(RandomResizedCrop):
    """The 0.x name of :class:`RandomResizedCrop` (deprecated there, kept working here)."""

    def __init__(self, *args, **kwargs):
        warnings.warn("transforms.RandomSizedCrop is the old name of "
                      "transforms.RandomResizedCrop; use RandomResizedCrop.", FutureWarning,
                      stacklevel=2)
        super().__init__(*args, **kwargs)


class RandomPerspective(nn.Module):
    """With probability ``p``, move each corner inwards by up to ``distortion_scale`` of half
    the image size and warp accordingly."""

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR,
                 fill=0):
        super().__init__()
        self.p = p
        self.interpolation = _mode(interpolation)
        self.distortion_scale = distortion_scale
        self.fill = _check_fill(fill)

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        if torch.rand(1) < self.p:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, fill)
        return img

    @staticmethod
    def get_params(width, height, distortion_scale):
        """(startpoints, endpoints): the image corners and randomly moved corners."""
        dx = int(distortion_scale * (width // 2))
        dy = int(distortion_scale * (height // 2))
        top_left = [_randint(0, dx + 1), _randint(0, dy + 1)]
        top_right = [_randint(width - dx - 1, width), _randint(0, dy + 1)]
        bottom_right = [_randint(width - dx - 1, width), _randint(height - dy - 1, height)]
        bottom_left = [_randint(0, dx + 1), _randint(height - dy - 1, height)]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [top_left, top_right, bottom_right, bottom_left]

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomRotation(nn.Module):
    """Rotate by an angle drawn uniformly from ``degrees`` ((min, max), or d for [-d, d])."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False,
                 center=None, fill=0):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center, self.interpolation, self.expand = center, _mode(interpolation), expand
        self.fill = _check_fill(fill)

    @staticmethod
    def get_params(degrees):
        """A random angle in [degrees[0], degrees[1]]."""
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        channels, _, _ = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        s = (f"{self.__class__.__name__}(degrees={self.degrees}, interpolation="
             f"{self.interpolation.value}, expand={self.expand}")
        if self.center is not None:
            s += f", center={self.center}"
        if self.fill is not None:
            s += f", fill={self.fill}"
        return s + ")"



class RandomAffine(nn.Module):
    """Rotate, translate, scale and shear by amounts drawn uniformly from ``degrees``,
    ``translate`` (fractions of width and height), ``scale`` (min, max) and ``shear``
    (x range, or x and y ranges)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation=InterpolationMode.NEAREST, fill=0, center=None):
        super().__init__()
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError("translation values should be between 0 and 1")
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            if any(s <= 0 for s in scale):
                raise ValueError("scale values should be positive")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _setup_angle(shear, name="shear",
                                                             req_sizes=(2, 4))
        self.interpolation = _mode(interpolation)
        self.fill = _check_fill(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """(angle, (tx, ty) in whole pixels, scale, (shear_x, shear_y)) for an image of
        ``img_size`` = [width, height]."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            shift = (int(round(_uniform(-max_dx, max_dx))), int(round(_uniform(-max_dy, max_dy))))
        else:
            shift = (0, 0)
        scale = 1.0 if scale_ranges is None else _uniform(scale_ranges[0], scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, shift, scale, (shear_x, shear_y)

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        params = self.get_params(self.degrees, self.translate, self.scale, self.shear,
                                 [width, height])
        return F.affine(img, *params, interpolation=self.interpolation, fill=fill,
                        center=self.center)

    def __repr__(self):
        s = f"{self.__class__.__name__}(degrees={self.degrees}"
        for name in ("translate", "scale", "shear"):
            if getattr(self, name) is not None:
                s += f", {name}={getattr(self, name)}"
        if self.interpolation != InterpolationMode.NEAREST:
            s += f", interpolation={self.interpolation.value}"
        if self.fill != 0:
            s += f", fill={self.fill}"
        if self.center is not None:
            s += f", center={self.center}"
        return s + ")"


def _float_pair(value, name):
    if not isinstance(value, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(value)}")
    if isinstance(value, Sequence):
        if len(value) != 2:
            raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(value)}")
        for v in value:
            if not isinstance(v, float):
                raise TypeError(f"{name} should be a sequence of floats. Got {type(v)}")
        return list(value)
    return [float(value), float(value)]


class ElasticTransform(nn.Module):
    """Displace every pixel by smooth random noise: uniform noise in [-1, 1] blurred with a
    Gaussian of ``sigma`` and scaled by ``alpha`` pixels."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha = _float_pair(alpha, "alpha")
        self.sigma = _float_pair(sigma, "sigma")
        self.interpolation = _mode(interpolation)
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got "
                            f"{type(fill)}")
        self.fill = fill

    @staticmethod
    def get_params(alpha, sigma, size):
        """A random displacement field of shape [1, H, W, 2] for ``size`` = [H, W]."""
        fields = []
        for axis in (0, 1):
            d = torch.rand([1, 1] + list(size)) * 2 - 1
            if sigma[axis] > 0.0:
                k = int(8 * sigma[axis] + 1)
                k += 1 - k % 2  # odd kernel
                d = F.gaussian_blur(d, [k, k], sigma)
            # x displacement in units of the width, y in units of the height
            fields.append(d * alpha[axis] / size[1 - axis])
        return torch.cat(fields, 1).permute([0, 2, 3, 1])

    def forward(self, tensor):
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(alpha={self.alpha}, sigma={self.sigma}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
