"""MaxViT (Tu et al., "MaxViT: Multi-Axis Vision Transformer", 2022): each layer is an MBConv
followed by attention within local windows and attention across a sparse global grid."""

import math
from collections import OrderedDict
from functools import partial
from typing import Optional

import numpy as np

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, register_model
from ._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface

__all__ = ["MaxVit", "MaxVit_T_Weights", "maxvit_t"]


def _get_conv_output_shape(input_size, kernel_size, stride, padding):
    return tuple((s - kernel_size + 2 * padding) // stride + 1 for s in input_size[:2])


def _make_block_input_shapes(input_size, n_blocks):
    """Spatial size entering each block: the stem and every block halve it (3x3, stride 2)."""
    shapes = []
    size = _get_conv_output_shape(input_size, 3, 2, 1)
    for _ in range(n_blocks):
        size = _get_conv_output_shape(size, 3, 2, 1)
        shapes.append(size)
    return shapes


def _get_relative_position_index(height, width):
    """Row-major index of every pair's (dy, dx) offset into a (2h-1) x (2w-1) bias table."""
    ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    ys, xs = ys.ravel(), xs.ravel()
    dy = ys[:, None] - ys[None, :] + height - 1
    dx = xs[:, None] - xs[None, :] + width - 1
    return numtorch.as_tensor(dy * (2 * width - 1) + dx)


class MBConv(nn.Module):
    """Pre-norm inverted bottleneck (1x1 expand, depthwise 3x3, squeeze-excitation, 1x1),
    added to a shortcut that is average-pooled and projected when the shape changes."""

    def __init__(self, in_channels, out_channels, expansion_ratio, squeeze_ratio, stride,
                 activation_layer, norm_layer, p_stochastic_dropout=0.0):
        super().__init__()
        if stride != 1 or in_channels != out_channels:
            proj = [nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, bias=True)]
            if stride == 2:
                proj.insert(0, nn.AvgPool2d(kernel_size=3, stride=stride, padding=1))
            self.proj = nn.Sequential(*proj)
        else:
            self.proj = nn.Identity()
        mid = int(out_channels * expansion_ratio)
        squeezed = int(out_channels * squeeze_ratio)
        self.stochastic_depth = (StochasticDepth(p_stochastic_dropout, mode="row")
                                 if p_stochastic_dropout else nn.Identity())
        layers = OrderedDict()
        layers["pre_norm"] = norm_layer(in_channels)
        layers["conv_a"] = Conv2dNormActivation(
            in_channels, mid, kernel_size=1, stride=1, padding=0,
            activation_layer=activation_layer, norm_layer=norm_layer, inplace=None)
        layers["conv_b"] = Conv2dNormActivation(
            mid, mid, kernel_size=3, stride=stride, padding=1, activation_layer=activation_layer,
            norm_layer=norm_layer, groups=mid, inplace=None)
        layers["squeeze_excitation"] = SqueezeExcitation(mid, squeezed, activation=nn.SiLU)
        layers["conv_c"] = nn.Conv2d(in_channels=mid, out_channels=out_channels, kernel_size=1,
                                     bias=True)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.proj(x) + self.stochastic_depth(self.layers(x))


