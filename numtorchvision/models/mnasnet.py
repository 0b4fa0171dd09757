"""MNASNet (Tan et al., "MnasNet: Platform-Aware Neural Architecture Search for Mobile",
2018) at depth multipliers 0.5, 0.75, 1.0 and 1.3."""

import warnings
from typing import Optional

from numtorch import nn

from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["MNASNet", "MNASNet0_5_Weights", "MNASNet0_75_Weights", "MNASNet1_0_Weights",
           "MNASNet1_3_Weights", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]

# the TensorFlow reference's batch-norm decay of 0.9997, as a PyTorch momentum
_BN_MOMENTUM = 1 - 0.9997


class _InvertedResidual(nn.Module):
    """1x1 expansion, depthwise k x k, 1x1 projection; residual when the shape is kept."""

    def __init__(self, in_ch, out_ch, kernel_size, stride, expansion_factor, bn_momentum=0.1):
        super().__init__()
        if stride not in [1, 2]:
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        if kernel_size not in [3, 5]:
            raise ValueError(f"kernel_size should be 3 or 5 instead of {kernel_size}")
        mid = in_ch * expansion_factor
        self.apply_residual = in_ch == out_ch and stride == 1
        self.layers = nn.Sequential(
            nn.Conv2d(in_ch, mid, 1, bias=False), nn.BatchNorm2d(mid, momentum=bn_momentum),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid, mid, kernel_size, padding=kernel_size // 2, stride=stride,
                      groups=mid, bias=False),
            nn.BatchNorm2d(mid, momentum=bn_momentum), nn.ReLU(inplace=True),
            nn.Conv2d(mid, out_ch, 1, bias=False), nn.BatchNorm2d(out_ch, momentum=bn_momentum))

    def forward(self, input):
        out = self.layers(input)
        return out + input if self.apply_residual else out


def _stack(in_ch, out_ch, kernel_size, stride, exp_factor, repeats, bn_momentum):
    """``repeats`` inverted residuals; only the first changes channels and resolution."""
    if repeats < 1:
        raise ValueError(f"repeats should be >= 1, instead got {repeats}")
    blocks = [_InvertedResidual(in_ch, out_ch, kernel_size, stride, exp_factor,
                                bn_momentum=bn_momentum)]
    blocks += [_InvertedResidual(out_ch, out_ch, kernel_size, 1, exp_factor,
                                 bn_momentum=bn_momentum) for _ in range(1, repeats)]
    return nn.Sequential(*blocks)


def _round_to_multiple_of(val, divisor, round_up_bias=0.9):
    """Round to a multiple of ``divisor``, going up when rounding down would lose more than
    ``1 - round_up_bias`` of the value."""
    if not 0.0 < round_up_bias < 1.0:
        raise ValueError(f"round_up_bias should be greater than 0.0 and smaller than 1.0 "
                         f"instead of {round_up_bias}")
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


def _get_depths(alpha):
    """Channel counts of the stem and the stacks at depth multiplier ``alpha``."""
    return [_round_to_multiple_of(d * alpha, 8) for d in (32, 16, 24, 40, 80, 96, 192, 320)]


def _stem_and_stacks(depths, stem_width, first_out):
    m = _BN_MOMENTUM
    return [
        nn.Conv2d(3, stem_width, 3, padding=1, stride=2, bias=False),
        nn.BatchNorm2d(stem_width, momentum=m), nn.ReLU(inplace=True),
        nn.Conv2d(stem_width, stem_width, 3, padding=1, stride=1, groups=stem_width,
                  bias=False),
        nn.BatchNorm2d(stem_width, momentum=m), nn.ReLU(inplace=True),
        nn.Conv2d(stem_width, first_out, 1, padding=0, stride=1, bias=False),
        nn.BatchNorm2d(first_out, momentum=m),
        _stack(first_out, depths[2], 3, 2, 3, 3, m),
    ]


