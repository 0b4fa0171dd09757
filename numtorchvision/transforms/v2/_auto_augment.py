"""AutoAugment, RandAugment, TrivialAugmentWide and AugMix for the one image or video of a
sample (boxes, masks and key points are refused, as in torchvision). The AutoAugment policies
are the v1 module's; the random draws follow torchvision's v2 order (one draw per operation).

An operation's strengths are a table entry ``(levels, signed)``: ``levels(bins, h, w)`` gives
the magnitude of each bin (None: the operation has no magnitude), and a signed operation
tosses a coin for the sign once its bin is chosen."""

import math

import numtorch as torch

from ... import tv_tensors
from ..._pil import is_pil_image
from ...tv_tensors._tv_tensor import _plain
from .._functional_tensor import _max_value
from ..autoaugment import AutoAugment as _V1AutoAugment
from ..autoaugment import AutoAugmentPolicy
from . import functional as F
from ._checks import fill_for, fill_table
from ._transform import Transform, _selection
from ._utils import tree_flatten, tree_unflatten
from .functional._utils import is_pure_tensor

_REFUSED = (tv_tensors.BoundingBoxes, tv_tensors.Mask, tv_tensors.KeyPoints)
_SEVERITY_BINS = 10


def _none(bins, h, w):
    return None


def _ramp(top):
    return lambda bins, h, w: torch.linspace(0.0, top, bins)


def _falling(bins, h, w):
    return torch.linspace(1.0, 0.0, bins)


def _bits(start, drop):
    return lambda bins, h, w: (start - (torch.arange(bins) / ((bins - 1) / drop))).round().int()


def _table(shear, shift_x, shift_y, rotate, color, bits, first=(), last=()):
    table = dict.fromkeys(first, (_none, False))
    for name, levels in (("ShearX", _ramp(shear)), ("ShearY", _ramp(shear)),
                         ("TranslateX", shift_x), ("TranslateY", shift_y),
                         ("Rotate", _ramp(rotate))):
        table[name] = (levels, True)
    for name in ("Brightness", "Color", "Contrast", "Sharpness"):
        table[name] = (_ramp(color), True)
    table["Posterize"] = (_bits(8, bits), False)
    table["Solarize"] = (_falling, False)
    for name in ("AutoContrast", "Equalize") + tuple(last):
        table[name] = (_none, False)
    return table


def _shift_share(share):
    return (lambda bins, h, w: torch.linspace(0.0, share * w, bins),
            lambda bins, h, w: torch.linspace(0.0, share * h, bins))


def _shift_third():  # w / 3.0, not w * (1 / 3.0): the two can differ in the last bit
    return (lambda bins, h, w: torch.linspace(0.0, w / 3.0, bins),
            lambda bins, h, w: torch.linspace(0.0, h / 3.0, bins))


_AUTO_TABLE = _table(0.3, *_shift_share(150.0 / 331.0), 30.0, 0.9, 4, last=("Invert",))
_RAND_TABLE = _table(0.3, *_shift_share(150.0 / 331.0), 30.0, 0.9, 4, first=("Identity",))
_WIDE_TABLE = _table(0.99, _ramp(32.0), _ramp(32.0), 135.0, 0.99, 6, first=("Identity",))
_AUGMIX_BASIC = {name: entry for name, entry in
                 _table(0.3, *_shift_third(), 30.0, 0.0, 4).items()
                 if name not in ("Brightness", "Color", "Contrast", "Sharpness")}
_AUGMIX_BASIC["Posterize"] = (_bits(4, 4), False)
_AUGMIX_ALL = {**_AUGMIX_BASIC, **dict.fromkeys(("Brightness", "Color", "Contrast", "Sharpness"),
                                                (_ramp(0.9), True))}


def _shear(image, strength, how, fill, axis):
    degrees = math.degrees(math.atan(strength))
    return F.affine(image, angle=0.0, translate=[0, 0], scale=1.0,
                    shear=[degrees, 0.0] if axis == 0 else [0.0, degrees],
                    interpolation=how, fill=fill, center=[0, 0])


