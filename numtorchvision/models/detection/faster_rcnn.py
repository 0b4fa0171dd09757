"""Faster R-CNN (Ren et al., 2015) with FPN backbones: the ResNet-50 models (v1, and v2 of
Li et al., 2021 with batch-norm heads) and the MobileNetV3-Large models (full and 320 px)."""


from numtorch import nn
from numtorch.nn import functional as F

from ...ops import misc as misc_nn_ops
from ...ops import MultiScaleRoIAlign
from ...transforms._presets import ObjectDetection
from .._api import Weights, WeightsEnum, register_model
from .._meta import _COCO_CATEGORIES
from .._utils import _MODELS_URL, _ovewrite_value_param, handle_legacy_interface
from ..mobilenetv3 import MobileNet_V3_Large_Weights, mobilenet_v3_large
from ..resnet import ResNet50_Weights, resnet50
from ._utils import _init_convs, overwrite_eps
from .anchor_utils import AnchorGenerator
from .backbone_utils import _mobilenet_extractor, _resnet_fpn_extractor, _validate_trainable_layers
from .generalized_rcnn import GeneralizedRCNN
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform

__all__ = ["FasterRCNN", "FasterRCNN_ResNet50_FPN_Weights", "FasterRCNN_ResNet50_FPN_V2_Weights",
           "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
           "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights", "fasterrcnn_resnet50_fpn",
           "fasterrcnn_resnet50_fpn_v2", "fasterrcnn_mobilenet_v3_large_fpn",
           "fasterrcnn_mobilenet_v3_large_320_fpn"]

_RECIPES = "https://github.com/pytorch/vision/tree/main/references/detection"
_PAPER_DOCS = "These weights were produced by following a similar training recipe as on the paper."
_ENHANCED_DOCS = ("These weights were produced using an enhanced training recipe to boost the "
                  "model accuracy.")
_IMAGENET_MEAN = [0.485, 0.456, 0.406]
_IMAGENET_STD = [0.229, 0.224, 0.225]


def _coco_weights(file, num_params, recipe, metrics, ops, file_size, docs=_PAPER_DOCS,
                  categories=_COCO_CATEGORIES, **meta):
    """A :class:`Weights` entry for a COCO detection checkpoint at download.pytorch.org."""
    full = {"categories": categories, "min_size": (1, 1), "num_params": num_params,
            "recipe": recipe, "_metrics": {"COCO-val2017": metrics}, "_ops": ops,
            "_file_size": file_size, "_docs": docs}
    full.update(meta)
    return Weights(url=_MODELS_URL + file, transforms=ObjectDetection, meta=full)


def _default_anchorgen():
    """Five FPN levels, one size each (32 to 512), three aspect ratios."""
    sizes = ((32,), (64,), (128,), (256,), (512,))
    return AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))


class TwoMLPHead(nn.Module):
    """Flatten, then two fully connected layers with ReLU (the FPN box head)."""

    def __init__(self, in_channels, representation_size):
        super().__init__()
        widths = (in_channels, representation_size, representation_size)
        for name, n_in, n_out in zip(("fc6", "fc7"), widths, widths[1:]):
            setattr(self, name, nn.Linear(n_in, n_out))

    def forward(self, x):
        x = x.flatten(start_dim=1)
        for layer in (self.fc6, self.fc7):
            x = F.relu(layer(x))
        return x


class FastRCNNConvFCHead(nn.Sequential):
    """Convolutions (3x3, norm, ReLU), flatten, then fully connected layers with ReLU.

    Args:
        input_size (tuple of int): (channels, height, width) of the pooled features.
        conv_layers (list of int): output channels of each convolution.
        fc_layers (list of int): output features of each fully connected layer.
        norm_layer (callable, optional): norm after each convolution.
    """

    def __init__(self, input_size, conv_layers, fc_layers, norm_layer=None):
        channels, height, width = input_size
        blocks = []
        for out in conv_layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(channels, out, norm_layer=norm_layer))
            channels = out
        blocks.append(nn.Flatten())
        features = channels * height * width
        for out in fc_layers:
            blocks += [nn.Linear(features, out), nn.ReLU(inplace=True)]
            features = out
        super().__init__(*blocks)
        _init_convs(self, nn.Conv2d)


