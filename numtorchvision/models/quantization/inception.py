"""Quantizable Inception v3: conv-BN-ReLU units with a ReLU module to fuse, every branch
concatenation through a ``FloatFunctional`` (``myop``; InceptionE's three are ``myop1`` to
``myop3``), quant/dequant stubs around the network; ``quantize=True`` converts it to int8
(fbgemm) so that torchvision's checkpoint loads."""

from typing import Optional, Union

from numtorch.ao.quantization import DeQuantStub, QuantStub
from numtorch.nn import functional as F

from .. import inception as float_inception
from .._api import WeightsEnum, register_model
from .._utils import _imagenet, handle_legacy_interface
from .googlenet import QuantizableBasicConv2d, _inception_family_build, _quantizable_cat

__all__ = ["QuantizableInception3", "Inception_V3_QuantizedWeights", "inception_v3"]

QuantizableInceptionA = _quantizable_cat(float_inception.InceptionA, ["myop"])
QuantizableInceptionB = _quantizable_cat(float_inception.InceptionB, ["myop"])
QuantizableInceptionC = _quantizable_cat(float_inception.InceptionC, ["myop"])
QuantizableInceptionD = _quantizable_cat(float_inception.InceptionD, ["myop"])


class QuantizableInceptionE(_quantizable_cat(float_inception.InceptionE,
                                             ["myop1", "myop2", "myop3"])):
    """InceptionE: the two split 3x3 branches and the final join each have their own cat."""

    def _forward(self, x):
        out = [self.branch1x1(x)]
        a = self.branch3x3_1(x)
        out.append(self.myop1.cat([self.branch3x3_2a(a), self.branch3x3_2b(a)], 1))
        b = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        out.append(self.myop2.cat([self.branch3x3dbl_3a(b), self.branch3x3dbl_3b(b)], 1))
        out.append(self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1)))
        return out


QuantizableInceptionE.__name__ = QuantizableInceptionE.__qualname__ = "QuantizableInceptionE"


class QuantizableInceptionAux(float_inception.InceptionAux):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, conv_block=QuantizableBasicConv2d, **kwargs)


class QuantizableInception3(float_inception.Inception3):
    """Inception v3 between a QuantStub and a DeQuantStub (arguments as Inception3's)."""

    def __init__(self, *args, **kwargs):
        blocks = [QuantizableBasicConv2d, QuantizableInceptionA, QuantizableInceptionB,
                  QuantizableInceptionC, QuantizableInceptionD, QuantizableInceptionE,
                  QuantizableInceptionAux]
        super().__init__(*args, inception_blocks=blocks, **kwargs)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x, aux = self._forward(self.quant(self._transform_input(x)))
        x = self.dequant(x)
        if self.training and self.aux_logits:
            return float_inception.InceptionOutputs(x, aux)
        return x

    def fuse_model(self, is_qat=None):
        """Fuse every conv-BN-ReLU unit (before quantization)."""
        for m in self.modules():
            if type(m) is QuantizableBasicConv2d:
                m.fuse_model(is_qat)


class Inception_V3_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _imagenet(
        "quantized/inception_v3_google_fbgemm-a2837893.pth", 27161264, 77.176, 93.354, 5.713,
        23.146, "https://github.com/pytorch/vision/tree/main/references/classification"
        "#post-training-quantized-models",
        min_size=(75, 75), crop_size=299, resize_size=342, backend="fbgemm",
        unquantized=float_inception.Inception_V3_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_FBGEMM_V1


@register_model(name="quantized_inception_v3")
@handle_legacy_interface(weights=("pretrained", lambda kw: (
    Inception_V3_QuantizedWeights.IMAGENET1K_FBGEMM_V1 if kw.get("quantize", False)
    else float_inception.Inception_V3_Weights.IMAGENET1K_V1)))
def inception_v3(*, weights: Optional[Union[Inception_V3_QuantizedWeights,
                                            float_inception.Inception_V3_Weights]] = None,
                 progress: bool = True, quantize: bool = False, **kwargs):
    """Inception v3, quantizable (int8 with ``quantize=True``).

    Args:
        weights (Inception_V3_QuantizedWeights or Inception_V3_Weights, optional): quantized
            weights when ``quantize=True``, float weights otherwise; None for random.
        progress (bool): show a download progress bar. Default: True.
        quantize (bool): convert the model to int8 before loading. Default: False.
        **kwargs: arguments of :class:`QuantizableInception3` (and ``backend``).
    """
    enum = Inception_V3_QuantizedWeights if quantize else float_inception.Inception_V3_Weights
    weights = enum.verify(weights)
    return _inception_family_build(QuantizableInception3, weights, progress, quantize, kwargs,
                                   ("AuxLogits",), True, False)

