"""ShuffleNet V2 (Ma et al., 2018): channel split, cheap branches and channel shuffling."""

from typing import Optional

import numtorch
from numtorch import nn

from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["ShuffleNetV2", "ShuffleNet_V2_X0_5_Weights", "ShuffleNet_V2_X1_0_Weights",
           "ShuffleNet_V2_X1_5_Weights", "ShuffleNet_V2_X2_0_Weights", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` equal groups of an ``(N, C, H, W)`` tensor."""
    n, c, h, w = x.size()
    x = x.view(n, groups, c // groups, h, w)
    return numtorch.transpose(x, 1, 2).contiguous().view(n, c, h, w)


class InvertedResidual(nn.Module):
    """The ShuffleNet V2 unit. At stride 1 half the channels pass through untouched and the
    other half go through 1x1 -> depthwise 3x3 -> 1x1; at stride 2 both halves are computed
    from the whole input (``branch1`` downsamples the shortcut). The halves are then
    concatenated and shuffled."""

    def __init__(self, inp, oup, stride):
        super().__init__()
        if not 1 <= stride <= 3:
            raise ValueError("illegal stride value")
        self.stride = stride
        half = oup // 2
        if stride == 1 and inp != half << 1:
            raise ValueError(f"Invalid combination of stride {stride}, inp {inp} and oup {oup} "
                             f"values. If stride == 1 then inp should be equal to oup // 2 << 1.")
        if stride > 1:
            self.branch1 = nn.Sequential(
                self.depthwise_conv(inp, inp, kernel_size=3, stride=stride, padding=1),
                nn.BatchNorm2d(inp),
                nn.Conv2d(inp, half, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(half), nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if stride > 1 else half, half, kernel_size=1, stride=1, padding=0,
                      bias=False),
            nn.BatchNorm2d(half), nn.ReLU(inplace=True),
            self.depthwise_conv(half, half, kernel_size=3, stride=stride, padding=1),
            nn.BatchNorm2d(half),
            nn.Conv2d(half, half, kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(half), nn.ReLU(inplace=True))

    @staticmethod
    def depthwise_conv(i, o, kernel_size, stride=1, padding=0, bias=False):
        return nn.Conv2d(i, o, kernel_size, stride, padding, bias=bias, groups=i)

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = numtorch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = numtorch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """ShuffleNet V2.

    Args:
        stages_repeats (list of 3 ints): units in stages 2, 3 and 4.
        stages_out_channels (list of 5 ints): channels of conv1, the three stages and conv5.
        num_classes (int): outputs. Default: 1000.
        inverted_residual (callable): the unit class. Default: :class:`InvertedResidual`.
    """

    def __init__(self, stages_repeats, stages_out_channels, num_classes=1000,
                 inverted_residual=InvertedResidual):
        super().__init__()
        if len(stages_repeats) != 3:
            raise ValueError("expected stages_repeats as list of 3 positive ints")
        if len(stages_out_channels) != 5:
            raise ValueError("expected stages_out_channels as list of 5 positive ints")
        self._stage_out_channels = stages_out_channels
        channels = stages_out_channels[0]
        self.conv1 = nn.Sequential(nn.Conv2d(3, channels, 3, 2, 1, bias=False),
                                   nn.BatchNorm2d(channels), nn.ReLU(inplace=True))
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for i, (repeats, out) in enumerate(zip(stages_repeats, stages_out_channels[1:4])):
            units = [inverted_residual(channels, out, 2)]
            units += [inverted_residual(out, out, 1) for _ in range(repeats - 1)]
            setattr(self, f"stage{i + 2}", nn.Sequential(*units))
            channels = out
        out = stages_out_channels[-1]
        self.conv5 = nn.Sequential(nn.Conv2d(channels, out, 1, 1, 0, bias=False),
                                   nn.BatchNorm2d(out), nn.ReLU(inplace=True))
        self.fc = nn.Linear(out, num_classes)

    def _forward_impl(self, x):
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(x.mean([2, 3]))

    def forward(self, x):
        return self._forward_impl(x)


def _shufflenetv2(weights, progress, *args, **kwargs):
    return _build(lambda **kw: ShuffleNetV2(*args, **kw), weights, progress, kwargs)


_R_PORTED = "https://github.com/ericsun99/Shufflenet-v2-Pytorch"


class ShuffleNet_V2_X0_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x0.5-f707e7126e.pth", 1366792, 60.552, 81.746,
                              0.04, 5.282, _R_PORTED)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x1-5666bf0f80.pth", 2278604, 69.362, 88.316, 0.145,
                              8.791, _R_PORTED)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X1_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x1_5-3c479a10.pth", 3503624, 72.996, 91.086, 0.296,
                              13.557, "https://github.com/pytorch/vision/pull/5906",
                              resize_size=232)
    DEFAULT = IMAGENET1K_V1


class ShuffleNet_V2_X2_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("shufflenetv2_x2_0-8be3c8ee.pth", 7393996, 76.23, 93.006, 0.583,
                              28.433, "https://github.com/pytorch/vision/pull/5906",
                              resize_size=232)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", ShuffleNet_V2_X0_5_Weights.IMAGENET1K_V1))
def shufflenet_v2_x0_5(*, weights: Optional[ShuffleNet_V2_X0_5_Weights] = None,
                       progress: bool = True, **kwargs):
    """ShuffleNet V2 with 0.5x output channels.

    Args:
        weights (ShuffleNet_V2_X0_5_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ShuffleNetV2`.
    """
    weights = ShuffleNet_V2_X0_5_Weights.verify(weights)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 48, 96, 192, 1024], **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ShuffleNet_V2_X1_0_Weights.IMAGENET1K_V1))
def shufflenet_v2_x1_0(*, weights: Optional[ShuffleNet_V2_X1_0_Weights] = None,
                       progress: bool = True, **kwargs):
    """ShuffleNet V2 with 1.0x output channels.

    Args:
        weights (ShuffleNet_V2_X1_0_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ShuffleNetV2`.
    """
    weights = ShuffleNet_V2_X1_0_Weights.verify(weights)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 116, 232, 464, 1024], **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ShuffleNet_V2_X1_5_Weights.IMAGENET1K_V1))
def shufflenet_v2_x1_5(*, weights: Optional[ShuffleNet_V2_X1_5_Weights] = None,
                       progress: bool = True, **kwargs):
    """ShuffleNet V2 with 1.5x output channels.

    Args:
        weights (ShuffleNet_V2_X1_5_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ShuffleNetV2`.
    """
    weights = ShuffleNet_V2_X1_5_Weights.verify(weights)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 176, 352, 704, 1024], **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ShuffleNet_V2_X2_0_Weights.IMAGENET1K_V1))
def shufflenet_v2_x2_0(*, weights: Optional[ShuffleNet_V2_X2_0_Weights] = None,
                       progress: bool = True, **kwargs):
    """ShuffleNet V2 with 2.0x output channels.

    Args:
        weights (ShuffleNet_V2_X2_0_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ShuffleNetV2`.
    """
    weights = ShuffleNet_V2_X2_0_Weights.verify(weights)
    return _shufflenetv2(weights, progress, [4, 8, 4], [24, 244, 488, 976, 2048], **kwargs)
