"""Quantizable classification models (``quantize=True`` converts them to int8 so that
torchvision's quantized checkpoints load): ResNet-18/50 and ResNeXt-101. Their builders are
registered as ``quantized_<name>``."""

from .resnet import *  # noqa: F403
