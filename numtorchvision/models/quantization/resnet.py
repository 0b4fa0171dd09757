"""Quantizable ResNet and ResNeXt: the float networks with quant/dequant stubs, skip additions
through ``FloatFunctional`` and fusable conv-BN(-ReLU) groups; ``quantize=True`` converts
them to int8 (fbgemm) so that torchvision's quantized checkpoints load."""

from functools import partial
from typing import Optional, Union

from numtorch import nn
from numtorch.ao.nn.quantized import FloatFunctional
from numtorch.ao.quantization import DeQuantStub, QuantStub

from .. import resnet as float_resnet
from .._api import WeightsEnum, register_model
from .._utils import _build, _imagenet, _ovewrite_named_param, handle_legacy_interface
from .utils import _fuse_modules, _replace_relu, quantize_model

__all__ = ["QuantizableResNet", "ResNet18_QuantizedWeights", "ResNet50_QuantizedWeights",
           "ResNeXt101_32X8D_QuantizedWeights", "ResNeXt101_64X4D_QuantizedWeights",
           "resnet18", "resnet50", "resnext101_32x8d", "resnext101_64x4d"]


class QuantizableBasicBlock(float_resnet.BasicBlock):
    """BasicBlock whose final add-and-ReLU is one quantizable ``FloatFunctional.add_relu``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.add_relu = FloatFunctional()

    def forward(self, x):
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
        skip = x if self.downsample is None else self.downsample(x)
        return self.add_relu.add_relu(out, skip)

    def fuse_model(self, is_qat=None):
        _fuse_modules(self, [["conv1", "bn1", "relu"], ["conv2", "bn2"]], is_qat, inplace=True)
        if self.downsample is not None:
            _fuse_modules(self.downsample, ["0", "1"], is_qat, inplace=True)


class QuantizableBottleneck(float_resnet.Bottleneck):
    """Bottleneck with one ReLU module per fusable group and a quantizable add-and-ReLU."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.skip_add_relu = FloatFunctional()
        self.relu1 = nn.ReLU(inplace=False)
        self.relu2 = nn.ReLU(inplace=False)

    def forward(self, x):
        out = self.relu1(self.bn1(self.conv1(x)))
        out = self.relu2(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        skip = x if self.downsample is None else self.downsample(x)
        return self.skip_add_relu.add_relu(out, skip)

    def fuse_model(self, is_qat=None):
        groups = [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3"]]
        _fuse_modules(self, groups, is_qat, inplace=True)
        if self.downsample is not None:
            _fuse_modules(self.downsample, ["0", "1"], is_qat, inplace=True)


class QuantizableResNet(float_resnet.ResNet):
    """ResNet between a QuantStub and a DeQuantStub (arguments as ResNet's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        return self.dequant(self._forward_impl(self.quant(x)))

    def fuse_model(self, is_qat=None):
        """Fuse the stem and every block's conv-BN(-ReLU) groups (before quantization)."""
        _fuse_modules(self, ["conv1", "bn1", "relu"], is_qat, inplace=True)
        for m in self.modules():
            if type(m) in (QuantizableBasicBlock, QuantizableBottleneck):
                m.fuse_model(is_qat)


def _quantizable_build(construct, weights, progress, quantize, kwargs):
    """Build ``construct(**kwargs)`` with fusable ReLUs, quantize it when asked (on the
    weights' backend), then load the weights."""
    if weights is not None and "backend" in weights.meta:
        _ovewrite_named_param(kwargs, "backend", weights.meta["backend"])
    backend = kwargs.pop("backend", "fbgemm")

    def make(**kw):
        model = construct(**kw)
        _replace_relu(model)
        if quantize:
            quantize_model(model, backend)
        return model

    return _build(make, weights, progress, kwargs)


def _quantizable_resnet(block, layers, weights, progress, quantize, kwargs):
    return _quantizable_build(lambda **kw: QuantizableResNet(block, layers, **kw), weights,
                              progress, quantize, kwargs)


_RECIPE = ("https://github.com/pytorch/vision/tree/main/references/classification"
           "#post-training-quantized-models")
_q = partial(_imagenet, backend="fbgemm")


class ResNet18_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("quantized/resnet18_fbgemm_16fa66dd.pth", 11689512, 69.494,
                              88.882, 1.814, 11.238, _RECIPE,
                              unquantized=float_resnet.ResNet18_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_FBGEMM_V1


class ResNet50_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("quantized/resnet50_fbgemm_bf931d71.pth", 25557032, 75.92,
                              92.814, 4.089, 24.759, _RECIPE,
                              unquantized=float_resnet.ResNet50_Weights.IMAGENET1K_V1)
    IMAGENET1K_FBGEMM_V2 = _q("quantized/resnet50_fbgemm-23753f79.pth", 25557032, 80.282,
                              94.976, 4.089, 24.953, _RECIPE, resize_size=232,
                              unquantized=float_resnet.ResNet50_Weights.IMAGENET1K_V2)
    DEFAULT = IMAGENET1K_FBGEMM_V2


class ResNeXt101_32X8D_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("quantized/resnext101_32x8_fbgemm_09835ccf.pth", 88791336,
                              78.986, 94.48, 16.414, 86.034, _RECIPE,
                              unquantized=float_resnet.ResNeXt101_32X8D_Weights.IMAGENET1K_V1)
    IMAGENET1K_FBGEMM_V2 = _q("quantized/resnext101_32x8_fbgemm-ee16d00c.pth", 88791336,
                              82.574, 96.132, 16.414, 86.645, _RECIPE, resize_size=232,
                              unquantized=float_resnet.ResNeXt101_32X8D_Weights.IMAGENET1K_V2)
    DEFAULT = IMAGENET1K_FBGEMM_V2


class ResNeXt101_64X4D_QuantizedWeights(WeightsEnum):
    IMAGENET1K_FBGEMM_V1 = _q("quantized/resnext101_64x4d_fbgemm-605a1cb3.pth", 83455272,
                              82.898, 96.326, 15.46, 81.556,
                              "https://github.com/pytorch/vision/pull/5935", resize_size=232,
                              unquantized=float_resnet.ResNeXt101_64X4D_Weights.IMAGENET1K_V1)
    DEFAULT = IMAGENET1K_FBGEMM_V1


def _builder(name, quantized_enum, float_enum, block, layers, doc, **fixed):
    """The builder ``name`` (registered as ``quantized_<name>``): ``weights`` is a quantized
    checkpoint when ``quantize=True`` and a float one otherwise; the old ``pretrained=True``
    picks the first of either."""

    def build(*, weights=None, progress=True, quantize=False, **kwargs):
        weights = (quantized_enum if quantize else float_enum).verify(weights)
        for key, value in fixed.items():
            _ovewrite_named_param(kwargs, key, value)
        return _quantizable_resnet(block, layers, weights, progress, quantize, kwargs)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = doc
    build.__annotations__ = {"weights": Optional[Union[quantized_enum, float_enum]],
                             "progress": bool, "quantize": bool}
    legacy = {"weights": ("pretrained", lambda kw: (quantized_enum.IMAGENET1K_FBGEMM_V1
                                                    if kw.get("quantize", False)
                                                    else float_enum.IMAGENET1K_V1))}
    return register_model(name=f"quantized_{name}")(handle_legacy_interface(**legacy)(build))


_DOC = """{title}, quantizable (int8 with ``quantize=True``).

    Args:
        weights ({q} or {f}, optional): quantized weights when ``quantize=True``, float
            weights otherwise; None for random.
        progress (bool): show a download progress bar. Default: True.
        quantize (bool): convert the model to int8 (fbgemm) before loading. Default: False.
        **kwargs: arguments of :class:`QuantizableResNet` (and ``backend``).
    """

resnet18 = _builder(
    "resnet18", ResNet18_QuantizedWeights, float_resnet.ResNet18_Weights,
    QuantizableBasicBlock, [2, 2, 2, 2],
    _DOC.format(title="ResNet-18", q="ResNet18_QuantizedWeights", f="ResNet18_Weights"))
resnet50 = _builder(
    "resnet50", ResNet50_QuantizedWeights, float_resnet.ResNet50_Weights,
    QuantizableBottleneck, [3, 4, 6, 3],
    _DOC.format(title="ResNet-50", q="ResNet50_QuantizedWeights", f="ResNet50_Weights"))
resnext101_32x8d = _builder(
    "resnext101_32x8d", ResNeXt101_32X8D_QuantizedWeights,
    float_resnet.ResNeXt101_32X8D_Weights, QuantizableBottleneck, [3, 4, 23, 3],
    _DOC.format(title="ResNeXt-101 32x8d", q="ResNeXt101_32X8D_QuantizedWeights",
                f="ResNeXt101_32X8D_Weights"), groups=32, width_per_group=8)
resnext101_64x4d = _builder(
    "resnext101_64x4d", ResNeXt101_64X4D_QuantizedWeights,
    float_resnet.ResNeXt101_64X4D_Weights, QuantizableBottleneck, [3, 4, 23, 3],
    _DOC.format(title="ResNeXt-101 64x4d", q="ResNeXt101_64X4D_QuantizedWeights",
                f="ResNeXt101_64X4D_Weights"), groups=64, width_per_group=4)
