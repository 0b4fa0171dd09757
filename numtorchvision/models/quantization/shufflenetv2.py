"""Quantizable ShuffleNet V2: the float network with quant/dequant stubs, the branch
concatenation through ``FloatFunctional.cat`` and fusable conv-BN(-ReLU) groups;
``quantize=True`` converts it to int8 (fbgemm)."""

from typing import Optional, Union

from numtorch.ao.nn.quantized import FloatFunctional
from numtorch.ao.quantization import DeQuantStub, QuantStub

from .. import shufflenetv2 as float_shufflenet
from .._api import WeightsEnum, register_model
from .._utils import _imagenet, handle_legacy_interface
from .resnet import _quantizable_build
from .utils import _fuse_modules

__all__ = ["QuantizableShuffleNetV2", "ShuffleNet_V2_X0_5_QuantizedWeights",
           "ShuffleNet_V2_X1_0_QuantizedWeights", "ShuffleNet_V2_X1_5_QuantizedWeights",
           "ShuffleNet_V2_X2_0_QuantizedWeights", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
           "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]


class QuantizableInvertedResidual(float_shufflenet.InvertedResidual):
    """The unit with its concatenation as a quantizable ``FloatFunctional``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cat = FloatFunctional()

    def forward(self, x):
        if self.stride == 1:
            kept, rest = x.chunk(2, dim=1)
            out = self.cat.cat([kept, self.branch2(rest)], dim=1)
        else:
            out = self.cat.cat([self.branch1(x), self.branch2(x)], dim=1)
        return float_shufflenet.channel_shuffle(out, 2)


class QuantizableShuffleNetV2(float_shufflenet.ShuffleNetV2):
    """ShuffleNetV2 between a QuantStub and a DeQuantStub (arguments as ShuffleNetV2's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, inverted_residual=QuantizableInvertedResidual, **kwargs)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        return self.dequant(self._forward_impl(self.quant(x)))

    def fuse_model(self, is_qat=None):
        """Fuse conv1, conv5 and every unit's conv-BN(-ReLU) groups (before quantization)."""
        for name in ("conv1", "conv5"):
            _fuse_modules(getattr(self, name), [["0", "1", "2"]], is_qat, inplace=True)
        for m in self.modules():
            if type(m) is QuantizableInvertedResidual:
                if len(m.branch1):
                    _fuse_modules(m.branch1, [["0", "1"], ["2", "3", "4"]], is_qat,
                                  inplace=True)
                _fuse_modules(m.branch2, [["0", "1", "2"], ["3", "4"], ["5", "6", "7"]],
                              is_qat, inplace=True)


_RECIPE = ("https://github.com/pytorch/vision/tree/main/references/classification"
           "#post-training-quantized-models")


def _q(file, num_params, acc1, acc5, ops, size, unquantized, recipe=_RECIPE, **kw):
    return _imagenet("quantized/" + file, num_params, acc1, acc5, ops, size, recipe,
                     backend="fbgemm", unquantized=unquantized, **kw)


class ShuffleNet_V2_X0_5_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("shufflenetv2_x0.5_fbgemm-00845098.pth", 1366792, 57.972, 79.78,
                              0.04, 1.501,
                              float_shufflenet.ShuffleNet_V2_X0_5_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_FBGEMM_V1


class ShuffleNet_V2_X1_0_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("shufflenetv2_x1_fbgemm-1e62bb32.pth", 2278604, 68.36, 87.582,
                              0.145, 2.334,
                              float_shufflenet.ShuffleNet_V2_X1_0_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_FBGEMM_V1


class ShuffleNet_V2_X1_5_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("shufflenetv2_x1_5_fbgemm-d7401f05.pth", 3503624, 72.052, 90.7,
                              0.296, 3.672,
                              float_shufflenet.ShuffleNet_V2_X1_5_Weights.IMAGENET1K_V1,
                              recipe="https://github.com/pytorch/vision/pull/5906",
                              resize_size=232)
    DEFAULT = IMAGENET1K_FBGEMM_V1


class ShuffleNet_V2_X2_0_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("shufflenetv2_x2_0_fbgemm-5cac526c.pth", 7393996, 75.354, 92.488,
                              0.583, 7.467,
                              float_shufflenet.ShuffleNet_V2_X2_0_Weights.IMAGENET1K_V1,
                              recipe="https://github.com/pytorch/vision/pull/5906",
                              resize_size=232)
    DEFAULT = IMAGENET1K_FBGEMM_V1


def _builder(name, quantized_enum, float_enum, channels):
    def build(*, weights=None, progress=True, quantize=False, **kwargs):
        weights = (quantized_enum if quantize else float_enum).verify(weights)
        return _quantizable_build(
            lambda **kw: QuantizableShuffleNetV2([4, 8, 4], channels, **kw), weights, progress,
            quantize, kwargs)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = (f"ShuffleNet V2 ({name[-3:].replace('_', '.')}x), quantizable (int8 with "
                     f"``quantize=True``; ``weights``: {quantized_enum.__name__} then, "
                     f"{float_enum.__name__} otherwise).")
    build.__annotations__ = {"weights": Optional[Union[quantized_enum, float_enum]],
                             "progress": bool, "quantize": bool}
    legacy = {"weights": ("pretrained", lambda kw: (quantized_enum.IMAGENET1K_FBGEMM_V1
                                                    if kw.get("quantize", False)
                                                    else float_enum.IMAGENET1K_V1))}
    return register_model(name=f"quantized_{name}")(handle_legacy_interface(**legacy)(build))


shufflenet_v2_x0_5 = _builder("shufflenet_v2_x0_5", ShuffleNet_V2_X0_5_QuantizedWeights,
                              float_shufflenet.ShuffleNet_V2_X0_5_Weights,
                              [24, 48, 96, 192, 1024])
shufflenet_v2_x1_0 = _builder("shufflenet_v2_x1_0", ShuffleNet_V2_X1_0_QuantizedWeights,
                              float_shufflenet.ShuffleNet_V2_X1_0_Weights,
                              [24, 116, 232, 464, 1024])
shufflenet_v2_x1_5 = _builder("shufflenet_v2_x1_5", ShuffleNet_V2_X1_5_QuantizedWeights,
                              float_shufflenet.ShuffleNet_V2_X1_5_Weights,
                              [24, 176, 352, 704, 1024])
shufflenet_v2_x2_0 = _builder("shufflenet_v2_x2_0", ShuffleNet_V2_X2_0_QuantizedWeights,
                              float_shufflenet.ShuffleNet_V2_X2_0_Weights,
                              [24, 244, 488, 976, 2048])
