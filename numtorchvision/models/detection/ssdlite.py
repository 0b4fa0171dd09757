"""SSDlite (Sandler et al., MobileNetV2 paper; Howard et al., MobileNetV3 paper, section 6.3):
SSD with depthwise-separable predictors and extra layers on a MobileNetV3-Large backbone
tapped at its C4 expansion layer and its end, at a 320x320 input."""

from collections import OrderedDict
from functools import partial

from numtorch import nn

from ...ops.misc import Conv2dNormActivation
from .._api import WeightsEnum, register_model
from .._utils import _load_weights, handle_legacy_interface
from ..mobilenetv3 import MobileNet_V3_Large_Weights, mobilenet_v3_large
from . import _utils as det_utils
from .anchor_utils import DefaultBoxGenerator
from .backbone_utils import _validate_trainable_layers
from .retinanet import _PAPER_DOCS, _coco_weights, _settle_classes
from .ssd import SSD, SSDScoringHead, _check_map_count, _fixed_size_note, _init_convs, _PairedHeads

__all__ = ["SSDLite320_MobileNet_V3_Large_Weights", "ssdlite320_mobilenet_v3_large"]


def _normal_init(module):
    _init_convs(module, partial(nn.init.normal_, mean=0.0, std=0.03))


def _prediction_block(in_channels, out_channels, kernel_size, norm_layer):
    """Depthwise ``kernel_size`` conv-norm-ReLU6, then a 1x1 conv to ``out_channels``."""
    return nn.Sequential(
        Conv2dNormActivation(in_channels, in_channels, kernel_size=kernel_size,
                             groups=in_channels, norm_layer=norm_layer,
                             activation_layer=nn.ReLU6),
        nn.Conv2d(in_channels, out_channels, 1))


def _extra_block(in_channels, out_channels, norm_layer):
    """1x1 to half of ``out_channels``, depthwise 3x3 stride 2, 1x1 to ``out_channels``; each
    conv-norm-ReLU6."""
    mid = out_channels // 2

    def block(cin, cout, **kw):
        return Conv2dNormActivation(cin, cout, norm_layer=norm_layer,
                                    activation_layer=nn.ReLU6, **kw)

    return nn.Sequential(block(in_channels, mid, kernel_size=1),
                         block(mid, mid, kernel_size=3, stride=2, groups=mid),
                         block(mid, out_channels, kernel_size=1))


def _predictors(in_channels, num_anchors, columns, norm_layer):
    blocks = nn.ModuleList([_prediction_block(c, columns * a, 3, norm_layer)
                            for c, a in zip(in_channels, num_anchors)])
    _normal_init(blocks)
    return blocks


class SSDLiteClassificationHead(SSDScoringHead):
    """Depthwise-separable predictors of ``num_classes`` logits per default box.

    Args:
        in_channels (list of int): channels of each feature map.
        num_anchors (list of int): default boxes per location of each map.
        num_classes (int): classes, background included.
        norm_layer (callable): normalisation after the depthwise conv.
    """

    def __init__(self, in_channels, num_anchors, num_classes, norm_layer):
        super().__init__(_predictors(in_channels, num_anchors, num_classes, norm_layer),
                         num_classes)


class SSDLiteRegressionHead(SSDScoringHead):
    """Depthwise-separable predictors of 4 box deltas per default box.

    Args:
        in_channels (list of int): channels of each feature map.
        num_anchors (list of int): default boxes per location of each map.
        norm_layer (callable): normalisation after the depthwise conv.
    """

    def __init__(self, in_channels, num_anchors, norm_layer):
        super().__init__(_predictors(in_channels, num_anchors, 4, norm_layer), 4)


class SSDLiteHead(_PairedHeads):
    """SSDlite's classification and regression heads.

    Args:
        in_channels (list of int): channels of each feature map.
        num_anchors (list of int): default boxes per location of each map.
        num_classes (int): classes, background included.
        norm_layer (callable): normalisation of the predictors.
    """

    def __init__(self, in_channels, num_anchors, num_classes, norm_layer):
        cls_head = SSDLiteClassificationHead(in_channels, num_anchors, num_classes, norm_layer)
        super().__init__(cls_head, SSDLiteRegressionHead(in_channels, num_anchors, norm_layer))


