"""AutoAugment, RandAugment and TrivialAugmentWide for the one image or video of a sample
(boxes and masks are refused, as in torchvision). The policies are the v1 module's; the
random draws follow torchvision's v2 order (one draw per operation)."""

import math

import numtorch as torch

from ... import tv_tensors
from ..._pil import is_pil_image
from ...tv_tensors._tv_tensor import _plain
from .._functional_tensor import _max_value
from ..autoaugment import AutoAugment as _V1AutoAugment
from ..autoaugment import AutoAugmentPolicy
from ..functional import InterpolationMode
from . import functional as F
from ._transform import Transform
from ._utils import _get_fill, _setup_fill_arg, check_type, tree_flatten, tree_unflatten
from .functional._geometry import _check_interpolation
from .functional._utils import is_pure_tensor


def _lin(top):
    return lambda n, h, w: torch.linspace(0.0, top, n)


def _posterize(steps):
    return lambda n, h, w: (8 - (torch.arange(n) / ((n - 1) / steps))).round().int()


def _space(shear, translate_x, translate_y, rotate, color, posterize, first=(), last=()):
    space = {name: (lambda n, h, w: None, False) for name in first}
    space.update({"ShearX": (_lin(shear), True), "ShearY": (_lin(shear), True),
                  "TranslateX": (translate_x, True), "TranslateY": (translate_y, True),
                  "Rotate": (_lin(rotate), True)})
    space.update({name: (_lin(color), True)
                  for name in ("Brightness", "Color", "Contrast", "Sharpness")})
    space["Posterize"] = (_posterize(posterize), False)
    space["Solarize"] = (lambda n, h, w: torch.linspace(1.0, 0.0, n), False)
    space.update({name: (lambda n, h, w: None, False) for name in ("AutoContrast", "Equalize")
                  + tuple(last)})
    return space


_AA_TRANSLATE = (lambda n, h, w: torch.linspace(0.0, 150.0 / 331.0 * w, n),
                 lambda n, h, w: torch.linspace(0.0, 150.0 / 331.0 * h, n))


