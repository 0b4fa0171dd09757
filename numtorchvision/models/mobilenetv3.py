"""MobileNetV3 (Howard et al., "Searching for MobileNetV3", 2019), large and small."""

from collections.abc import Sequence
from functools import partial
from typing import Optional

import numtorch
from numtorch import nn

from ..ops.misc import Conv2dNormActivation
from ..ops.misc import SqueezeExcitation as SElayer
from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, _make_divisible, handle_legacy_interface

__all__ = ["MobileNetV3", "MobileNet_V3_Large_Weights", "MobileNet_V3_Small_Weights",
           "mobilenet_v3_large", "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One block's settings, with channel counts already scaled by ``width_mult``.

    Args:
        input_channels, kernel, expanded_channels, out_channels: the block's shape.
        use_se (bool): add squeeze-and-excitation after the depthwise convolution.
        activation (str): ``"HS"`` (hard swish) or ``"RE"`` (ReLU).
        stride (int), dilation (int): of the depthwise convolution.
        width_mult (float): channel multiplier.
    """

    def __init__(self, input_channels, kernel, expanded_channels, out_channels, use_se,
                 activation, stride, dilation, width_mult):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels, width_mult):
        return _make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    """Expansion (if any), depthwise convolution, optional squeeze-and-excitation (with a
    hard-sigmoid gate), linear projection; residual when the shape is kept."""

    def __init__(self, cnf, norm_layer,
                 se_layer=partial(SElayer, scale_activation=nn.Hardsigmoid)):
        super().__init__()
        if not 1 <= cnf.stride <= 2:
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        act = nn.Hardswish if cnf.use_hs else nn.ReLU
        layers = []
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels,
                                               kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=act))
        layers.append(Conv2dNormActivation(
            cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel,
            stride=1 if cnf.dilation > 1 else cnf.stride, dilation=cnf.dilation,
            groups=cnf.expanded_channels, norm_layer=norm_layer, activation_layer=act))
        if cnf.use_se:
            layers.append(se_layer(cnf.expanded_channels,
                                   _make_divisible(cnf.expanded_channels // 4, 8)))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = result + input
        return result


class MobileNetV3(nn.Module):
    """MobileNetV3 around a list of block settings.

    Args:
        inverted_residual_setting (list of InvertedResidualConfig): the blocks.
        last_channel (int): width of the penultimate (linear) layer.
        num_classes (int): outputs. Default: 1000.
        block (callable, optional): the block class. Default: :class:`InvertedResidual`.
        norm_layer (callable, optional): default batch norm with eps 0.001, momentum 0.01.
        dropout (float): in the classifier. Default: 0.2.
    """

    def __init__(self, inverted_residual_setting, last_channel, num_classes=1000, block=None,
                 norm_layer=None, dropout=0.2, **kwargs):
        super().__init__()
        if not inverted_residual_setting:
            raise ValueError("The inverted_residual_setting should not be empty")
        if not (isinstance(inverted_residual_setting, Sequence) and
                all(isinstance(s, InvertedResidualConfig) for s in inverted_residual_setting)):
            raise TypeError("The inverted_residual_setting should be List[InvertedResidualConfig]")
        block = InvertedResidual if block is None else block
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first = inverted_residual_setting[0].input_channels
        layers = [Conv2dNormActivation(3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
                                       activation_layer=nn.Hardswish)]
        layers += [block(cnf, norm_layer) for cnf in inverted_residual_setting]
        last_in = inverted_residual_setting[-1].out_channels
        last_out = 6 * last_in
        layers.append(Conv2dNormActivation(last_in, last_out, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(last_out, last_channel), nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def _forward_impl(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(numtorch.flatten(x, 1))

    def forward(self, x):
        return self._forward_impl(x)


def _mobilenet_v3_conf(arch, width_mult=1.0, reduced_tail=False, dilated=False, **kwargs):
    """The block list and last width of ``arch``. ``reduced_tail`` halves the last stage's
    channels and ``dilated`` dilates it instead of striding (both for segmentation)."""
    div = 2 if reduced_tail else 1
    dil = 2 if dilated else 1
    c = partial(InvertedResidualConfig, width_mult=width_mult)
    adjust = partial(InvertedResidualConfig.adjust_channels, width_mult=width_mult)
    if arch == "mobilenet_v3_large":
        setting = [
            c(16, 3, 16, 16, False, "RE", 1, 1), c(16, 3, 64, 24, False, "RE", 2, 1),
            c(24, 3, 72, 24, False, "RE", 1, 1), c(24, 5, 72, 40, True, "RE", 2, 1),
            c(40, 5, 120, 40, True, "RE", 1, 1), c(40, 5, 120, 40, True, "RE", 1, 1),
            c(40, 3, 240, 80, False, "HS", 2, 1), c(80, 3, 200, 80, False, "HS", 1, 1),
            c(80, 3, 184, 80, False, "HS", 1, 1), c(80, 3, 184, 80, False, "HS", 1, 1),
            c(80, 3, 480, 112, True, "HS", 1, 1), c(112, 3, 672, 112, True, "HS", 1, 1),
            c(112, 5, 672, 160 // div, True, "HS", 2, dil),
            c(160 // div, 5, 960 // div, 160 // div, True, "HS", 1, dil),
            c(160 // div, 5, 960 // div, 160 // div, True, "HS", 1, dil),
        ]
        last_channel = adjust(1280 // div)
    elif arch == "mobilenet_v3_small":
        setting = [
            c(16, 3, 16, 16, True, "RE", 2, 1), c(16, 3, 72, 24, False, "RE", 2, 1),
            c(24, 3, 88, 24, False, "RE", 1, 1), c(24, 5, 96, 40, True, "HS", 2, 1),
            c(40, 5, 240, 40, True, "HS", 1, 1), c(40, 5, 240, 40, True, "HS", 1, 1),
            c(40, 5, 120, 48, True, "HS", 1, 1), c(48, 5, 144, 48, True, "HS", 1, 1),
            c(48, 5, 288, 96 // div, True, "HS", 2, dil),
            c(96 // div, 5, 576 // div, 96 // div, True, "HS", 1, dil),
            c(96 // div, 5, 576 // div, 96 // div, True, "HS", 1, dil),
        ]
        last_channel = adjust(1024 // div)
    else:
        raise ValueError(f"Unsupported model type {arch}")
    return setting, last_channel


def _mobilenet_v3(inverted_residual_setting, last_channel, weights, progress, **kwargs):
    return _build(lambda **kw: MobileNetV3(inverted_residual_setting, last_channel, **kw),
                  weights, progress, kwargs)


_RECIPE = ("https://github.com/pytorch/vision/tree/main/references/classification"
           "#mobilenetv3-large--small")


class MobileNet_V3_Large_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mobilenet_v3_large-8738ca79.pth", 5483032, 74.042, 91.34, 0.217,
                              21.114, _RECIPE)
    IMAGENET1K_V2 = _imagenet(
        "mobilenet_v3_large-5c1a4163.pth", 5483032, 75.274, 92.566, 0.217, 21.107,
        "https://github.com/pytorch/vision/issues/3995#new-recipe-with-reg-tuning",
        resize_size=232)
    DEFAULT = IMAGENET1K_V2


class MobileNet_V3_Small_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mobilenet_v3_small-047dcff4.pth", 2542856, 67.668, 87.402,
                              0.057, 9.829, _RECIPE)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def mobilenet_v3_large(*, weights: Optional[MobileNet_V3_Large_Weights] = None,
                       progress: bool = True, **kwargs):
    """MobileNetV3-Large.

    Args:
        weights (MobileNet_V3_Large_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: ``width_mult``, ``reduced_tail``, ``dilated``, and arguments of
            :class:`MobileNetV3`.
    """
    weights = MobileNet_V3_Large_Weights.verify(weights)
    setting, last = _mobilenet_v3_conf("mobilenet_v3_large", **kwargs)
    return _mobilenet_v3(setting, last, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MobileNet_V3_Small_Weights.IMAGENET1K_V1))
def mobilenet_v3_small(*, weights: Optional[MobileNet_V3_Small_Weights] = None,
                       progress: bool = True, **kwargs):
    """MobileNetV3-Small.

    Args:
        weights (MobileNet_V3_Small_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: ``width_mult``, ``reduced_tail``, ``dilated``, and arguments of
            :class:`MobileNetV3`.
    """
    weights = MobileNet_V3_Small_Weights.verify(weights)
    setting, last = _mobilenet_v3_conf("mobilenet_v3_small", **kwargs)
    return _mobilenet_v3(setting, last, weights, progress, **kwargs)
