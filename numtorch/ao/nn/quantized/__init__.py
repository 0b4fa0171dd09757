"""``torch.ao.nn.quantized``: modules on quantized tensors, their functional forms
(``functional``) and the dynamically quantized modules (``dynamic``)."""

from . import dynamic, functional, modules, reference  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import MaxPool2d  # noqa: F401

__all__ = ["BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
           "ConvTranspose2d", "ConvTranspose3d", "DeQuantize", "ELU", "Embedding",
           "EmbeddingBag", "GroupNorm", "Hardswish", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "LayerNorm", "LeakyReLU", "Linear", "MaxPool2d", "Quantize",
           "ReLU6", "Sigmoid", "Softmax", "Dropout", "PReLU", "FloatFunctional",
           "FXFloatFunctional", "QFunctional"]
