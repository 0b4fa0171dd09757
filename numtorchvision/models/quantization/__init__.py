"""Quantizable classification models (``quantize=True`` converts them to int8 so that
torchvision's quantized checkpoints load): MobileNetV2, ResNet-18/50, ResNeXt-101 and
ShuffleNet V2, GoogLeNet, Inception v3 and MobileNetV3-Large.
Their builders are registered as ``quantized_<name>``."""

from . import mobilenet  # noqa: F401
from .googlenet import *  # noqa: F403
from .inception import *  # noqa: F403
from .mobilenetv2 import *  # noqa: F403
from .mobilenetv3 import *  # noqa: F403
from .resnet import *  # noqa: F403
from .shufflenetv2 import *  # noqa: F403