class MNASNet(nn.Module):
    """MNASNet.

    Args:
        alpha (float): depth multiplier (> 0).
        num_classes (int): outputs. Default: 1000.
        dropout (float): before the classifier. Default: 0.2.
    """

    # version 2 scales the stem with alpha; version-1 checkpoints (the first 0.5 and 1.0
    # releases) kept it at 32/16 channels and load through _load_from_state_dict
    _version = 2

    def __init__(self, alpha, num_classes=1000, dropout=0.2):
        super().__init__()
        if alpha <= 0.0:
            raise ValueError(f"alpha should be greater than 0.0 instead of {alpha}")
        self.alpha = alpha
        self.num_classes = num_classes
        d = _get_depths(alpha)
        m = _BN_MOMENTUM
        layers = _stem_and_stacks(d, d[0], d[1]) + [
            _stack(d[2], d[3], 5, 2, 3, 3, m), _stack(d[3], d[4], 5, 2, 6, 3, m),
            _stack(d[4], d[5], 3, 1, 6, 2, m), _stack(d[5], d[6], 5, 2, 6, 4, m),
            _stack(d[6], d[7], 3, 1, 6, 1, m),
            nn.Conv2d(d[7], 1280, 1, padding=0, stride=1, bias=False),
            nn.BatchNorm2d(1280, momentum=m), nn.ReLU(inplace=True),
        ]
        self.layers = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(1280, num_classes))
        for mod in self.modules():
            if isinstance(mod, nn.Conv2d):
                nn.init.kaiming_normal_(mod.weight, mode="fan_out", nonlinearity="relu")
                if mod.bias is not None:
                    nn.init.zeros_(mod.bias)
            elif isinstance(mod, nn.BatchNorm2d):
                nn.init.ones_(mod.weight)
                nn.init.zeros_(mod.bias)
            elif isinstance(mod, nn.Linear):
                nn.init.kaiming_uniform_(mod.weight, mode="fan_out", nonlinearity="sigmoid")
                nn.init.zeros_(mod.bias)

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version not in [1, 2]:
            raise ValueError(f"version should be set to 1 or 2 instead of {version}")
        if version == 1 and not self.alpha == 1.0:
            for idx, layer in enumerate(_stem_and_stacks(_get_depths(self.alpha), 32, 16)):
                self.layers[idx] = layer
            self._version = 1
            warnings.warn("A new version of MNASNet model has been implemented. Your checkpoint "
                          "was saved using the previous version. This checkpoint will load and "
                          "work as before, but you may want to upgrade by training a newer "
                          "model or transfer learning from an updated ImageNet checkpoint.",
                          UserWarning)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def _mnasnet(alpha, weights, progress, **kwargs):
    return _build(lambda **kw: MNASNet(alpha, **kw), weights, progress, kwargs)


_R_PORTED = "https://github.com/1e100/mnasnet_trainer"
_R_NEW = "https://github.com/pytorch/vision/pull/6019"


class MNASNet0_5_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mnasnet0.5_top1_67.823-3ffadce67e.pth", 2218512, 67.734, 87.49,
                              0.104, 8.591, _R_PORTED)
    DEFAULT = IMAGENET1K_V1


class MNASNet0_75_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mnasnet0_75-7090bc5f.pth", 3170208, 71.18, 90.496, 0.215,
                              12.303, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V1


class MNASNet1_0_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mnasnet1.0_top1_73.512-f206786ef8.pth", 4383312, 73.456, 91.51,
                              0.314, 16.915, _R_PORTED)
    DEFAULT = IMAGENET1K_V1


class MNASNet1_3_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("mnasnet1_3-a4c69d6f.pth", 6282256, 76.506, 93.522, 0.526,
                              24.246, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", MNASNet0_5_Weights.IMAGENET1K_V1))
def mnasnet0_5(*, weights: Optional[MNASNet0_5_Weights] = None, progress: bool = True, **kwargs):
    """MNASNet with depth multiplier 0.5.

    Args:
        weights (MNASNet0_5_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`MNASNet`.
    """
    return _mnasnet(0.5, MNASNet0_5_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MNASNet0_75_Weights.IMAGENET1K_V1))
def mnasnet0_75(*, weights: Optional[MNASNet0_75_Weights] = None, progress: bool = True, **kwargs):
    """MNASNet with depth multiplier 0.75.

    Args:
        weights (MNASNet0_75_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`MNASNet`.
    """
    return _mnasnet(0.75, MNASNet0_75_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MNASNet1_0_Weights.IMAGENET1K_V1))
def mnasnet1_0(*, weights: Optional[MNASNet1_0_Weights] = None, progress: bool = True, **kwargs):
    """MNASNet with depth multiplier 1.0.

    Args:
        weights (MNASNet1_0_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`MNASNet`.
    """
    return _mnasnet(1.0, MNASNet1_0_Weights.verify(weights), progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MNASNet1_3_Weights.IMAGENET1K_V1))
def mnasnet1_3(*, weights: Optional[MNASNet1_3_Weights] = None, progress: bool = True, **kwargs):
    """MNASNet with depth multiplier 1.3.

    Args:
        weights (MNASNet1_3_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`MNASNet`.
    """
    return _mnasnet(1.3, MNASNet1_3_Weights.verify(weights), progress, **kwargs)
