"""Quantized modules (``torch.ao.nn.quantized.modules``)."""

import numtorch as torch
from numtorch.nn.modules.pooling import MaxPool2d  # noqa: F401  (torch re-exports it here)

from .activation import ELU, Hardswish, LeakyReLU, PReLU, ReLU6, Sigmoid, Softmax
from .batchnorm import BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .dropout import Dropout
from .embedding_ops import Embedding, EmbeddingBag
from .functional_modules import FloatFunctional, FXFloatFunctional, QFunctional
from .linear import Linear
from .normalization import GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LayerNorm

__all__ = ["BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
           "ConvTranspose2d", "ConvTranspose3d", "DeQuantize", "ELU", "Embedding",
           "EmbeddingBag", "GroupNorm", "Hardswish", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "LayerNorm", "LeakyReLU", "Linear", "Quantize", "ReLU6",
           "Sigmoid", "Softmax", "Dropout", "PReLU", "FloatFunctional", "FXFloatFunctional",
           "QFunctional"]


class Quantize(torch.nn.Module):
    """Quantizes float input with fixed ``scale``/``zero_point`` (buffers) to ``dtype`` (what
    a QuantStub becomes)."""

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None):
        super().__init__()
        self.register_buffer("scale", torch.tensor([scale]))
        self.register_buffer("zero_point", torch.tensor([zero_point], dtype=torch.long))
        self.dtype = dtype

    def forward(self, X):
        return torch.quantize_per_tensor(X, float(self.scale), int(self.zero_point),
                                         self.dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        if not hasattr(mod, "activation_post_process"):
            raise AssertionError(f"Module {type(mod).__name__} must have "
                                 f"activation_post_process attribute")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return Quantize(scale.float().item(), zero_point.long().item(),
                        mod.activation_post_process.dtype)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(torch.nn.Module):
    """Dequantizes its input to float32 (what a DeQuantStub becomes)."""

    def forward(self, Xq):
        return Xq.dequantize()

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return DeQuantize()

from .conv import _bind_fusion_classes  # noqa: E402

_bind_fusion_classes()
