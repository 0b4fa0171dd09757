"""Detection backbones: a classification network cut at some stages (IntermediateLayerGetter)
with a Feature Pyramid Network on top, and the rules for which stages stay trainable."""

import warnings

from numtorch import nn

from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import (ExtraFPNBlock, FeaturePyramidNetwork,  # noqa: F401
                                           LastLevelMaxPool)
from .. import mobilenet, resnet
from .._api import _enum_of_builder as _get_enum_from_fn
from .._utils import IntermediateLayerGetter, handle_legacy_interface

__all__ = ["BackboneWithFPN", "resnet_fpn_backbone", "mobilenet_backbone"]

_FPN_CHANNELS = 256


class BackboneWithFPN(nn.Module):
    """``body`` (the stages named in ``return_layers``) followed by an FPN; every output map
    has ``out_channels`` channels.

    Args:
        backbone (nn.Module): network whose top-level children are run in order.
        return_layers (dict): child name -> output key.
        in_channels_list (list of int): channels of the returned maps.
        out_channels (int): FPN channels.
        extra_blocks (ExtraFPNBlock, optional): default :class:`LastLevelMaxPool`.
        norm_layer (callable, optional): norm in the FPN convolutions.
    """

    def __init__(self, backbone, return_layers, in_channels_list, out_channels,
                 extra_blocks=None, norm_layer=None):
        super().__init__()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(
            in_channels_list=in_channels_list, out_channels=out_channels,
            extra_blocks=extra_blocks if extra_blocks is not None else LastLevelMaxPool(),
            norm_layer=norm_layer)
        self.out_channels = out_channels

    def forward(self, x):
        return self.fpn(self.body(x))


def _freeze_except(named_parameters, trainable_prefixes):
    for name, p in named_parameters:
        if not name.startswith(tuple(trainable_prefixes)):
            p.requires_grad_(False)


@handle_legacy_interface(weights=("pretrained", lambda kwargs: _get_enum_from_fn(
    resnet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]))
def resnet_fpn_backbone(*, backbone_name, weights, norm_layer=misc_nn_ops.FrozenBatchNorm2d,
                        trainable_layers=3, returned_layers=None, extra_blocks=None):
    """A ResNet (by builder name, e.g. ``"resnet50"``) with an FPN on its stages.

    Args:
        backbone_name (str): a ResNet/ResNeXt/Wide-ResNet builder name.
        weights (WeightsEnum, optional): the ResNet's pretrained weights.
        norm_layer (callable): default :class:`FrozenBatchNorm2d`.
        trainable_layers (int): how many stages, from ``layer4`` down, stay trainable (0-5).
        returned_layers (list of int): stages fed to the FPN (1-4). Default all four.
        extra_blocks (ExtraFPNBlock, optional): default :class:`LastLevelMaxPool`.
    """
    backbone = resnet.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _resnet_fpn_extractor(backbone, trainable_layers, returned_layers, extra_blocks)


def _resnet_fpn_extractor(backbone, trainable_layers, returned_layers=None, extra_blocks=None,
                          norm_layer=None):
    if not 0 <= trainable_layers <= 5:
        raise ValueError(f"Trainable layers should be in the range [0,5], got {trainable_layers}")
    trainable = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        trainable.append("bn1")
    _freeze_except(backbone.named_parameters(), trainable)
    if returned_layers is None:
        returned_layers = [1, 2, 3, 4]
    if min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise ValueError(f"Each returned layer should be in the range [1,4]. Got "
                         f"{returned_layers}")
    return_layers = {f"layer{k}": str(i) for i, k in enumerate(returned_layers)}
    # stage k of a ResNet has (final width / 8) * 2**(k-1) channels
    stage2 = backbone.inplanes // 8
    in_channels_list = [stage2 * 2 ** (k - 1) for k in returned_layers]
    return BackboneWithFPN(backbone, return_layers, in_channels_list, _FPN_CHANNELS,
                           extra_blocks=extra_blocks, norm_layer=norm_layer)


def _validate_trainable_layers(is_trained, trainable_backbone_layers, max_value, default_value):
    """The number of trainable backbone stages: everything without pretrained weights
    (warning when the caller asked otherwise), ``default_value`` when not given."""
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn("Changing trainable_backbone_layers has no effect if neither "
                          "pretrained nor pretrained_backbone have been set to True, falling "
                          f"back to trainable_backbone_layers={max_value} so that all layers "
                          "are trainable")
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if not 0 <= trainable_backbone_layers <= max_value:
        raise ValueError(f"Trainable backbone layers should be in the range [0,{max_value}], "
                         f"got {trainable_backbone_layers} ")
    return trainable_backbone_layers


@handle_legacy_interface(weights=("pretrained", lambda kwargs: _get_enum_from_fn(
    mobilenet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]))
def mobilenet_backbone(*, backbone_name, weights, fpn, norm_layer=misc_nn_ops.FrozenBatchNorm2d,
                       trainable_layers=2, returned_layers=None, extra_blocks=None):
    """A MobileNet (V2 or V3, by builder name) as a detection backbone: its feature stages with
    an FPN (``fpn=True``) or its last map through a 1x1 convolution to 256 channels."""
    backbone = mobilenet.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers, extra_blocks)


def _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers=None,
                         extra_blocks=None, norm_layer=None):
    features = backbone.features
    # stage boundaries: the stem, every down-sampling block, the last layer
    stages = ([0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)]
              + [len(features) - 1])
    n = len(stages)
    if not 0 <= trainable_layers <= n:
        raise ValueError(f"Trainable layers should be in the range [0,{n}], got "
                         f"{trainable_layers} ")
    frozen_until = len(features) if trainable_layers == 0 else stages[n - trainable_layers]
    for block in features[:frozen_until]:
        for p in block.parameters():
            p.requires_grad_(False)
    if not fpn:
        model = nn.Sequential(features, nn.Conv2d(features[-1].out_channels, _FPN_CHANNELS, 1))
        model.out_channels = _FPN_CHANNELS
        return model
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [n - 2, n - 1]
    if min(returned_layers) < 0 or max(returned_layers) >= n:
        raise ValueError(f"Each returned layer should be in the range [0,{n - 1}], got "
                         f"{returned_layers} ")
    return_layers = {f"{stages[k]}": str(i) for i, k in enumerate(returned_layers)}
    in_channels_list = [features[stages[k]].out_channels for k in returned_layers]
    return BackboneWithFPN(features, return_layers, in_channels_list, _FPN_CHANNELS,
                           extra_blocks=extra_blocks, norm_layer=norm_layer)