class _AutoAugmentBase(Transform):
    def __init__(self, *, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.interpolation = _check_interpolation(interpolation)
        self.fill = fill
        self._fill = _setup_fill_arg(fill)

    def _get_random_item(self, dct):
        keys = tuple(dct.keys())
        key = keys[int(torch.randint(len(keys), ()))]
        return key, dct[key]

    def _flatten_and_extract_image_or_video(self, inputs):
        flat_inputs, spec = tree_flatten(inputs if len(inputs) > 1 else inputs[0])
        needs = self._needs_transform_list(flat_inputs)
        found = []
        for idx, (inpt, need) in enumerate(zip(flat_inputs, needs)):
            if need and check_type(inpt, (tv_tensors.Image, is_pil_image, is_pure_tensor,
                                          tv_tensors.Video)):
                found.append((idx, inpt))
            elif isinstance(inpt, (tv_tensors.BoundingBoxes, tv_tensors.Mask,
                                   tv_tensors.KeyPoints)):
                raise TypeError(f"Inputs of type {type(inpt).__name__} are not supported by "
                                f"{type(self).__name__}()")
        if not found:
            raise TypeError("Found no image in the sample.")
        if len(found) > 1:
            raise TypeError("Auto augment transformations are only properly defined for a "
                            f"single image or video, but found {len(found)}.")
        idx, image = found[0]
        return (flat_inputs, spec, idx), image

    @staticmethod
    def _unflatten_and_insert(flat_inputs_with_spec, image):
        flat_inputs, spec, idx = flat_inputs_with_spec
        flat_inputs[idx] = image
        return tree_unflatten(flat_inputs, spec)

    def _apply(self, image, name, magnitude):
        fill = _get_fill(self._fill, type(image))
        interpolation = self.interpolation
        if name == "Identity":
            return image
        if name in ("ShearX", "ShearY"):
            angle = math.degrees(math.atan(magnitude))
            shear = [angle, 0.0] if name == "ShearX" else [0.0, angle]
            return F.affine(image, angle=0.0, translate=[0, 0], scale=1.0, shear=shear,
                            interpolation=interpolation, fill=fill, center=[0, 0])
        if name in ("TranslateX", "TranslateY"):
            shift = [int(magnitude), 0] if name == "TranslateX" else [0, int(magnitude)]
            return F.affine(image, angle=0.0, translate=shift, scale=1.0, shear=[0.0, 0.0],
                            interpolation=interpolation, fill=fill)
        if name == "Rotate":
            return F.rotate(image, angle=magnitude, interpolation=interpolation, fill=fill)
        factor_ops = {"Brightness": F.adjust_brightness, "Color": F.adjust_saturation,
                      "Contrast": F.adjust_contrast, "Sharpness": F.adjust_sharpness}
        if name in factor_ops:
            return factor_ops[name](image, 1.0 + magnitude)
        if name == "Posterize":
            return F.posterize(image, bits=int(magnitude))
        if name == "Solarize":
            bound = _max_value(image.dtype) if isinstance(image, torch.Tensor) else 255.0
            return F.solarize(image, threshold=bound * magnitude)
        plain = {"AutoContrast": F.autocontrast, "Equalize": F.equalize, "Invert": F.invert}
        if name in plain:
            return plain[name](image)
        raise ValueError(f"No transform available for {name}")

    def _magnitude(self, magnitudes_fn, signed, num_bins, height, width, index):
        magnitudes = magnitudes_fn(num_bins, height, width)
        if magnitudes is None:
            return 0.0
        magnitude = float(magnitudes[index() if callable(index) else index])
        if signed and torch.rand(()) <= 0.5:
            magnitude *= -1
        return magnitude


class AutoAugment(_AutoAugmentBase):
    """One sub-policy of ``policy`` per call; each of its operations with its probability."""

    _AUGMENTATION_SPACE = _space(0.3, *_AA_TRANSLATE, 30.0, 0.9, 4, last=("Invert",))

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__(interpolation=interpolation, fill=fill)
        self.policy = policy
        self._policies = _V1AutoAugment._get_policies(None, policy)

    def forward(self, *inputs):
        flat, image = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(image)
        policy = self._policies[int(torch.randint(len(self._policies), ()))]
        for name, probability, magnitude_idx in policy:
            if not torch.rand(()) <= probability:
                continue
            fn, signed = self._AUGMENTATION_SPACE[name]
            magnitude = self._magnitude(fn, signed, 10, height, width, magnitude_idx or 0)
            image = self._apply(image, name, magnitude)
        return self._unflatten_and_insert(flat, image)


class RandAugment(_AutoAugmentBase):
    """``num_ops`` operations drawn uniformly, each at bin ``magnitude`` of
    ``num_magnitude_bins``."""

    _AUGMENTATION_SPACE = _space(0.3, *_AA_TRANSLATE, 30.0, 0.9, 4, first=("Identity",))

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__(interpolation=interpolation, fill=fill)
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins

    def forward(self, *inputs):
        flat, image = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(image)
        for _ in range(self.num_ops):
            name, (fn, signed) = self._get_random_item(self._AUGMENTATION_SPACE)
            magnitude = self._magnitude(fn, signed, self.num_magnitude_bins, height, width,
                                        self.magnitude)
            image = self._apply(image, name, magnitude)
        return self._unflatten_and_insert(flat, image)


class TrivialAugmentWide(_AutoAugmentBase):
    """One operation drawn uniformly, at a magnitude bin drawn uniformly."""

    _AUGMENTATION_SPACE = _space(0.99, _lin(32.0), _lin(32.0), 135.0, 0.99, 6,
                                 first=("Identity",))

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__(interpolation=interpolation, fill=fill)
        self.num_magnitude_bins = num_magnitude_bins

    def forward(self, *inputs):
        flat, image = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(image)
        name, (fn, signed) = self._get_random_item(self._AUGMENTATION_SPACE)
        bins = self.num_magnitude_bins
        magnitude = self._magnitude(fn, signed, bins, height, width,
                                    lambda: int(torch.randint(bins, ())))
        image = self._apply(image, name, magnitude)
        return self._unflatten_and_insert(flat, image)


_AUGMIX_PARTIAL = {
    "ShearX": (_lin(0.3), True), "ShearY": (_lin(0.3), True),
    "TranslateX": (lambda n, h, w: torch.linspace(0.0, w / 3.0, n), True),
    "TranslateY": (lambda n, h, w: torch.linspace(0.0, h / 3.0, n), True),
    "Rotate": (_lin(30.0), True),
    "Posterize": (lambda n, h, w: (4 - (torch.arange(n) / ((n - 1) / 4))).round().int(), False),
    "Solarize": (lambda n, h, w: torch.linspace(1.0, 0.0, n), False),
    "AutoContrast": (lambda n, h, w: None, False), "Equalize": (lambda n, h, w: None, False),
}


class AugMix(_AutoAugmentBase):
    """``mixture_width`` chains of 1-3 (or ``chain_depth``) random operations at severity up to
    ``severity``, mixed with Dirichlet(``alpha``) weights and blended with the original."""

    _PARTIAL_AUGMENTATION_SPACE = _AUGMIX_PARTIAL
    _AUGMENTATION_SPACE = {**_AUGMIX_PARTIAL,
                           **{name: (_lin(0.9), True)
                              for name in ("Brightness", "Color", "Contrast", "Sharpness")}}

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation="bilinear", fill=None):
        super().__init__(interpolation=interpolation, fill=fill)
        self._PARAMETER_MAX = 10
        if not (1 <= severity <= self._PARAMETER_MAX):
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got "
                             f"{severity} instead.")
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops

    def _sample_dirichlet(self, params):
        # Dirichlet's sample is torch._sample_dirichlet of the concentrations (same draws)
        return torch.distributions.Dirichlet(params).sample()

    def forward(self, *inputs):
        flat, orig = self._flatten_and_extract_image_or_video(inputs)
        height, width = F.get_size(orig)
        image = _plain(orig) if isinstance(orig, torch.Tensor) \
            else F.pil_to_tensor(orig)
        space = self._AUGMENTATION_SPACE if self.all_ops else self._PARTIAL_AUGMENTATION_SPACE
        orig_dims = list(image.shape)
        expected_ndim = 5 if isinstance(orig, tv_tensors.Video) else 4
        batch = image.reshape([1] * max(expected_ndim - image.ndim, 0) + orig_dims)
        n = batch.shape[0]
        batch_dims = [n] + [1] * (batch.ndim - 1)
        m = self._sample_dirichlet(torch.tensor([self.alpha, self.alpha]).expand(n, -1))
        weights = self._sample_dirichlet(
            torch.tensor([self.alpha] * self.mixture_width).expand(n, -1)) * m[:, 1].reshape(
                [n, -1])
        mix = m[:, 0].reshape(batch_dims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else \
                int(torch.randint(low=1, high=4, size=(1,)).item())
            for _ in range(depth):
                name, (fn, signed) = self._get_random_item(space)
                severity = self.severity
                magnitude = self._magnitude(fn, signed, self._PARAMETER_MAX, height, width,
                                            lambda s=severity: int(torch.randint(s, ())))
                aug = self._apply(aug, name, magnitude)
            mix.add_(weights[:, i].reshape(batch_dims) * aug)
        mix = mix.reshape(orig_dims).to(dtype=image.dtype)
        if isinstance(orig, (tv_tensors.Image, tv_tensors.Video)):
            mix = tv_tensors.wrap(mix, like=orig)
        elif not isinstance(orig, torch.Tensor):
            mix = F.to_pil_image(mix)
        return self._unflatten_and_insert(flat, mix)
