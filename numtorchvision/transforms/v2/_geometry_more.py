"""FiveCrop, TenCrop, RandomPerspective, ElasticTransform and the detection resizes
(ScaleJitter, RandomShortestSize, RandomResize)."""

import warnings

import numtorch as torch

from ... import tv_tensors
from .._geometry import _get_perspective_coeffs
from ..transforms import _randint, _setup_size
from . import functional as F
from ._checks import number_pair
from ._geometry import _Filled
from ._transform import Transform, checked_probability
from ._utils import has_any, query_size

_HW_ONLY = "Please provide only two dimensions (h, w) for size."
_UNCROPPABLE = (tv_tensors.BoundingBoxes, tv_tensors.Mask)
_CROP_PASSTHROUGH = (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints, tv_tensors.Mask)


class _CornerCrops(Transform):
    """Five or ten crops per image: boxes and masks are refused, key points pass through with a
    warning (as torchvision)."""

    def check_inputs(self, flat_inputs):
        if has_any(flat_inputs, *_UNCROPPABLE):
            raise TypeError("BoundingBoxes'es and Mask's are not supported by "
                            f"{type(self).__name__}()")

    def transform(self, inpt, params):
        if isinstance(inpt, _CROP_PASSTHROUGH):
            warnings.warn(f"{type(self).__name__}() is currently passing through inputs of type "
                          f"tv_tensors.{type(inpt).__name__}. This will likely change in the "
                          "future.")
        kernel, extra = self._crops()
        return self._call_kernel(kernel, inpt, self.size, **extra)


class FiveCrop(_CornerCrops):
    """The four corner crops and the centre crop of ``size`` (a tuple per image)."""

    def __init__(self, size):
        super().__init__(size=_setup_size(size, error_msg=_HW_ONLY))

    def _crops(self):
        return F.five_crop, {}


class TenCrop(_CornerCrops):
    """:class:`FiveCrop` of the image and of its mirror image."""

    def __init__(self, size, vertical_flip=False):
        super().__init__(size=_setup_size(size, error_msg=_HW_ONLY), vertical_flip=vertical_flip)

    def _crops(self):
        return F.ten_crop, {"vertical_flip": self.vertical_flip}


class RandomPerspective(_Filled):
    """With probability ``p``, move each corner inwards by up to ``distortion_scale`` of half
    the size and warp the sample accordingly."""

    _coin = True

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation="bilinear", fill=0):
        checked_probability(p)
        if not 0 <= distortion_scale <= 1:
            raise ValueError("Argument distortion_scale value should be between 0 and 1")
        super().__init__(p=p, distortion_scale=distortion_scale, interpolation=interpolation,
                         fill=fill)

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        reach_y = int(self.distortion_scale * (h // 2)) + 1
        reach_x = int(self.distortion_scale * (w // 2)) + 1
        near_x, far_x = (0, reach_x), (w - reach_x, w)
        near_y, far_y = (0, reach_y), (h - reach_y, h)
        # corners clockwise from the top left; x drawn before y for each
        ranges = [(near_x, near_y), (far_x, near_y), (far_x, far_y), (near_x, far_y)]
        moved = [[_randint(*rx), _randint(*ry)] for rx, ry in ranges]
        corners = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        return {"coefficients": _get_perspective_coeffs(corners, moved)}

    def transform(self, inpt, params):
        return self._filled(F.perspective, inpt, startpoints=None, endpoints=None,
                            interpolation=self.interpolation, **params)


class ElasticTransform(_Filled):
    """Displace every pixel by smoothed random noise (strength ``alpha``, smoothness
    ``sigma``)."""

    def __init__(self, alpha=50.0, sigma=5.0, interpolation="bilinear", fill=0):
        super().__init__(alpha=number_pair(alpha, "alpha"), sigma=number_pair(sigma, "sigma"),
                         interpolation=interpolation, fill=fill)

    def _noise(self, h, w, axis, extent):
        field = torch.rand(1, 1, h, w) * 2 - 1
        spread = self.sigma[axis]
        if spread > 0.0:
            k = int(8 * spread + 1)
            k = k if k % 2 else k + 1
            field = self._call_kernel(F.gaussian_blur, field, [k, k], list(self.sigma))
        return field * self.alpha[axis] / extent

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        fields = [self._noise(h, w, 0, w), self._noise(h, w, 1, h)]
        return {"displacement": torch.concat(fields, 1).permute([0, 2, 3, 1])}

    def transform(self, inpt, params):
        return self._filled(F.elastic, inpt, **params, interpolation=self.interpolation)


class _Rescale(Transform):
    """Resizes to the ``size`` its ``make_params`` draws."""

    def __init__(self, interpolation, antialias, **sizes):
        super().__init__(**sizes, interpolation=interpolation, antialias=antialias)

    def transform(self, inpt, params):
        return self._call_kernel(F.resize, inpt, size=params["size"],
                                 interpolation=self.interpolation, antialias=self.antialias)


def _scaled(h, w, factor):
    return int(h * factor), int(w * factor)


class ScaleJitter(_Rescale):
    """Resize to ``target_size`` (w, h) times a factor drawn from ``scale_range``, keeping the
    aspect ratio."""

    def __init__(self, target_size, scale_range=(0.1, 2.0), interpolation="bilinear",
                 antialias=True):
        super().__init__(interpolation, antialias, target_size=target_size,
                         scale_range=scale_range)

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        lo, hi = self.scale_range
        jitter = lo + torch.rand(1) * (hi - lo)  # float32 tensor arithmetic, as torchvision
        fit = min(self.target_size[1] / h, self.target_size[0] / w)
        return {"size": _scaled(h, w, fit * jitter)}


class RandomShortestSize(_Rescale):
    """Resize so that the shorter edge is one of ``min_size`` (and the longer at most
    ``max_size``)."""

    def __init__(self, min_size, max_size=None, interpolation="bilinear", antialias=True):
        super().__init__(interpolation, antialias,
                         min_size=[min_size] if isinstance(min_size, int) else list(min_size),
                         max_size=max_size)

    def make_params(self, flat_inputs):
        h, w = query_size(flat_inputs)
        factor = self.min_size[_randint(0, len(self.min_size))] / min(h, w)
        if self.max_size is not None:
            factor = min(factor, self.max_size / max(h, w))
        return {"size": _scaled(h, w, factor)}


class RandomResize(_Rescale):
    """Resize the shorter edge to a size drawn from [min_size, max_size)."""

    def __init__(self, min_size, max_size, interpolation="bilinear", antialias=True):
        super().__init__(interpolation, antialias, min_size=min_size, max_size=max_size)

    def make_params(self, flat_inputs):
        return {"size": [_randint(self.min_size, self.max_size)]}
