"""Video ResNets (Tran et al., "A Closer Look at Spatiotemporal Convolutions for Action
Recognition", 2018): R3D (full 3-D convolutions), MC3 (3-D in the first stage, spatial-only
after) and R(2+1)D (each 3x3x3 convolution factored into a spatial 1x3x3 and a temporal 3x1x1
one, with the middle width chosen to keep the parameter count)."""

from functools import partial
from typing import Optional

import numtorch
from numtorch import nn

from .._api import Weights, WeightsEnum, register_model
from .._meta_kinetics import _KINETICS400_CATEGORIES
from .._utils import _MODELS_URL, _build, handle_legacy_interface

__all__ = ["VideoResNet", "R3D_18_Weights", "MC3_18_Weights", "R2Plus1D_18_Weights", "r3d_18",
           "mc3_18", "r2plus1d_18"]


def _bn_relu(channels):
    return [nn.BatchNorm3d(channels), nn.ReLU(inplace=True)]


class Conv3DSimple(nn.Conv3d):
    """A full 3x3x3 convolution (``midplanes`` unused)."""

    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(in_planes, out_planes, kernel_size=(3, 3, 3), stride=stride,
                         padding=padding, bias=False)

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


class Conv3DNoTemporal(nn.Conv3d):
    """A spatial-only 1x3x3 convolution (``midplanes`` unused)."""

    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(in_planes, out_planes, kernel_size=(1, 3, 3), stride=(1, stride, stride),
                         padding=(0, padding, padding), bias=False)

    @staticmethod
    def get_downsample_stride(stride):
        return 1, stride, stride


class Conv2Plus1D(nn.Sequential):
    """1x3x3 spatial convolution to ``midplanes`` channels, BN, ReLU, 3x1x1 temporal one."""

    def __init__(self, in_planes, out_planes, midplanes, stride=1, padding=1):
        super().__init__(
            nn.Conv3d(in_planes, midplanes, kernel_size=(1, 3, 3), stride=(1, stride, stride),
                      padding=(0, padding, padding), bias=False),
            *_bn_relu(midplanes),
            nn.Conv3d(midplanes, out_planes, kernel_size=(3, 1, 1), stride=(stride, 1, 1),
                      padding=(padding, 0, 0), bias=False))

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


def _midplanes(inplanes, planes):
    # the (2+1)D factorisation's width that matches a 3x3x3 convolution's parameter count
    return (inplanes * planes * 27) // (inplanes * 9 + 3 * planes)


class BasicBlock(nn.Module):
    """Two convolutions of ``conv_builder`` with BN (ReLU between), plus the shortcut."""

    expansion = 1

    def __init__(self, inplanes, planes, conv_builder, stride=1, downsample=None):
        super().__init__()
        mid = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(conv_builder(inplanes, planes, mid, stride), *_bn_relu(planes))
        self.conv2 = nn.Sequential(conv_builder(planes, planes, mid), nn.BatchNorm3d(planes))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv2(self.conv1(x)) + shortcut)


class Bottleneck(nn.Module):
    """1x1x1 reduction, a ``conv_builder`` convolution, 1x1x1 expansion (x4), plus the
    shortcut."""

    expansion = 4

    def __init__(self, inplanes, planes, conv_builder, stride=1, downsample=None):
        super().__init__()
        mid = _midplanes(inplanes, planes)
        wide = planes * self.expansion
        self.conv1 = nn.Sequential(nn.Conv3d(inplanes, planes, kernel_size=1, bias=False),
                                   *_bn_relu(planes))
        self.conv2 = nn.Sequential(conv_builder(planes, planes, mid, stride), *_bn_relu(planes))
        self.conv3 = nn.Sequential(nn.Conv3d(planes, wide, kernel_size=1, bias=False),
                                   nn.BatchNorm3d(wide))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv3(self.conv2(self.conv1(x))) + shortcut)


class BasicStem(nn.Sequential):
    """The R3D/MC3 stem: 3x7x7 convolution, spatial stride 2, to 64 channels."""

    def __init__(self):
        super().__init__(nn.Conv3d(3, 64, kernel_size=(3, 7, 7), stride=(1, 2, 2),
                                   padding=(1, 3, 3), bias=False), *_bn_relu(64))


class R2Plus1dStem(nn.Sequential):
    """The R(2+1)D stem: 1x7x7 spatial convolution to 45 channels, then 3x1x1 temporal to 64."""

    def __init__(self):
        super().__init__(nn.Conv3d(3, 45, kernel_size=(1, 7, 7), stride=(1, 2, 2),
                                   padding=(0, 3, 3), bias=False), *_bn_relu(45),
                         nn.Conv3d(45, 64, kernel_size=(3, 1, 1), stride=(1, 1, 1),
                                   padding=(1, 0, 0), bias=False), *_bn_relu(64))


_VIDEO_INIT = {
    nn.Conv3d: partial(nn.init.kaiming_normal_, mode="fan_out", nonlinearity="relu"),
    nn.BatchNorm3d: nn.init.ones_,
    nn.Linear: partial(nn.init.normal_, mean=0.0, std=0.01),
}


