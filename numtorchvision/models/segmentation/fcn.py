"""Fully convolutional network (Long et al., 2015) on a dilated ResNet, as trained for
torchvision's segmentation checkpoints."""


from numtorch import nn

from .. import resnet
from .._api import WeightsEnum, register_model
from .._utils import IntermediateLayerGetter, _load_weights, handle_legacy_interface
from ._utils import _settle, _SimpleSegmentationModel, _voc_weights

__all__ = ["FCN", "FCN_ResNet50_Weights", "FCN_ResNet101_Weights", "fcn_resnet50",
           "fcn_resnet101"]


class FCN(_SimpleSegmentationModel):
    """FCN: ``backbone`` returns ``{"out": ..., "aux": ...}``; ``classifier`` (and
    ``aux_classifier``) map them to class scores, upsampled to the input size."""


class FCNHead(nn.Sequential):
    """3x3 conv to a quarter of the channels, BN, ReLU, dropout 0.1, 1x1 conv to classes."""

    def __init__(self, in_channels, channels):
        hidden = in_channels // 4
        super().__init__(nn.Conv2d(in_channels, hidden, 3, padding=1, bias=False),
                         nn.BatchNorm2d(hidden), nn.ReLU(), nn.Dropout(0.1),
                         nn.Conv2d(hidden, channels, 1))


class FCN_ResNet50_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _voc_weights("fcn_resnet50_coco-1167a1af.pth", 35322218, 60.5,
                                           91.4, 152.717, 135.009, "fcn_resnet50")
    DEFAULT = COCO_WITH_VOC_LABELS_V1


class FCN_ResNet101_Weights(WeightsEnum):
    COCO_WITH_VOC_LABELS_V1 = _voc_weights("fcn_resnet101_coco-7ecb50ca.pth", 54314346, 63.7,
                                           91.9, 232.738, 207.711, "deeplabv3_resnet101")
    DEFAULT = COCO_WITH_VOC_LABELS_V1


def _dilated_resnet(depth, weights_backbone, aux):
    """ResNet whose last two stages dilate instead of striding (output stride 8), cut to
    ``layer4`` (``"out"``) and, for the auxiliary head, ``layer3`` (``"aux"``)."""
    make = getattr(resnet, f"resnet{depth}")
    backbone = make(weights=weights_backbone, replace_stride_with_dilation=[False, True, True])
    layers = {"layer4": "out"}
    if aux:
        layers["layer3"] = "aux"
    return IntermediateLayerGetter(backbone, return_layers=layers)


def _fcn_resnet(depth, weights, progress, num_classes, aux_loss, weights_backbone):
    weights_backbone, num_classes, aux_loss = _settle(weights, weights_backbone, num_classes,
                                                      aux_loss)
    backbone = _dilated_resnet(depth, weights_backbone, aux_loss)
    # the auxiliary head draws its initial weights first, as in torchvision
    aux = FCNHead(1024, num_classes) if aux_loss else None
    model = FCN(backbone, FCNHead(2048, num_classes), aux)
    if weights is not None:
        _load_weights(model, weights, progress)
    return model


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FCN_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", resnet.ResNet50_Weights.IMAGENET1K_V1))
def fcn_resnet50(*, weights: FCN_ResNet50_Weights | None = None, progress: bool = True,
                 num_classes: int | None = None, aux_loss: bool | None = None,
                 weights_backbone: resnet.ResNet50_Weights | None = (
                     resnet.ResNet50_Weights.IMAGENET1K_V1), **kwargs):
    """FCN with a ResNet-50 backbone.

    Args:
        weights (FCN_ResNet50_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): output classes (21 without weights).
        aux_loss (bool, optional): add the auxiliary head on ``layer3``.
        weights_backbone (ResNet50_Weights, optional): backbone weights when ``weights`` is
            None.
    """
    weights = FCN_ResNet50_Weights.verify(weights)
    weights_backbone = resnet.ResNet50_Weights.verify(weights_backbone)
    return _fcn_resnet(50, weights, progress, num_classes, aux_loss, weights_backbone)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FCN_ResNet101_Weights.COCO_WITH_VOC_LABELS_V1),
    weights_backbone=("pretrained_backbone", resnet.ResNet101_Weights.IMAGENET1K_V1))
def fcn_resnet101(*, weights: FCN_ResNet101_Weights | None = None, progress: bool = True,
                  num_classes: int | None = None, aux_loss: bool | None = None,
                  weights_backbone: resnet.ResNet101_Weights | None = (
                      resnet.ResNet101_Weights.IMAGENET1K_V1), **kwargs):
    """FCN with a ResNet-101 backbone (arguments as :func:`fcn_resnet50`)."""
    weights = FCN_ResNet101_Weights.verify(weights)
    weights_backbone = resnet.ResNet101_Weights.verify(weights_backbone)
    return _fcn_resnet(101, weights, progress, num_classes, aux_loss, weights_backbone)
