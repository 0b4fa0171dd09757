"""Colour v2 transforms (images and videos; masks and boxes pass through)."""

import inspect

import numtorch as torch

from ..transforms import _rand_below, _uniform
from . import functional as F
from ._checks import jitter_range
from ._kernel_table import kernel_transform
from ._transform import Transform, checked_probability
from ._utils import query_chw

_REQUIRED = inspect.Parameter.empty

# name, kernel, (argument, default)..., default p (None: always applied), doc
_ONE_KERNEL = [
    ("Grayscale", F.rgb_to_grayscale, [("num_output_channels", 1)], None,
     "RGB to grayscale, as 1 or 3 channels."),
    ("RGB", F.grayscale_to_rgb, [], None,
     "One-channel images repeated to three channels (three-channel images unchanged)."),
    ("RandomInvert", F.invert, [], 0.5, "Invert the colours with probability ``p``."),
    ("RandomPosterize", F.posterize, [("bits", _REQUIRED)], 0.5,
     "Posterize to ``bits`` bits with probability ``p``."),
    ("RandomSolarize", F.solarize, [("threshold", _REQUIRED)], 0.5,
     "Solarize above ``threshold`` with probability ``p``."),
    ("RandomAutocontrast", F.autocontrast, [], 0.5, "Autocontrast with probability ``p``."),
    ("RandomEqualize", F.equalize, [], 0.5, "Histogram-equalize with probability ``p``."),
    ("RandomAdjustSharpness", F.adjust_sharpness, [("sharpness_factor", _REQUIRED)], 0.5,
     "Adjust the sharpness by ``sharpness_factor`` with probability ``p``."),
]
for _row in _ONE_KERNEL:
    globals()[_row[0]] = kernel_transform(*_row, module=__name__)
del _row

# the four adjustments in ColorJitter's numbering, with the name of their factor argument
_ADJUSTMENTS = [(F.adjust_brightness, "brightness_factor"),
                (F.adjust_contrast, "contrast_factor"),
                (F.adjust_saturation, "saturation_factor"),
                (F.adjust_hue, "hue_factor")]


def _adjust(self, inpt, which, factor):
    kernel, arg = _ADJUSTMENTS[which]
    return self._call_kernel(kernel, inpt, **{arg: factor})


class RandomGrayscale(Transform):
    """Grayscale with probability ``p``, keeping the number of channels."""

    _coin = True

    def __init__(self, p=0.1):
        checked_probability(p)
        super().__init__()
        self.p = p

    def make_params(self, flat_inputs):
        return {"num_input_channels": query_chw(flat_inputs)[0]}

    def transform(self, inpt, params):
        return self._call_kernel(F.rgb_to_grayscale, inpt,
                                 num_output_channels=params["num_input_channels"])


class ColorJitter(Transform):
    """Random brightness, contrast, saturation and hue changes, in a random order."""

    def __init__(self, brightness=None, contrast=None, saturation=None, hue=None):
        super().__init__()
        self.brightness = jitter_range(brightness, "brightness")
        self.contrast = jitter_range(contrast, "contrast")
        self.saturation = jitter_range(saturation, "saturation")
        self.hue = jitter_range(hue, "hue", center=0, bound=(-0.5, 0.5), clip_at_zero=False)

    def make_params(self, flat_inputs):
        order = torch.randperm(4)
        ranges = (self.brightness, self.contrast, self.saturation, self.hue)
        factors = [r if r is None else _uniform(*r) for r in ranges]
        return {"fn_idx": order, **{arg: f for (_, arg), f in zip(_ADJUSTMENTS, factors)}}

    def transform(self, inpt, params):
        for which in params["fn_idx"]:
            which = int(which)
            factor = params[_ADJUSTMENTS[which][1]]
            if factor is not None:
                inpt = _adjust(self, inpt, which, factor)
        return inpt


class RandomChannelPermutation(Transform):
    """The channels in a random order."""

    def make_params(self, flat_inputs):
        return {"permutation": torch.randperm(query_chw(flat_inputs)[0])}

    def transform(self, inpt, params):
        return self._call_kernel(F.permute_channels, inpt, params["permutation"])


class RandomPhotometricDistort(Transform):
    """SSD's photometric distortion: each of brightness, contrast, saturation, hue and a
    channel permutation with probability ``p``, contrast before or after the others."""

    def __init__(self, brightness=(0.875, 1.125), contrast=(0.5, 1.5), saturation=(0.5, 1.5),
                 hue=(-0.05, 0.05), p=0.5):
        super().__init__()
        # attribute order = repr order
        for key, value in (("brightness", brightness), ("contrast", contrast), ("hue", hue),
                           ("saturation", saturation), ("p", p)):
            setattr(self, key, value)

    def make_params(self, flat_inputs):
        channels = query_chw(flat_inputs)[0]
        ranges = (self.brightness, self.contrast, self.saturation, self.hue)
        # each factor: a coin, then (if it came up) the factor
        factors = [_uniform(r[0], r[1]) if _rand_below(self.p) else None for r in ranges]
        contrast_first = bool(torch.rand(()) < 0.5)
        order = torch.randperm(channels) if _rand_below(self.p) else None
        return {**{arg: f for (_, arg), f in zip(_ADJUSTMENTS, factors)},
                "contrast_before": contrast_first, "channel_permutation": order}

    def transform(self, inpt, params):
        # brightness, contrast early or late, saturation, hue, then the channel order
        steps = [0, 1, 2, 3] if params["contrast_before"] else [0, 2, 3, 1]
        for which in steps:
            factor = params[_ADJUSTMENTS[which][1]]
            if factor is not None:
                inpt = _adjust(self, inpt, which, factor)
        if params["channel_permutation"] is not None:
            inpt = self._call_kernel(F.permute_channels, inpt,
                                     permutation=params["channel_permutation"])
        return inpt
