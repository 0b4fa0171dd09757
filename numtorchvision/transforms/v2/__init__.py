"""``numtorchvision.transforms.v2``: transforms that take whole samples (an image with its
boxes, masks and labels, in any tuple / list / dict structure), transform every image,
video, mask and box in them consistently and pass the rest through, as
``torchvision.transforms.v2``."""

from ... import tv_tensors  # noqa: F401
from ..autoaugment import AutoAugmentPolicy  # noqa: F401
from ..functional import InterpolationMode  # noqa: F401
from . import functional  # noqa: F401
from ._augment import CutMix, MixUp, RandomErasing  # noqa: F401
from ._auto_augment import AutoAugment, RandAugment, TrivialAugmentWide  # noqa: F401
from ._color import (ColorJitter, Grayscale, RandomAdjustSharpness, RandomAutocontrast,  # noqa
                     RandomEqualize, RandomGrayscale, RandomInvert, RandomPosterize,
                     RandomSolarize)
from ._container import Compose, RandomApply, RandomChoice, RandomOrder  # noqa: F401
from ._geometry import (CenterCrop, Pad, RandomAffine, RandomCrop,  # noqa: F401
                        RandomHorizontalFlip, RandomIoUCrop, RandomResizedCrop, RandomRotation,
                        RandomVerticalFlip, RandomZoomOut, Resize)
from ._meta import ClampBoundingBoxes, ConvertBoundingBoxFormat  # noqa: F401
from ._misc import (ConvertImageDtype, GaussianBlur, Identity, Lambda, Normalize,  # noqa: F401
                    SanitizeBoundingBoxes, ToDtype)
from ._transform import Transform  # noqa: F401
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor  # noqa: F401
