"""Lite R-ASPP (Howard et al., "Searching for MobileNetV3", 2019): a light segmentation
head mixing a low-level and a gated high-level feature map of MobileNetV3-Large."""

from collections import OrderedDict

from numtorch import nn

from .. import mobilenetv3
from .._api import WeightsEnum, register_model
from .._utils import IntermediateLayerGetter, _load_weights, handle_legacy_interface
from ._utils import _mobilenet_stages, _settle, _upsample_to, _voc_weights

__all__ = ["LRASPP", "LRASPP_MobileNet_V3_Large_Weights", "lraspp_mobilenet_v3_large"]


class LRASPP(nn.Module):
    """Lite R-ASPP.

    Args:
        backbone (nn.Module): returns ``{"low": ..., "high": ...}`` feature maps.
        low_channels, high_channels (int): their channels.
        num_classes (int): output classes.
        inter_channels (int): width of the high-level branch. Default: 128.
    """

    def __init__(self, backbone, low_channels, high_channels, num_classes, inter_channels=128):
        super().__init__()
        self.backbone = backbone
        self.classifier = LRASPPHead(low_channels, high_channels, num_classes, inter_channels)

    def forward(self, input):
        scores = self.classifier(self.backbone(input))
        return OrderedDict([("out", _upsample_to(scores, input.shape[-2:]))])


class LRASPPHead(nn.Module):
    """1x1 conv-BN-ReLU of the high map times its global sigmoid gate, upsampled to the low
    map; class scores of both maps added."""

    def __init__(self, low_channels, high_channels, num_classes, inter_channels):
        super().__init__()
        self.cbr = nn.Sequential(nn.Conv2d(high_channels, inter_channels, 1, bias=False),
                                 nn.BatchNorm2d(inter_channels), nn.ReLU(inplace=True))
        self.scale = nn.Sequential(nn.AdaptiveAvgPool2d(1),
                                   nn.Conv2d(high_channels, inter_channels, 1, bias=False),
                                   nn.Sigmoid())
        self.low_classifier = nn.Conv2d(low_channels, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter_channels, num_classes, 1)

    def forward(self, input):
        low, high = input["low"], input["high"]
        gated = self.cbr(high) * self.scale(high)
        gated = _upsample_to(gated, low.shape[-2:])
        return self.low_classifier(low) + self.high_classifier(gated)


class LRASPP_MobileNet_V3_Large_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _voc_weights("lraspp_mobilenet_v3_large-d234d4ea.pth", 3221538,
                                           57.9, 91.2, 2.086, 12.49,
                                           "lraspp_mobilenet_v3_large")
    DEFAULT = COCO_WITH_VOC_LABELS_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", LRASPP_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone",
                      mobilenetv3.MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def lraspp_mobilenet_v3_large(
        *, weights: LRASPP_MobileNet_V3_Large_Weights | None = None, progress: bool = True,
        num_classes: int | None = None,
        weights_backbone: mobilenetv3.MobileNet_V3_Large_Weights | None = (
            mobilenetv3.MobileNet_V3_Large_Weights.IMAGENET1K_V1), **kwargs):
    """Lite R-ASPP on a dilated MobileNetV3-Large.

    Args:
        weights (LRASPP_MobileNet_V3_Large_Weights, optional): pretrained weights.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): output classes (21 without weights).
        weights_backbone (MobileNet_V3_Large_Weights, optional): backbone weights when
            ``weights`` is None.

    Raises:
        NotImplementedError: ``aux_loss`` was asked for (this model has no auxiliary head).
    """
    if kwargs.pop("aux_loss", None):
        raise NotImplementedError("This model does not use auxiliary loss")
    weights = LRASPP_MobileNet_V3_Large_Weights.verify(weights)
    weights_backbone = mobilenetv3.MobileNet_V3_Large_Weights.verify(weights_backbone)
    weights_backbone, num_classes, _ = _settle(weights, weights_backbone, num_classes, None,
                                               aux_with_weights=False)
    features = mobilenetv3.mobilenet_v3_large(weights=weights_backbone, dilated=True).features
    stages = _mobilenet_stages(features)
    low_at, high_at = stages[-4], stages[-1]
    backbone = IntermediateLayerGetter(features, return_layers={str(low_at): "low",
                                                                str(high_at): "high"})
    model = LRASPP(backbone, features[low_at].out_channels, features[high_at].out_channels,
                   num_classes)
    if weights is not None:
        _load_weights(model, weights, progress)
    return model
