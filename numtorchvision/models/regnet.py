"""RegNet (Radosavovic et al., "Designing Network Design Spaces", 2020): RegNetX and
RegNetY (with squeeze-and-excitation), whose stage widths and depths follow from a few
parameters of a quantised linear rule."""

import math
from collections import OrderedDict
from functools import partial
from typing import Optional

import numpy as np

from numtorch import nn

from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._api import register_model
from ._regnet_weights import (
    RegNet_X_1_6GF_Weights, RegNet_X_3_2GF_Weights, RegNet_X_8GF_Weights, RegNet_X_16GF_Weights,
    RegNet_X_32GF_Weights, RegNet_X_400MF_Weights, RegNet_X_800MF_Weights, RegNet_Y_1_6GF_Weights,
    RegNet_Y_3_2GF_Weights, RegNet_Y_8GF_Weights, RegNet_Y_16GF_Weights, RegNet_Y_32GF_Weights,
    RegNet_Y_128GF_Weights, RegNet_Y_400MF_Weights, RegNet_Y_800MF_Weights)
from ._utils import _make_divisible, _ovewrite_named_param, handle_legacy_interface

__all__ = ["RegNet", "RegNet_Y_400MF_Weights", "RegNet_Y_800MF_Weights", "RegNet_Y_1_6GF_Weights",
           "RegNet_Y_3_2GF_Weights", "RegNet_Y_8GF_Weights", "RegNet_Y_16GF_Weights",
           "RegNet_Y_32GF_Weights", "RegNet_Y_128GF_Weights", "RegNet_X_400MF_Weights",
           "RegNet_X_800MF_Weights", "RegNet_X_1_6GF_Weights", "RegNet_X_3_2GF_Weights",
           "RegNet_X_8GF_Weights", "RegNet_X_16GF_Weights", "RegNet_X_32GF_Weights",
           "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf",
           "regnet_y_8gf", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf",
           "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf",
           "regnet_x_32gf"]


