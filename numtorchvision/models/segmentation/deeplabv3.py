"""DeepLabV3 (Chen et al., 2017): atrous spatial pyramid pooling on a dilated ResNet or
MobileNetV3-Large backbone."""


import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from .. import mobilenetv3, resnet
from .._api import WeightsEnum, register_model
from .._utils import IntermediateLayerGetter, _load_weights, handle_legacy_interface
from ._utils import _mobilenet_stages, _settle, _SimpleSegmentationModel, _voc_weights
from .fcn import FCNHead, _dilated_resnet

__all__ = [
    "DeepLabV3",
    "DeepLabV3_MobileNet_V3_Large_Weights",
    "DeepLabV3_ResNet50_Weights",
    "DeepLabV3_ResNet101_Weights",
    "deeplabv3_mobilenet_v3_large",
    "deeplabv3_resnet50",
    "deeplabv3_resnet101",
]


class DeepLabV3(_SimpleSegmentationModel):
    """DeepLabV3: ``backbone`` returns ``{"out": ..., "aux": ...}``; ``classifier`` (a
    :class:`DeepLabHead`) and the optional ``aux_classifier`` give class scores at the input
    size."""


def _conv_bn_relu(cin, cout, kernel=1, dilation=1):
    pad = dilation if kernel == 3 else 0
    return [nn.Conv2d(cin, cout, kernel, padding=pad, dilation=dilation, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


class ASPPConv(nn.Sequential):
    """A 3x3 atrous convolution with rate ``dilation``, BN and ReLU."""

    def __init__(self, in_channels, out_channels, dilation):
        super().__init__(*_conv_bn_relu(in_channels, out_channels, 3, dilation))


class ASPPPooling(nn.Sequential):
    """Image-level features: global average, 1x1 conv, BN, ReLU, spread back over the map."""

    def __init__(self, in_channels, out_channels):
        super().__init__(nn.AdaptiveAvgPool2d(1), *_conv_bn_relu(in_channels, out_channels))

    def forward(self, x):
        size = x.shape[-2:]
        for layer in self:
            x = layer(x)
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    """Parallel 1x1, atrous 3x3 (one per rate) and image-pooling branches, concatenated and
    projected to ``out_channels`` (with dropout 0.5)."""

    def __init__(self, in_channels, atrous_rates, out_channels=256):
        super().__init__()
        branches = [nn.Sequential(*_conv_bn_relu(in_channels, out_channels))]
        branches += [ASPPConv(in_channels, out_channels, rate) for rate in atrous_rates]
        branches.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(branches)
        self.project = nn.Sequential(*_conv_bn_relu(len(branches) * out_channels, out_channels),
                                     nn.Dropout(0.5))

    def forward(self, x):
        return self.project(numtorch.cat([branch(x) for branch in self.convs], dim=1))


class DeepLabHead(nn.Sequential):
    """ASPP, a 3x3 conv-BN-ReLU and the 1x1 classifier."""

    def __init__(self, in_channels, num_classes, atrous_rates=(12, 24, 36)):
        super().__init__(ASPP(in_channels, atrous_rates), *_conv_bn_relu(256, 256, 3),
                         nn.Conv2d(256, num_classes, 1))


class DeepLabV3_ResNet50_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _voc_weights("deeplabv3_resnet50_coco-cd0a2569.pth", 42004074,
                                           66.4, 92.4, 178.722, 160.515, "deeplabv3_resnet50")
    DEFAULT = COCO_WITH_VOC_LABELS_V1


class DeepLabV3_ResNet101_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _voc_weights("deeplabv3_resnet101_coco-586e9e4e.pth", 60996202,
                                           67.4, 92.4, 258.743, 233.217, "fcn_resnet101")
    DEFAULT = COCO_WITH_VOC_LABELS_V1


class DeepLabV3_MobileNet_V3_Large_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _voc_weights("deeplabv3_mobilenet_v3_large-fc3c493d.pth",
                                           11029328, 60.3, 91.2, 10.452, 42.301,
                                           "deeplabv3_mobilenet_v3_large")
    DEFAULT = COCO_WITH_VOC_LABELS_V1


def _finish(model, weights, progress):
    if weights is not None:
        _load_weights(model, weights, progress)
    return model


def _deeplabv3_resnet(depth, weights, progress, num_classes, aux_loss, weights_backbone):
    weights_backbone, num_classes, aux_loss = _settle(weights, weights_backbone, num_classes,
                                                      aux_loss)
    backbone = _dilated_resnet(depth, weights_backbone, aux_loss)
    # the auxiliary head draws its initial weights first, as in torchvision
    aux = FCNHead(1024, num_classes) if aux_loss else None
    model = DeepLabV3(backbone, DeepLabHead(2048, num_classes), aux)
    return _finish(model, weights, progress)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", DeepLabV3_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", resnet.ResNet50_Weights.IMAGENET1K_V1))
