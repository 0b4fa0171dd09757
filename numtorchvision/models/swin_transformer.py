"""Swin Transformer (Liu et al., 2021) and Swin Transformer V2 (Liu et al., 2022): attention
inside local windows that shift by half a window between consecutive blocks."""

import math
from functools import partial
from typing import Optional

import numpy as np

import numtorch
import numtorch.fx
from numtorch import nn
from numtorch.nn import functional as F

from ..ops.misc import MLP, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum, register_model
from ._utils import _build, _imagenet, handle_legacy_interface

__all__ = ["SwinTransformer", "Swin_T_Weights", "Swin_S_Weights", "Swin_B_Weights",
           "Swin_V2_T_Weights", "Swin_V2_S_Weights", "Swin_V2_B_Weights", "swin_t", "swin_s",
           "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]


def _patch_merging_pad(x):
    """``(..., H, W, C)`` -> ``(..., ceil(H/2), ceil(W/2), 4C)``: each 2x2 neighbourhood's
    channels side by side (odd sizes padded with zeros)."""
    h, w, _ = x.shape[-3:]
    x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
    return numtorch.cat([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :],
                         x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]], -1)


def _get_relative_position_bias(relative_position_bias_table, relative_position_index,
                                window_size):
    """Per-head bias between every pair of positions of a window: ``(1, heads, N, N)``."""
    n = window_size[0] * window_size[1]
    bias = relative_position_bias_table[relative_position_index].view(n, n, -1)
    return bias.permute(2, 0, 1).contiguous().unsqueeze(0)


# the helpers below read shapes as Python ints: fx records each call as one node, as
# torchvision has it
numtorch.fx.wrap("_patch_merging_pad")
numtorch.fx.wrap("_get_relative_position_bias")


class PatchMerging(nn.Module):
    """Halve the resolution and double the channels: merge 2x2 patches, LayerNorm, then a
    linear map from 4C to 2C."""

    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(4 * dim)

    def forward(self, x):
        return self.reduction(self.norm(_patch_merging_pad(x)))