class FastRCNNPredictor(nn.Module):
    """Class logits and per-class box deltas from the box head's features.

    Args:
        in_channels (int): input features.
        num_classes (int): classes, background included.
    """

    def __init__(self, in_channels, num_classes):
        super().__init__()
        # per class: one logit, four box deltas
        for name, per_class in (("cls_score", 1), ("bbox_pred", 4)):
            setattr(self, name, nn.Linear(in_channels, num_classes * per_class))

    def forward(self, x):
        if x.dim() == 4 and list(x.shape[2:]) != [1, 1]:
            raise AssertionError(f"x has the wrong shape, expecting the last two dimensions to "
                                 f"be [1,1] instead of {list(x.shape[2:])}")
        x = x.flatten(start_dim=1)
        return self.cls_score(x), self.bbox_pred(x)


def _check_components(backbone, num_classes, predictor, predictor_name, typed):
    if not hasattr(backbone, "out_channels"):
        raise ValueError("backbone should contain an attribute out_channels specifying the "
                         "number of output channels (assumed to be the same for all the levels)")
    for name, value, kind in typed:
        if not isinstance(value, (kind, type(None))):
            raise TypeError(f"{name} should be of type {kind.__name__} or None instead of "
                            f"{type(value)}")
    if num_classes is not None and predictor is not None:
        raise ValueError(f"num_classes should be None when {predictor_name} is specified")


def _attach_branch(roi_heads, branch, roi_pool, head, predictor):
    """Give the RoI heads a mask or keypoint branch (after the box branch, as registered)."""
    for role, module in (("roi_pool", roi_pool), ("head", head), ("predictor", predictor)):
        setattr(roi_heads, f"{branch}_{role}", module)


class FasterRCNN(GeneralizedRCNN):
    """Faster R-CNN over any backbone with an ``out_channels`` attribute.

    In training, ``model(images, targets)`` returns the RPN and box-head losses
    (``loss_objectness``, ``loss_rpn_box_reg``, ``loss_classifier``, ``loss_box_reg``);
    in evaluation ``model(images)`` returns per image ``boxes`` (xyxy, input pixels),
    ``labels`` and ``scores``.

    Args:
        backbone (nn.Module): feature extractor (a tensor or an ordered dict of maps).
        num_classes (int, optional): classes with background; None when ``box_predictor``
            is given.
        min_size, max_size: resize rule of :class:`GeneralizedRCNNTransform`.
        image_mean, image_std (list of float, optional): default ImageNet's.
        rpn_*: the anchor generator, head and :class:`RegionProposalNetwork` settings.
        box_*: the RoI pooling, box head, predictor and :class:`RoIHeads` settings.
        bbox_reg_weights (tuple of float, optional): the box coder's weights.
        **kwargs: passed to :class:`GeneralizedRCNNTransform`.
    """

    def __init__(self, backbone, num_classes=None, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, rpn_anchor_generator=None, rpn_head=None,
                 rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000, rpn_nms_thresh=0.7,
                 rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3, rpn_batch_size_per_image=256,
                 rpn_positive_fraction=0.5, rpn_score_thresh=0.0, box_roi_pool=None,
                 box_head=None, box_predictor=None, box_score_thresh=0.05, box_nms_thresh=0.5,
                 box_detections_per_img=100, box_fg_iou_thresh=0.5, box_bg_iou_thresh=0.5,
                 box_batch_size_per_image=512, box_positive_fraction=0.25,
                 bbox_reg_weights=None, **kwargs):
        _check_components(backbone, num_classes, box_predictor, "box_predictor",
                          [("rpn_anchor_generator", rpn_anchor_generator, AnchorGenerator),
                           ("box_roi_pool", box_roi_pool, MultiScaleRoIAlign)])
        if num_classes is None and box_predictor is None:
            raise ValueError("num_classes should not be None when box_predictor is not "
                             "specified")
        channels = backbone.out_channels
        if rpn_anchor_generator is None:
            rpn_anchor_generator = _default_anchorgen()
        if rpn_head is None:
            rpn_head = RPNHead(channels, rpn_anchor_generator.num_anchors_per_location()[0])
        rpn = RegionProposalNetwork(
            rpn_anchor_generator, rpn_head, rpn_fg_iou_thresh, rpn_bg_iou_thresh,
            rpn_batch_size_per_image, rpn_positive_fraction,
            {"training": rpn_pre_nms_top_n_train, "testing": rpn_pre_nms_top_n_test},
            {"training": rpn_post_nms_top_n_train, "testing": rpn_post_nms_top_n_test},
            rpn_nms_thresh, score_thresh=rpn_score_thresh)
        if box_roi_pool is None:
            box_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=7,
                                              sampling_ratio=2)
        if box_head is None:
            side = box_roi_pool.output_size[0]
            box_head = TwoMLPHead(channels * side ** 2, 1024)
        if box_predictor is None:
            box_predictor = FastRCNNPredictor(1024, num_classes)
        roi_heads = RoIHeads(box_roi_pool, box_head, box_predictor, box_fg_iou_thresh,
                             box_bg_iou_thresh, box_batch_size_per_image, box_positive_fraction,
                             bbox_reg_weights, box_score_thresh, box_nms_thresh,
                             box_detections_per_img)
        transform = GeneralizedRCNNTransform(
            min_size, max_size, _IMAGENET_MEAN if image_mean is None else image_mean,
            _IMAGENET_STD if image_std is None else image_std, **kwargs)
        super().__init__(backbone, rpn, roi_heads, transform)


