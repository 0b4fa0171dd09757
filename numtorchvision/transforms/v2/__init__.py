"""``numtorchvision.transforms.v2``: transforms that take whole samples (an image with its
boxes, masks and labels, in any tuple / list / dict structure), transform every image,
video, mask and box in them consistently and pass the rest through, as
``torchvision.transforms.v2``."""

from ... import tv_tensors  # noqa: F401
from ..autoaugment import AutoAugmentPolicy  # noqa: F401
from ..functional import InterpolationMode  # noqa: F401
from . import functional  # noqa: F401
from ._augment import CutMix, MixUp, RandomErasing  # noqa: F401
from ._auto_augment import AugMix, AutoAugment, RandAugment, TrivialAugmentWide  # noqa: F401
from ._color import (  # noqa: F401
                     RGB,
                     ColorJitter,
                     Grayscale,
                     RandomAdjustSharpness,
                     RandomAutocontrast,
                     RandomChannelPermutation,
                     RandomEqualize,
                     RandomGrayscale,
                     RandomInvert,
                     RandomPhotometricDistort,
                     RandomPosterize,
                     RandomSolarize,
)
from ._container import Compose, RandomApply, RandomChoice, RandomOrder  # noqa: F401
from ._geometry import (  # noqa: F401
                     CenterCrop,
                     Pad,
                     RandomAffine,
                     RandomCrop,
                     RandomHorizontalFlip,
                     RandomIoUCrop,
                     RandomResizedCrop,
                     RandomRotation,
                     RandomVerticalFlip,
                     RandomZoomOut,
                     Resize,
)
from ._geometry_more import (  # noqa: F401
                     ElasticTransform,
                     FiveCrop,
                     RandomPerspective,
                     RandomResize,
                     RandomShortestSize,
                     ScaleJitter,
                     TenCrop,
)
from ._meta import ClampBoundingBoxes, ConvertBoundingBoxFormat, SetClampingMode  # noqa: F401
from ._misc import (  # noqa: F401
                     ConvertImageDtype,
                     GaussianBlur,
                     GaussianNoise,
                     Identity,
                     Lambda,
                     LinearTransformation,
                     Normalize,
                     SanitizeBoundingBoxes,
                     ToDtype,
                     ToTensor,
                     UniformTemporalSubsample,
)
from ._transform import Transform  # noqa: F401
from ._type_conversion import PILToTensor, ToImage, ToPILImage, ToPureTensor  # noqa: F401
from ._utils import check_type, get_bounding_boxes, has_all, has_any, query_chw, query_size  # noqa: F401