class PatchMergingV2(nn.Module):
    """V2's patch merging: the linear map first, the norm (over 2C) after it."""

    def __init__(self, dim, norm_layer=nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(2 * dim)

    def forward(self, x):
        return self.norm(self.reduction(_patch_merging_pad(x)))


def _shift_mask(pad_h, pad_w, window_size, shift_size, num_windows, like):
    """-100 between positions of a window that came from different regions of the map before
    the cyclic shift (so they cannot attend to each other), 0 elsewhere:
    ``(num_windows, N, N)``."""
    def regions(size, window, shift):
        ids = np.zeros(size, dtype=np.int64)
        ids[size - window:size - shift] = 1
        ids[size - shift:] = 2
        return ids

    region = (regions(pad_h, window_size[0], shift_size[0])[:, None] * 3
              + regions(pad_w, window_size[1], shift_size[1])[None, :])
    region = region.reshape(pad_h // window_size[0], window_size[0], pad_w // window_size[1],
                            window_size[1]).transpose(0, 2, 1, 3).reshape(num_windows, -1)
    mask = np.where(region[:, None, :] != region[:, :, None], -100.0, 0.0)
    return numtorch.as_tensor(mask, dtype=like.dtype, device=like.device)


def shifted_window_attention(input, qkv_weight, proj_weight, relative_position_bias,
                             window_size, num_heads, shift_size, attention_dropout=0.0,
                             dropout=0.0, qkv_bias=None, proj_bias=None, logit_scale=None,
                             training=True):
    """Multi-head self-attention within (shifted) windows of a ``(B, H, W, C)`` map.

    The map is padded to whole windows and, when shifting, rolled by ``-shift_size``; each
    window attends within itself, with ``relative_position_bias`` added and positions from
    different regions masked apart; the result is rolled back and cropped.

    Args:
        input (Tensor[B, H, W, C]): the feature map.
        qkv_weight, proj_weight (Tensor): the input and output projections.
        relative_position_bias (Tensor): ``(1, heads, N, N)`` for ``N`` positions per window.
        window_size (list of 2 ints), shift_size (list of 2 ints): window geometry; a shift
            is dropped along an axis the window already covers.
        num_heads (int): attention heads.
        attention_dropout (float), dropout (float): dropout on the attention weights and on
            the output.
        qkv_bias, proj_bias (Tensor, optional): projection biases.
        logit_scale (Tensor, optional): V2's learned temperature of the cosine attention; its
            presence selects V2 (and the key bias is not used).
        training (bool): apply dropout.
    """
    b, h, w, c = input.shape
    pad_r = (window_size[1] - w % window_size[1]) % window_size[1]
    pad_b = (window_size[0] - h % window_size[0]) % window_size[0]
    x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b))
    _, pad_h, pad_w, _ = x.shape
    shift_size = list(shift_size)
    if window_size[0] >= pad_h:
        shift_size[0] = 0
    if window_size[1] >= pad_w:
        shift_size[1] = 0
    shifted = sum(shift_size) > 0
    if shifted:
        x = numtorch.roll(x, shifts=(-shift_size[0], -shift_size[1]), dims=(1, 2))
    rows, cols = pad_h // window_size[0], pad_w // window_size[1]
    num_windows = rows * cols
    n = window_size[0] * window_size[1]
    x = x.view(b, rows, window_size[0], cols, window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * num_windows, n, c)
    if logit_scale is not None and qkv_bias is not None:
        third = qkv_bias.numel() // 3  # V2 has no key bias
        qkv_bias = numtorch.cat([qkv_bias[:third], numtorch.zeros_like(qkv_bias[third:2 * third]),
                                 qkv_bias[2 * third:]])
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), n, 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if logit_scale is not None:  # cosine attention with a learned, capped temperature
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * numtorch.clamp(logit_scale, max=math.log(100.0)).exp()
    else:
        attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1))
    attn = attn + relative_position_bias
    if shifted:
        mask = _shift_mask(pad_h, pad_w, window_size, shift_size, num_windows, x)
        attn = attn.view(b, num_windows, num_heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, num_heads, n, n)
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), n, c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, rows, cols, window_size[0], window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
    if shifted:
        x = numtorch.roll(x, shifts=(shift_size[0], shift_size[1]), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


numtorch.fx.wrap("shifted_window_attention")


class ShiftedWindowAttention(nn.Module):
    """Window attention with a learned table of relative position biases.

    Args:
        dim (int): channels.
        window_size (list of 2 ints), shift_size (list of 2 ints): window geometry.
        num_heads (int): heads.
        qkv_bias (bool), proj_bias (bool): projection biases. Default: True.
        attention_dropout (float), dropout (float): Default: 0.0.
    """

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("window_size and shift_size must be of length 2")
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self):
        wh, ww = self.window_size
        self.relative_position_bias_table = nn.Parameter(
            numtorch.zeros((2 * wh - 1) * (2 * ww - 1), self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self):
        # row-major index of (dy, dx) into the (2*wh-1) x (2*ww-1) table, for every pair
        wh, ww = self.window_size
        ys, xs = np.meshgrid(np.arange(wh), np.arange(ww), indexing="ij")
        ys, xs = ys.ravel(), xs.ravel()
        dy = ys[:, None] - ys[None, :] + wh - 1
        dx = xs[:, None] - xs[None, :] + ww - 1
        index = (dy * (2 * ww - 1) + dx).ravel()
        self.register_buffer("relative_position_index", numtorch.as_tensor(index))

    def get_relative_position_bias(self):
        return _get_relative_position_bias(self.relative_position_bias_table,
                                           self.relative_position_index, self.window_size)

    def forward(self, x):
        bias = self.get_relative_position_bias()  # first: fx lists nodes in call order
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, bias,
            self.window_size, self.num_heads, shift_size=self.shift_size,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, training=self.training)


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """V2: cosine attention with a learned temperature, and position biases produced by a
    small MLP from log-spaced relative coordinates (so windows can change size)."""

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__(dim, window_size, shift_size, num_heads, qkv_bias=qkv_bias,
                         proj_bias=proj_bias, attention_dropout=attention_dropout,
                         dropout=dropout)
        self.logit_scale = nn.Parameter(numtorch.log(10 * numtorch.ones((num_heads, 1, 1))))
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True),
                                     nn.Linear(512, num_heads, bias=False))
        if qkv_bias:
            third = self.qkv.bias.numel() // 3
            with numtorch.no_grad():
                self.qkv.bias[third:2 * third].zero_()

    def define_relative_position_bias_table(self):
        wh, ww = self.window_size
        dy = np.arange(-(wh - 1), wh, dtype=np.float32) / (wh - 1)
        dx = np.arange(-(ww - 1), ww, dtype=np.float32) / (ww - 1)
        table = np.stack(np.meshgrid(dy, dx, indexing="ij"), axis=-1)[None] * 8
        # log-spaced, in [-1, 1] for offsets up to the window size
        table = np.sign(table) * np.log2(np.abs(table) + 1.0) / 3.0
        self.register_buffer("relative_coords_table",
                             numtorch.as_tensor(table.astype(np.float32)))

    def get_relative_position_bias(self):
        bias = _get_relative_position_bias(
            self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads),
            self.relative_position_index, self.window_size)
        return 16 * numtorch.sigmoid(bias)

    def forward(self, x):
        bias = self.get_relative_position_bias()  # first: fx lists nodes in call order
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, bias,
            self.window_size, self.num_heads, shift_size=self.shift_size,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, logit_scale=self.logit_scale,
            training=self.training)