def _shift(image, strength, how, fill, axis):
    return F.affine(image, angle=0.0, translate=[int(strength), 0] if axis == 0
                    else [0, int(strength)], scale=1.0, shear=[0.0, 0.0], interpolation=how,
                    fill=fill)


def _solarize(image, strength, how, fill):
    top = _max_value(image.dtype) if isinstance(image, torch.Tensor) else 255.0
    return F.solarize(image, threshold=top * strength)


def _factor(kernel):
    return lambda image, strength, how, fill: kernel(image, 1.0 + strength)


def _plain_op(kernel):
    return lambda image, strength, how, fill: kernel(image)


_OPS = {
    "Identity": lambda image, strength, how, fill: image,
    "ShearX": lambda *a: _shear(*a, axis=0),
    "ShearY": lambda *a: _shear(*a, axis=1),
    "TranslateX": lambda *a: _shift(*a, axis=0),
    "TranslateY": lambda *a: _shift(*a, axis=1),
    "Rotate": lambda image, strength, how, fill: F.rotate(image, angle=strength,
                                                          interpolation=how, fill=fill),
    "Brightness": _factor(F.adjust_brightness),
    "Color": _factor(F.adjust_saturation),
    "Contrast": _factor(F.adjust_contrast),
    "Sharpness": _factor(F.adjust_sharpness),
    "Posterize": lambda image, strength, how, fill: F.posterize(image, bits=int(strength)),
    "Solarize": _solarize,
    "AutoContrast": _plain_op(F.autocontrast),
    "Equalize": _plain_op(F.equalize),
    "Invert": _plain_op(F.invert),
}


def _draw_below(n):
    return int(torch.randint(n, ()))


class _Augmenter(Transform):
    """Finds the sample's single image or video, runs ``_augment`` on it and puts the result
    back in its place."""

    def __init__(self, interpolation, fill, **settings):
        table = fill_table(fill)
        # kept as given (as torchvision 0.28); the kernels check it when they use it
        super().__init__(interpolation=interpolation, fill=fill, **settings)
        self._fill_by_type = table

    def forward(self, *inputs):
        leaves, layout = tree_flatten(inputs[0] if len(inputs) == 1 else inputs)
        flags = _selection(leaves, self._transformed_types)
        spots = []
        for at, (leaf, flag) in enumerate(zip(leaves, flags)):
            if flag and (isinstance(leaf, (tv_tensors.Image, tv_tensors.Video))
                         or is_pil_image(leaf) or is_pure_tensor(leaf)):
                spots.append(at)
            elif isinstance(leaf, _REFUSED):
                raise TypeError(f"Inputs of type {type(leaf).__name__} are not supported by "
                                f"{type(self).__name__}()")
        if not spots:
            raise TypeError("Found no image in the sample.")
        if len(spots) > 1:
            raise TypeError("Auto augment transformations are only properly defined for a "
                            f"single image or video, but found {len(spots)}.")
        leaves[spots[0]] = self._augment(leaves[spots[0]])
        return tree_unflatten(leaves, layout)

    def _pick(self, table):
        names = list(table)
        name = names[_draw_below(len(names))]
        return name, table[name]

    def _strength(self, entry, bins, size, choose_bin):
        """The magnitude of an operation: its level at the bin ``choose_bin()`` returns, with
        a random sign when the operation is signed (no draw when it has no magnitude)."""
        levels, signed = entry
        table = levels(bins, *size)
        if table is None:
            return 0.0
        value = float(table[choose_bin()])
        if signed and torch.rand(()) <= 0.5:
            value = -value
        return value

    def _run(self, image, name, strength):
        if name not in _OPS:
            raise ValueError(f"No transform available for {name}")
        return _OPS[name](image, strength, self.interpolation,
                          fill_for(self._fill_by_type, image))