class FasterRCNN_ResNet50_FPN_Weights(WeightsEnum):
    COCO_V1 = _coco_weights("fasterrcnn_resnet50_fpn_coco-258fb6c6.pth", 41755286,
                            f"{_RECIPES}#faster-r-cnn-resnet-50-fpn", {"box_map": 37.0}, 134.38,
                            159.743)
    DEFAULT = COCO_V1


class FasterRCNN_ResNet50_FPN_V2_Weights(WeightsEnum):
    COCO_V1 = _coco_weights("fasterrcnn_resnet50_fpn_v2_coco-dd69338a.pth", 43712278,
                            "https://github.com/pytorch/vision/pull/5763", {"box_map": 46.7},
                            280.371, 167.104, docs=_ENHANCED_DOCS)
    DEFAULT = COCO_V1


class FasterRCNN_MobileNet_V3_Large_FPN_Weights(WeightsEnum):
    COCO_V1 = _coco_weights("fasterrcnn_mobilenet_v3_large_fpn-fb6a3cc7.pth", 19386354,
                            f"{_RECIPES}#faster-r-cnn-mobilenetv3-large-fpn", {"box_map": 32.8},
                            4.494, 74.239)
    DEFAULT = COCO_V1


class FasterRCNN_MobileNet_V3_Large_320_FPN_Weights(WeightsEnum):
    COCO_V1 = _coco_weights("fasterrcnn_mobilenet_v3_large_320_fpn-907ea3f9.pth", 19386354,
                            f"{_RECIPES}#faster-r-cnn-mobilenetv3-large-320-fpn",
                            {"box_map": 22.8}, 0.719, 74.239)
    DEFAULT = COCO_V1


def _settle_classes(weights, weights_backbone, num_classes, default_classes=91):
    """Pretrained weights fix the class count and replace the backbone checkpoint."""
    if weights is not None:
        return None, _ovewrite_value_param("num_classes", num_classes,
                                           len(weights.meta["categories"]))
    return weights_backbone, default_classes if num_classes is None else num_classes


def _resnet50_fpn(weights, weights_backbone, progress, trainable_backbone_layers, v2):
    """The ResNet-50 FPN backbone: frozen batch norm when anything is pretrained (v1), plain
    batch norm everywhere in v2."""
    is_trained = weights is not None or weights_backbone is not None
    layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    if v2:
        body = resnet50(weights=weights_backbone, progress=progress)
        return _resnet_fpn_extractor(body, layers, norm_layer=nn.BatchNorm2d)
    norm = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    return _resnet_fpn_extractor(resnet50(weights=weights_backbone, progress=progress,
                                          norm_layer=norm), layers)


def _v2_heads(channels):
    """v2's RPN head (two convolutions) and box head (four conv+BN layers, one FC)."""
    anchors = _default_anchorgen()
    return {"rpn_anchor_generator": anchors,
            "rpn_head": RPNHead(channels, anchors.num_anchors_per_location()[0], conv_depth=2),
            "box_head": FastRCNNConvFCHead((channels, 7, 7), [256, 256, 256, 256], [1024],
                                           norm_layer=nn.BatchNorm2d)}


def _finish(model, weights, progress, eps_zero_for=None):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if eps_zero_for is not None and weights == eps_zero_for:
            overwrite_eps(model, 0.0)
    return model