class RelativePositionalMultiHeadAttention(nn.Module):
    """Self-attention over the ``P`` positions of each of ``G`` groups of a ``(B, G, P, D)``
    tensor, with a learned relative-position bias per head."""

    def __init__(self, feat_dim, head_dim, max_seq_len):
        super().__init__()
        if feat_dim % head_dim != 0:
            raise ValueError(f"feat_dim: {feat_dim} must be divisible by head_dim: {head_dim}")
        self.n_heads = feat_dim // head_dim
        self.head_dim = head_dim
        self.size = int(math.sqrt(max_seq_len))
        self.max_seq_len = max_seq_len
        self.to_qkv = nn.Linear(feat_dim, self.n_heads * self.head_dim * 3)
        # the published model scales by the full width, not the head width
        self.scale_factor = feat_dim ** -0.5
        self.merge = nn.Linear(self.head_dim * self.n_heads, feat_dim)
        self.relative_position_bias_table = nn.Parameter(
            numtorch.empty(((2 * self.size - 1) * (2 * self.size - 1), self.n_heads),
                           dtype=numtorch.float32))
        self.register_buffer("relative_position_index",
                             _get_relative_position_index(self.size, self.size))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def get_relative_positional_bias(self):
        index = self.relative_position_index.view(-1)
        bias = self.relative_position_bias_table[index].view(self.max_seq_len,
                                                             self.max_seq_len, -1)
        return bias.permute(2, 0, 1).contiguous().unsqueeze(0)

    def forward(self, x):
        b, g, p, d = x.shape
        h, dh = self.n_heads, self.head_dim
        q, k, v = numtorch.chunk(self.to_qkv(x), 3, dim=-1)  # unpacked: fx-traceable
        q = q.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4)
        k = k.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4)
        v = v.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4)
        # einsum, as torchvision writes it: fx graphs show the same nodes
        scores = numtorch.einsum("bghid,bghjd->bghij", q, k * self.scale_factor)
        weights = F.softmax(scores + self.get_relative_positional_bias(), dim=-1)
        out = numtorch.einsum("bghij,bghjd->bghid", weights, v)
        out = out.permute(0, 1, 3, 2, 4).reshape(b, g, p, d)
        return self.merge(out)


class SwapAxes(nn.Module):
    """``x.swapaxes(a, b)``."""

    def __init__(self, a, b):
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x):
        return numtorch.swapaxes(x, self.a, self.b)


class WindowPartition(nn.Module):
    """``(B, C, H, W)`` -> ``(B, H/p * W/p, p*p, C)``: non-overlapping p x p windows."""

    def forward(self, x, p):
        b, c, h, w = x.shape
        x = x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (h // p) * (w // p), p * p, c)


class WindowDepartition(nn.Module):
    """The inverse of :class:`WindowPartition` for ``h_partitions x w_partitions`` windows."""

    def forward(self, x, p, h_partitions, w_partitions):
        b, _, _, c = x.shape
        x = x.reshape(b, h_partitions, w_partitions, p, p, c).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, c, h_partitions * p, w_partitions * p)


class PartitionAttentionLayer(nn.Module):
    """Attention + MLP (pre-norm, residual, stochastic depth) over partitions of the map:
    ``"window"`` attends within each ``partition_size`` square; ``"grid"`` attends among
    positions ``grid_size / partition_size`` apart (a dilated, global pattern)."""

    def __init__(self, in_channels, head_dim, partition_size, partition_type, grid_size,
                 mlp_ratio, activation_layer, norm_layer, attention_dropout, mlp_dropout,
                 p_stochastic_dropout):
        super().__init__()
        self.n_heads = in_channels // head_dim
        self.head_dim = head_dim
        self.n_partitions = grid_size[0] // partition_size
        self.partition_type = partition_type
        self.grid_size = grid_size
        if partition_type not in ["grid", "window"]:
            raise ValueError("partition_type must be either 'grid' or 'window'")
        if partition_type == "window":
            self.p, self.g = partition_size, self.n_partitions
        else:
            self.p, self.g = self.n_partitions, partition_size
        self.partition_op = WindowPartition()
        self.departition_op = WindowDepartition()
        grid = partition_type == "grid"
        self.partition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.departition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.attn_layer = nn.Sequential(
            norm_layer(in_channels),
            RelativePositionalMultiHeadAttention(in_channels, head_dim, partition_size ** 2),
            nn.Dropout(attention_dropout))
        self.mlp_layer = nn.Sequential(
            nn.LayerNorm(in_channels), nn.Linear(in_channels, in_channels * mlp_ratio),
            activation_layer(), nn.Linear(in_channels * mlp_ratio, in_channels),
            nn.Dropout(mlp_dropout))
        self.stochastic_dropout = StochasticDepth(p_stochastic_dropout, mode="row")

    def forward(self, x):
        if self.grid_size[0] % self.p != 0 or self.grid_size[1] % self.p != 0:
            raise AssertionError(f"Grid size must be divisible by partition size. Got grid size "
                                 f"of {self.grid_size} and partition size of {self.p}")
        gh, gw = self.grid_size[0] // self.p, self.grid_size[1] // self.p
        x = self.partition_swap(self.partition_op(x, self.p))
        x = x + self.stochastic_dropout(self.attn_layer(x))
        x = x + self.stochastic_dropout(self.mlp_layer(x))
        return self.departition_op(self.departition_swap(x), self.p, gh, gw)


