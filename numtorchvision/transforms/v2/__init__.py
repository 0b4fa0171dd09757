"""``numtorchvision.transforms.v2``: transforms that take whole samples (an image with its
boxes, key points, masks and labels, in any tuple / list / dict structure), transform every
image, video, mask, box and point in them consistently and pass the rest through, as
``torchvision.transforms.v2``."""

# ruff: noqa: F401
from ... import transforms as _v1
from ... import tv_tensors
from ..autoaugment import AutoAugmentPolicy
from ..functional import InterpolationMode
from . import functional
from ._augment import CutMix, MixUp, RandomErasing
from ._auto_augment import AugMix, AutoAugment, RandAugment, TrivialAugmentWide
from ._color import (
    RGB, ColorJitter, Grayscale, RandomAdjustSharpness, RandomAutocontrast,
    RandomChannelPermutation, RandomEqualize, RandomGrayscale, RandomInvert,
    RandomPhotometricDistort, RandomPosterize, RandomSolarize)
from ._container import Compose, RandomApply, RandomChoice, RandomOrder
from ._geometry import (
    CenterCrop, Pad, RandomAffine, RandomCrop, RandomHorizontalFlip, RandomIoUCrop,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, RandomZoomOut, Resize)
from ._geometry_more import (
    ElasticTransform, FiveCrop, RandomPerspective, RandomResize, RandomShortestSize,
    ScaleJitter, TenCrop)
from ._jpeg import JPEG
from ._meta import ClampBoundingBoxes, ClampKeyPoints, ConvertBoundingBoxFormat, SetClampingMode
from ._misc import (
    ConvertImageDtype, GaussianBlur, GaussianNoise, Identity, Lambda, LinearTransformation,
    Normalize, SanitizeBoundingBoxes, SanitizeKeyPoints, ToDtype, ToTensor,
    UniformTemporalSubsample)
from ._transform import Transform
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor
from ._utils import (
    check_type, get_bounding_boxes, get_keypoints, has_all, has_any, query_chw, query_size)

# v2 transforms that extend a v1 one: ``_v1_transform_cls`` names it, and its static
# ``get_params`` (when it has one) is reachable from the v2 class too, as in torchvision
_V1_COUNTERPARTS = (
    "AugMix", "AutoAugment", "CenterCrop", "ColorJitter", "ConvertImageDtype",
    "ElasticTransform", "FiveCrop", "GaussianBlur", "Grayscale", "LinearTransformation",
    "Normalize", "Pad", "RandAugment", "RandomAdjustSharpness", "RandomAffine", "RandomApply",
    "RandomAutocontrast", "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale",
    "RandomHorizontalFlip", "RandomInvert", "RandomPerspective", "RandomPosterize",
    "RandomResizedCrop", "RandomRotation", "RandomSolarize", "RandomVerticalFlip", "Resize",
    "TenCrop", "TrivialAugmentWide")
for _name in _V1_COUNTERPARTS:
    _new, _old = globals()[_name], getattr(_v1, _name)
    _new._v1_transform_cls = _old
    if "get_params" in vars(_old):
        _new.get_params = staticmethod(_old.get_params)
del _name, _new, _old
