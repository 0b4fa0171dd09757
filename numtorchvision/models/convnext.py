"""ConvNeXt (Liu et al., "A ConvNet for the 2020s", 2022)."""

from collections.abc import Sequence
from functools import partial
from typing import Optional

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ..ops.misc import Conv2dNormActivation, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["ConvNeXt", "ConvNeXt_Tiny_Weights", "ConvNeXt_Small_Weights",
           "ConvNeXt_Base_Weights", "ConvNeXt_Large_Weights", "convnext_tiny", "convnext_small",
           "convnext_base", "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of an ``(N, C, H, W)`` tensor."""

    def forward(self, x):
        x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias,
                         self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    """Depthwise 7x7 conv, LayerNorm, Linear to 4x, GELU, Linear back (channels last),
    scaled per channel by ``layer_scale``; residual with stochastic depth."""

    def __init__(self, dim, layer_scale, stochastic_depth_prob, norm_layer=None):
        super().__init__()
        norm_layer = partial(nn.LayerNorm, eps=1e-6) if norm_layer is None else norm_layer
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]), norm_layer(dim),
            nn.Linear(in_features=dim, out_features=4 * dim, bias=True), nn.GELU(),
            nn.Linear(in_features=4 * dim, out_features=dim, bias=True),
            Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(numtorch.ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input):
        return self.stochastic_depth(self.layer_scale * self.block(input)) + input


class CNBlockConfig:
    """A stage: ``num_layers`` blocks at ``input_channels``, then (unless ``out_channels`` is
    None) a norm + stride-2 convolution to ``out_channels``."""

    def __init__(self, input_channels, out_channels, num_layers):
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self):
        return (f"{self.__class__.__name__}(input_channels={self.input_channels}, "
                f"out_channels={self.out_channels}, num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    """ConvNeXt from stage settings.

    Args:
        block_setting (list of CNBlockConfig): the stages.
        stochastic_depth_prob (float): drop probability of the last block, growing linearly
            from 0. Default: 0.0.
        layer_scale (float): initial per-channel residual scale. Default: 1e-6.
        num_classes (int): outputs. Default: 1000.
        block (callable, optional): default :class:`CNBlock`.
        norm_layer (callable, optional): default :class:`LayerNorm2d` (eps 1e-6).
    """

    def __init__(self, block_setting, stochastic_depth_prob=0.0, layer_scale=1e-6,
                 num_classes=1000, block=None, norm_layer=None, **kwargs):
        super().__init__()
        if not block_setting:
            raise ValueError("The block_setting should not be empty")
        if not (isinstance(block_setting, Sequence) and
                all(isinstance(s, CNBlockConfig) for s in block_setting)):
            raise TypeError("The block_setting should be List[CNBlockConfig]")
        block = CNBlock if block is None else block
        norm_layer = partial(LayerNorm2d, eps=1e-6) if norm_layer is None else norm_layer
        layers = [Conv2dNormActivation(3, block_setting[0].input_channels, kernel_size=4,
                                       stride=4, padding=0, norm_layer=norm_layer,
                                       activation_layer=None, bias=True)]
        total = sum(cnf.num_layers for cnf in block_setting)
        block_id = 0
        for cnf in block_setting:
            stage = []
            for _ in range(cnf.num_layers):
                p = stochastic_depth_prob * block_id / (total - 1.0)
                stage.append(block(cnf.input_channels, layer_scale, p))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(nn.Sequential(
                    norm_layer(cnf.input_channels),
                    nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        width = last.out_channels if last.out_channels is not None else last.input_channels
        self.classifier = nn.Sequential(norm_layer(width), nn.Flatten(1),
                                        nn.Linear(width, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def _forward_impl(self, x):
        return self.classifier(self.avgpool(self.features(x)))

    def forward(self, x):
        return self._forward_impl(x)


def _convnext(block_setting, stochastic_depth_prob, weights, progress, **kwargs):
    return _build(lambda **kw: ConvNeXt(block_setting,
                                        stochastic_depth_prob=stochastic_depth_prob, **kw),
                  weights, progress, kwargs)


_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#convnext"


class ConvNeXt_Tiny_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_tiny-983f1562.pth", 28589128, 82.52, 96.146, 4.456,
                              109.119, _RECIPE, min_size=(32, 32), resize_size=236)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Small_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_small-0c510722.pth", 50223688, 83.616, 96.65, 8.684,
                              191.703, _RECIPE, min_size=(32, 32), resize_size=230)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Base_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_base-6075fbad.pth", 88591464, 84.062, 96.87, 15.355,
                              338.064, _RECIPE, min_size=(32, 32), resize_size=232)
    DEFAULT = IMAGENET1K_V1


class ConvNeXt_Large_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("convnext_large-ea097f82.pth", 197767336, 84.414, 96.976, 34.361,
                              754.537, _RECIPE, min_size=(32, 32), resize_size=232)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Tiny_Weights.IMAGENET1K_V1))
def convnext_tiny(*, weights: Optional[ConvNeXt_Tiny_Weights] = None,
                  progress: bool = True, **kwargs):
    """ConvNeXt-Tiny.

    Args:
        weights (ConvNeXt_Tiny_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ConvNeXt` (``stochastic_depth_prob`` defaults to 0.1).
    """
    weights = ConvNeXt_Tiny_Weights.verify(weights)
    stages = [(96, 192, 3), (192, 384, 3), (384, 768, 9), (768, None, 3)]
    setting = [CNBlockConfig(*c) for c in stages]
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.1), weights, progress,
                     **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Small_Weights.IMAGENET1K_V1))
def convnext_small(*, weights: Optional[ConvNeXt_Small_Weights] = None,
                   progress: bool = True, **kwargs):
    """ConvNeXt-Small.

    Args:
        weights (ConvNeXt_Small_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ConvNeXt` (``stochastic_depth_prob`` defaults to 0.4).
    """
    weights = ConvNeXt_Small_Weights.verify(weights)
    stages = [(96, 192, 3), (192, 384, 3), (384, 768, 27), (768, None, 3)]
    setting = [CNBlockConfig(*c) for c in stages]
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.4), weights, progress,
                     **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Base_Weights.IMAGENET1K_V1))
def convnext_base(*, weights: Optional[ConvNeXt_Base_Weights] = None,
                  progress: bool = True, **kwargs):
    """ConvNeXt-Base.

    Args:
        weights (ConvNeXt_Base_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ConvNeXt` (``stochastic_depth_prob`` defaults to 0.5).
    """
    weights = ConvNeXt_Base_Weights.verify(weights)
    stages = [(128, 256, 3), (256, 512, 3), (512, 1024, 27), (1024, None, 3)]
    setting = [CNBlockConfig(*c) for c in stages]
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.5), weights, progress,
                     **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ConvNeXt_Large_Weights.IMAGENET1K_V1))
def convnext_large(*, weights: Optional[ConvNeXt_Large_Weights] = None,
                   progress: bool = True, **kwargs):
    """ConvNeXt-Large.

    Args:
        weights (ConvNeXt_Large_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ConvNeXt` (``stochastic_depth_prob`` defaults to 0.5).
    """
    weights = ConvNeXt_Large_Weights.verify(weights)
    stages = [(192, 384, 3), (384, 768, 3), (768, 1536, 27), (1536, None, 3)]
    setting = [CNBlockConfig(*c) for c in stages]
    return _convnext(setting, kwargs.pop("stochastic_depth_prob", 0.5), weights, progress,
                     **kwargs)