class MaxVitLayer(nn.Module):
    """MBConv, then window attention, then grid attention."""

    def __init__(self, in_channels, out_channels, squeeze_ratio, expansion_ratio, stride,
                 norm_layer, activation_layer, head_dim, mlp_ratio, mlp_dropout,
                 attention_dropout, p_stochastic_dropout, partition_size, grid_size):
        super().__init__()
        attention = partial(PartitionAttentionLayer, in_channels=out_channels,
                            head_dim=head_dim, partition_size=partition_size,
                            grid_size=grid_size, mlp_ratio=mlp_ratio,
                            activation_layer=activation_layer, norm_layer=nn.LayerNorm,
                            attention_dropout=attention_dropout, mlp_dropout=mlp_dropout,
                            p_stochastic_dropout=p_stochastic_dropout)
        layers = OrderedDict()
        layers["MBconv"] = MBConv(in_channels=in_channels, out_channels=out_channels,
                                  expansion_ratio=expansion_ratio, squeeze_ratio=squeeze_ratio,
                                  stride=stride, activation_layer=activation_layer,
                                  norm_layer=norm_layer,
                                  p_stochastic_dropout=p_stochastic_dropout)
        layers["window_attention"] = attention(partition_type="window")
        layers["grid_attention"] = attention(partition_type="grid")
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.layers(x)


