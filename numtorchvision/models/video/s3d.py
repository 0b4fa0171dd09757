"""S3D (Xie et al., "Rethinking Spatiotemporal Feature Learning", 2018): an Inception
network whose 3-D convolutions are separated into a spatial 1xkxk and a temporal kx1x1 part."""

from functools import partial
from typing import Optional

import numtorch
from numtorch import nn

from ...ops.misc import Conv3dNormActivation
from ...transforms._presets import VideoClassification
from .._api import Weights, WeightsEnum, register_model
from .._meta_kinetics import _KINETICS400_CATEGORIES
from .._utils import _MODELS_URL, _build, handle_legacy_interface

__all__ = ["S3D", "S3D_Weights", "s3d"]


class TemporalSeparableConv(nn.Sequential):
    """Spatial ``1 x k x k`` then temporal ``k x 1 x 1`` convolution, each with norm and
    ReLU."""

    def __init__(self, in_planes, out_planes, kernel_size, stride, padding, norm_layer):
        k, s, p = kernel_size, stride, padding
        super().__init__(
            Conv3dNormActivation(in_planes, out_planes, kernel_size=(1, k, k), stride=(1, s, s),
                                 padding=(0, p, p), bias=False, norm_layer=norm_layer),
            Conv3dNormActivation(out_planes, out_planes, kernel_size=(k, 1, 1), stride=(s, 1, 1),
                                 padding=(p, 0, 0), bias=False, norm_layer=norm_layer))


class SepInceptionBlock3D(nn.Module):
    """Four parallel branches concatenated: 1x1x1; 1x1x1 then separable 3x3x3 (twice, with
    their own widths); 3x3x3 max pool then 1x1x1."""

    def __init__(self, in_planes, b0_out, b1_mid, b1_out, b2_mid, b2_out, b3_out, norm_layer):
        super().__init__()
        pointwise = partial(Conv3dNormActivation, kernel_size=1, stride=1,
                            norm_layer=norm_layer)
        self.branch0 = pointwise(in_planes, b0_out)
        self.branch1 = nn.Sequential(pointwise(in_planes, b1_mid),
                                     TemporalSeparableConv(b1_mid, b1_out, 3, 1, 1, norm_layer))
        self.branch2 = nn.Sequential(pointwise(in_planes, b2_mid),
                                     TemporalSeparableConv(b2_mid, b2_out, 3, 1, 1, norm_layer))
        self.branch3 = nn.Sequential(nn.MaxPool3d(kernel_size=(3, 3, 3), stride=1, padding=1),
                                     pointwise(in_planes, b3_out))

    def forward(self, x):
        return numtorch.cat([self.branch0(x), self.branch1(x), self.branch2(x),
                             self.branch3(x)], 1)


# the Inception blocks' widths: (in, b0_out, b1_mid, b1_out, b2_mid, b2_out, b3_out); "pool"
# entries are the max pools between resolutions as (kernel, stride, padding)
_LAYOUT = [
    ("pool", (1, 3, 3), (1, 2, 2), (0, 1, 1)),
    (192, 64, 96, 128, 16, 32, 32), (256, 128, 128, 192, 32, 96, 64),
    ("pool", (3, 3, 3), (2, 2, 2), (1, 1, 1)),
    (480, 192, 96, 208, 16, 48, 64), (512, 160, 112, 224, 24, 64, 64),
    (512, 128, 128, 256, 24, 64, 64), (512, 112, 144, 288, 32, 64, 64),
    (528, 256, 160, 320, 32, 128, 128),
    ("pool", (2, 2, 2), (2, 2, 2), (0, 0, 0)),
    (832, 256, 160, 320, 32, 128, 128), (832, 384, 192, 384, 48, 128, 128),
]


class S3D(nn.Module):
    """S3D over ``(N, 3, T, H, W)`` clips (at least 14 x 224 x 224 for the final pooling).

    Args:
        num_classes (int): outputs. Default: 400 (Kinetics-400).
        dropout (float): before the classifier. Default: 0.2.
        norm_layer (callable, optional): default batch norm with eps 0.001, momentum 0.001.
    """

    def __init__(self, num_classes=400, dropout=0.2, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm3d, eps=0.001, momentum=0.001)
        layers = [TemporalSeparableConv(3, 64, 7, 2, 3, norm_layer),
                  nn.MaxPool3d(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
                  Conv3dNormActivation(64, 64, kernel_size=1, stride=1, norm_layer=norm_layer),
                  TemporalSeparableConv(64, 192, 3, 1, 1, norm_layer)]
        for entry in _LAYOUT:
            if entry[0] == "pool":
                layers.append(nn.MaxPool3d(kernel_size=entry[1], stride=entry[2],
                                           padding=entry[3]))
            else:
                layers.append(SepInceptionBlock3D(*entry, norm_layer))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AvgPool3d(kernel_size=(2, 7, 7), stride=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout),
                                        nn.Conv3d(1024, num_classes, kernel_size=1, stride=1,
                                                  bias=True))

    def forward(self, x):
        x = self.classifier(self.avgpool(self.features(x)))
        return numtorch.mean(x, dim=(2, 3, 4))


class S3D_Weights(WeightsEnum):
    KINETICS400_V1 = Weights(
        url=_MODELS_URL + "s3d-d76dad2f.pth",
        transforms=partial(VideoClassification, crop_size=(224, 224), resize_size=(256, 256)),
        meta={"min_size": (224, 224), "min_temporal_size": 14,
              "categories": _KINETICS400_CATEGORIES,
              "recipe": "https://github.com/pytorch/vision/tree/main/references/"
                        "video_classification#s3d",
              "num_params": 8320048,
              "_metrics": {"Kinetics-400": {"acc@1": 68.368, "acc@5": 88.05}},
              "_ops": 17.979, "_file_size": 31.972})
    DEFAULT = KINETICS400_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", S3D_Weights.KINETICS400_V1))
def s3d(*, weights: Optional[S3D_Weights] = None, progress: bool = True, **kwargs):
    """S3D for Kinetics-400 clips.

    Args:
        weights (S3D_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: arguments of :class:`S3D`.
    """
    weights = S3D_Weights.verify(weights)
    return _build(S3D, weights, progress, kwargs)
