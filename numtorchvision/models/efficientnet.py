"""EfficientNet (Tan and Le, 2019) B0-B7 and EfficientNetV2 (Tan and Le, 2021) S/M/L."""

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Callable, Optional

import numtorch
from numtorch import nn

from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, register_model
from ._utils import _imagenet, _make_divisible, _ovewrite_named_param, handle_legacy_interface

__all__ = ["EfficientNet", "EfficientNet_B0_Weights", "EfficientNet_B1_Weights",
           "EfficientNet_B2_Weights", "EfficientNet_B3_Weights", "EfficientNet_B4_Weights",
           "EfficientNet_B5_Weights", "EfficientNet_B6_Weights", "EfficientNet_B7_Weights",
           "EfficientNet_V2_S_Weights", "EfficientNet_V2_M_Weights", "EfficientNet_V2_L_Weights",
           "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
           "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
           "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]


@dataclass
class _MBConvConfig:
    expand_ratio: float
    kernel: int
    stride: int
    input_channels: int
    out_channels: int
    num_layers: int
    block: Callable

    @staticmethod
    def adjust_channels(channels, width_mult, min_value=None):
        return _make_divisible(channels * width_mult, 8, min_value)


class MBConvConfig(_MBConvConfig):
    """A stage of MBConv blocks; channels scale with ``width_mult`` and the number of
    blocks with ``depth_mult`` (rounded up)."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                 width_mult=1.0, depth_mult=1.0, block=None):
        super().__init__(expand_ratio, kernel, stride,
                         self.adjust_channels(input_channels, width_mult),
                         self.adjust_channels(out_channels, width_mult),
                         self.adjust_depth(num_layers, depth_mult),
                         MBConv if block is None else block)

    @staticmethod
    def adjust_depth(num_layers, depth_mult):
        return int(math.ceil(num_layers * depth_mult))


class FusedMBConvConfig(_MBConvConfig):
    """A stage of FusedMBConv blocks (EfficientNetV2's early stages)."""

    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                 block=None):
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         FusedMBConv if block is None else block)


