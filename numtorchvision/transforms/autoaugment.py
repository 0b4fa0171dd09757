"""Learned and random augmentation policies: AutoAugment, RandAugment, TrivialAugmentWide and
AugMix, built from the single-image operations of ``transforms.functional``."""

import math
from enum import Enum

import numpy as np

import numtorch as torch
from numtorch import nn
from numtorch._random import rng_for

from . import functional as F
from .functional import InterpolationMode

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


def _apply_op(img, op_name, magnitude, interpolation, fill):
    """Apply the named operation with a signed ``magnitude`` (its meaning depends on the op)."""
    if op_name in ("ShearX", "ShearY"):
        angle = math.degrees(math.atan(magnitude))
        shear = [angle, 0.0] if op_name == "ShearX" else [0.0, angle]
        # shearing about the top-left corner, as the policies were learned
        return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0, shear=shear,
                        interpolation=interpolation, fill=fill, center=[0, 0])
    if op_name in ("TranslateX", "TranslateY"):
        shift = [int(magnitude), 0] if op_name == "TranslateX" else [0, int(magnitude)]
        return F.affine(img, angle=0.0, translate=shift, scale=1.0, shear=[0.0, 0.0],
                        interpolation=interpolation, fill=fill)
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    factor_ops = {"Brightness": F.adjust_brightness, "Color": F.adjust_saturation,
                  "Contrast": F.adjust_contrast, "Sharpness": F.adjust_sharpness}
    if op_name in factor_ops:
        return factor_ops[op_name](img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    plain_ops = {"AutoContrast": F.autocontrast, "Equalize": F.equalize, "Invert": F.invert}
    if op_name in plain_ops:
        return plain_ops[op_name](img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


class AutoAugmentPolicy(Enum):
    """The data sets the AutoAugment policies were learned on."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# The published policies (Cubuk et al., 2019): 25 sub-policies per data set, each two
# operations written "name probability magnitude-bin" ("-" for operations without magnitude).
_POLICY_TABLES = {
    AutoAugmentPolicy.IMAGENET: """
        Posterize .4 8, Rotate .6 9; Solarize .6 5, AutoContrast .6 -; Equalize .8 -, Equalize .6 -;
        Posterize .6 7, Posterize .6 6; Equalize .4 -, Solarize .2 4; Equalize .4 -, Rotate .8 8;
        Solarize .6 3, Equalize .6 -; Posterize .8 5, Equalize 1 -; Rotate .2 3, Solarize .6 8;
        Equalize .6 -, Posterize .4 6; Rotate .8 8, Color .4 0; Rotate .4 9, Equalize .6 -;
        Equalize 0 -, Equalize .8 -; Invert .6 -, Equalize 1 -; Color .6 4, Contrast 1 8;
        Rotate .8 8, Color 1 2; Color .8 8, Solarize .8 7; Sharpness .4 7, Invert .6 -;
        ShearX .6 5, Equalize 1 -; Color .4 0, Equalize .6 -; Equalize .4 -, Solarize .2 4;
        Solarize .6 5, AutoContrast .6 -; Invert .6 -, Equalize 1 -; Color .6 4, Contrast 1 8;
        Equalize .8 -, Equalize .6 -""",
    AutoAugmentPolicy.CIFAR10: """
        Invert .1 -, Contrast .2 6; Rotate .7 2, TranslateX .3 9; Sharpness .8 1, Sharpness .9 3;
        ShearY .5 8, TranslateY .7 9; AutoContrast .5 -, Equalize .9 -; ShearY .2 7, Posterize .3 7;
        Color .4 3, Brightness .6 7; Sharpness .3 9, Brightness .7 9; Equalize .6 -, Equalize .5 -;
        Contrast .6 7, Sharpness .6 5; Color .7 7, TranslateX .5 8; Equalize .3 -, AutoContrast .4 -;
        TranslateY .4 3, Sharpness .2 6; Brightness .9 6, Color .2 8; Solarize .5 2, Invert 0 -;
        Equalize .2 -, AutoContrast .6 -; Equalize .2 -, Equalize .6 -; Color .9 9, Equalize .6 -;
        AutoContrast .8 -, Solarize .2 8; Brightness .1 3, Color .7 0; Solarize .4 5, AutoContrast .9 -;
        TranslateY .9 9, TranslateY .7 9; AutoContrast .9 -, Solarize .8 3; Equalize .8 -, Invert .1 -;
        TranslateY .7 9, AutoContrast .9 -""",
    AutoAugmentPolicy.SVHN: """
        ShearX .9 4, Invert .2 -; ShearY .9 8, Invert .7 -; Equalize .6 -, Solarize .6 6;
        Invert .9 -, Equalize .6 -; Equalize .6 -, Rotate .9 3; ShearX .9 4, AutoContrast .8 -;
        ShearY .9 8, Invert .4 -; ShearY .9 5, Solarize .2 6; Invert .9 -, AutoContrast .8 -;
        Equalize .6 -, Rotate .9 3; ShearX .9 4, Solarize .3 3; ShearY .8 8, Invert .7 -;
        Equalize .9 -, TranslateY .6 6; Invert .9 -, Equalize .6 -; Contrast .3 3, Rotate .8 4;
        Invert .8 -, TranslateY 0 2; ShearY .7 6, Solarize .4 8; Invert .6 -, Rotate .8 4;
        ShearY .3 7, TranslateX .9 3; ShearX .1 6, Invert .6 -; Solarize .7 2, TranslateY .6 7;
        ShearY .8 4, Invert .8 -; ShearX .7 9, TranslateY .8 3; ShearY .8 5, AutoContrast .7 -;
        ShearX .7 2, Invert .1 -""",
}


def _parse_policy(text):
    policy = []
    for sub in text.split(";"):
        ops = []
        for op in sub.split(","):
            name, prob, bin_ = op.split()
            ops.append((name, float(prob), None if bin_ == "-" else int(bin_)))
        policy.append(tuple(ops))
    return policy


def _bins(low, high, num_bins):
    return torch.linspace(low, high, num_bins)


def _posterize_bins(top, num_bins, steps):
    return top - (torch.arange(num_bins) / ((num_bins - 1) / steps)).round().int()


def _geometric_space(num_bins, image_size, translate_max, shear_max=0.3, rotate_max=30.0):
    return {
        "ShearX": (_bins(0.0, shear_max, num_bins), True),
        "ShearY": (_bins(0.0, shear_max, num_bins), True),
        "TranslateX": (_bins(0.0, translate_max[1], num_bins), True),
        "TranslateY": (_bins(0.0, translate_max[0], num_bins), True),
        "Rotate": (_bins(0.0, rotate_max, num_bins), True),
    }


def _color_space(num_bins, top=0.9):
    return {name: (_bins(0.0, top, num_bins), True)
            for name in ("Brightness", "Color", "Contrast", "Sharpness")}


def _no_magnitude(*names):
    return {name: (torch.tensor(0.0), False) for name in names}


def _tensor_fill(img, fill, channels):
    if isinstance(img, torch.Tensor):
        if isinstance(fill, (int, float)):
            return [float(fill)] * channels
        if fill is not None:
            return [float(f) for f in fill]
    return fill


def _signed(magnitude, signed):
    if signed and torch.randint(2, (1,)):
        return -magnitude
    return magnitude


class AutoAugment(nn.Module):
    """One randomly chosen sub-policy of the AutoAugment ``policy`` per image; each of its two
    operations runs with its own probability and a random sign."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        self.policy, self.interpolation, self.fill = policy, interpolation, fill
        self.policies = self._get_policies(policy)

    def _get_policies(self, policy):
        if not any(policy == known for known in _POLICY_TABLES):  # (unhashable ones too)
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return _parse_policy(_POLICY_TABLES[policy])

    def _augmentation_space(self, num_bins, image_size):
        space = _geometric_space(num_bins, image_size,
                                 (150.0 / 331.0 * image_size[0], 150.0 / 331.0 * image_size[1]))
        space.update(_color_space(num_bins))
        space["Posterize"] = (_posterize_bins(8, num_bins, 4), False)
        space["Solarize"] = (_bins(255.0, 0.0, num_bins), False)
        space.update(_no_magnitude("AutoContrast", "Equalize", "Invert"))
        return space

    @staticmethod
    def get_params(transform_num):
        """(sub-policy index, two uniform draws for the probabilities, two signs in {0, 1})."""
        policy_id = int(torch.randint(transform_num, (1,)).item())
        return policy_id, torch.rand((2,)), torch.randint(2, (2,))

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        policy_id, probs, signs = self.get_params(len(self.policies))
        space = self._augmentation_space(10, (height, width))
        for i, (name, p, bin_) in enumerate(self.policies[policy_id]):
            if probs[i] <= p:
                magnitudes, signed = space[name]
                magnitude = float(magnitudes[bin_].item()) if bin_ is not None else 0.0
                if signed and signs[i] == 0:
                    magnitude = -magnitude
                img = _apply_op(img, name, magnitude, interpolation=self.interpolation,
                                fill=fill)
        return img

    def __repr__(self):
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


class RandAugment(nn.Module):
    """``num_ops`` operations drawn uniformly, each at the fixed ``magnitude`` bin (of
    ``num_magnitude_bins``) with a random sign."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.num_ops, self.magnitude = num_ops, magnitude
        self.num_magnitude_bins, self.interpolation, self.fill = (num_magnitude_bins,
                                                                  interpolation, fill)

    def _augmentation_space(self, num_bins, image_size):
        space = _no_magnitude("Identity")
        space.update(_geometric_space(num_bins, image_size, (150.0 / 331.0 * image_size[0],
                                                             150.0 / 331.0 * image_size[1])))
        space.update(_color_space(num_bins))
        space["Posterize"] = (_posterize_bins(8, num_bins, 4), False)
        space["Solarize"] = (_bins(255.0, 0.0, num_bins), False)
        space.update(_no_magnitude("AutoContrast", "Equalize"))
        return space

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        space = self._augmentation_space(self.num_magnitude_bins, (height, width))
        names = list(space)
        for _ in range(self.num_ops):
            name = names[int(torch.randint(len(space), (1,)).item())]
            magnitudes, signed = space[name]
            magnitude = float(magnitudes[self.magnitude].item()) if magnitudes.ndim > 0 else 0.0
            img = _apply_op(img, name, _signed(magnitude, signed),
                            interpolation=self.interpolation, fill=fill)
        return img

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
                f"num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class TrivialAugmentWide(nn.Module):
    """One operation drawn uniformly, at a magnitude bin drawn uniformly, with a random sign
    (the "wide" ranges of TrivialAugment)."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        self.num_magnitude_bins, self.interpolation, self.fill = (num_magnitude_bins,
                                                                  interpolation, fill)

    def _augmentation_space(self, num_bins):
        space = _no_magnitude("Identity")
        space.update(_geometric_space(num_bins, None, (32.0, 32.0), shear_max=0.99,
                                      rotate_max=135.0))
        space.update(_color_space(num_bins, top=0.99))
        space["Posterize"] = (_posterize_bins(8, num_bins, 6), False)
        space["Solarize"] = (_bins(255.0, 0.0, num_bins), False)
        space.update(_no_magnitude("AutoContrast", "Equalize"))
        return space

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        space = self._augmentation_space(self.num_magnitude_bins)
        name = list(space)[int(torch.randint(len(space), (1,)).item())]
        magnitudes, signed = space[name]
        magnitude = 0.0
        if magnitudes.ndim > 0:
            magnitude = float(magnitudes[torch.randint(len(magnitudes), (1,),
                                                       dtype=torch.long)].item())
        return _apply_op(img, name, _signed(magnitude, signed), interpolation=self.interpolation,
                         fill=fill)

    def __repr__(self):
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


def _sample_dirichlet(alpha):
    """One Dirichlet sample per row of ``alpha`` (a 2-D tensor), from numtorch's generator."""
    conc = alpha.numpy(force=True).astype(np.float64)
    gam = rng_for(None).standard_gamma(conc)
    return torch.from_numpy((gam / gam.sum(axis=-1, keepdims=True)).astype(np.float32))


class AugMix(nn.Module):
    """AugMix: ``mixture_width`` chains of 1-3 (or ``chain_depth``) random operations, mixed
    with Dirichlet(``alpha``) weights and blended with the original by a Beta(``alpha``,
    ``alpha``) weight."""

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation=InterpolationMode.BILINEAR, fill=None):
        super().__init__()
        self._PARAMETER_MAX = 10
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got "
                             f"{severity} instead.")
        self.severity, self.mixture_width, self.chain_depth = severity, mixture_width, chain_depth
        self.alpha, self.all_ops = alpha, all_ops
        self.interpolation, self.fill = interpolation, fill

    def _augmentation_space(self, num_bins, image_size):
        space = _geometric_space(num_bins, image_size,
                                 (image_size[0] / 3.0, image_size[1] / 3.0))
        space["Posterize"] = (_posterize_bins(4, num_bins, 4), False)
        space["Solarize"] = (_bins(255.0, 0.0, num_bins), False)
        space.update(_no_magnitude("AutoContrast", "Equalize"))
        if self.all_ops:
            space.update(_color_space(num_bins))
        return space

    def _sample_dirichlet(self, params):
        return _sample_dirichlet(params)

    def forward(self, orig_img):
        channels, height, width = F.get_dimensions(orig_img)
        if isinstance(orig_img, torch.Tensor):
            img = orig_img
            fill = _tensor_fill(orig_img, self.fill, channels)
        else:
            img, fill = F.pil_to_tensor(orig_img), self.fill
        space = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        names = list(space)
        orig_dims = list(img.shape)
        batch = img.reshape([1] * max(4 - img.ndim, 0) + orig_dims)
        n = batch.shape[0]
        bdims = [n] + [1] * (batch.ndim - 1)
        m = self._sample_dirichlet(torch.tensor([self.alpha, self.alpha]).expand(n, -1))
        weights = self._sample_dirichlet(
            torch.tensor([self.alpha] * self.mixture_width).expand(n, -1)) * m[:, 1].view(n, -1)
        mix = m[:, 0].view(bdims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else \
                int(torch.randint(low=1, high=4, size=(1,)).item())
            for _ in range(depth):
                name = names[int(torch.randint(len(space), (1,)).item())]
                magnitudes, signed = space[name]
                magnitude = 0.0
                if magnitudes.ndim > 0:
                    magnitude = float(magnitudes[torch.randint(self.severity, (1,),
                                                               dtype=torch.long)].item())
                aug = _apply_op(aug, name, _signed(magnitude, signed),
                                interpolation=self.interpolation, fill=fill)
            mix = mix + weights[:, i].view(bdims) * aug
        mix = mix.reshape(orig_dims).to(dtype=img.dtype)
        return mix if isinstance(orig_img, torch.Tensor) else F.to_pil_image(mix)

    def __repr__(self):
        return (f"{self.__class__.__name__}(severity={self.severity}, "
                f"mixture_width={self.mixture_width}, chain_depth={self.chain_depth}, "
                f"alpha={self.alpha}, all_ops={self.all_ops}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
