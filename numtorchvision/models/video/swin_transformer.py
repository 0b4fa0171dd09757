"""Video Swin Transformer (Liu et al., "Video Swin Transformer", 2021): the Swin design with
3-D (time x height x width) windows shifted by half a window between consecutive blocks."""

from functools import partial
from typing import Optional

import numpy as np

import numtorch
import numtorch.fx
from numtorch import nn
from numtorch.nn import functional as F

from ...transforms._presets import VideoClassification
from .._api import Weights, WeightsEnum, register_model
from .._meta_kinetics import _KINETICS400_CATEGORIES
from .._utils import _MODELS_URL, _build, handle_legacy_interface
from ..swin_transformer import PatchMerging, SwinTransformerBlock

__all__ = ["SwinTransformer3d", "Swin3D_T_Weights", "Swin3D_S_Weights", "Swin3D_B_Weights",
           "swin3d_t", "swin3d_s", "swin3d_b"]


def _fit_window(window_size, shift_size, size_dhw):
    """A window no larger than the clip along each axis; no shift along an axis the window
    covers whole."""
    window, shift = list(window_size), list(shift_size)
    for i, size in enumerate(size_dhw):
        if size <= window[i]:
            window[i], shift[i] = size, 0
    return window, shift


def _pad_to_multiple(sizes, multiples):
    return [(m - s % m) % m for s, m in zip(sizes, multiples)]


def _relative_position_index(window_size):
    """For every pair of positions of a window, the row-major index of their offset
    ``(dt, dh, dw)`` into the ``(2T-1) x (2H-1) x (2W-1)`` bias table."""
    grids = np.meshgrid(*[np.arange(w) for w in window_size], indexing="ij")
    index = np.zeros((grids[0].size,) * 2, dtype=np.int64)
    for g, w in zip(grids, window_size):
        g = g.ravel()
        index = index * (2 * w - 1) + (g[:, None] - g[None, :] + w - 1)
    return index


def _window_bias(table, index, window_size):
    # a window shrunk to a small map takes the top-left block of the full window's index
    n = int(np.prod(window_size))
    bias = table[index[:n, :n].reshape(-1)].reshape(n, n, -1)
    return bias.permute(2, 0, 1).unsqueeze(0)


def _shift_mask_3d(padded, window_size, shift_size, like):
    """-100 between positions of a window that came from different regions of the clip
    before the cyclic shift, 0 elsewhere: ``(num_windows, N, N)``."""
    region = np.zeros(padded, dtype=np.int64)
    for axis, (size, window, shift) in enumerate(zip(padded, window_size, shift_size)):
        ids = np.zeros(size, dtype=np.int64)
        if shift:
            ids[size - window:size - shift] = 1
            ids[size - shift:] = 2
        shape = [1, 1, 1]
        shape[axis] = size
        region = region * 3 + ids.reshape(shape)
    counts = [p // w for p, w in zip(padded, window_size)]
    region = region.reshape(counts[0], window_size[0], counts[1], window_size[1], counts[2],
                            window_size[2]).transpose(0, 2, 4, 1, 3, 5)
    region = region.reshape(int(np.prod(counts)), -1)
    mask = np.where(region[:, None, :] != region[:, :, None], -100.0, 0.0)
    return numtorch.as_tensor(mask, dtype=like.dtype, device=like.device)


def shifted_window_attention_3d(input, qkv_weight, proj_weight, relative_position_bias,
                                window_size, num_heads, shift_size, attention_dropout=0.0,
                                dropout=0.0, qkv_bias=None, proj_bias=None, training=True):
    """Multi-head self-attention within (shifted) 3-D windows of a ``(B, T, H, W, C)`` clip.

    The clip is padded to whole windows and, when shifting, rolled by ``-shift_size``; each
    window attends within itself with ``relative_position_bias`` added and positions from
    different regions masked apart; the result is rolled back and cropped.

    Args:
        input (Tensor[B, T, H, W, C]): the features.
        qkv_weight, proj_weight (Tensor): input and output projections.
        relative_position_bias (Tensor): ``(1, heads, N, N)`` for ``N`` positions per window.
        window_size (list of 3 ints), shift_size (list of 3 ints): window geometry (already
            fitted to the clip).
        num_heads (int): attention heads.
        attention_dropout (float), dropout (float): on the attention weights and the output.
        qkv_bias, proj_bias (Tensor, optional): projection biases.
        training (bool): apply dropout.
    """
    b, t, h, w, c = input.shape
    pads = _pad_to_multiple((t, h, w), window_size)
    x = F.pad(input, (0, 0, 0, pads[2], 0, pads[1], 0, pads[0]))
    padded = tuple(x.shape[1:4])
    shifted = sum(shift_size) > 0
    if shifted:
        x = numtorch.roll(x, shifts=tuple(-s for s in shift_size), dims=(1, 2, 3))
    counts = [p // ws for p, ws in zip(padded, window_size)]
    num_windows = int(np.prod(counts))
    n = int(np.prod(window_size))
    x = x.view(b, counts[0], window_size[0], counts[1], window_size[1], counts[2],
               window_size[2], c)
    x = x.permute(0, 1, 3, 5, 2, 4, 6, 7).reshape(b * num_windows, n, c)
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), n, 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1)) + relative_position_bias
    if shifted:
        mask = _shift_mask_3d(padded, window_size, shift_size, x)
        attn = attn.view(b, num_windows, num_heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
        attn = attn.view(-1, num_heads, n, n)
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), n, c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, counts[0], counts[1], counts[2], window_size[0], window_size[1],
               window_size[2], c)
    x = x.permute(0, 1, 4, 2, 5, 3, 6, 7).reshape(b, *padded, c)
    if shifted:
        x = numtorch.roll(x, shifts=tuple(shift_size), dims=(1, 2, 3))
    return x[:, :t, :h, :w, :].contiguous()


