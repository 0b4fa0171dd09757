"""Quantizable classification models (``quantize=True`` converts them to int8 so that
torchvision's quantized checkpoints load): MobileNetV2, ResNet-18/50, ResNeXt-101 and
ShuffleNet V2.
Their builders are registered as ``quantized_<name>``."""

from .mobilenetv2 import *  # noqa: F403
from .resnet import *  # noqa: F403
from .shufflenetv2 import *  # noqa: F403
