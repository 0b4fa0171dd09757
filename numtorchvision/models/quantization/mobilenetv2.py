"""Quantizable MobileNetV2: the float network with quant/dequant stubs, the residual sum
through ``FloatFunctional.add`` and fusable conv-BN(-ReLU) groups; ``quantize=True`` converts
it to int8 (its checkpoint was trained for the qnnpack engine)."""

from typing import Optional, Union

from numtorch import nn
from numtorch.ao.nn.quantized import FloatFunctional
from numtorch.ao.quantization import DeQuantStub, QuantStub

from ...ops.misc import Conv2dNormActivation
from .. import mobilenetv2 as float_mobilenet
from .._api import WeightsEnum, register_model
from .._utils import _imagenet, handle_legacy_interface
from .resnet import _quantizable_build
from .utils import _fuse_modules

__all__ = ["QuantizableMobileNetV2", "MobileNet_V2_QuantizedWeights", "mobilenet_v2"]


class QuantizableInvertedResidual(float_mobilenet.InvertedResidual):
    """The block with its residual sum as a quantizable ``FloatFunctional``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.skip_add = FloatFunctional()

    def forward(self, x):
        out = self.conv(x)
        return self.skip_add.add(x, out) if self.use_res_connect else out

    def fuse_model(self, is_qat=None):
        # the projection: the block's only bare Conv2d and the BN after it
        for i, layer in enumerate(self.conv):
            if type(layer) is nn.Conv2d:
                _fuse_modules(self.conv, [str(i), str(i + 1)], is_qat, inplace=True)


class QuantizableMobileNetV2(float_mobilenet.MobileNetV2):
    """MobileNetV2 between a QuantStub and a DeQuantStub (arguments as MobileNetV2's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        return self.dequant(self._forward_impl(self.quant(x)))

    def fuse_model(self, is_qat=None):
        """Fuse every conv-BN-ReLU unit and each block's projection (before quantization)."""
        for m in self.modules():
            if type(m) is Conv2dNormActivation:
                _fuse_modules(m, ["0", "1", "2"], is_qat, inplace=True)
            if type(m) is QuantizableInvertedResidual:
                m.fuse_model(is_qat)


class MobileNet_V2_QuantizedWeights(WeightsEnum):
    IMAGENET1K_QNNPACK_V1 = _imagenet(
        "quantized/mobilenet_v2_qnnpack_37f702c5.pth", 3504872, 71.658, 90.15, 0.301, 3.423,
        "https://github.com/pytorch/vision/tree/main/references/classification#qat-mobilenetv2",
        backend="qnnpack", unquantized=float_mobilenet.MobileNet_V2_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_QNNPACK_V1


@register_model(name="quantized_mobilenet_v2")
@handle_legacy_interface(weights=("pretrained", lambda kw: (
    MobileNet_V2_QuantizedWeights.IMAGENET1K_QNNPACK_V1 if kw.get("quantize", False)
    else float_mobilenet.MobileNet_V2_Weights.IMAGENET1K_V1)))
def mobilenet_v2(*, weights: Optional[Union[MobileNet_V2_QuantizedWeights,
                                            float_mobilenet.MobileNet_V2_Weights]] = None,
                 progress: bool = True, quantize: bool = False, **kwargs):
    """MobileNetV2, quantizable (int8 with ``quantize=True``).

    Args:
        weights (MobileNet_V2_QuantizedWeights or MobileNet_V2_Weights, optional): quantized
            weights when ``quantize=True``, float weights otherwise; None for random.
        progress (bool): show a download progress bar. Default: True.
        quantize (bool): convert the model to int8 before loading. Default: False.
        **kwargs: arguments of :class:`QuantizableMobileNetV2` (and ``backend``).
    """
    enum = MobileNet_V2_QuantizedWeights if quantize else float_mobilenet.MobileNet_V2_Weights
    weights = enum.verify(weights)
    return _quantizable_build(
        lambda **kw: QuantizableMobileNetV2(block=QuantizableInvertedResidual, **kw), weights,
        progress, quantize, kwargs)
