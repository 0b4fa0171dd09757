"""FiveCrop, TenCrop, RandomPerspective, ElasticTransform and the detection resizes
(ScaleJitter, RandomShortestSize, RandomResize)."""

import warnings

import numtorch as torch

from ... import tv_tensors
from .._geometry import _get_perspective_coeffs
from ..transforms import _randint
from . import functional as F
from ._transform import Transform, _RandomApplyTransform
from ._utils import (
    _get_fill,
    _setup_fill_arg,
    _setup_number_or_seq,
    _setup_size,
    has_any,
    query_size,
)

_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


class _MultiCrop(Transform):
    def _call_kernel(self, functional, inpt, *args, **kwargs):
        if isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints, tv_tensors.Mask)):
            warnings.warn(f"{type(self).__name__}() is currently passing through inputs of type "
                          f"tv_tensors.{type(inpt).__name__}. This will likely change in the "
                          "future.")
        return super()._call_kernel(functional, inpt, *args, **kwargs)

    def check_inputs(self, flat_inputs):
        if has_any(flat_inputs, tv_tensors.BoundingBoxes, tv_tensors.Mask):
            raise TypeError("BoundingBoxes'es and Mask's are not supported by "
                            f"{type(self).__name__}()")


class FiveCrop(_MultiCrop):
    """The four corner crops and the centre crop of ``size`` (a tuple per image)."""

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def transform(self, inpt, params):
        return self._call_kernel(F.five_crop, inpt, self.size)


class TenCrop(_MultiCrop):
    """:class:`FiveCrop` of the image and of its mirror image."""

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        self.vertical_flip = vertical_flip

    def transform(self, inpt, params):
        return self._call_kernel(F.ten_crop, inpt, self.size, vertical_flip=self.vertical_flip)


class RandomPerspective(_RandomApplyTransform):
    """With probability ``p``, move each corner inwards by up to ``distortion_scale`` of half
    the size and warp the sample accordingly."""

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation="bilinear", fill=0):
        super().__init__(p=p)
        if not (0 <= distortion_scale <= 1):
            raise ValueError("Argument distortion_scale value should be between 0 and 1")
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        bound_h = int(self.distortion_scale * (height // 2)) + 1
        bound_w = int(self.distortion_scale * (width // 2)) + 1
        topleft = [_randint(0, bound_w), _randint(0, bound_h)]
        topright = [_randint(width - bound_w, width), _randint(0, bound_h)]
        botright = [_randint(width - bound_w, width), _randint(height - bound_h, height)]
        botleft = [_randint(0, bound_w), _randint(height - bound_h, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        endpoints = [topleft, topright, botright, botleft]
        return {"coefficients": _get_perspective_coeffs(startpoints, endpoints)}

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.perspective, inpt, startpoints=None, endpoints=None,
                                 fill=fill, interpolation=self.interpolation, **params)


class ElasticTransform(Transform):
    """Displace every pixel by smoothed random noise (strength ``alpha``, smoothness
    ``sigma``)."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation="bilinear", fill=0):
        super().__init__()
        self.alpha = _setup_number_or_seq(alpha, "alpha")
        self.sigma = _setup_number_or_seq(sigma, "sigma")
        self.interpolation = interpolation
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    def _field(self, height, width, axis):
        d = torch.rand(1, 1, height, width) * 2 - 1
        if self.sigma[axis] > 0.0:
            k = int(8 * self.sigma[axis] + 1)
            k += 1 - k % 2
            d = self._call_kernel(F.gaussian_blur, d, [k, k], list(self.sigma))
        return d * self.alpha[axis] / (width if axis == 0 else height)

    def make_params(self, flat_inputs):
        height, width = query_size(flat_inputs)
        dx = self._field(height, width, 0)
        dy = self._field(height, width, 1)
        return {"displacement": torch.concat([dx, dy], 1).permute([0, 2, 3, 1])}

    def transform(self, inpt, params):
        fill = _get_fill(self._fill, type(inpt))
        return self._call_kernel(F.elastic, inpt, **params, fill=fill,
                                 interpolation=self.interpolation)


class _RandomSize(Transform):
    def __init__(self, interpolation, antialias):
        super().__init__()
        self.interpolation = interpolation
        self.antialias = antialias

    def transform(self, inpt, params):
        return self._call_kernel(F.resize, inpt, size=params["size"],
                                 interpolation=self.interpolation, antialias=self.antialias)


class ScaleJitter(_RandomSize):
    """Resize to ``target_size`` (w, h) times a factor drawn from ``scale_range``, keeping the
    aspect ratio."""

    def __init__(self, target_size, scale_range=(0.1, 2.0), interpolation="bilinear",
                 antialias=True):
        super().__init__(interpolation, antialias)
        self.target_size = target_size
        self.scale_range = scale_range

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        scale = self.scale_range[0] + torch.rand(1) * (self.scale_range[1] - self.scale_range[0])
        r = min(self.target_size[1] / orig_h, self.target_size[0] / orig_w) * scale
        return {"size": (int(orig_h * r), int(orig_w * r))}


class RandomShortestSize(_RandomSize):
    """Resize so that the shorter edge is one of ``min_size`` (and the longer at most
    ``max_size``)."""

    def __init__(self, min_size, max_size=None, interpolation="bilinear", antialias=True):
        super().__init__(interpolation, antialias)
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size

    def make_params(self, flat_inputs):
        orig_h, orig_w = query_size(flat_inputs)
        min_size = self.min_size[_randint(0, len(self.min_size))]
        r = min_size / min(orig_h, orig_w)
        if self.max_size is not None:
            r = min(r, self.max_size / max(orig_h, orig_w))
        return {"size": (int(orig_h * r), int(orig_w * r))}


class RandomResize(_RandomSize):
    """Resize the shorter edge to a size drawn from [min_size, max_size)."""

    def __init__(self, min_size, max_size, interpolation="bilinear", antialias=True):
        super().__init__(interpolation, antialias)
        self.min_size = min_size
        self.max_size = max_size

    def make_params(self, flat_inputs):
        return {"size": [_randint(self.min_size, self.max_size)]}