class SwinTransformerBlock(nn.Module):
    """Pre-norm block: ``x + attn(norm1(x))`` then ``x + mlp(norm2(x))``, both residual
    branches with stochastic depth."""

    def __init__(self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0,
                 attention_dropout=0.0, stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm,
                 attn_layer=ShiftedWindowAttention):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, window_size, shift_size, num_heads,
                               attention_dropout=attention_dropout, dropout=dropout)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(dim, [int(dim * mlp_ratio), dim], activation_layer=nn.GELU, inplace=None,
                       dropout=dropout)
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """V2's residual post-norm block: ``x + norm1(attn(x))`` then ``x + norm2(mlp(x))``."""

    def __init__(self, dim, num_heads, window_size, shift_size, mlp_ratio=4.0, dropout=0.0,
                 attention_dropout=0.0, stochastic_depth_prob=0.0, norm_layer=nn.LayerNorm,
                 attn_layer=ShiftedWindowAttentionV2):
        super().__init__(dim, num_heads, window_size, shift_size, mlp_ratio=mlp_ratio,
                         dropout=dropout, attention_dropout=attention_dropout,
                         stochastic_depth_prob=stochastic_depth_prob, norm_layer=norm_layer,
                         attn_layer=attn_layer)

    def forward(self, x):
        x = x + self.stochastic_depth(self.norm1(self.attn(x)))
        return x + self.stochastic_depth(self.norm2(self.mlp(x)))


class SwinTransformer(nn.Module):
    """Swin Transformer: a patch-embedding stem, stages of window-attention blocks separated
    by patch merging (channels-last throughout), a final norm, pooling and a linear head.

    Args:
        patch_size (list of 2 ints): stem patch size.
        embed_dim (int): channels after the stem (doubled by every merge).
        depths (list of int): blocks per stage.
        num_heads (list of int): heads per stage.
        window_size (list of 2 ints): attention window.
        mlp_ratio (float): MLP width / channels. Default: 4.0.
        dropout (float), attention_dropout (float): Default: 0.0.
        stochastic_depth_prob (float): drop probability of the last block, growing linearly
            from 0. Default: 0.1.
        num_classes (int): outputs. Default: 1000.
        norm_layer (callable, optional): default ``LayerNorm(eps=1e-5)``.
        block (callable, optional): default :class:`SwinTransformerBlock`.
        downsample_layer (callable): default :class:`PatchMerging`.
    """

    def __init__(self, patch_size, embed_dim, depths, num_heads, window_size, mlp_ratio=4.0,
                 dropout=0.0, attention_dropout=0.0, stochastic_depth_prob=0.1,
                 num_classes=1000, norm_layer=None, block=None, downsample_layer=PatchMerging):
        super().__init__()
        self.num_classes = num_classes
        block = SwinTransformerBlock if block is None else block
        norm_layer = partial(nn.LayerNorm, eps=1e-5) if norm_layer is None else norm_layer
        layers = [nn.Sequential(
            nn.Conv2d(3, embed_dim, kernel_size=(patch_size[0], patch_size[1]),
                      stride=(patch_size[0], patch_size[1])),
            Permute([0, 2, 3, 1]), norm_layer(embed_dim))]
        total = sum(depths)
        block_id = 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2 ** i_stage
            stage = []
            for i_layer in range(depth):
                stage.append(block(
                    dim, num_heads[i_stage], window_size=window_size,
                    shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                    mlp_ratio=mlp_ratio, dropout=dropout, attention_dropout=attention_dropout,
                    stochastic_depth_prob=stochastic_depth_prob * float(block_id) / (total - 1),
                    norm_layer=norm_layer))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.permute(self.norm(self.features(x)))
        return self.head(self.flatten(self.avgpool(x)))


