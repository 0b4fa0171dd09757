"""Semantic segmentation models with torchvision's structure and weights enums: FCN and
DeepLabV3 (ResNet-50/101, MobileNetV3-Large) and Lite R-ASPP."""

from .deeplabv3 import *
from .fcn import *
from .lraspp import *
