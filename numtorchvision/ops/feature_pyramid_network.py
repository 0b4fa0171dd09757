"""Feature Pyramid Network (Lin et al., 2017): a top-down pathway with lateral connections
that gives every level of a backbone the same number of channels."""

from collections import OrderedDict

from numtorch import nn
from numtorch.nn import functional as F

from .misc import Conv2dNormActivation

__all__ = ["FeaturePyramidNetwork", "ExtraFPNBlock", "LastLevelMaxPool", "LastLevelP6P7"]


class ExtraFPNBlock(nn.Module):
    """Base class of blocks that add levels after the FPN.

    ``forward(results, x, names)`` receives the FPN outputs, the original inputs and the
    level names, and returns the extended outputs and names.
    """

    def forward(self, results, x, names):
        pass


class FeaturePyramidNetwork(nn.Module):
    """FPN over an ordered dict of feature maps, highest resolution first.

    Each input goes through a 1x1 "inner" convolution; from the coarsest level down, the
    running map is upsampled (nearest) and added to the next lateral map; a 3x3 "layer"
    convolution then produces each output.

    Args:
        in_channels_list (list of int): channels of each input level.
        out_channels (int): channels of every output level.
        extra_blocks (ExtraFPNBlock, optional): adds levels (e.g. :class:`LastLevelMaxPool`).
        norm_layer (callable, optional): a norm after each convolution. Default: none.
    """

    _version = 2

    def __init__(self, in_channels_list, out_channels, extra_blocks=None, norm_layer=None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(Conv2dNormActivation(
                in_channels, out_channels, kernel_size=1, padding=0, norm_layer=norm_layer,
                activation_layer=None))
            self.layer_blocks.append(Conv2dNormActivation(
                out_channels, out_channels, kernel_size=3, norm_layer=norm_layer,
                activation_layer=None))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        if extra_blocks is not None and not isinstance(extra_blocks, ExtraFPNBlock):
            raise TypeError(f"extra_blocks should be of type ExtraFPNBlock not "
                            f"{type(extra_blocks)}")
        self.extra_blocks = extra_blocks

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # version 1 had plain convolutions: blocks.<i>.weight instead of blocks.<i>.0.weight
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for block in ("inner_blocks", "layer_blocks"):
                for i in range(len(self.inner_blocks)):
                    for kind in ("weight", "bias"):
                        old = f"{prefix}{block}.{i}.{kind}"
                        if old in state_dict:
                            state_dict[f"{prefix}{block}.{i}.0.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def get_result_from_inner_blocks(self, x, idx):
        """``inner_blocks[idx](x)`` (negative ``idx`` counts from the end)."""
        return self.inner_blocks[idx % len(self.inner_blocks)](x)

    def get_result_from_layer_blocks(self, x, idx):
        """``layer_blocks[idx](x)`` (negative ``idx`` counts from the end)."""
        return self.layer_blocks[idx % len(self.layer_blocks)](x)

    def forward(self, x):
        names = list(x.keys())
        maps = list(x.values())
        last_inner = self.get_result_from_inner_blocks(maps[-1], -1)
        results = [self.get_result_from_layer_blocks(last_inner, -1)]
        for idx in range(len(maps) - 2, -1, -1):
            lateral = self.get_result_from_inner_blocks(maps[idx], idx)
            top_down = F.interpolate(last_inner, size=lateral.shape[-2:], mode="nearest")
            last_inner = lateral + top_down
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, maps, names)
        return OrderedDict(zip(names, results))


class LastLevelMaxPool(ExtraFPNBlock):
    """Adds a ``"pool"`` level: the last output subsampled by 2 (max pool, kernel 1)."""

    def forward(self, x, y, names):
        names.append("pool")
        x.append(F.max_pool2d(x[-1], kernel_size=1, stride=2, padding=0))
        return x, names


class LastLevelP6P7(ExtraFPNBlock):
    """Adds RetinaNet's P6 and P7: stride-2 3x3 convolutions of P5 (or of C5 when the
    channel counts differ), the second after a ReLU."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        for module in (self.p6, self.p7):
            nn.init.kaiming_uniform_(module.weight, a=1)
            nn.init.zeros_(module.bias)
        self.use_P5 = in_channels == out_channels

    def forward(self, p, c, names):
        p6 = self.p6(p[-1] if self.use_P5 else c[-1])
        p7 = self.p7(F.relu(p6))
        p.extend([p6, p7])
        names.extend(["p6", "p7"])
        return p, names
