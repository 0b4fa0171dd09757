"""Object detection models with torchvision's module structure, builders and COCO weights
enums: Faster R-CNN, Mask R-CNN, Keypoint R-CNN, RetinaNet, FCOS, SSD and SSDlite, over the
shared machinery (anchors, box coding, matching, sampling, the resize/batch transform, FPN
backbones)."""

from . import _utils, anchor_utils, backbone_utils, image_list, transform  # noqa: F401
from .faster_rcnn import *  # noqa: F401,F403
from .keypoint_rcnn import *  # noqa: F401,F403
from .mask_rcnn import *  # noqa: F401,F403
from .fcos import *  # noqa: F401,F403
from .retinanet import *  # noqa: F401,F403
from .ssd import *  # noqa: F401,F403
from .ssdlite import *  # noqa: F401,F403
