"""``numtorchvision.transforms``: image transforms for PIL images and numtorch tensors."""

from . import functional  # noqa: F401
from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide
from .transforms import *
from .transforms import __all__ as _transform_names

__all__ = list(_transform_names) + ["AutoAugmentPolicy", "AutoAugment", "RandAugment",
                                    "TrivialAugmentWide", "AugMix"]