class SSDLiteFeatureExtractorMobileNet(nn.Module):
    """Six feature maps: MobileNet's C4 block cut after its expansion layer (the first map),
    the rest of the network (the second), then four :func:`_extra_block` halvings.

    Args:
        backbone (nn.Sequential): MobileNetV3's ``features``.
        c4_pos (int): index of the strided block whose expansion output is the first map.
        norm_layer (callable): normalisation of the extra blocks.
        width_mult (float): scales the extra blocks' widths. Default: 1.0.
        min_depth (int): smallest extra-block width. Default: 16.
    """

    def __init__(self, backbone, c4_pos, norm_layer, width_mult=1.0, min_depth=16):
        super().__init__()
        c4 = backbone[c4_pos]
        if c4.use_res_connect:
            raise ValueError("backbone[c4_pos].use_res_connect should be False")
        self.features = nn.Sequential(
            nn.Sequential(*backbone[:c4_pos], c4.block[0]),
            nn.Sequential(c4.block[1:], *backbone[c4_pos + 1:]))
        widths = [backbone[-1].out_channels] + [max(min_depth, int(d * width_mult))
                                                for d in (512, 256, 256, 128)]
        self.extra = nn.ModuleList([_extra_block(cin, cout, norm_layer)
                                    for cin, cout in zip(widths, widths[1:])])
        _normal_init(self.extra)

    def forward(self, x):
        maps = []
        for block in (*self.features, *self.extra):
            x = block(x)
            maps.append(x)
        return OrderedDict((str(i), m) for i, m in enumerate(maps))


def _mobilenet_extractor(backbone, trainable_layers, norm_layer):
    features = backbone.features
    # stage boundaries: the stem, every strided block (C1..Cn-1) and the last layer
    starts = ([0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)]
              + [len(features) - 1])
    if not 0 <= trainable_layers <= len(starts):
        raise ValueError(f"Trainable layers should be in the range [0,{len(starts)}], got "
                         f"{trainable_layers} ")
    frozen = len(features) if trainable_layers == 0 else starts[len(starts) - trainable_layers]
    for layer in features[:frozen]:
        for p in layer.parameters():
            p.requires_grad_(False)
    return SSDLiteFeatureExtractorMobileNet(features, starts[-2], norm_layer)


class SSDLite320_MobileNet_V3_Large_Weights(WeightsEnum):
    COCO_V1 = _coco_weights(
        "ssdlite320_mobilenet_v3_large_coco-a79551df.pth", 3440060, 21.3, 0.583, 13.418,
        "https://github.com/pytorch/vision/tree/main/references/detection"
        "#ssdlite320-mobilenetv3-large", _PAPER_DOCS)
    DEFAULT = COCO_V1


@register_model()
@handle_legacy_interface(
    weights=("pretrained", SSDLite320_MobileNet_V3_Large_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def ssdlite320_mobilenet_v3_large(
        *, weights: SSDLite320_MobileNet_V3_Large_Weights | None = None, progress: bool = True,
        num_classes: int | None = None,
        weights_backbone: MobileNet_V3_Large_Weights | None = (
            MobileNet_V3_Large_Weights.IMAGENET1K_V1),
        trainable_backbone_layers: int | None = None, norm_layer=None, **kwargs) -> SSD:
    """SSDlite on MobileNetV3-Large at 320x320.

    Args:
        weights (SSDLite320_MobileNet_V3_Large_Weights, optional): pretrained weights.
        progress (bool): show a download progress bar. Default: True.
        num_classes (int, optional): classes, background included (91 without weights).
        weights_backbone (MobileNet_V3_Large_Weights, optional): backbone weights when
            ``weights`` is None; without them the backbone gets the reduced tail and
            N(0, 0.03) initialisation.
        trainable_backbone_layers (int, optional): stages left trainable, 0-6 (6 by default).
        norm_layer (callable, optional): default BatchNorm2d(eps=0.001, momentum=0.03).
        **kwargs: passed to the MobileNet builder and to :class:`SSD`.
    """
    weights = SSDLite320_MobileNet_V3_Large_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    _fixed_size_note(kwargs)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    trainable = _validate_trainable_layers(weights is not None or weights_backbone is not None,
                                           trainable_backbone_layers, 6, 6)
    if norm_layer is None:
        norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    mobilenet = mobilenet_v3_large(weights=weights_backbone, progress=progress,
                                   norm_layer=norm_layer,
                                   reduced_tail=weights_backbone is None, **kwargs)
    if weights_backbone is None:
        _normal_init(mobilenet)
    backbone = _mobilenet_extractor(mobilenet, trainable, norm_layer)
    size = (320, 320)
    anchor_generator = DefaultBoxGenerator([[2, 3]] * 6, min_ratio=0.2, max_ratio=0.95)
    channels = det_utils.retrieve_out_channels(backbone, size)
    _check_map_count(channels, anchor_generator, "{}")
    # inputs scaled from [0, 1] to [-1, 1]
    kwargs = {"score_thresh": 0.001, "nms_thresh": 0.55, "detections_per_img": 300,
              "topk_candidates": 300, "image_mean": [0.5, 0.5, 0.5],
              "image_std": [0.5, 0.5, 0.5], **kwargs}
    model = SSD(backbone, anchor_generator, size, num_classes,
                head=SSDLiteHead(channels, anchor_generator.num_anchors_per_location(),
                                 num_classes, norm_layer), **kwargs)
    return model if weights is None else _load_weights(model, weights, progress)