def _swin_transformer(patch_size, embed_dim, depths, num_heads, window_size,
                      stochastic_depth_prob, weights, progress, **kwargs):
    return _build(lambda **kw: SwinTransformer(
        patch_size=patch_size, embed_dim=embed_dim, depths=depths, num_heads=num_heads,
        window_size=window_size, stochastic_depth_prob=stochastic_depth_prob, **kw),
        weights, progress, kwargs)


_R_V1 = "https://github.com/pytorch/vision/tree/main/references/classification#swintransformer"
_R_V2 = _R_V1 + "-v2"


class Swin_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_t-704ceda3.pth", 28288354, 81.474, 95.776, 4.491, 108.19,
                              _R_V1, min_size=(224, 224), resize_size=232,
                              interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class Swin_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_s-5e29d889.pth", 49606258, 83.196, 96.36, 8.741, 189.786,
                              _R_V1, min_size=(224, 224), resize_size=246,
                              interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class Swin_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_b-68c6b09e.pth", 87768224, 83.582, 96.64, 15.431, 335.364,
                              _R_V1, min_size=(224, 224), resize_size=238,
                              interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class Swin_V2_T_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_v2_t-b137f0e2.pth", 28351570, 82.072, 96.132, 5.94,
                              108.626, _R_V2, min_size=(256, 256), crop_size=256,
                              resize_size=260, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class Swin_V2_S_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_v2_s-637d8ceb.pth", 49737442, 83.712, 96.816, 11.546,
                              190.675, _R_V2, min_size=(256, 256), crop_size=256,
                              resize_size=260, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


class Swin_V2_B_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("swin_v2_b-781e5279.pth", 87930848, 84.112, 96.864, 20.325,
                              336.372, _R_V2, min_size=(256, 256), crop_size=256,
                              resize_size=272, interpolation="BICUBIC")
    DEFAULT = IMAGENET1K_V1


_V1 = {}
_V2 = {"block": SwinTransformerBlockV2, "downsample_layer": PatchMergingV2}
_SIZES = {  # embed dim, depths, heads, stochastic depth
    "t": (96, [2, 2, 6, 2], [3, 6, 12, 24], 0.2),
    "s": (96, [2, 2, 18, 2], [3, 6, 12, 24], 0.3),
    "b": (128, [2, 2, 18, 2], [4, 8, 16, 32], 0.5),
}


def _swin(size, version, weights, progress, kwargs):
    dim, depths, heads, sd = _SIZES[size]
    window, extra = ([7, 7], _V1) if version == 1 else ([8, 8], _V2)
    return _swin_transformer([4, 4], dim, depths, heads, window, sd, weights, progress,
                             **extra, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_T_Weights.IMAGENET1K_V1))
def swin_t(*, weights: Optional[Swin_T_Weights] = None, progress: bool = True, **kwargs):
    """Swin-T.

    Args:
        weights (Swin_T_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SwinTransformer`.
    """
    return _swin("t", 1, Swin_T_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_S_Weights.IMAGENET1K_V1))
def swin_s(*, weights: Optional[Swin_S_Weights] = None, progress: bool = True, **kwargs):
    """Swin-S.

    Args:
        weights (Swin_S_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SwinTransformer`.
    """
    return _swin("s", 1, Swin_S_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_B_Weights.IMAGENET1K_V1))
def swin_b(*, weights: Optional[Swin_B_Weights] = None, progress: bool = True, **kwargs):
    """Swin-B.

    Args:
        weights (Swin_B_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SwinTransformer`.
    """
    return _swin("b", 1, Swin_B_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_V2_T_Weights.IMAGENET1K_V1))
def swin_v2_t(*, weights: Optional[Swin_V2_T_Weights] = None, progress: bool = True, **kwargs):
    """Swin-V2-T.

    Args:
        weights (Swin_V2_T_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SwinTransformer`.
    """
    return _swin("t", 2, Swin_V2_T_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_V2_S_Weights.IMAGENET1K_V1))
def swin_v2_s(*, weights: Optional[Swin_V2_S_Weights] = None, progress: bool = True, **kwargs):
    """Swin-V2-S.

    Args:
        weights (Swin_V2_S_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SwinTransformer`.
    """
    return _swin("s", 2, Swin_V2_S_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin_V2_B_Weights.IMAGENET1K_V1))
def swin_v2_b(*, weights: Optional[Swin_V2_B_Weights] = None, progress: bool = True, **kwargs):
    """Swin-V2-B.

    Args:
        weights (Swin_V2_B_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`SwinTransformer`.
    """
    return _swin("b", 2, Swin_V2_B_Weights.verify(weights), progress, kwargs)
