"""Object detection models with torchvision's module structure: the shared machinery
(anchors, box coding, matching, sampling, the resize/batch transform, FPN backbones)."""

from . import _utils, anchor_utils, backbone_utils, image_list, transform  # noqa: F401
from .fcos import *  # noqa: F401,F403
from .retinanet import *  # noqa: F401,F403
from .ssd import *  # noqa: F401,F403
from .ssdlite import *  # noqa: F401,F403