@register_model()
@handle_legacy_interface(weights=("pretrained", FasterRCNN_ResNet50_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def fasterrcnn_resnet50_fpn(*, weights: FasterRCNN_ResNet50_FPN_Weights | None = None,
                            progress: bool = True, num_classes: int | None = None,
                            weights_backbone: ResNet50_Weights | None = (
                                ResNet50_Weights.IMAGENET1K_V1),
                            trainable_backbone_layers: int | None = None, **kwargs):
    """Faster R-CNN with a ResNet-50 FPN backbone.

    Args:
        weights (FasterRCNN_ResNet50_FPN_Weights, optional): pretrained detector.
        progress (bool): show a download progress bar.
        num_classes (int, optional): classes with background (91 without weights).
        weights_backbone (ResNet50_Weights, optional): backbone weights.
        trainable_backbone_layers (int, optional): trainable ResNet stages (0-5), 3 by
            default when something is pretrained, all otherwise.
        **kwargs: passed to :class:`FasterRCNN`.
    """
    weights = FasterRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    backbone = _resnet50_fpn(weights, weights_backbone, progress, trainable_backbone_layers,
                             v2=False)
    model = FasterRCNN(backbone, num_classes=num_classes, **kwargs)
    return _finish(model, weights, progress, FasterRCNN_ResNet50_FPN_Weights.COCO_V1)


@register_model()
@handle_legacy_interface(weights=("pretrained", FasterRCNN_ResNet50_FPN_V2_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def fasterrcnn_resnet50_fpn_v2(*, weights: FasterRCNN_ResNet50_FPN_V2_Weights | None = None,
                               progress: bool = True, num_classes: int | None = None,
                               weights_backbone: ResNet50_Weights | None = None,
                               trainable_backbone_layers: int | None = None, **kwargs):
    """Faster R-CNN v2 (batch-norm heads, two-conv RPN head) with a ResNet-50 FPN backbone
    (arguments as :func:`fasterrcnn_resnet50_fpn`)."""
    weights = FasterRCNN_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    backbone = _resnet50_fpn(weights, weights_backbone, progress, trainable_backbone_layers,
                             v2=True)
    model = FasterRCNN(backbone, num_classes=num_classes, **_v2_heads(backbone.out_channels),
                       **kwargs)
    return _finish(model, weights, progress)


def _fasterrcnn_mobilenet_v3_large_fpn(*, weights, progress, num_classes, weights_backbone,
                                       trainable_backbone_layers, **kwargs):
    weights_backbone, num_classes = _settle_classes(weights, weights_backbone, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    layers = _validate_trainable_layers(is_trained, trainable_backbone_layers, 6, 3)
    norm = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    body = mobilenet_v3_large(weights=weights_backbone, progress=progress, norm_layer=norm)
    backbone = _mobilenet_extractor(body, True, layers)
    sizes = ((32, 64, 128, 256, 512),) * 3
    anchors = AnchorGenerator(sizes, ((0.5, 1.0, 2.0),) * len(sizes))
    model = FasterRCNN(backbone, num_classes, rpn_anchor_generator=anchors, **kwargs)
    return _finish(model, weights, progress)


@register_model()
@handle_legacy_interface(weights=("pretrained",
                                  FasterRCNN_MobileNet_V3_Large_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def fasterrcnn_mobilenet_v3_large_fpn(
        *, weights: FasterRCNN_MobileNet_V3_Large_FPN_Weights | None = None,
        progress: bool = True, num_classes: int | None = None,
        weights_backbone: MobileNet_V3_Large_Weights | None = (
            MobileNet_V3_Large_Weights.IMAGENET1K_V1),
        trainable_backbone_layers: int | None = None, **kwargs):
    """Faster R-CNN with a MobileNetV3-Large FPN backbone (two levels, five anchor sizes
    each), tuned for high resolution; ``trainable_backbone_layers`` is 0-6."""
    weights = FasterRCNN_MobileNet_V3_Large_FPN_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    kwargs = {"rpn_score_thresh": 0.05, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        weights=weights, progress=progress, num_classes=num_classes,
        weights_backbone=weights_backbone, trainable_backbone_layers=trainable_backbone_layers,
        **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained",
                                  FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def fasterrcnn_mobilenet_v3_large_320_fpn(
        *, weights: FasterRCNN_MobileNet_V3_Large_320_FPN_Weights | None = None,
        progress: bool = True, num_classes: int | None = None,
        weights_backbone: MobileNet_V3_Large_Weights | None = (
            MobileNet_V3_Large_Weights.IMAGENET1K_V1),
        trainable_backbone_layers: int | None = None, **kwargs):
    """The low-resolution variant of :func:`fasterrcnn_mobilenet_v3_large_fpn`: images
    resized to 320 px (at most 640), 150 proposals before and after NMS in evaluation."""
    weights = FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    kwargs = {"min_size": 320, "max_size": 640, "rpn_pre_nms_top_n_test": 150,
              "rpn_post_nms_top_n_test": 150, "rpn_score_thresh": 0.05, **kwargs}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        weights=weights, progress=progress, num_classes=num_classes,
        weights_backbone=weights_backbone, trainable_backbone_layers=trainable_backbone_layers,
        **kwargs)