class SimpleStemIN(Conv2dNormActivation):
    """The stem: a stride-2 3x3 convolution, norm and activation."""

    def __init__(self, width_in, width_out, norm_layer, activation_layer):
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    """1x1 (``a``), grouped 3x3 (``b``), optional squeeze-and-excitation (``se``), 1x1
    without activation (``c``)."""

    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width,
                 bottleneck_multiplier, se_ratio):
        inner = int(round(width_out * bottleneck_multiplier))
        layers = OrderedDict()
        layers["a"] = Conv2dNormActivation(width_in, inner, kernel_size=1, stride=1,
                                           norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        layers["b"] = Conv2dNormActivation(inner, inner, kernel_size=3, stride=stride,
                                           groups=inner // group_width, norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        if se_ratio:
            layers["se"] = SqueezeExcitation(input_channels=inner,
                                             squeeze_channels=int(round(se_ratio * width_in)),
                                             activation=activation_layer)
        layers["c"] = Conv2dNormActivation(inner, width_out, kernel_size=1, stride=1,
                                           norm_layer=norm_layer, activation_layer=None)
        super().__init__(layers)


class ResBottleneckBlock(nn.Module):
    """``activation(x + f(x))``, with a 1x1 projection ``proj`` of the shortcut when the
    width or resolution changes."""

    def __init__(self, width_in, width_out, stride, norm_layer, activation_layer, group_width=1,
                 bottleneck_multiplier=1.0, se_ratio=None):
        super().__init__()
        self.proj = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride,
                                             norm_layer=norm_layer, activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer,
                                     group_width, bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x):
        skip = x if self.proj is None else self.proj(x)
        return self.activation(skip + self.f(x))


class AnyStage(nn.Sequential):
    """``depth`` blocks named ``block<stage>-<i>``; only the first changes width/stride."""

    def __init__(self, width_in, width_out, stride, depth, block_constructor, norm_layer,
                 activation_layer, group_width, bottleneck_multiplier, se_ratio=None,
                 stage_index=0):
        super().__init__()
        for i in range(depth):
            self.add_module(f"block{stage_index}-{i}", block_constructor(
                width_in if i == 0 else width_out, width_out, stride if i == 0 else 1,
                norm_layer, activation_layer, group_width, bottleneck_multiplier, se_ratio))


class BlockParams:
    """Per-stage depths, widths, group widths, bottleneck multipliers and strides."""

    def __init__(self, depths, widths, group_widths, bottleneck_multipliers, strides,
                 se_ratio=None):
        self.depths = depths
        self.widths = widths
        self.group_widths = group_widths
        self.bottleneck_multipliers = bottleneck_multipliers
        self.strides = strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(cls, depth, w_0, w_a, w_m, group_width, bottleneck_multiplier=1.0,
                         se_ratio=None, **kwargs):
        """Stage settings from the RegNet design parameters.

        Block ``j`` gets the continuous width ``w_0 + w_a * j``, which is snapped to
        ``w_0 * w_m**k`` (``k`` rounded in log space) and to a multiple of 8; consecutive
        blocks of equal width form a stage, every stage starts with stride 2, and widths are
        then made divisible by the group width.

        Args:
            depth (int): total blocks.
            w_0 (int): initial width (a multiple of 8).
            w_a (float): slope of the linear width rule (>= 0).
            w_m (float): width ratio between stages (> 1).
            group_width (int): channels per group in the 3x3 convolutions.
            bottleneck_multiplier (float): inner width / block width. Default: 1.0.
            se_ratio (float, optional): squeeze ratio of the SE blocks (RegNetY).
            **kwargs: ignored (the builders pass their model arguments through).
        """
        quant, stride = 8, 2
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        # float32 throughout, so the rounding matches torchvision's (which computes in torch
        # float32) exactly and the stage widths are those of the published checkpoints
        f32 = np.float32
        widths_cont = np.arange(depth, dtype=f32) * f32(w_a) + f32(w_0)
        capacity = np.round(np.log(widths_cont / f32(w_0)) / f32(math.log(w_m)))
        block_widths = (np.round(f32(w_0) * np.power(f32(w_m), capacity) / f32(quant))
                        * quant).astype(np.int32).tolist()
        num_stages = len(set(block_widths))
        starts = [w != wp for w, wp in zip(block_widths + [0], [0] + block_widths)]
        stage_widths = [w for w, s in zip(block_widths, starts[:-1]) if s]
        stage_depths = np.diff([d for d, s in enumerate(starts) if s]).astype(int).tolist()
        strides = [stride] * num_stages
        multipliers = [bottleneck_multiplier] * num_stages
        group_widths = [group_width] * num_stages
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(
            stage_widths, multipliers, group_widths)
        return cls(depths=stage_depths, widths=stage_widths, group_widths=group_widths,
                   bottleneck_multipliers=multipliers, strides=strides, se_ratio=se_ratio)

    def _get_expanded_params(self):
        return zip(self.widths, self.strides, self.depths, self.group_widths,
                   self.bottleneck_multipliers)

    @staticmethod
    def _adjust_widths_groups_compatibilty(stage_widths, bottleneck_ratios, group_widths):
        inner = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        groups = [min(g, w) for g, w in zip(group_widths, inner)]
        inner = [_make_divisible(w, g) for w, g in zip(inner, groups)]
        return [int(w / b) for w, b in zip(inner, bottleneck_ratios)], groups


class RegNet(nn.Module):
    """RegNet from :class:`BlockParams`.

    Args:
        block_params (BlockParams): the stages.
        num_classes (int): outputs. Default: 1000.
        stem_width (int): channels of the stem. Default: 32.
        stem_type, block_type (callable, optional): default :class:`SimpleStemIN` and
            :class:`ResBottleneckBlock`.
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
        activation (callable, optional): default ``nn.ReLU``.
    """

    def __init__(self, block_params, num_classes=1000, stem_width=32, stem_type=None,
                 block_type=None, norm_layer=None, activation=None):
        super().__init__()
        stem_type = SimpleStemIN if stem_type is None else stem_type
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        block_type = ResBottleneckBlock if block_type is None else block_type
        activation = nn.ReLU if activation is None else activation
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        width = stem_width
        stages = []
        for i, (w_out, stride, depth, group_width, mult) in enumerate(
                block_params._get_expanded_params()):
            stages.append((f"block{i + 1}", AnyStage(
                width, w_out, stride, depth, block_type, norm_layer, activation, group_width,
                mult, block_params.se_ratio, stage_index=i + 1)))
            width = w_out
        self.trunk_output = nn.Sequential(OrderedDict(stages))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=width, out_features=num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.trunk_output(self.stem(x)))
        return self.fc(x.flatten(start_dim=1))


