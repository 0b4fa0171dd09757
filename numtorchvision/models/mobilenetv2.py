"""MobileNetV2 (Sandler et al., 2018): inverted residual blocks with linear bottlenecks."""

from typing import Optional

import numtorch
from numtorch import nn

from ..ops.misc import Conv2dNormActivation
from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, _make_divisible, handle_legacy_interface

__all__ = ["MobileNetV2", "MobileNet_V2_Weights", "mobilenet_v2"]


class InvertedResidual(nn.Module):
    """1x1 expansion (skipped when ``expand_ratio`` is 1), 3x3 depthwise convolution (both
    with ReLU6), 1x1 linear projection; residual when the shape is kept.

    Args:
        inp (int), oup (int): input and output channels.
        stride (int): 1 or 2.
        expand_ratio (int): hidden width = ``round(inp * expand_ratio)``.
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
    """

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        self.stride = stride
        if stride not in [1, 2]:
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden, kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=nn.ReLU6))
        layers += [Conv2dNormActivation(hidden, hidden, stride=stride, groups=hidden,
                                        norm_layer=norm_layer, activation_layer=nn.ReLU6),
                   nn.Conv2d(hidden, oup, 1, 1, 0, bias=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    """MobileNetV2.

    Args:
        num_classes (int): outputs. Default: 1000.
        width_mult (float): scales every layer's channels. Default: 1.0.
        inverted_residual_setting (list of [t, c, n, s], optional): per stage the expansion
            ratio, output channels, number of blocks and first stride.
        round_nearest (int): round channel counts to multiples of this. Default: 8.
        block (callable, optional): the block class. Default: :class:`InvertedResidual`.
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
        dropout (float): before the classifier. Default: 0.2.
    """

    def __init__(self, num_classes=1000, width_mult=1.0, inverted_residual_setting=None,
                 round_nearest=8, block=None, norm_layer=None, dropout=0.2):
        super().__init__()
        block = InvertedResidual if block is None else block
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        if inverted_residual_setting is None:
            inverted_residual_setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2],
                                         [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
                                         [6, 320, 1, 1]]
        if len(inverted_residual_setting) == 0 or len(inverted_residual_setting[0]) != 4:
            raise ValueError(f"inverted_residual_setting should be non-empty or a 4-element "
                             f"list, got {inverted_residual_setting}")
        channels = _make_divisible(32 * width_mult, round_nearest)
        self.last_channel = _make_divisible(1280 * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, channels, stride=2, norm_layer=norm_layer,
                                         activation_layer=nn.ReLU6)]
        for t, c, n, s in inverted_residual_setting:
            out = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(block(channels, out, s if i == 0 else 1, expand_ratio=t,
                                      norm_layer=norm_layer))
                channels = out
        features.append(Conv2dNormActivation(channels, self.last_channel, kernel_size=1,
                                             norm_layer=norm_layer, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout),
                                        nn.Linear(self.last_channel, num_classes))
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
        x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(numtorch.flatten(x, 1))

    def forward(self, x):
        return self._forward_impl(x)


class MobileNet_V2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet(
        "mobilenet_v2-b0353104.pth", 3504872, 71.878, 90.286, 0.301, 13.555,
        "https://github.com/pytorch/vision/tree/main/references/classification#mobilenetv2")
    IMAGENET1K_V2 = _imagenet(
        "mobilenet_v2-7ebf99e0.pth", 3504872, 72.154, 90.822, 0.301, 13.598,
        "https://github.com/pytorch/vision/issues/3995#new-recipe-with-reg-tuning",
        resize_size=232)
    DEFAULT = IMAGENET1K_V2


@register_model()
@handle_legacy_interface(weights=("pretrained", MobileNet_V2_Weights.IMAGENET1K_V1))
def mobilenet_v2(*, weights: Optional[MobileNet_V2_Weights] = None, progress: bool = True,
                 **kwargs):
    """MobileNetV2 from "MobileNetV2: Inverted Residuals and Linear Bottlenecks".

    Args:
        weights (MobileNet_V2_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`MobileNetV2`.
    """
    return _build(MobileNetV2, MobileNet_V2_Weights.verify(weights), progress, kwargs)
