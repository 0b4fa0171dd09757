"""GoogLeNet (Inception v1; Szegedy et al., "Going Deeper with Convolutions", 2014), with
batch norm after every convolution."""

import warnings
from collections import namedtuple
from typing import Optional

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ._api import WeightsEnum, register_model
from ._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface
from .inception import BasicConv2d

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "_GoogLeNetOutputs", "GoogLeNet_Weights",
           "googlenet"]

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])
GoogLeNetOutputs.__annotations__ = {"logits": numtorch.Tensor,
                                    "aux_logits2": Optional[numtorch.Tensor],
                                    "aux_logits1": Optional[numtorch.Tensor]}
_GoogLeNetOutputs = GoogLeNetOutputs


class Inception(nn.Module):
    """Four parallel branches concatenated along channels: 1x1; 1x1 -> 3x3; 1x1 -> 3x3 (the
    paper's 5x5, kept at 3x3 because the published weights have that shape); and 3x3 max
    pool -> 1x1."""

    def __init__(self, in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj,
                 conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1 = conv(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(conv(in_channels, ch3x3red, kernel_size=1),
                                     conv(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(conv(in_channels, ch5x5red, kernel_size=1),
                                     conv(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(nn.MaxPool2d(kernel_size=3, stride=1, padding=1,
                                                  ceil_mode=True),
                                     conv(in_channels, pool_proj, kernel_size=1))

    def _forward(self, x):
        return [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)]

    def forward(self, x):
        return numtorch.cat(self._forward(x), 1)


class InceptionAux(nn.Module):
    """Auxiliary classifier: 4x4 average pool, 1x1 conv to 128, two linear layers."""

    def __init__(self, in_channels, num_classes, conv_block=None, dropout=0.7):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.conv = conv(in_channels, 128, kernel_size=1)
        self.fc1 = nn.Linear(2048, 1024)
        self.fc2 = nn.Linear(1024, num_classes)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        x = numtorch.flatten(self.conv(F.adaptive_avg_pool2d(x, (4, 4))), 1)
        return self.fc2(self.dropout(F.relu(self.fc1(x), inplace=True)))


class GoogLeNet(nn.Module):
    """GoogLeNet. In training mode with ``aux_logits`` the forward returns
    ``GoogLeNetOutputs(logits, aux_logits2, aux_logits1)``; otherwise the logits.

    Args:
        num_classes (int): outputs. Default: 1000.
        aux_logits (bool): build the two auxiliary classifiers. Default: True.
        transform_input (bool): re-normalise ImageNet-normalised inputs to [-1, 1].
            Default: False.
        init_weights (bool, optional): truncated-normal initialisation; None means True with
            a FutureWarning.
        blocks (list of 3 classes, optional): replacements for BasicConv2d, Inception and
            InceptionAux.
        dropout (float): before ``fc``. Default: 0.2.
        dropout_aux (float): in the auxiliary classifiers. Default: 0.7.
    """

    __constants__ = ["aux_logits", "transform_input"]

    def __init__(self, num_classes=1000, aux_logits=True, transform_input=False,
                 init_weights=None, blocks=None, dropout=0.2, dropout_aux=0.7):
        super().__init__()
        if blocks is None:
            blocks = [BasicConv2d, Inception, InceptionAux]
        if init_weights is None:
            warnings.warn("The default weight initialization of GoogleNet will be changed in "
                          "future releases of torchvision. If you wish to keep the old behavior "
                          "(which leads to long initialization times due to scipy/scipy#11299), "
                          "please set init_weights=True.", FutureWarning)
            init_weights = True
        if len(blocks) != 3:
            raise ValueError(f"blocks length should be 3 instead of {len(blocks)}")
        conv, block, aux = blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.conv1 = conv(3, 64, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = conv(64, 64, kernel_size=1)
        self.conv3 = conv(64, 192, kernel_size=3, padding=1)
        self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception3a = block(192, 64, 96, 128, 16, 32, 32)
        self.inception3b = block(256, 128, 128, 192, 32, 96, 64)
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception4a = block(480, 192, 96, 208, 16, 48, 64)
        self.inception4b = block(512, 160, 112, 224, 24, 64, 64)
        self.inception4c = block(512, 128, 128, 256, 24, 64, 64)
        self.inception4d = block(512, 112, 144, 288, 32, 64, 64)
        self.inception4e = block(528, 256, 160, 320, 32, 128, 128)
        self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.inception5a = block(832, 256, 160, 320, 32, 128, 128)
        self.inception5b = block(832, 384, 192, 384, 48, 128, 128)
        if aux_logits:
            self.aux1 = aux(512, num_classes, dropout=dropout_aux)
            self.aux2 = aux(528, num_classes, dropout=dropout_aux)
        else:
            self.aux1 = None
            self.aux2 = None
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(1024, num_classes)
        if init_weights:
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    nn.init.trunc_normal_(m.weight, mean=0.0, std=0.01, a=-2, b=2)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)

    def _transform_input(self, x):
        if not self.transform_input:
            return x
        chans = [numtorch.unsqueeze(x[:, i], 1) * (s / 0.5) + (m - 0.5) / 0.5
                 for i, (m, s) in enumerate(((0.485, 0.229), (0.456, 0.224), (0.406, 0.225)))]
        return numtorch.cat(chans, 1)

    def _forward(self, x):
        for layer in (self.conv1, self.maxpool1, self.conv2, self.conv3, self.maxpool2,
                      self.inception3a, self.inception3b, self.maxpool3, self.inception4a):
            x = layer(x)
        aux1 = self.aux1(x) if self.aux1 is not None and self.training else None
        x = self.inception4d(self.inception4c(self.inception4b(x)))
        aux2 = self.aux2(x) if self.aux2 is not None and self.training else None
        for layer in (self.inception4e, self.maxpool4, self.inception5a, self.inception5b,
                      self.avgpool):
            x = layer(x)
        x = self.fc(self.dropout(numtorch.flatten(x, 1)))
        return x, aux2, aux1

    def eager_outputs(self, x, aux2, aux1):
        if self.training and self.aux_logits:
            return _GoogLeNetOutputs(x, aux2, aux1)
        return x

    def forward(self, x):
        return self.eager_outputs(*self._forward(self._transform_input(x)))


class GoogLeNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet(
        "googlenet-1378be20.pth", 6624904, 69.778, 89.53, 1.498, 49.731,
        "https://github.com/pytorch/vision/tree/main/references/classification#googlenet",
        min_size=(15, 15))
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", GoogLeNet_Weights.IMAGENET1K_V1))
def googlenet(*, weights: Optional[GoogLeNet_Weights] = None, progress: bool = True, **kwargs):
    """GoogLeNet. With weights, ``transform_input`` defaults to True, and the auxiliary
    classifiers (not trained in the checkpoint) are dropped unless ``aux_logits=True``.

    Args:
        weights (GoogLeNet_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`GoogLeNet`.
    """
    weights = GoogLeNet_Weights.verify(weights)
    keep_aux = kwargs.get("aux_logits", False)
    if weights is not None:
        if "transform_input" not in kwargs:
            kwargs["transform_input"] = True
        _ovewrite_named_param(kwargs, "aux_logits", True)
        _ovewrite_named_param(kwargs, "init_weights", False)
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = GoogLeNet(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if not keep_aux:
            model.aux_logits = False
            model.aux1 = None
            model.aux2 = None
        else:
            warnings.warn("auxiliary heads in the pretrained googlenet model are NOT pretrained, "
                          "so make sure to train them")
    return model