class AutoAugment(_Augmenter):
    """One sub-policy of ``policy`` per call; each of its operations with its probability."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation="nearest",
                 fill=None):
        super().__init__(interpolation, fill, policy=policy)
        self._steps = _V1AutoAugment._get_policies(None, policy)

    def _augment(self, image):
        size = tuple(F.get_size(image))
        for name, chance, level in self._steps[_draw_below(len(self._steps))]:
            if torch.rand(()) <= chance:
                strength = self._strength(_AUTO_TABLE[name], 10, size, lambda level=level: level or 0)
                image = self._run(image, name, strength)
        return image


class RandAugment(_Augmenter):
    """``num_ops`` operations drawn uniformly, each at bin ``magnitude`` of
    ``num_magnitude_bins``."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation="nearest", fill=None):
        super().__init__(interpolation, fill, num_ops=num_ops, magnitude=magnitude,
                         num_magnitude_bins=num_magnitude_bins)
        if not isinstance(num_ops, int) or num_ops < 0:  # (v2's own check; v1 has none)
            raise ValueError(f"num_ops should be a non-negative integer, but got {num_ops} "
                             "instead.")

    def _augment(self, image):
        size = tuple(F.get_size(image))
        for _ in range(self.num_ops):
            name, entry = self._pick(_RAND_TABLE)
            strength = self._strength(entry, self.num_magnitude_bins, size,
                                      lambda: self.magnitude)
            image = self._run(image, name, strength)
        return image


class TrivialAugmentWide(_Augmenter):
    """One operation drawn uniformly, at a magnitude bin drawn uniformly."""

    def __init__(self, num_magnitude_bins=31, interpolation="nearest",
                 fill=None):
        super().__init__(interpolation, fill, num_magnitude_bins=num_magnitude_bins)

    def _augment(self, image):
        name, entry = self._pick(_WIDE_TABLE)
        bins = self.num_magnitude_bins
        strength = self._strength(entry, bins, tuple(F.get_size(image)),
                                  lambda: _draw_below(bins))
        return self._run(image, name, strength)


class AugMix(_Augmenter):
    """``mixture_width`` chains of 1-3 (or ``chain_depth``) random operations at severity up to
    ``severity``, mixed with Dirichlet(``alpha``) weights and blended with the original."""

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation="bilinear", fill=None):
        super().__init__(interpolation, fill)
        if not 1 <= severity <= _SEVERITY_BINS:
            raise ValueError(f"The severity must be between [1, {_SEVERITY_BINS}]. Got "
                             f"{severity} instead.")
        for key, value in (("severity", severity), ("mixture_width", mixture_width),
                           ("chain_depth", chain_depth), ("alpha", alpha),
                           ("all_ops", all_ops)):
            setattr(self, key, value)

    def _chain(self, batch, size, table):
        depth = self.chain_depth
        if depth <= 0:
            depth = int(torch.randint(low=1, high=4, size=(1,)).item())
        for _ in range(depth):
            name, entry = self._pick(table)
            strength = self._strength(entry, _SEVERITY_BINS, size,
                                      lambda: _draw_below(self.severity))
            batch = self._run(batch, name, strength)
        return batch

    def _augment(self, original):
        size = tuple(F.get_size(original))
        pixels = _plain(original) if isinstance(original, torch.Tensor) \
            else F.pil_to_tensor(original)
        shape = list(pixels.shape)
        want = 5 if isinstance(original, tv_tensors.Video) else 4
        batch = pixels.reshape([1] * max(want - pixels.ndim, 0) + shape)
        n = batch.shape[0]
        per_sample = [n] + [1] * (batch.ndim - 1)
        dirichlet = torch.distributions.Dirichlet
        keep = dirichlet(torch.tensor([self.alpha, self.alpha]).expand(n, -1)).sample()
        share = dirichlet(torch.tensor([self.alpha] * self.mixture_width).expand(n, -1)).sample()
        share = share * keep[:, 1].reshape([n, -1])
        mixed = keep[:, 0].reshape(per_sample) * batch
        table = _AUGMIX_ALL if self.all_ops else _AUGMIX_BASIC
        for chain in range(self.mixture_width):
            mixed.add_(share[:, chain].reshape(per_sample) * self._chain(batch, size, table))
        mixed = mixed.reshape(shape).to(dtype=pixels.dtype)
        if isinstance(original, (tv_tensors.Image, tv_tensors.Video)):
            return tv_tensors.wrap(mixed, like=original)
        return mixed if isinstance(original, torch.Tensor) else F.to_pil_image(mixed)
