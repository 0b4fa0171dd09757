"""VGG (Simonyan and Zisserman, 2014): stacks of 3x3 convolutions, with or without batch
norm, configurations A (11 layers), B (13), D (16) and E (19)."""

from typing import Optional

import numtorch
from numtorch import nn

from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights",
           "VGG16_Weights", "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights",
           "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


class VGG(nn.Module):
    """A VGG network around a given ``features`` stack: a 7x7 adaptive average pool and three
    linear layers (4096, 4096, ``num_classes``) with ReLU and dropout.

    Args:
        features (nn.Module): the convolutional part, ending in 512 channels
            (see :func:`make_layers`).
        num_classes (int): outputs. Default: 1000.
        init_weights (bool): initialise as the paper's successors do (Kaiming-normal convs,
            N(0, 0.01) linear layers, zero biases). Default: True.
        dropout (float): dropout probability. Default: 0.5.
    """

    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(numtorch.flatten(x, 1))


def make_layers(cfg, batch_norm=False):
    """The ``features`` Sequential for a configuration list: an int is a 3x3 convolution with
    that many output channels (then batch norm if asked, then ReLU), ``"M"`` a 2x2 max pool."""
    layers = []
    channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2d(channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2d(v))
        layers.append(nn.ReLU(inplace=True))
        channels = v
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}


def _vgg(cfg, batch_norm, weights, progress, **kwargs):
    if weights is not None:
        kwargs["init_weights"] = False  # the checkpoint overwrites every parameter anyway

    def make(**kw):
        return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kw)

    return _build(make, weights, progress, kwargs)


_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg"


class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg11-8a719046.pth", 132863336, 69.02, 88.628, 7.609, 506.84,
        _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg11_bn-6002323d.pth", 132868840, 70.37, 89.81, 7.609, 506.881,
        _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg13-19584684.pth", 133047848, 69.928, 89.246, 11.308, 507.545,
        _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg13_bn-abd245e5.pth", 133053736, 71.586, 90.374, 11.308,
        507.59, _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg16-397923af.pth", 138357544, 71.592, 90.382, 15.47, 527.796,
        _RECIPE, min_size=(32, 32))
    IMAGENET1K_FEATURES = _imagenet("vgg16_features-amdegroot-88682ab5.pth", 138357544,
        float("nan"), float("nan"), 15.47, 527.802,
        "https://github.com/amdegroot/ssd.pytorch#training-ssd", min_size=(32, 32),
        transform_kw={"mean": (0.48235, 0.45882, 0.40784), "std": (1.0 / 255.0,) * 3},
        categories=None)
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg16_bn-6c64b313.pth", 138365992, 73.36, 91.516, 15.47,
        527.866, _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg19-dcbb9e9d.pth", 143667240, 72.376, 90.876, 19.632, 548.051,
        _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vgg19_bn-c79401a0.pth", 143678248, 74.218, 91.842, 19.632,
        548.143, _RECIPE, min_size=(32, 32))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_Weights.IMAGENET1K_V1))
def vgg11(*, weights: Optional[VGG11_Weights] = None, progress: bool = True, **kwargs):
    """VGG-11 (configuration "A") without batch norm.

    Args:
        weights (VGG11_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("A", False, VGG11_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_BN_Weights.IMAGENET1K_V1))
def vgg11_bn(*, weights: Optional[VGG11_BN_Weights] = None, progress: bool = True, **kwargs):
    """VGG-11 (configuration "A") with batch norm.

    Args:
        weights (VGG11_BN_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("A", True, VGG11_BN_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG13_Weights.IMAGENET1K_V1))
def vgg13(*, weights: Optional[VGG13_Weights] = None, progress: bool = True, **kwargs):
    """VGG-13 (configuration "B") without batch norm.

    Args:
        weights (VGG13_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("B", False, VGG13_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG13_BN_Weights.IMAGENET1K_V1))
def vgg13_bn(*, weights: Optional[VGG13_BN_Weights] = None, progress: bool = True, **kwargs):
    """VGG-13 (configuration "B") with batch norm.

    Args:
        weights (VGG13_BN_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("B", True, VGG13_BN_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_Weights.IMAGENET1K_V1))
def vgg16(*, weights: Optional[VGG16_Weights] = None, progress: bool = True, **kwargs):
    """VGG-16 (configuration "D") without batch norm.

    Args:
        weights (VGG16_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("D", False, VGG16_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_BN_Weights.IMAGENET1K_V1))
def vgg16_bn(*, weights: Optional[VGG16_BN_Weights] = None, progress: bool = True, **kwargs):
    """VGG-16 (configuration "D") with batch norm.

    Args:
        weights (VGG16_BN_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("D", True, VGG16_BN_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG19_Weights.IMAGENET1K_V1))
def vgg19(*, weights: Optional[VGG19_Weights] = None, progress: bool = True, **kwargs):
    """VGG-19 (configuration "E") without batch norm.

    Args:
        weights (VGG19_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("E", False, VGG19_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG19_BN_Weights.IMAGENET1K_V1))
def vgg19_bn(*, weights: Optional[VGG19_BN_Weights] = None, progress: bool = True, **kwargs):
    """VGG-19 (configuration "E") with batch norm.

    Args:
        weights (VGG19_BN_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VGG`.
    """
    return _vgg("E", True, VGG19_BN_Weights.verify(weights), progress, **kwargs)
