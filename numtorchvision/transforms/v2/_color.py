"""Colour v2 transforms (images and videos; masks and boxes pass through)."""

import collections.abc

import numtorch as torch

from ..transforms import _uniform
from . import functional as F
from ._transform import Transform, _RandomApplyTransform
from ._utils import query_chw


class Grayscale(Transform):
    """RGB to grayscale, as 1 or 3 channels."""

    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt, params):
        return self._call_kernel(F.rgb_to_grayscale, inpt,
                                 num_output_channels=self.num_output_channels)


class RandomGrayscale(_RandomApplyTransform):
    """Grayscale with probability ``p``, keeping the number of channels."""

    def __init__(self, p=0.1):
        super().__init__(p=p)

    def make_params(self, flat_inputs):
        num_input_channels, *_ = query_chw(flat_inputs)
        return {"num_input_channels": num_input_channels}

    def transform(self, inpt, params):
        return self._call_kernel(F.rgb_to_grayscale, inpt,
                                 num_output_channels=params["num_input_channels"])


class ColorJitter(Transform):
    """Random brightness, contrast, saturation and hue changes, in a random order."""

    def __init__(self, brightness=None, contrast=None, saturation=None, hue=None):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5),
                                     clip_first_on_zero=False)

    def _check_input(self, value, name, center=1.0, bound=(0, float("inf")),
                     clip_first_on_zero=True):
        if value is None:
            return None
        if isinstance(value, (int, float)):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - value, center + value]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, collections.abc.Sequence) and len(value) == 2:
            value = [float(v) for v in value]
        else:
            raise TypeError(f"{name}={value} should be a single number or a sequence with "
                            "length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound} and increasing, but got "
                             f"{value}.")
        return None if value[0] == value[1] == center else (float(value[0]), float(value[1]))

    def make_params(self, flat_inputs):
        fn_idx = torch.randperm(4).tolist()
        factors = [None if r is None else _uniform(r[0], r[1])
                   for r in (self.brightness, self.contrast, self.saturation, self.hue)]
        b, c, s, h = factors
        return {"fn_idx": fn_idx, "brightness_factor": b, "contrast_factor": c,
                "saturation_factor": s, "hue_factor": h}

    def transform(self, inpt, params):
        output = inpt
        ops = {0: (F.adjust_brightness, "brightness_factor"),
               1: (F.adjust_contrast, "contrast_factor"),
               2: (F.adjust_saturation, "saturation_factor"),
               3: (F.adjust_hue, "hue_factor")}
        for fn_id in params["fn_idx"]:
            fn, name = ops[fn_id]
            if params[name] is not None:
                output = self._call_kernel(fn, output, **{name: params[name]})
        return output


class RandomInvert(_RandomApplyTransform):
    """Invert the colours with probability ``p``."""

    def transform(self, inpt, params):
        return self._call_kernel(F.invert, inpt)


class RandomPosterize(_RandomApplyTransform):
    """Posterize to ``bits`` bits with probability ``p``."""

    def __init__(self, bits, p=0.5):
        super().__init__(p=p)
        self.bits = bits

    def transform(self, inpt, params):
        return self._call_kernel(F.posterize, inpt, bits=self.bits)


class RandomSolarize(_RandomApplyTransform):
    """Solarize above ``threshold`` with probability ``p``."""

    def __init__(self, threshold, p=0.5):
        super().__init__(p=p)
        self.threshold = threshold

    def transform(self, inpt, params):
        return self._call_kernel(F.solarize, inpt, threshold=self.threshold)


class RandomAutocontrast(_RandomApplyTransform):
    """Autocontrast with probability ``p``."""

    def transform(self, inpt, params):
        return self._call_kernel(F.autocontrast, inpt)


class RandomEqualize(_RandomApplyTransform):
    """Histogram-equalize with probability ``p``."""

    def transform(self, inpt, params):
        return self._call_kernel(F.equalize, inpt)


class RandomAdjustSharpness(_RandomApplyTransform):
    """Adjust the sharpness by ``sharpness_factor`` with probability ``p``."""

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p=p)
        self.sharpness_factor = sharpness_factor

    def transform(self, inpt, params):
        return self._call_kernel(F.adjust_sharpness, inpt,
                                 sharpness_factor=self.sharpness_factor)


class RGB(Transform):
    """One-channel images repeated to three channels (three-channel images unchanged)."""

    def transform(self, inpt, params):
        return self._call_kernel(F.grayscale_to_rgb, inpt)


class RandomChannelPermutation(Transform):
    """The channels in a random order."""

    def make_params(self, flat_inputs):
        num_channels, *_ = query_chw(flat_inputs)
        return {"permutation": torch.randperm(num_channels)}

    def transform(self, inpt, params):
        return self._call_kernel(F.permute_channels, inpt, params["permutation"])


class RandomPhotometricDistort(Transform):
    """SSD's photometric distortion: each of brightness, contrast, saturation, hue and a
    channel permutation with probability ``p``, contrast before or after the others."""

    def __init__(self, brightness=(0.875, 1.125), contrast=(0.5, 1.5), saturation=(0.5, 1.5),
                 hue=(-0.05, 0.05), p=0.5):
        super().__init__()
        self.brightness = brightness
        self.contrast = contrast
        self.hue = hue
        self.saturation = saturation
        self.p = p

    def make_params(self, flat_inputs):
        num_channels, *_ = query_chw(flat_inputs)
        params = {}
        for key, bounds in [("brightness_factor", self.brightness),
                            ("contrast_factor", self.contrast),
                            ("saturation_factor", self.saturation), ("hue_factor", self.hue)]:
            params[key] = _uniform(bounds[0], bounds[1]) if torch.rand(1) < self.p else None
        params["contrast_before"] = bool(torch.rand(()) < 0.5)
        params["channel_permutation"] = (torch.randperm(num_channels)
                                         if torch.rand(1) < self.p else None)
        return params

    def transform(self, inpt, params):
        contrast = params["contrast_factor"]
        if params["brightness_factor"] is not None:
            inpt = self._call_kernel(F.adjust_brightness, inpt,
                                     brightness_factor=params["brightness_factor"])
        if contrast is not None and params["contrast_before"]:
            inpt = self._call_kernel(F.adjust_contrast, inpt, contrast_factor=contrast)
        if params["saturation_factor"] is not None:
            inpt = self._call_kernel(F.adjust_saturation, inpt,
                                     saturation_factor=params["saturation_factor"])
        if params["hue_factor"] is not None:
            inpt = self._call_kernel(F.adjust_hue, inpt, hue_factor=params["hue_factor"])
        if contrast is not None and not params["contrast_before"]:
            inpt = self._call_kernel(F.adjust_contrast, inpt, contrast_factor=contrast)
        if params["channel_permutation"] is not None:
            inpt = self._call_kernel(F.permute_channels, inpt,
                                     permutation=params["channel_permutation"])
        return inpt
