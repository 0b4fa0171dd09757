"""``numtorchvision.transforms``: image transforms for PIL images and numtorch tensors."""

from . import functional  # noqa: F401
from .autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment, TrivialAugmentWide  # noqa: F401,E501
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transform_names

__all__ = list(_transform_names) + ["AutoAugmentPolicy", "AutoAugment", "RandAugment",
                                    "TrivialAugmentWide", "AugMix"]