class MBConv(nn.Module):
    """Mobile inverted bottleneck: 1x1 expansion, depthwise convolution, squeeze-and-
    excitation, 1x1 projection (SiLU activations); a residual with stochastic depth when the
    shape is kept."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer, se_layer=SqueezeExcitation):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        layers = []
        if expanded != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=1,
                                               norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=cnf.kernel,
                                           stride=cnf.stride, groups=expanded,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU))
        layers.append(se_layer(expanded, max(1, cnf.input_channels // 4),
                               activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class FusedMBConv(nn.Module):
    """MBConv with the expansion and depthwise convolutions fused into one full convolution
    (and no squeeze-and-excitation)."""

    def __init__(self, cnf, stochastic_depth_prob, norm_layer):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        if expanded != cnf.input_channels:
            layers = [Conv2dNormActivation(cnf.input_channels, expanded, kernel_size=cnf.kernel,
                                           stride=cnf.stride, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU),
                      Conv2dNormActivation(expanded, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None)]
        else:
            layers = [Conv2dNormActivation(cnf.input_channels, cnf.out_channels,
                                           kernel_size=cnf.kernel, stride=cnf.stride,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU)]
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result) + input
        return result


class EfficientNet(nn.Module):
    """EfficientNet V1 or V2 from a list of stage settings.

    Args:
        inverted_residual_setting (sequence of MBConvConfig / FusedMBConvConfig): the stages.
        dropout (float): before the classifier.
        stochastic_depth_prob (float): drop probability of the last block; it grows linearly
            from 0 over the blocks. Default: 0.2.
        num_classes (int): outputs. Default: 1000.
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
        last_channel (int, optional): channels of the last convolution; default 4x the last
            stage's.
    """

    def __init__(self, inverted_residual_setting, dropout, stochastic_depth_prob=0.2,
                 num_classes=1000, norm_layer=None, last_channel=None):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not (isinstance(inverted_residual_setting, Sequence) and
                all(isinstance(s, _MBConvConfig) for s in inverted_residual_setting)):
            raise TypeError("The inverted_residual_setting should be List[MBConvConfig]")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        layers = [Conv2dNormActivation(3, inverted_residual_setting[0].input_channels,
                                       kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.SiLU)]
        total = sum(cnf.num_layers for cnf in inverted_residual_setting)
        block_id = 0
        for cnf in inverted_residual_setting:
            stage = []
            for _ in range(cnf.num_layers):
                this = copy.copy(cnf)
                if stage:  # later blocks of a stage keep the width and resolution
                    this.input_channels = this.out_channels
                    this.stride = 1
                stage.append(this.block(this, stochastic_depth_prob * float(block_id) / total,
                                        norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
        last_in = inverted_residual_setting[-1].out_channels
        last_out = last_channel if last_channel is not None else 4 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(last_out, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                bound = 1.0 / math.sqrt(m.out_features)
                nn.init.uniform_(m.weight, -bound, bound)
                nn.init.zeros_(m.bias)

    def _forward_impl(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(numtorch.flatten(x, 1))

    def forward(self, x):
        return self._forward_impl(x)


def _efficientnet(inverted_residual_setting, dropout, last_channel, weights, progress,
                  **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = EfficientNet(inverted_residual_setting, dropout, last_channel=last_channel, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _efficientnet_conf(arch, **kwargs):
    """Stage settings and last width of ``arch`` (B-series take width_mult/depth_mult)."""
    if arch.startswith("efficientnet_b"):
        c = partial(MBConvConfig, width_mult=kwargs.pop("width_mult"),
                    depth_mult=kwargs.pop("depth_mult"))
        return [c(1, 3, 1, 32, 16, 1), c(6, 3, 2, 16, 24, 2), c(6, 5, 2, 24, 40, 2),
                c(6, 3, 2, 40, 80, 3), c(6, 5, 1, 80, 112, 3), c(6, 5, 2, 112, 192, 4),
                c(6, 3, 1, 192, 320, 1)], None
    f, m = FusedMBConvConfig, MBConvConfig
    if arch.startswith("efficientnet_v2_s"):
        return [f(1, 3, 1, 24, 24, 2), f(4, 3, 2, 24, 48, 4), f(4, 3, 2, 48, 64, 4),
                m(4, 3, 2, 64, 128, 6), m(6, 3, 1, 128, 160, 9), m(6, 3, 2, 160, 256, 15)], 1280
    if arch.startswith("efficientnet_v2_m"):
        return [f(1, 3, 1, 24, 24, 3), f(4, 3, 2, 24, 48, 5), f(4, 3, 2, 48, 80, 5),
                m(4, 3, 2, 80, 160, 7), m(6, 3, 1, 160, 176, 14), m(6, 3, 2, 176, 304, 18),
                m(6, 3, 1, 304, 512, 5)], 1280
    if arch.startswith("efficientnet_v2_l"):
        return [f(1, 3, 1, 32, 32, 4), f(4, 3, 2, 32, 64, 7), f(4, 3, 2, 64, 96, 7),
                m(4, 3, 2, 96, 192, 10), m(6, 3, 1, 192, 224, 19), m(6, 3, 2, 224, 384, 25),
                m(6, 3, 1, 384, 640, 7)], 1280
    raise ValueError(f"Unsupported model type {arch}")


_R_V1 = "https://github.com/pytorch/vision/tree/main/references/classification#efficientnet-v1"
_R_V2 = "https://github.com/pytorch/vision/tree/main/references/classification#efficientnet-v2"


class EfficientNet_B0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b0_rwightman-7f5810bc.pth", 5288548, 77.692,
        93.532, 0.386, 20.451, _R_V1, resize_size=256, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B1_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b1_rwightman-bac287d4.pth", 7794184, 78.642,
        94.186, 0.687, 30.134, _R_V1, crop_size=240, resize_size=256, interpolation="BICUBIC")
    IMAGENET1K_V2 = _imagenet("efficientnet_b1-c27df63c.pth", 7794184, 79.838, 94.934, 0.687,
        30.136,
        "https://github.com/pytorch/vision/issues/3995#new-recipe-with-lr-wd-crop-tuning",
        crop_size=240, resize_size=255, interpolation="BILINEAR")
    DEFAULT = IMAGENET1K_V2


class EfficientNet_B2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b2_rwightman-c35c1473.pth", 9109994, 80.608, 95.31,
        1.088, 35.174, _R_V1, crop_size=288, resize_size=288, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B3_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b3_rwightman-b3899882.pth", 12233232, 82.008,
        96.054, 1.827, 47.184, _R_V1, crop_size=300, resize_size=320, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B4_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b4_rwightman-23ab8bcd.pth", 19341616, 83.384,
        96.594, 4.394, 74.489, _R_V1, crop_size=380, resize_size=384, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b5_lukemelas-1a07897c.pth", 30389784, 83.444,
        96.628, 10.266, 116.864, _R_V1,
        crop_size=456, resize_size=456, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B6_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b6_lukemelas-24a108a5.pth", 43040704, 84.008,
        96.916, 19.068, 165.362, _R_V1,
        crop_size=528, resize_size=528, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_B7_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_b7_lukemelas-c5b4e57e.pth", 66347960, 84.122,
        96.908, 37.746, 254.675, _R_V1,
        crop_size=600, resize_size=600, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_v2_s-dd5fe13b.pth", 21458488, 84.228, 96.878,
        8.366, 82.704, _R_V2,
        min_size=(33, 33), crop_size=384, resize_size=384, interpolation="BILINEAR")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_M_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_v2_m-dc08266a.pth", 54139356, 85.112, 97.156,
        24.582, 208.01, _R_V2,
        min_size=(33, 33), crop_size=480, resize_size=480, interpolation="BILINEAR")
    DEFAULT = IMAGENET1K_V1


class EfficientNet_V2_L_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("efficientnet_v2_l-59c71312.pth", 118515272, 85.808, 97.788,
        56.08, 454.573, _R_V2,
        min_size=(33, 33), crop_size=480, resize_size=480, interpolation="BICUBIC",
        transform_kw={"mean": (0.5, 0.5, 0.5), "std": (0.5, 0.5, 0.5)})
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B0_Weights.IMAGENET1K_V1))
def efficientnet_b0(*, weights: Optional[EfficientNet_B0_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B0.

    Args:
        weights (EfficientNet_B0_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.2).
    """
    weights = EfficientNet_B0_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b0", width_mult=1.0, depth_mult=1.0)
    return _efficientnet(setting, kwargs.pop("dropout", 0.2), last_channel, weights, progress,
                         **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B1_Weights.IMAGENET1K_V1))
