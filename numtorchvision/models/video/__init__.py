"""Video classification models with torchvision's structure and weights enums: the video
ResNets R3D-18, MC3-18 and R(2+1)D-18, S3D, Swin3D-T/S/B, MViT-B (v1) and MViTv2-S."""

from .mvit import *  # noqa: F403
from .resnet import *  # noqa: F403
from .s3d import *  # noqa: F403
from .swin_transformer import *  # noqa: F403
