"""Residual networks: ResNet (He et al., 2015), ResNeXt (Xie et al., 2016) and Wide ResNet
(Zagoruyko and Komodakis, 2016), with the stride of the bottleneck on its 3x3 convolution
("ResNet v1.5")."""

from typing import Optional

import numtorch
from numtorch import nn

from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, _ovewrite_named_param, handle_legacy_interface

__all__ = ["ResNet", "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights",
           "ResNet101_Weights", "ResNet152_Weights", "ResNeXt50_32X4D_Weights",
           "ResNeXt101_32X8D_Weights", "ResNeXt101_64X4D_Weights", "Wide_ResNet50_2_Weights",
           "Wide_ResNet101_2_Weights",
           "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
           "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2"]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """A bias-free 3x3 convolution padded to keep the size (at stride 1)."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    """A bias-free 1x1 convolution."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a skip connection (ResNet-18/34).

    Args:
        inplanes (int): input channels.
        planes (int): output channels (``expansion`` is 1).
        stride (int): stride of the first convolution.
        downsample (nn.Module, optional): maps the input onto the output's shape for the skip.
        groups, base_width: must be 1 and 64; they exist for a common signature with
            :class:`Bottleneck`.
        dilation (int): must be 1.
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
    """

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        # the skip path runs after the main path, as in torchvision (fx graphs list it there)
        skip = x if self.downsample is None else self.downsample(x)
        return self.relu(out + skip)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (grouped, strided), 1x1 expand by ``expansion`` = 4, with batch norm
    and a skip connection (ResNet-50 and deeper, ResNeXt, Wide ResNet).

    The inner width is ``planes * base_width / 64 * groups``.

    Args:
        inplanes (int): input channels.
        planes (int): output channels before the 4x expansion.
        stride (int): stride of the 3x3 convolution.
        downsample (nn.Module, optional): maps the input onto the output's shape for the skip.
        groups (int): groups of the 3x3 convolution (ResNeXt's cardinality). Default: 1.
        base_width (int): width per group. Default: 64.
        dilation (int): dilation of the 3x3 convolution. Default: 1.
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
    """

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        skip = x if self.downsample is None else self.downsample(x)
        return self.relu(out + skip)


class ResNet(nn.Module):
    """A stem (7x7 stride-2 convolution, batch norm, ReLU, 3x3 max pool), four stages
    ``layer1``..``layer4`` of residual blocks at 64, 128, 256 and 512 planes, global average
    pooling and a linear classifier ``fc``.

    Args:
        block (type): :class:`BasicBlock` or :class:`Bottleneck`.
        layers (list of int): blocks per stage.
        num_classes (int): outputs. Default: 1000.
        zero_init_residual (bool): start each block's last batch-norm scale at zero, so each
            block begins as the identity. Default: False.
        groups (int): groups of the bottleneck's 3x3 convolutions. Default: 1.
        width_per_group (int): channels per group. Default: 64.
        replace_stride_with_dilation (list of 3 bools, optional): for stages 2-4, dilate
            instead of striding (keeps the resolution, for dense prediction).
        norm_layer (callable, optional): default ``nn.BatchNorm2d``.
    """

    def __init__(self, block, layers, num_classes=1000, zero_init_residual=False, groups=1,
                 width_per_group=64, replace_stride_with_dilation=None, norm_layer=None):
        super().__init__()
        self._norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element "
                             f"tuple, got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2,
                                       dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2,
                                       dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2,
                                       dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if zero_init_residual:
            for m in self.modules():
                last = (m.bn3 if isinstance(m, Bottleneck) else
                        m.bn2 if isinstance(m, BasicBlock) else None)
                if last is not None and last.weight is not None:
                    nn.init.zeros_(last.weight)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups,
                        self.base_width, previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, dilation=self.dilation,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(numtorch.flatten(self.avgpool(x), 1))

    def forward(self, x):
        return self._forward_impl(x)


def _resnet(block, layers, weights, progress, **kwargs):
    return _build(lambda **kw: ResNet(block, layers, **kw), weights, progress, kwargs)


_R_RESNET = "https://github.com/pytorch/vision/tree/main/references/classification#resnet"
_R_RESNEXT = "https://github.com/pytorch/vision/tree/main/references/classification#resnext"
_R_NEW = "https://github.com/pytorch/vision/issues/3995#new-recipe"
_R_FIXRES = "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres"
_R_WIDE = "https://github.com/pytorch/vision/pull/912#issue-445437439"