def efficientnet_b1(*, weights: Optional[EfficientNet_B1_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B1.

    Args:
        weights (EfficientNet_B1_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.2).
    """
    weights = EfficientNet_B1_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b1", width_mult=1.0, depth_mult=1.1)
    return _efficientnet(setting, kwargs.pop("dropout", 0.2), last_channel, weights, progress,
                         **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B2_Weights.IMAGENET1K_V1))
def efficientnet_b2(*, weights: Optional[EfficientNet_B2_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B2.

    Args:
        weights (EfficientNet_B2_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.3).
    """
    weights = EfficientNet_B2_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b2", width_mult=1.1, depth_mult=1.2)
    return _efficientnet(setting, kwargs.pop("dropout", 0.3), last_channel, weights, progress,
                         **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B3_Weights.IMAGENET1K_V1))
def efficientnet_b3(*, weights: Optional[EfficientNet_B3_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B3.

    Args:
        weights (EfficientNet_B3_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.3).
    """
    weights = EfficientNet_B3_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b3", width_mult=1.2, depth_mult=1.4)
    return _efficientnet(setting, kwargs.pop("dropout", 0.3), last_channel, weights, progress,
                         **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B4_Weights.IMAGENET1K_V1))
def efficientnet_b4(*, weights: Optional[EfficientNet_B4_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B4.

    Args:
        weights (EfficientNet_B4_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.4).
    """
    weights = EfficientNet_B4_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b4", width_mult=1.4, depth_mult=1.8)
    return _efficientnet(setting, kwargs.pop("dropout", 0.4), last_channel, weights, progress,
                         **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B5_Weights.IMAGENET1K_V1))
def efficientnet_b5(*, weights: Optional[EfficientNet_B5_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B5.

    Args:
        weights (EfficientNet_B5_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.4).
    """
    weights = EfficientNet_B5_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b5", width_mult=1.6, depth_mult=2.2)
    return _efficientnet(setting, kwargs.pop("dropout", 0.4), last_channel, weights, progress,
                         **kwargs,
                         norm_layer=partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B6_Weights.IMAGENET1K_V1))
def efficientnet_b6(*, weights: Optional[EfficientNet_B6_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B6.

    Args:
        weights (EfficientNet_B6_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.5).
    """
    weights = EfficientNet_B6_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b6", width_mult=1.8, depth_mult=2.6)
    return _efficientnet(setting, kwargs.pop("dropout", 0.5), last_channel, weights, progress,
                         **kwargs,
                         norm_layer=partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_B7_Weights.IMAGENET1K_V1))
def efficientnet_b7(*, weights: Optional[EfficientNet_B7_Weights] = None,
                    progress: bool = True, **kwargs):
    """EfficientNet-B7.

    Args:
        weights (EfficientNet_B7_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.5).
    """
    weights = EfficientNet_B7_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_b7", width_mult=2.0, depth_mult=3.1)
    return _efficientnet(setting, kwargs.pop("dropout", 0.5), last_channel, weights, progress,
                         **kwargs,
                         norm_layer=partial(nn.BatchNorm2d, eps=0.001, momentum=0.01))


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_V2_S_Weights.IMAGENET1K_V1))
def efficientnet_v2_s(*, weights: Optional[EfficientNet_V2_S_Weights] = None,
                      progress: bool = True, **kwargs):
    """EfficientNet-V2_S.

    Args:
        weights (EfficientNet_V2_S_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.2).
    """
    weights = EfficientNet_V2_S_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_v2_s")
    return _efficientnet(setting, kwargs.pop("dropout", 0.2), last_channel, weights, progress,
                         **kwargs,
                         norm_layer=partial(nn.BatchNorm2d, eps=1e-03))


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_V2_M_Weights.IMAGENET1K_V1))
def efficientnet_v2_m(*, weights: Optional[EfficientNet_V2_M_Weights] = None,
                      progress: bool = True, **kwargs):
    """EfficientNet-V2_M.

    Args:
        weights (EfficientNet_V2_M_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.3).
    """
    weights = EfficientNet_V2_M_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_v2_m")
    return _efficientnet(setting, kwargs.pop("dropout", 0.3), last_channel, weights, progress,
                         **kwargs,
                         norm_layer=partial(nn.BatchNorm2d, eps=1e-03))


@register_model()
@handle_legacy_interface(weights=("pretrained", EfficientNet_V2_L_Weights.IMAGENET1K_V1))
def efficientnet_v2_l(*, weights: Optional[EfficientNet_V2_L_Weights] = None,
                      progress: bool = True, **kwargs):
    """EfficientNet-V2_L.

    Args:
        weights (EfficientNet_V2_L_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`EfficientNet` (``dropout`` defaults to 0.4).
    """
    weights = EfficientNet_V2_L_Weights.verify(weights)
    setting, last_channel = _efficientnet_conf("efficientnet_v2_l")
    return _efficientnet(setting, kwargs.pop("dropout", 0.4), last_channel, weights, progress,
                         **kwargs,
                         norm_layer=partial(nn.BatchNorm2d, eps=1e-03))