numtorch.fx.wrap("shifted_window_attention_3d")


class ShiftedWindowAttention3d(nn.Module):
    """3-D window attention with a learned table of relative position biases.

    Args:
        dim (int): channels.
        window_size (list of 3 ints), shift_size (list of 3 ints): window geometry.
        num_heads (int): heads.
        qkv_bias (bool), proj_bias (bool): projection biases. Default: True.
        attention_dropout (float), dropout (float): Default: 0.0.
    """

    def __init__(self, dim, window_size, shift_size, num_heads, qkv_bias=True, proj_bias=True,
                 attention_dropout=0.0, dropout=0.0):
        super().__init__()
        if not len(window_size) == len(shift_size) == 3:
            # (torchvision's message, which says 2)
            raise ValueError("window_size and shift_size must be of length 2")
        settings = {"window_size": window_size, "shift_size": shift_size,
                    "num_heads": num_heads, "attention_dropout": attention_dropout,
                    "dropout": dropout}
        for key, value in settings.items():
            setattr(self, key, value)
        # draw order as torchvision: the two projections, then the bias table
        self.qkv, self.proj = (nn.Linear(dim, dim * 3, bias=qkv_bias),
                               nn.Linear(dim, dim, bias=proj_bias))
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self):
        cells = int(np.prod([2 * w - 1 for w in self.window_size]))
        self.relative_position_bias_table = nn.Parameter(numtorch.zeros(cells, self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self):
        self.register_buffer("relative_position_index",
                             numtorch.as_tensor(_relative_position_index(self.window_size)))

    def get_relative_position_bias(self, window_size):
        return _window_bias(self.relative_position_bias_table, self.relative_position_index,
                            window_size)

    def forward(self, x):
        window, shift = _fit_window(self.window_size, self.shift_size, x.shape[1:4])
        return shifted_window_attention_3d(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(window),
            window, self.num_heads, shift_size=shift,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, training=self.training)


class PatchEmbed3d(nn.Module):
    """Non-overlapping ``patch_size`` patches (the clip zero-padded to whole patches) to
    ``embed_dim`` channels, channels last, optionally normalised."""

    def __init__(self, patch_size, in_channels=3, embed_dim=96, norm_layer=None):
        super().__init__()
        self.tuple_patch_size = tuple(patch_size)
        self.proj = nn.Conv3d(in_channels, embed_dim, kernel_size=self.tuple_patch_size,
                              stride=self.tuple_patch_size)
        self.norm = nn.Identity() if norm_layer is None else norm_layer(embed_dim)

    def forward(self, x):
        pads = _pad_to_multiple(tuple(x.shape[2:5]), self.tuple_patch_size)
        x = F.pad(x, (0, pads[2], 0, pads[1], 0, pads[0]))
        return self.norm(self.proj(x).permute(0, 2, 3, 4, 1))


class SwinTransformer3d(nn.Module):
    """Video Swin Transformer: a 3-D patch embedding, stages of 3-D window-attention blocks
    separated by (spatial) patch merging, a final norm, pooling and a linear head.

    Args:
        patch_size (list of 3 ints): stem patch size.
        embed_dim (int): channels after the stem (doubled by every merge).
        depths (list of int): blocks per stage.
        num_heads (list of int): heads per stage.
        window_size (list of 3 ints): attention window.
        mlp_ratio (float): MLP width / channels. Default: 4.0.
        dropout (float), attention_dropout (float): Default: 0.0.
        stochastic_depth_prob (float): drop probability of the last block, growing linearly
            from 0. Default: 0.1.
        num_classes (int): outputs. Default: 400.
        norm_layer (callable, optional): default ``LayerNorm(eps=1e-5)``.
        block (callable, optional): default :class:`SwinTransformerBlock` with 3-D attention.
        downsample_layer (callable): default :class:`PatchMerging`.
        patch_embed (callable, optional): default :class:`PatchEmbed3d`.
    """

    def __init__(self, patch_size, embed_dim, depths, num_heads, window_size, mlp_ratio=4.0,
                 dropout=0.0, attention_dropout=0.0, stochastic_depth_prob=0.1,
                 num_classes=400, norm_layer=None, block=None, downsample_layer=PatchMerging,
                 patch_embed=None):
        super().__init__()
        self.num_classes = num_classes
        if block is None:
            block = partial(SwinTransformerBlock, attn_layer=ShiftedWindowAttention3d)
        norm_layer = partial(nn.LayerNorm, eps=1e-5) if norm_layer is None else norm_layer
        patch_embed = PatchEmbed3d if patch_embed is None else patch_embed
        self.patch_embed = patch_embed(patch_size=patch_size, embed_dim=embed_dim,
                                       norm_layer=norm_layer)
        self.pos_drop = nn.Dropout(p=dropout)
        total, block_id, layers = sum(depths), 0, []
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
            if i_stage + 1 < len(depths):  # merging between stages, not after the last
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        width = embed_dim * 2 ** (len(depths) - 1)
        self.num_features = width
        self.norm = norm_layer(width)
        self.avgpool = nn.AdaptiveAvgPool3d(1)
        self.head = nn.Linear(width, num_classes)
        for linear in (m for m in self.modules() if isinstance(m, nn.Linear)):
            nn.init.trunc_normal_(linear.weight, std=0.02)
            if linear.bias is not None:
                nn.init.zeros_(linear.bias)

    def forward(self, x):
        x = self.norm(self.features(self.pos_drop(self.patch_embed(x))))
        x = self.avgpool(x.permute(0, 4, 1, 2, 3))
        return self.head(numtorch.flatten(x, 1))


def _kinetics_weights(file, num_params, acc1, acc5, ops, file_size):
    return Weights(
        url=_MODELS_URL + file,
        transforms=partial(VideoClassification, crop_size=(224, 224), resize_size=(256,),
                           mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)),
        meta={"min_size": (1, 1), "min_temporal_size": 1,
              "categories": _KINETICS400_CATEGORIES,
              "recipe": "https://github.com/SwinTransformer/Video-Swin-Transformer#kinetics-400",
              "num_params": num_params,
              "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
              "_ops": ops, "_file_size": file_size})


