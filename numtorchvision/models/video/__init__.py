"""Video classification models with torchvision's structure and weights enums: the video
ResNets R3D-18, MC3-18 and R(2+1)D-18, and S3D (MViT and Swin3D are not provided)."""

from .resnet import *  # noqa: F403
from .s3d import *  # noqa: F403