class ResNet18_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnet18-f37072fd.pth", 11689512, 69.758, 89.078, 1.814, 44.661,
        _R_RESNET)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnet34-b627a593.pth", 21797672, 73.314, 91.42, 3.664, 83.275,
        _R_RESNET)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnet50-0676ba61.pth", 25557032, 76.13, 92.862, 4.089, 97.781,
        _R_RESNET)
    IMAGENET1K_V2 = _imagenet("resnet50-11ad3fa6.pth", 25557032, 80.858, 95.434, 4.089, 97.79,
        "https://github.com/pytorch/vision/issues/3995#issuecomment-1013906621",
        resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnet101-63fe2227.pth", 44549160, 77.374, 93.546, 7.801,
        170.511, _R_RESNET)
    IMAGENET1K_V2 = _imagenet("resnet101-cd907fc2.pth", 44549160, 81.886, 95.78, 7.801, 170.53,
        _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnet152-394f9c45.pth", 60192808, 78.312, 94.046, 11.514,
        230.434, _R_RESNET)
    IMAGENET1K_V2 = _imagenet("resnet152-f82ba261.pth", 60192808, 82.284, 96.002, 11.514,
        230.474, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt50_32X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnext50_32x4d-7cdf4587.pth", 25028904, 77.618, 93.698, 4.23,
        95.789, _R_RESNEXT)
    IMAGENET1K_V2 = _imagenet("resnext50_32x4d-1a0047aa.pth", 25028904, 81.198, 95.34, 4.23,
        95.833, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_32X8D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnext101_32x8d-8ba56ff5.pth", 88791336, 79.312, 94.526,
        16.414, 339.586, _R_RESNEXT)
    IMAGENET1K_V2 = _imagenet("resnext101_32x8d-110c445d.pth", 88791336, 82.834, 96.228,
        16.414, 339.673, _R_FIXRES, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class ResNeXt101_64X4D_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("resnext101_64x4d-173b62eb.pth", 83455272, 83.246, 96.454, 15.46,
        319.318, "https://github.com/pytorch/vision/pull/5935", resize_size=232)
    DEFAULT = IMAGENET1K_V1


class Wide_ResNet50_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("wide_resnet50_2-95faca4d.pth", 68883240, 78.468, 94.086, 11.398,
        131.82, _R_WIDE)
    IMAGENET1K_V2 = _imagenet("wide_resnet50_2-9ba9bcbe.pth", 68883240, 81.602, 95.758, 11.398,
        263.124, _R_FIXRES, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class Wide_ResNet101_2_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("wide_resnet101_2-32ee1156.pth", 126886696, 78.848, 94.284,
        22.753, 242.896, _R_WIDE)
    IMAGENET1K_V2 = _imagenet("wide_resnet101_2-d733dc28.pth", 126886696, 82.51, 96.02, 22.753,
        484.747, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet18_Weights.IMAGENET1K_V1))
def resnet18(*, weights: Optional[ResNet18_Weights] = None, progress: bool = True, **kwargs):
    """ResNet-18.

    Args:
        weights (ResNet18_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNet18_Weights.verify(weights)
    return _resnet(BasicBlock, [2, 2, 2, 2], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet34_Weights.IMAGENET1K_V1))
def resnet34(*, weights: Optional[ResNet34_Weights] = None, progress: bool = True, **kwargs):
    """ResNet-34.

    Args:
        weights (ResNet34_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNet34_Weights.verify(weights)
    return _resnet(BasicBlock, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet50_Weights.IMAGENET1K_V1))
def resnet50(*, weights: Optional[ResNet50_Weights] = None, progress: bool = True, **kwargs):
    """ResNet-50.

    Args:
        weights (ResNet50_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNet50_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet101_Weights.IMAGENET1K_V1))
def resnet101(*, weights: Optional[ResNet101_Weights] = None, progress: bool = True, **kwargs):
    """ResNet-101.

    Args:
        weights (ResNet101_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNet101_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNet152_Weights.IMAGENET1K_V1))
def resnet152(*, weights: Optional[ResNet152_Weights] = None, progress: bool = True, **kwargs):
    """ResNet-152.

    Args:
        weights (ResNet152_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNet152_Weights.verify(weights)
    return _resnet(Bottleneck, [3, 8, 36, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt50_32X4D_Weights.IMAGENET1K_V1))
def resnext50_32x4d(*, weights: Optional[ResNeXt50_32X4D_Weights] = None,
                    progress: bool = True, **kwargs):
    """ResNeXt-50 32x4d.

    Args:
        weights (ResNeXt50_32X4D_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNeXt50_32X4D_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "groups", 32)
    _ovewrite_named_param(kwargs, "width_per_group", 4)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt101_32X8D_Weights.IMAGENET1K_V1))
def resnext101_32x8d(*, weights: Optional[ResNeXt101_32X8D_Weights] = None,
                     progress: bool = True, **kwargs):
    """ResNeXt-101 32x8d.

    Args:
        weights (ResNeXt101_32X8D_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNeXt101_32X8D_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "groups", 32)
    _ovewrite_named_param(kwargs, "width_per_group", 8)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ResNeXt101_64X4D_Weights.IMAGENET1K_V1))
def resnext101_64x4d(*, weights: Optional[ResNeXt101_64X4D_Weights] = None,
                     progress: bool = True, **kwargs):
    """ResNeXt-101 64x4d.

    Args:
        weights (ResNeXt101_64X4D_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = ResNeXt101_64X4D_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "groups", 64)
    _ovewrite_named_param(kwargs, "width_per_group", 4)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Wide_ResNet50_2_Weights.IMAGENET1K_V1))
def wide_resnet50_2(*, weights: Optional[Wide_ResNet50_2_Weights] = None,
                    progress: bool = True, **kwargs):
    """Wide ResNet-50-2 (bottlenecks twice as wide).

    Args:
        weights (Wide_ResNet50_2_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = Wide_ResNet50_2_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "width_per_group", 128)
    return _resnet(Bottleneck, [3, 4, 6, 3], weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Wide_ResNet101_2_Weights.IMAGENET1K_V1))
def wide_resnet101_2(*, weights: Optional[Wide_ResNet101_2_Weights] = None,
                     progress: bool = True, **kwargs):
    """Wide ResNet-101-2 (bottlenecks twice as wide).

    Args:
        weights (Wide_ResNet101_2_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`ResNet`.
    """
    weights = Wide_ResNet101_2_Weights.verify(weights)
    _ovewrite_named_param(kwargs, "width_per_group", 128)
    return _resnet(Bottleneck, [3, 4, 23, 3], weights, progress, **kwargs)
