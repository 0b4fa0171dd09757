"""Inception v3 (Szegedy et al., "Rethinking the Inception Architecture", 2015)."""

import warnings
from collections import namedtuple
from typing import Optional

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ._api import WeightsEnum, register_model
from ._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface

__all__ = ["Inception3", "InceptionOutputs", "_InceptionOutputs", "Inception_V3_Weights",
           "inception_v3"]

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])
InceptionOutputs.__annotations__ = {"logits": numtorch.Tensor,
                                    "aux_logits": Optional[numtorch.Tensor]}
# the name used before torchvision 0.6, still imported by old code
_InceptionOutputs = InceptionOutputs


class BasicConv2d(nn.Module):
    """Bias-free convolution, batch norm (eps 0.001) and ReLU; ``kwargs`` go to the conv."""

    def __init__(self, in_channels, out_channels, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


def _chain(x, *layers):
    for layer in layers:
        x = layer(x)
    return x


class InceptionA(nn.Module):
    """35x35 block: 1x1, 1x1->5x5, 1x1->3x3->3x3 and avg-pool->1x1 branches."""

    def __init__(self, in_channels, pool_features, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1x1 = conv(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = conv(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = conv(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, padding=1)
        self.branch_pool = conv(in_channels, pool_features, kernel_size=1)

    def _forward(self, x):
        return [self.branch1x1(x),
                _chain(x, self.branch5x5_1, self.branch5x5_2),
                _chain(x, self.branch3x3dbl_1, self.branch3x3dbl_2, self.branch3x3dbl_3),
                self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))]

    def forward(self, x):
        return numtorch.cat(self._forward(x), 1)


class InceptionB(nn.Module):
    """35x35 -> 17x17 reduction: strided 3x3, 1x1->3x3->strided 3x3, and max pooling."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch3x3 = conv(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = conv(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv(96, 96, kernel_size=3, stride=2)

    def _forward(self, x):
        return [self.branch3x3(x),
                _chain(x, self.branch3x3dbl_1, self.branch3x3dbl_2, self.branch3x3dbl_3),
                F.max_pool2d(x, kernel_size=3, stride=2)]

    def forward(self, x):
        return numtorch.cat(self._forward(x), 1)


class InceptionC(nn.Module):
    """17x17 block with 7x7 convolutions factored into 1x7 and 7x1."""

    def __init__(self, in_channels, channels_7x7, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        c7 = channels_7x7
        self.branch1x1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = conv(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = conv(c7, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = conv(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = conv(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = conv(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = conv(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = conv(c7, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        return [self.branch1x1(x),
                _chain(x, self.branch7x7_1, self.branch7x7_2, self.branch7x7_3),
                _chain(x, self.branch7x7dbl_1, self.branch7x7dbl_2, self.branch7x7dbl_3,
                       self.branch7x7dbl_4, self.branch7x7dbl_5),
                self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))]

    def forward(self, x):
        return numtorch.cat(self._forward(x), 1)


class InceptionD(nn.Module):
    """17x17 -> 8x8 reduction."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch3x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = conv(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = conv(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = conv(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = conv(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = conv(192, 192, kernel_size=3, stride=2)

    def _forward(self, x):
        return [_chain(x, self.branch3x3_1, self.branch3x3_2),
                _chain(x, self.branch7x7x3_1, self.branch7x7x3_2, self.branch7x7x3_3,
                       self.branch7x7x3_4),
                F.max_pool2d(x, kernel_size=3, stride=2)]

    def forward(self, x):
        return numtorch.cat(self._forward(x), 1)


class InceptionE(nn.Module):
    """8x8 block whose 3x3 branches end in parallel 1x3 and 3x1 convolutions."""

    def __init__(self, in_channels, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.branch1x1 = conv(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = conv(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = conv(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = conv(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = conv(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = conv(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = conv(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = conv(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = conv(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        # branch by branch, as torchvision (an fx graph lists the nodes in this order)
        out = [self.branch1x1(x)]
        a = self.branch3x3_1(x)
        out.append(numtorch.cat([self.branch3x3_2a(a), self.branch3x3_2b(a)], 1))
        b = _chain(x, self.branch3x3dbl_1, self.branch3x3dbl_2)
        out.append(numtorch.cat([self.branch3x3dbl_3a(b), self.branch3x3dbl_3b(b)], 1))
        out.append(self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1)))
        return out

    def forward(self, x):
        return numtorch.cat(self._forward(x), 1)


class InceptionAux(nn.Module):
    """The auxiliary classifier on the 17x17 features (used in training only)."""

    def __init__(self, in_channels, num_classes, conv_block=None):
        super().__init__()
        conv = BasicConv2d if conv_block is None else conv_block
        self.conv0 = conv(in_channels, 128, kernel_size=1)
        self.conv1 = conv(128, 768, kernel_size=5)
        self.conv1.stddev = 0.01
        self.fc = nn.Linear(768, num_classes)
        self.fc.stddev = 0.001

    def forward(self, x):
        x = _chain(F.avg_pool2d(x, kernel_size=5, stride=3), self.conv0, self.conv1)
        return self.fc(numtorch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1))


class Inception3(nn.Module):
    """Inception v3 for 299x299 inputs (75x75 at least).

    In training mode with ``aux_logits`` the forward returns
    ``InceptionOutputs(logits, aux_logits)``; otherwise the logits alone.

    Args:
        num_classes (int): outputs. Default: 1000.
        aux_logits (bool): build the auxiliary classifier ``AuxLogits``. Default: True.
        transform_input (bool): take inputs normalised with the ImageNet mean and std and
            re-normalise them to the [-1, 1] scaling the Google weights expect.
            Default: False.
        inception_blocks (list of 7 classes, optional): replacements for BasicConv2d,
            InceptionA..E and InceptionAux.
        init_weights (bool, optional): truncated-normal initialisation; None means True
            with a FutureWarning, as in torchvision.
        dropout (float): dropout before ``fc``. Default: 0.5.
    """

    def __init__(self, num_classes=1000, aux_logits=True, transform_input=False,
                 inception_blocks=None, init_weights=None, dropout=0.5):
        super().__init__()
        if inception_blocks is None:
            inception_blocks = [BasicConv2d, InceptionA, InceptionB, InceptionC, InceptionD,
                                InceptionE, InceptionAux]
        if init_weights is None:
            warnings.warn("The default weight initialization of inception_v3 will be changed in "
                          "future releases of torchvision. If you wish to keep the old behavior "
                          "(which leads to long initialization times due to scipy/scipy#11299), "
                          "please set init_weights=True.", FutureWarning)
            init_weights = True
        if len(inception_blocks) != 7:
            raise ValueError(f"length of inception_blocks should be 7 instead of "
                             f"{len(inception_blocks)}")
        conv, block_a, block_b, block_c, block_d, block_e, aux = inception_blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.Conv2d_1a_3x3 = conv(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = conv(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = conv(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = conv(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = conv(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = block_a(192, pool_features=32)
        self.Mixed_5c = block_a(256, pool_features=64)
        self.Mixed_5d = block_a(288, pool_features=64)
        self.Mixed_6a = block_b(288)
        self.Mixed_6b = block_c(768, channels_7x7=128)
        self.Mixed_6c = block_c(768, channels_7x7=160)
        self.Mixed_6d = block_c(768, channels_7x7=160)
        self.Mixed_6e = block_c(768, channels_7x7=192)
        self.AuxLogits = aux(768, num_classes) if aux_logits else None
        self.Mixed_7a = block_d(768)
        self.Mixed_7b = block_e(1280)
        self.Mixed_7c = block_e(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(2048, num_classes)
        if init_weights:
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):
                    std = float(getattr(m, "stddev", 0.1))
                    nn.init.trunc_normal_(m.weight, mean=0.0, std=std, a=-2, b=2)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)

    def _transform_input(self, x):
        if not self.transform_input:
            return x
        # undo the ImageNet normalisation, then map [0, 1] to [-1, 1]
        chans = [numtorch.unsqueeze(x[:, i], 1) * (s / 0.5) + (m - 0.5) / 0.5
                 for i, (m, s) in enumerate(((0.485, 0.229), (0.456, 0.224), (0.406, 0.225)))]
        return numtorch.cat(chans, 1)

    def _forward(self, x):
        x = _chain(x, self.Conv2d_1a_3x3, self.Conv2d_2a_3x3, self.Conv2d_2b_3x3, self.maxpool1,
                   self.Conv2d_3b_1x1, self.Conv2d_4a_3x3, self.maxpool2, self.Mixed_5b,
                   self.Mixed_5c, self.Mixed_5d, self.Mixed_6a, self.Mixed_6b, self.Mixed_6c,
                   self.Mixed_6d, self.Mixed_6e)
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = _chain(x, self.Mixed_7a, self.Mixed_7b, self.Mixed_7c, self.avgpool, self.dropout)
        return self.fc(numtorch.flatten(x, 1)), aux

    def eager_outputs(self, x, aux):
        if self.training and self.aux_logits:
            return InceptionOutputs(x, aux)
        return x

    def forward(self, x):
        x, aux = self._forward(self._transform_input(x))
        return self.eager_outputs(x, aux)


class Inception_V3_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet(
        "inception_v3_google-0cc3c7bd.pth", 27161264, 77.294, 93.45, 5.713, 103.903,
        "https://github.com/pytorch/vision/tree/main/references/classification#inception-v3",
        min_size=(75, 75), crop_size=299, resize_size=342)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", Inception_V3_Weights.IMAGENET1K_V1))
def inception_v3(*, weights: Optional[Inception_V3_Weights] = None, progress: bool = True,
                 **kwargs):
    """Inception v3. With weights, ``transform_input`` defaults to True (the checkpoint
    expects [-1, 1] inputs) and ``aux_logits`` must stay True.

    Args:
        weights (Inception_V3_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`Inception3`.
    """
    weights = Inception_V3_Weights.verify(weights)
    keep_aux = kwargs.get("aux_logits", True)
    if weights is not None:
        if "transform_input" not in kwargs:
            kwargs["transform_input"] = True
        _ovewrite_named_param(kwargs, "aux_logits", True)
        _ovewrite_named_param(kwargs, "init_weights", False)
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = Inception3(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if not keep_aux:
            model.aux_logits = False
            model.AuxLogits = None
    return model