class Swin3D_T_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights("swin3d_t-7615ae03.pth", 28158070, 77.715, 93.519,
                                       43.882, 121.543)
    DEFAULT = KINETICS400_V1


class Swin3D_S_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights("swin3d_s-da41c237.pth", 49816678, 79.521, 94.158,
                                       82.841, 218.288)
    DEFAULT = KINETICS400_V1


class Swin3D_B_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights("swin3d_b_1k-24f7c7c6.pth", 88048984, 79.427, 94.386,
                                       140.667, 364.134)
    KINETICS400_IMAGENET22K_V1 = _kinetics_weights("swin3d_b_22k-7c6ae6fa.pth", 88048984,
                                                   81.643, 95.574, 140.667, 364.134)
    DEFAULT = KINETICS400_V1


# (embed_dim, depths, num_heads) of each size; all use 2x4x4 patches and 8x7x7 windows
_SIZES = {"t": (96, [2, 2, 6, 2], [3, 6, 12, 24]), "s": (96, [2, 2, 18, 2], [3, 6, 12, 24]),
          "b": (128, [2, 2, 18, 2], [4, 8, 16, 32])}


def _swin3d(size, weights, progress, kwargs):
    embed_dim, depths, num_heads = _SIZES[size]
    return _build(lambda **kw: SwinTransformer3d(
        patch_size=[2, 4, 4], embed_dim=embed_dim, depths=depths, num_heads=num_heads,
        window_size=[8, 7, 7], stochastic_depth_prob=0.1, **kw), weights, progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin3D_T_Weights.KINETICS400_V1))
def swin3d_t(*, weights: Optional[Swin3D_T_Weights] = None, progress: bool = True, **kwargs):
    """Swin3D-T for Kinetics-400 clips.

    Args:
        weights (Swin3D_T_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: arguments of :class:`SwinTransformer3d`.
    """
    return _swin3d("t", Swin3D_T_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin3D_S_Weights.KINETICS400_V1))
def swin3d_s(*, weights: Optional[Swin3D_S_Weights] = None, progress: bool = True, **kwargs):
    """Swin3D-S for Kinetics-400 clips (arguments as :func:`swin3d_t`)."""
    return _swin3d("s", Swin3D_S_Weights.verify(weights), progress, kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", Swin3D_B_Weights.KINETICS400_V1))
def swin3d_b(*, weights: Optional[Swin3D_B_Weights] = None, progress: bool = True, **kwargs):
    """Swin3D-B for Kinetics-400 clips (arguments as :func:`swin3d_t`)."""
    return _swin3d("b", Swin3D_B_Weights.verify(weights), progress, kwargs)
