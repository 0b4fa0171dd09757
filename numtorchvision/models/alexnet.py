"""AlexNet (Krizhevsky et al., 2012) in its one-GPU form (Krizhevsky, 2014)."""

from typing import Optional

import numtorch
from numtorch import nn

from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["AlexNet", "AlexNet_Weights", "alexnet"]


class AlexNet(nn.Module):
    """Five convolutions (``features``), a 6x6 adaptive average pool and three linear layers
    with dropout (``classifier``).

    Args:
        num_classes (int): outputs of the last layer. Default: 1000.
        dropout (float): dropout probability in the classifier. Default: 0.5.
    """

    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(numtorch.flatten(x, 1))


class AlexNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet(
        "alexnet-owt-7be5be79.pth", 61100840, 56.522, 79.066, 0.714, 233.087,
        "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg",
        min_size=(63, 63))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", AlexNet_Weights.IMAGENET1K_V1))
def alexnet(*, weights: Optional[AlexNet_Weights] = None, progress: bool = True, **kwargs):
    """AlexNet from "One weird trick for parallelizing convolutional neural networks".

    Args:
        weights (AlexNet_Weights, optional): pretrained weights to load; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`AlexNet`.
    """
    weights = AlexNet_Weights.verify(weights)
    return _build(AlexNet, weights, progress, kwargs)