def _regnet(block_params, weights, progress, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    norm_layer = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    model = RegNet(block_params, norm_layer=norm_layer, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_400MF_Weights.IMAGENET1K_V1))
def regnet_y_400mf(*, weights: Optional[RegNet_Y_400MF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetY-400MF.

    Args:
        weights (RegNet_Y_400MF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_400MF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=16, w_0=48, w_a=27.89, w_m=2.09, group_width=8,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_800MF_Weights.IMAGENET1K_V1))
def regnet_y_800mf(*, weights: Optional[RegNet_Y_800MF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetY-800MF.

    Args:
        weights (RegNet_Y_800MF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_800MF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=14, w_0=56, w_a=38.84, w_m=2.4, group_width=16,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_1_6GF_Weights.IMAGENET1K_V1))
def regnet_y_1_6gf(*, weights: Optional[RegNet_Y_1_6GF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetY-1.6GF.

    Args:
        weights (RegNet_Y_1_6GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_1_6GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=27, w_0=48, w_a=20.71, w_m=2.65, group_width=24,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_3_2GF_Weights.IMAGENET1K_V1))
def regnet_y_3_2gf(*, weights: Optional[RegNet_Y_3_2GF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetY-3.2GF.

    Args:
        weights (RegNet_Y_3_2GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_3_2GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=21, w_0=80, w_a=42.63, w_m=2.66, group_width=24,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_8GF_Weights.IMAGENET1K_V1))
def regnet_y_8gf(*, weights: Optional[RegNet_Y_8GF_Weights] = None,
                 progress: bool = True, **kwargs):
    """RegNetY-8GF.

    Args:
        weights (RegNet_Y_8GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_8GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=17, w_0=192, w_a=76.82, w_m=2.19, group_width=56,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_16GF_Weights.IMAGENET1K_V1))
def regnet_y_16gf(*, weights: Optional[RegNet_Y_16GF_Weights] = None,
                  progress: bool = True, **kwargs):
    """RegNetY-16GF.

    Args:
        weights (RegNet_Y_16GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_16GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=18, w_0=200, w_a=106.23, w_m=2.48, group_width=112,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_Y_32GF_Weights.IMAGENET1K_V1))
def regnet_y_32gf(*, weights: Optional[RegNet_Y_32GF_Weights] = None,
                  progress: bool = True, **kwargs):
    """RegNetY-32GF.

    Args:
        weights (RegNet_Y_32GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_32GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=20, w_0=232, w_a=115.89, w_m=2.53, group_width=232,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", None))
def regnet_y_128gf(*, weights: Optional[RegNet_Y_128GF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetY-128GF.

    Args:
        weights (RegNet_Y_128GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_Y_128GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=27, w_0=456, w_a=160.83, w_m=2.52, group_width=264,
                                          se_ratio=0.25, **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_400MF_Weights.IMAGENET1K_V1))
def regnet_x_400mf(*, weights: Optional[RegNet_X_400MF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetX-400MF.

    Args:
        weights (RegNet_X_400MF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_400MF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=22, w_0=24, w_a=24.48, w_m=2.54, group_width=16,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_800MF_Weights.IMAGENET1K_V1))
def regnet_x_800mf(*, weights: Optional[RegNet_X_800MF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetX-800MF.

    Args:
        weights (RegNet_X_800MF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_800MF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=16, w_0=56, w_a=35.73, w_m=2.28, group_width=16,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_1_6GF_Weights.IMAGENET1K_V1))
def regnet_x_1_6gf(*, weights: Optional[RegNet_X_1_6GF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetX-1.6GF.

    Args:
        weights (RegNet_X_1_6GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_1_6GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=18, w_0=80, w_a=34.01, w_m=2.25, group_width=24,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_3_2GF_Weights.IMAGENET1K_V1))
def regnet_x_3_2gf(*, weights: Optional[RegNet_X_3_2GF_Weights] = None,
                   progress: bool = True, **kwargs):
    """RegNetX-3.2GF.

    Args:
        weights (RegNet_X_3_2GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_3_2GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=25, w_0=88, w_a=26.31, w_m=2.25, group_width=48,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_8GF_Weights.IMAGENET1K_V1))
def regnet_x_8gf(*, weights: Optional[RegNet_X_8GF_Weights] = None,
                 progress: bool = True, **kwargs):
    """RegNetX-8GF.

    Args:
        weights (RegNet_X_8GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_8GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=23, w_0=80, w_a=49.56, w_m=2.88, group_width=120,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_16GF_Weights.IMAGENET1K_V1))
def regnet_x_16gf(*, weights: Optional[RegNet_X_16GF_Weights] = None,
                  progress: bool = True, **kwargs):
    """RegNetX-16GF.

    Args:
        weights (RegNet_X_16GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_16GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=22, w_0=216, w_a=55.59, w_m=2.1, group_width=128,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", RegNet_X_32GF_Weights.IMAGENET1K_V1))
def regnet_x_32gf(*, weights: Optional[RegNet_X_32GF_Weights] = None,
                  progress: bool = True, **kwargs):
    """RegNetX-32GF.

    Args:
        weights (RegNet_X_32GF_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`RegNet`.
    """
    weights = RegNet_X_32GF_Weights.verify(weights)
    params = BlockParams.from_init_params(depth=23, w_0=320, w_a=69.86, w_m=2.0, group_width=168,
                                          **kwargs)
    return _regnet(params, weights, progress, **kwargs)