class VideoResNet(nn.Module):
    """ResNet over ``(N, 3, T, H, W)`` clips.

    Args:
        block (type): :class:`BasicBlock` or :class:`Bottleneck`.
        conv_makers (sequence of 4 types): the convolution of each stage.
        layers (list of 4 int): blocks per stage.
        stem (callable): builds the stem.
        num_classes (int): outputs. Default: 400 (Kinetics-400).
        zero_init_residual (bool): start each block's last BN at zero. Default: False.
    """

    def __init__(self, block, conv_makers, layers, stem, num_classes=400,
                 zero_init_residual=False):
        super().__init__()
        self.inplanes = 64
        self.stem = stem()
        widths, strides = (64, 128, 256, 512), (1, 2, 2, 2)
        for i, (maker, width, count, stride) in enumerate(zip(conv_makers, widths, layers,
                                                              strides)):
            setattr(self, f"layer{i + 1}", self._make_layer(block, maker, width, count, stride))
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        self._init_weights(zero_init_residual)

    def _init_weights(self, zero_init_residual):
        # weights: He (fan-out) for convolutions, N(0, 0.01) for the classifier, ones for
        # norms; every bias zero. With zero_init_residual each block's last norm starts at 0
        # so the block begins as the identity.
        last_norms = set()
        if zero_init_residual:
            for m in self.modules():
                last = {BasicBlock: "conv2", Bottleneck: "conv3"}.get(type(m))
                if last is not None:
                    last_norms.add(getattr(m, last)[1])
        for m in self.modules():
            if isinstance(m, (nn.Conv3d, nn.BatchNorm3d, nn.Linear)):
                _VIDEO_INIT[type(m) if type(m) in _VIDEO_INIT else nn.Conv3d](m.weight)
                if m in last_norms:
                    nn.init.zeros_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def _make_layer(self, block, conv_builder, planes, blocks, stride=1):
        downsample = None
        wide = planes * block.expansion
        if stride != 1 or self.inplanes != wide:
            downsample = nn.Sequential(
                nn.Conv3d(self.inplanes, wide, kernel_size=1,
                          stride=conv_builder.get_downsample_stride(stride), bias=False),
                nn.BatchNorm3d(wide))
        layers = [block(self.inplanes, planes, conv_builder, stride, downsample)]
        self.inplanes = wide
        layers += [block(self.inplanes, planes, conv_builder) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.stem(x)
        for stage in (self.layer1, self.layer2, self.layer3, self.layer4):
            x = stage(x)
        return self.fc(numtorch.flatten(self.avgpool(x), 1))


def _kinetics(file, num_params, acc1, acc5, ops, file_size):
    from ...transforms._presets import VideoClassification

    return Weights(
        url=_MODELS_URL + file,
        transforms=partial(VideoClassification, crop_size=(112, 112), resize_size=(128, 171)),
        meta={"min_size": (1, 1), "categories": _KINETICS400_CATEGORIES,
              "recipe": "https://github.com/pytorch/vision/tree/main/references/"
                        "video_classification",
              "num_params": num_params,
              "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
              "_ops": ops, "_file_size": file_size})


class R3D_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics("r3d_18-b3b3357e.pth", 33371472, 63.2, 83.479, 40.697, 127.359)
    DEFAULT = KINETICS400_V1


class MC3_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics("mc3_18-a90a0ba3.pth", 11695440, 63.96, 84.13, 43.343, 44.672)
    DEFAULT = KINETICS400_V1


class R2Plus1D_18_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics("r2plus1d_18-91a641e6.pth", 31505325, 67.463, 86.175, 40.519,
                               120.318)
    DEFAULT = KINETICS400_V1


def _video_resnet(conv_makers, stem, weights, progress, kwargs):
    return _build(lambda **kw: VideoResNet(BasicBlock, conv_makers, [2, 2, 2, 2], stem, **kw),
                  weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", R3D_18_Weights.KINETICS400_V1))
def r3d_18(*, weights: Optional[R3D_18_Weights] = None, progress: bool = True, **kwargs):
    """R3D-18: 18-layer ResNet with 3-D convolutions throughout.

    Args:
        weights (R3D_18_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: arguments of :class:`VideoResNet`.
    """
    weights = R3D_18_Weights.verify(weights)
    return _video_resnet([Conv3DSimple] * 4, BasicStem, weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MC3_18_Weights.KINETICS400_V1))
def mc3_18(*, weights: Optional[MC3_18_Weights] = None, progress: bool = True, **kwargs):
    """MC3-18: 3-D convolutions in the first stage, spatial-only ones after (arguments as
    :func:`r3d_18`)."""
    weights = MC3_18_Weights.verify(weights)
    return _video_resnet([Conv3DSimple] + [Conv3DNoTemporal] * 3, BasicStem, weights,
                         progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", R2Plus1D_18_Weights.KINETICS400_V1))
def r2plus1d_18(*, weights: Optional[R2Plus1D_18_Weights] = None, progress: bool = True,
                **kwargs):
    """R(2+1)D-18: every 3-D convolution factored into spatial and temporal parts
    (arguments as :func:`r3d_18`)."""
    weights = R2Plus1D_18_Weights.verify(weights)
    return _video_resnet([Conv2Plus1D] * 4, R2Plus1dStem, weights, progress, kwargs)
