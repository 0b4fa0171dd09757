"""SqueezeNet (Iandola et al., 2016): AlexNet-level accuracy from "fire" modules with a
fraction of the parameters; version 1.1 needs about 2.4x less computation than 1.0."""

from typing import Optional

import numtorch
from numtorch import nn

from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["SqueezeNet", "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights", "squeezenet1_0",
           "squeezenet1_1"]


class Fire(nn.Module):
    """A 1x1 "squeeze" convolution feeding parallel 1x1 and 3x3 "expand" convolutions whose
    outputs are concatenated along channels (all followed by ReLU)."""

    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        s = self.squeeze_activation(self.squeeze(x))
        return numtorch.cat([self.expand1x1_activation(self.expand1x1(s)),
                             self.expand3x3_activation(self.expand3x3(s))], 1)


def _pool():
    return nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)


class SqueezeNet(nn.Module):
    """SqueezeNet; the classifier is a 1x1 convolution to ``num_classes`` channels, ReLU and
    global average pooling.

    Args:
        version (str): ``"1_0"`` or ``"1_1"``. Default: ``"1_0"``.
        num_classes (int): outputs. Default: 1000.
        dropout (float): dropout probability before the classifier. Default: 0.5.
    """

    def __init__(self, version="1_0", num_classes=1000, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True), _pool(),
                Fire(96, 16, 64, 64), Fire(128, 16, 64, 64), Fire(128, 32, 128, 128), _pool(),
                Fire(256, 32, 128, 128), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256), _pool(), Fire(512, 64, 256, 256))
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True), _pool(),
                Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), _pool(),
                Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), _pool(),
                Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256),
                Fire(512, 64, 256, 256))
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    nn.init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        return numtorch.flatten(self.classifier(self.features(x)), 1)


def _squeezenet(version, weights, progress, **kwargs):
    return _build(lambda **kw: SqueezeNet(version, **kw), weights, progress, kwargs)


_RECIPE = "https://github.com/pytorch/vision/pull/49#issuecomment-277560717"


class SqueezeNet1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("squeezenet1_0-b66bff10.pth", 1248424, 58.092, 80.42, 0.819,
                              4.778, _RECIPE, min_size=(21, 21))
    DEFAULT = IMAGENET1K_V1


class SqueezeNet1_1_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("squeezenet1_1-b8a52dc0.pth", 1235496, 58.178, 80.624, 0.349,
                              4.729, _RECIPE, min_size=(17, 17))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", SqueezeNet1_0_Weights.IMAGENET1K_V1))
def squeezenet1_0(*, weights: Optional[SqueezeNet1_0_Weights] = None, progress: bool = True,
                  **kwargs):
    """SqueezeNet 1.0.

    Args:
        weights (SqueezeNet1_0_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SqueezeNet`.
    """
    return _squeezenet("1_0", SqueezeNet1_0_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", SqueezeNet1_1_Weights.IMAGENET1K_V1))
def squeezenet1_1(*, weights: Optional[SqueezeNet1_1_Weights] = None, progress: bool = True,
                  **kwargs):
    """SqueezeNet 1.1 (a smaller first convolution and earlier pooling than 1.0).

    Args:
        weights (SqueezeNet1_1_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SqueezeNet`.
    """
    return _squeezenet("1_1", SqueezeNet1_1_Weights.verify(weights), progress, **kwargs)