def deeplabv3_resnet50(*, weights: DeepLabV3_ResNet50_Weights | None = None,
                       progress: bool = True, num_classes: int | None = None,
                       aux_loss: bool | None = None,
                       weights_backbone: resnet.ResNet50_Weights | None = (
                           resnet.ResNet50_Weights.IMAGENET1K_V1), **kwargs):
    """DeepLabV3 with a ResNet-50 backbone.

    Args:
        weights (DeepLabV3_ResNet50_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): output classes (21 without weights).
        aux_loss (bool, optional): add the FCN auxiliary head on ``layer3``.
        weights_backbone (ResNet50_Weights, optional): backbone weights when ``weights`` is
            None.
    """
    weights = DeepLabV3_ResNet50_Weights.verify(weights)
    weights_backbone = resnet.ResNet50_Weights.verify(weights_backbone)
    return _deeplabv3_resnet(50, weights, progress, num_classes, aux_loss, weights_backbone)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", DeepLabV3_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", resnet.ResNet101_Weights.IMAGENET1K_V1))
def deeplabv3_resnet101(*, weights: DeepLabV3_ResNet101_Weights | None = None,
                        progress: bool = True, num_classes: int | None = None,
                        aux_loss: bool | None = None,
                        weights_backbone: resnet.ResNet101_Weights | None = (
                            resnet.ResNet101_Weights.IMAGENET1K_V1), **kwargs):
    """DeepLabV3 with a ResNet-101 backbone (arguments as :func:`deeplabv3_resnet50`)."""
    weights = DeepLabV3_ResNet101_Weights.verify(weights)
    weights_backbone = resnet.ResNet101_Weights.verify(weights_backbone)
    return _deeplabv3_resnet(101, weights, progress, num_classes, aux_loss, weights_backbone)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", DeepLabV3_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone",
                      mobilenetv3.MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def deeplabv3_mobilenet_v3_large(
        *, weights: DeepLabV3_MobileNet_V3_Large_Weights | None = None,
        progress: bool = True, num_classes: int | None = None,
        aux_loss: bool | None = None,
        weights_backbone: mobilenetv3.MobileNet_V3_Large_Weights | None = (
            mobilenetv3.MobileNet_V3_Large_Weights.IMAGENET1K_V1), **kwargs):
    """DeepLabV3 with a dilated MobileNetV3-Large backbone (arguments as
    :func:`deeplabv3_resnet50`; the auxiliary head reads the output-stride-8 stage)."""
    weights = DeepLabV3_MobileNet_V3_Large_Weights.verify(weights)
    weights_backbone = mobilenetv3.MobileNet_V3_Large_Weights.verify(weights_backbone)
    weights_backbone, num_classes, aux_loss = _settle(weights, weights_backbone, num_classes,
                                                      aux_loss)
    features = mobilenetv3.mobilenet_v3_large(weights=weights_backbone, dilated=True).features
    stages = _mobilenet_stages(features)
    out_at, aux_at = stages[-1], stages[-4]
    layers = {str(out_at): "out"}
    if aux_loss:
        layers[str(aux_at)] = "aux"
    backbone = IntermediateLayerGetter(features, return_layers=layers)
    aux = FCNHead(features[aux_at].out_channels, num_classes) if aux_loss else None
    model = DeepLabV3(backbone, DeepLabHead(features[out_at].out_channels, num_classes), aux)
    return _finish(model, weights, progress)
