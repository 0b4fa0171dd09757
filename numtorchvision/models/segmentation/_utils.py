"""What the segmentation models share: a backbone returning a dict of feature maps, a head on
its ``"out"`` map (and optionally an auxiliary head on ``"aux"``), upsampled back to the
input size; and the weights facts and builder plumbing of the COCO-with-VOC-labels
checkpoints."""

from collections import OrderedDict
from functools import partial

from numtorch import nn
from numtorch.nn import functional as F

from .._api import Weights
from .._utils import _MODELS_URL, _ovewrite_value_param

# the 20 Pascal VOC classes and the background, in the checkpoints' output order
_VOC_CATEGORIES = [
    "__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat",
    "chair", "cow", "diningtable", "dog", "horse", "motorbike", "person", "pottedplant",
    "sheep", "sofa", "train", "tvmonitor",
]

_RECIPE = "https://github.com/pytorch/vision/tree/main/references/segmentation"


def _upsample_to(x, size):
    return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class _SimpleSegmentationModel(nn.Module):
    """backbone -> classifier (and aux_classifier), each result resized to the input."""

    def __init__(self, backbone, classifier, aux_classifier=None):
        super().__init__()
        for name, part in (("backbone", backbone), ("classifier", classifier),
                           ("aux_classifier", aux_classifier)):
            setattr(self, name, part)

    def forward(self, x):
        heads = [("out", self.classifier), ("aux", self.aux_classifier)]
        maps = self.backbone(x)
        return OrderedDict((key, _upsample_to(head(maps[key]), x.shape[-2:]))
                           for key, head in heads if head is not None)


def _voc_weights(file, num_params, miou, pixel_acc, ops, file_size, recipe_anchor):
    """A :class:`Weights` entry for a checkpoint trained on COCO with the VOC labels."""
    from ...transforms._presets import SemanticSegmentation

    return Weights(url=_MODELS_URL + file,
                   transforms=partial(SemanticSegmentation, resize_size=520),
                   meta={"categories": _VOC_CATEGORIES, "min_size": (1, 1),
                         "num_params": num_params, "recipe": f"{_RECIPE}#{recipe_anchor}",
                         "_metrics": {"COCO-val2017-VOC-labels": {"miou": miou,
                                                                  "pixel_acc": pixel_acc}},
                         "_ops": ops, "_file_size": file_size})


def _settle(weights, weights_backbone, num_classes, aux_loss, aux_with_weights=True):
    """The builders' shared rule: pretrained weights fix the class count (and the auxiliary
    head they were trained with) and make a separate backbone checkpoint unnecessary."""
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes,
                                            len(weights.meta["categories"]))
        if aux_with_weights:
            aux_loss = _ovewrite_value_param("aux_loss", aux_loss, True)
    elif num_classes is None:
        num_classes = 21
    return weights_backbone, num_classes, aux_loss


def _mobilenet_stages(features):
    """Indices of the first layer, every down-sampling block and the last layer."""
    return ([0] + [i for i, block in enumerate(features) if getattr(block, "_is_cn", False)]
            + [len(features) - 1])
