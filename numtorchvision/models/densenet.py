"""DenseNet-BC (Huang et al., 2016): every layer of a dense block sees the concatenated
feature maps of all the layers before it."""

import re
from collections import OrderedDict
from typing import Optional

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ._api import WeightsEnum, register_model
from ._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface

__all__ = ["DenseNet", "DenseNet121_Weights", "DenseNet161_Weights", "DenseNet169_Weights",
           "DenseNet201_Weights", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv to ``bn_size * growth_rate`` channels, then BN-ReLU-3x3 conv to
    ``growth_rate`` new channels."""

    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate,
                 memory_efficient=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1,
                               stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1,
                               padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        # numtorch keeps the activations either way; the flag is accepted for compatibility
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs):
        return self.conv1(self.relu1(self.norm1(numtorch.cat(inputs, 1))))

    def forward(self, input):
        previous = [input] if isinstance(input, numtorch.Tensor) else input
        new = self.conv2(self.relu2(self.norm2(self.bn_function(previous))))
        if self.drop_rate > 0:
            new = F.dropout(new, p=self.drop_rate, training=self.training)
        return new


class _DenseBlock(nn.ModuleDict):
    _version = 2

    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate,
                 memory_efficient=False):
        super().__init__()
        for i in range(num_layers):
            self.add_module(f"denselayer{i + 1}", _DenseLayer(
                num_input_features + i * growth_rate, growth_rate=growth_rate, bn_size=bn_size,
                drop_rate=drop_rate, memory_efficient=memory_efficient))

    def forward(self, init_features):
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return numtorch.cat(features, 1)


class _Transition(nn.Sequential):
    """BN-ReLU-1x1 conv halving the channels, then 2x2 average pooling."""

    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1,
                              bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    """DenseNet-BC.

    Args:
        growth_rate (int): channels each dense layer adds (``k``). Default: 32.
        block_config (tuple of 4 ints): dense layers per block. Default: (6, 12, 24, 16).
        num_init_features (int): channels of the stem convolution. Default: 64.
        bn_size (int): the bottleneck has ``bn_size * growth_rate`` channels. Default: 4.
        drop_rate (float): dropout after each dense layer. Default: 0.
        num_classes (int): outputs. Default: 1000.
        memory_efficient (bool): accepted for compatibility; numtorch has no activation
            checkpointing, so the results (and the memory use) are those of False.
    """

    def __init__(self, growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64,
                 bn_size=4, drop_rate=0, num_classes=1000, memory_efficient=False):
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3,
                                bias=False)),
            ("norm0", nn.BatchNorm2d(num_init_features)),
            ("relu0", nn.ReLU(inplace=True)),
            ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
        ]))
        channels = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module(f"denseblock{i + 1}", _DenseBlock(
                num_layers=num_layers, num_input_features=channels, bn_size=bn_size,
                growth_rate=growth_rate, drop_rate=drop_rate, memory_efficient=memory_efficient))
            channels += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module(f"transition{i + 1}",
                                         _Transition(channels, channels // 2))
                channels //= 2
        self.features.add_module("norm5", nn.BatchNorm2d(channels))
        self.classifier = nn.Linear(channels, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, x):
        out = F.relu(self.features(x), inplace=True)
        out = numtorch.flatten(F.adaptive_avg_pool2d(out, (1, 1)), 1)
        return self.classifier(out)


# The published checkpoints predate the module names norm1/relu1/conv1: they spell them
# "norm.1", "conv.2", ... inside each dense layer.
_OLD_KEY = re.compile(r"^(.*denselayer\d+\.(?:norm|relu|conv))\."
                      r"((?:[12])\.(?:weight|bias|running_mean|running_var))$")


def _load_state_dict(model, weights, progress):
    state_dict = weights.get_state_dict(progress=progress, check_hash=True)
    for key in list(state_dict):
        m = _OLD_KEY.match(key)
        if m:
            state_dict[m.group(1) + m.group(2)] = state_dict.pop(key)
    model.load_state_dict(state_dict)


def _densenet(growth_rate, block_config, num_init_features, weights, progress, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    if weights is not None:
        _load_state_dict(model, weights, progress)
    return model


_RECIPE = "https://github.com/pytorch/vision/pull/116"


class DenseNet121_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("densenet121-a639ec97.pth", 7978856, 74.434, 91.972, 2.834,
                              30.845, _RECIPE, min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


class DenseNet161_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("densenet161-8d451a50.pth", 28681000, 77.138, 93.56, 7.728,
                              110.369, _RECIPE, min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


class DenseNet169_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("densenet169-b2777c0a.pth", 14149480, 75.6, 92.806, 3.36, 54.708,
                              _RECIPE, min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


class DenseNet201_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("densenet201-c1103571.pth", 20013928, 76.896, 93.37, 4.291,
                              77.373, _RECIPE, min_size=(29, 29))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet121_Weights.IMAGENET1K_V1))
def densenet121(*, weights: Optional[DenseNet121_Weights] = None, progress: bool = True, **kwargs):
    """DenseNet-121 (growth rate 32, blocks (6, 12, 24, 16), 64 stem channels).

    Args:
        weights (DenseNet121_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`DenseNet`.
    """
    weights = DenseNet121_Weights.verify(weights)
    return _densenet(32, (6, 12, 24, 16), 64, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet161_Weights.IMAGENET1K_V1))
def densenet161(*, weights: Optional[DenseNet161_Weights] = None, progress: bool = True, **kwargs):
    """DenseNet-161 (growth rate 48, blocks (6, 12, 36, 24), 96 stem channels).

    Args:
        weights (DenseNet161_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`DenseNet`.
    """
    weights = DenseNet161_Weights.verify(weights)
    return _densenet(48, (6, 12, 36, 24), 96, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet169_Weights.IMAGENET1K_V1))
def densenet169(*, weights: Optional[DenseNet169_Weights] = None, progress: bool = True, **kwargs):
    """DenseNet-169 (growth rate 32, blocks (6, 12, 32, 32), 64 stem channels).

    Args:
        weights (DenseNet169_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`DenseNet`.
    """
    weights = DenseNet169_Weights.verify(weights)
    return _densenet(32, (6, 12, 32, 32), 64, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", DenseNet201_Weights.IMAGENET1K_V1))
def densenet201(*, weights: Optional[DenseNet201_Weights] = None, progress: bool = True, **kwargs):
    """DenseNet-201 (growth rate 32, blocks (6, 12, 48, 32), 64 stem channels).

    Args:
        weights (DenseNet201_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`DenseNet`.
    """
    weights = DenseNet201_Weights.verify(weights)
    return _densenet(32, (6, 12, 48, 32), 64, weights, progress, **kwargs)