class MaxVitBlock(nn.Module):
    """``n_layers`` MaxViT layers; the first halves the resolution."""

    def __init__(self, in_channels, out_channels, squeeze_ratio, expansion_ratio, norm_layer,
                 activation_layer, head_dim, mlp_ratio, mlp_dropout, attention_dropout,
                 partition_size, input_grid_size, n_layers, p_stochastic):
        super().__init__()
        if not len(p_stochastic) == n_layers:
            raise ValueError(f"p_stochastic must have length n_layers={n_layers}, got "
                             f"p_stochastic={p_stochastic}.")
        self.layers = nn.ModuleList()
        self.grid_size = _get_conv_output_shape(input_grid_size, kernel_size=3, stride=2,
                                                padding=1)
        for idx, p in enumerate(p_stochastic):
            self.layers.append(MaxVitLayer(
                in_channels=in_channels if idx == 0 else out_channels,
                out_channels=out_channels, squeeze_ratio=squeeze_ratio,
                expansion_ratio=expansion_ratio, stride=2 if idx == 0 else 1,
                norm_layer=norm_layer, activation_layer=activation_layer, head_dim=head_dim,
                mlp_ratio=mlp_ratio, mlp_dropout=mlp_dropout,
                attention_dropout=attention_dropout, partition_size=partition_size,
                grid_size=self.grid_size, p_stochastic_dropout=p))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MaxVit(nn.Module):
    """MaxViT for a fixed input size.

    Args:
        input_size (tuple of 2 ints): the image size; every block's input must divide into
            ``partition_size`` windows.
        stem_channels (int): channels of the two-convolution stem.
        partition_size (int): window side (and grid side) of the attention.
        block_channels (list of int), block_layers (list of int): channels and layers per
            block.
        head_dim (int): channels per attention head.
        stochastic_depth_prob (float): last layer's drop probability (linear from 0).
        norm_layer (callable, optional): default batch norm (eps 1e-3, momentum 0.01).
        activation_layer (callable): Default: ``nn.GELU``.
        squeeze_ratio (float), expansion_ratio (float): MBConv widths. Default: 0.25, 4.
        mlp_ratio (int): MLP width / channels. Default: 4.
        mlp_dropout (float), attention_dropout (float): Default: 0.0.
        num_classes (int): outputs. Default: 1000.
    """

    def __init__(self, input_size, stem_channels, partition_size, block_channels, block_layers,
                 head_dim, stochastic_depth_prob, norm_layer=None, activation_layer=nn.GELU,
                 squeeze_ratio=0.25, expansion_ratio=4, mlp_ratio=4, mlp_dropout=0.0,
                 attention_dropout=0.0, num_classes=1000):
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)
        sizes = _make_block_input_shapes(input_size, len(block_channels))
        for idx, size in enumerate(sizes):
            if size[0] % partition_size != 0 or size[1] % partition_size != 0:
                raise ValueError(f"Input size {size} of block {idx} is not divisible by "
                                 f"partition size {partition_size}. Consider changing the "
                                 f"partition size or the input size.\nCurrent configuration "
                                 f"yields the following block input sizes: {sizes}.")
        self.stem = nn.Sequential(
            Conv2dNormActivation(3, stem_channels, 3, stride=2, norm_layer=norm_layer,
                                 activation_layer=activation_layer, bias=False, inplace=None),
            Conv2dNormActivation(stem_channels, stem_channels, 3, stride=1, norm_layer=None,
                                 activation_layer=None, bias=True))
        grid = _get_conv_output_shape(input_size, kernel_size=3, stride=2, padding=1)
        self.partition_size = partition_size
        self.blocks = nn.ModuleList()
        probs = np.linspace(0, stochastic_depth_prob, sum(block_layers)).tolist()
        start = 0
        for cin, cout, n in zip([stem_channels] + block_channels[:-1], block_channels,
                                block_layers):
            self.blocks.append(MaxVitBlock(
                in_channels=cin, out_channels=cout, squeeze_ratio=squeeze_ratio,
                expansion_ratio=expansion_ratio, norm_layer=norm_layer,
                activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout,
                partition_size=partition_size, input_grid_size=grid, n_layers=n,
                p_stochastic=probs[start:start + n]))
            grid = self.blocks[-1].grid_size
            start += n
        width = block_channels[-1]
        self.classifier = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(width), nn.Linear(width, width),
            nn.Tanh(), nn.Linear(width, num_classes, bias=False))
        self._init_weights()

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)

    def _init_weights(self):
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)


def _maxvit(stem_channels, block_channels, block_layers, stochastic_depth_prob, partition_size,
            head_dim, weights=None, progress=False, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        side = weights.meta["min_size"]
        if side[0] != side[1]:
            raise AssertionError("weights for a square input expected")
        _ovewrite_named_param(kwargs, "input_size", side)
    input_size = kwargs.pop("input_size", (224, 224))
    model = MaxVit(stem_channels=stem_channels, block_channels=block_channels,
                   block_layers=block_layers, stochastic_depth_prob=stochastic_depth_prob,
                   head_dim=head_dim, partition_size=partition_size, input_size=input_size,
                   **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


class MaxVit_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet(
        "maxvit_t-bc5ab103.pth", 30919624, 83.7, 96.722, 5.558, 118.769,
        "https://github.com/pytorch/vision/tree/main/references/classification#maxvit",
        min_size=(224, 224), resize_size=224, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", MaxVit_T_Weights.IMAGENET1K_V1))
def maxvit_t(*, weights: Optional[MaxVit_T_Weights] = None, progress: bool = True, **kwargs):
    """MaxViT-T (224x224 inputs by default; ``input_size`` must divide into 7x7 windows at
    every block).

    Args:
        weights (MaxVit_T_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`MaxVit`.
    """
    return _maxvit(stem_channels=64, block_channels=[64, 128, 256, 512],
                   block_layers=[2, 2, 5, 2], head_dim=32, stochastic_depth_prob=0.2,
                   partition_size=7, weights=MaxVit_T_Weights.verify(weights),
                   progress=progress, **kwargs)
