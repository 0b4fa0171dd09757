"""Multiscale Vision Transformers for video: MViT (Fan et al., 2021) and MViTv2 (Li et al.,
2022). Attention whose queries, keys and values are pooled (strided depthwise 3-D
convolutions) so the token grid shrinks and the channels grow stage by stage; v2 adds
decomposed relative position biases and a pooled-query residual."""

import math
from dataclasses import dataclass
from functools import partial
from typing import Optional

import numtorch
from numtorch import nn
from numtorch.nn import functional as F

from ...ops.misc import MLP
from ...ops.stochastic_depth import StochasticDepth
from ...transforms._presets import VideoClassification
from .._api import Weights, WeightsEnum, register_model
from .._meta_kinetics import _KINETICS400_CATEGORIES
from .._utils import _MODELS_URL, _ovewrite_named_param, handle_legacy_interface

__all__ = ["MViT", "MViT_V1_B_Weights", "mvit_v1_b", "MViT_V2_S_Weights", "mvit_v2_s"]


@dataclass
class MSBlockConfig:
    num_heads: int
    input_channels: int
    output_channels: int
    kernel_q: list
    kernel_kv: list
    stride_q: list
    stride_kv: list


def _prod(values):
    return math.prod(values)


class Pool(nn.Module):
    """Pools the token grid of ``(B, heads, 1 + T*H*W, C)`` (or ``(B, 1 + THW, C)``)
    tokens: the class token is kept aside, the rest is reshaped to ``(T, H, W)``, pooled,
    flattened back, rejoined, then normalised."""

    def __init__(self, pool, norm, activation=None, norm_before_pool=False):
        super().__init__()
        self.pool = pool
        extra = [m for m in (norm, activation) if m is not None]
        self.norm_act = nn.Sequential(*extra) if extra else None
        self.norm_before_pool = norm_before_pool

    def forward(self, x, thw):
        had_heads = x.dim() == 4
        if not had_heads:
            x = x.unsqueeze(1)
        b, heads, _, c = x.shape
        cls_token, grid = x[:, :, :1], x[:, :, 1:]
        grid = grid.reshape(b * heads, *thw, c).permute(0, 4, 1, 2, 3)
        if self.norm_before_pool and self.norm_act is not None:
            grid = self.norm_act(grid.permute(0, 2, 3, 4, 1)).permute(0, 4, 1, 2, 3)
        grid = self.pool(grid)
        new_thw = tuple(grid.shape[2:])
        grid = grid.reshape(b, heads, c, -1).transpose(2, 3)
        x = numtorch.cat([cls_token, grid], dim=2)
        if not self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        return (x if had_heads else x.squeeze(1)), new_thw


def _resized_table(table, length):
    # a relative-position table for another grid size: linear interpolation along it
    if table.shape[0] == length:
        return table
    return F.interpolate(table.permute(1, 0).unsqueeze(0), size=length,
                         mode="linear").squeeze(0).permute(1, 0)


def _relative_offsets(q_len, k_len, device):
    """Row ``i``, column ``j``: the index into a ``2*max(q, k) - 1`` table of the offset
    between query ``i`` and key ``j`` on grids of ``q_len`` and ``k_len`` cells spanning the
    same extent."""
    q_ratio, k_ratio = max(k_len / q_len, 1.0), max(q_len / k_len, 1.0)
    qi = numtorch.arange(q_len, device=device)[:, None] * q_ratio
    kj = (numtorch.arange(k_len, device=device)[None, :] + (1.0 - k_len)) * k_ratio
    return (qi - kj).long()


def _decomposed_rel_pos(attn, q, q_thw, k_thw, tables):
    """``attn`` (B, heads, 1 + Nq, 1 + Nk) plus, between grid tokens, the sum of a time, a
    height and a width term: each the query's dot product with the learned embedding of
    its offset along that axis."""
    b, heads, _, dim = q.shape
    grid_q = q[:, :, 1:].reshape(b, heads, *q_thw, dim)
    terms = []
    for axis, table in enumerate(tables):
        size = 2 * max(q_thw[axis], k_thw[axis]) - 1
        emb = _resized_table(table, size)[_relative_offsets(q_thw[axis], k_thw[axis],
                                                            q.device)]
        # emb: (q_axis, k_axis, dim); contract the query along its own axis position
        moved = grid_q.movedim(2 + axis, -2)  # (..., q_axis, dim)
        term = numtorch.einsum("...ac,akc->...ak", moved, emb)
        terms.append(term.movedim(-2, 2 + axis))  # (B, heads, qt, qh, qw, k_axis)
    rt, rh, rw = terms
    bias = (rt[..., :, None, None] + rh[..., None, :, None] + rw[..., None, None, :])
    bias = bias.reshape(b, heads, _prod(q_thw), _prod(k_thw))
    attn = attn.clone()
    attn[:, :, 1:, 1:] = attn[:, :, 1:, 1:] + bias
    return attn


class MultiscaleAttention(nn.Module):
    """Pooling attention: queries, keys and values each pooled (when their kernel or
    stride is not trivial) before the attention, per head."""

    def __init__(self, input_size, embed_dim, output_dim, num_heads, kernel_q, kernel_kv,
                 stride_q, stride_kv, residual_pool, residual_with_cls_embed, rel_pos_embed,
                 dropout=0.0, norm_layer=nn.LayerNorm):
        super().__init__()
        head_dim = output_dim // num_heads
        facts = {"embed_dim": embed_dim, "output_dim": output_dim, "num_heads": num_heads,
                 "head_dim": head_dim, "scaler": 1.0 / math.sqrt(head_dim),
                 "residual_pool": residual_pool,
                 "residual_with_cls_embed": residual_with_cls_embed}
        for key, value in facts.items():
            setattr(self, key, value)
        self.qkv = nn.Linear(embed_dim, 3 * output_dim)
        project = [nn.Linear(output_dim, output_dim)]
        if dropout > 0.0:
            project.append(nn.Dropout(dropout, inplace=True))
        self.project = nn.Sequential(*project)
        for name, kernel, stride in (("pool_q", kernel_q, stride_q),
                                     ("pool_k", kernel_kv, stride_kv),
                                     ("pool_v", kernel_kv, stride_kv)):
            pooled = _prod(kernel) > 1 or _prod(stride) > 1
            setattr(self, name, Pool(
                nn.Conv3d(self.head_dim, self.head_dim, kernel, stride=stride,
                          padding=[k // 2 for k in kernel], groups=self.head_dim, bias=False),
                norm_layer(self.head_dim)) if pooled else None)
        self.rel_pos_h = self.rel_pos_w = self.rel_pos_t = None
        if rel_pos_embed:
            side = max(input_size[1:])
            q_side = side // stride_q[1] if len(stride_q) > 0 else side
            kv_side = side // stride_kv[1] if len(stride_kv) > 0 else side
            spatial = 2 * max(q_side, kv_side) - 1
            temporal = 2 * input_size[0] - 1
            self.rel_pos_h = nn.Parameter(numtorch.zeros(spatial, self.head_dim))
            self.rel_pos_w = nn.Parameter(numtorch.zeros(spatial, self.head_dim))
            self.rel_pos_t = nn.Parameter(numtorch.zeros(temporal, self.head_dim))
            for table in (self.rel_pos_h, self.rel_pos_w, self.rel_pos_t):
                nn.init.trunc_normal_(table, std=0.02)

    def forward(self, x, thw):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim).transpose(
            1, 3).unbind(dim=2)
        k_thw = v_thw = q_thw = thw
        if self.pool_k is not None:
            k, k_thw = self.pool_k(k, thw)
        if self.pool_v is not None:
            v, v_thw = self.pool_v(v, thw)
        if self.pool_q is not None:
            q, q_thw = self.pool_q(q, thw)
        attn = (self.scaler * q).matmul(k.transpose(2, 3))
        if self.rel_pos_h is not None:
            attn = _decomposed_rel_pos(attn, q, q_thw, k_thw,
                                       (self.rel_pos_t, self.rel_pos_h, self.rel_pos_w))
        x = attn.softmax(dim=-1).matmul(v)
        if self.residual_pool:  # the pooled queries as a residual (v2)
            if self.residual_with_cls_embed:
                x = x + q
            else:
                x = numtorch.cat([x[:, :, :1], x[:, :, 1:] + q[:, :, 1:]], dim=2)
        x = x.transpose(1, 2).reshape(b, -1, self.output_dim)
        return self.project(x), q_thw


class MultiscaleBlock(nn.Module):
    """Pre-norm transformer block around :class:`MultiscaleAttention`; the skip path is
    max-pooled like the queries and, when the width changes, linearly projected (v1: after
    the MLP's norm; v2: before the attention, from its norm)."""

    def __init__(self, input_size, cnf, residual_pool, residual_with_cls_embed, rel_pos_embed,
                 proj_after_attn, dropout=0.0, stochastic_depth_prob=0.0,
                 norm_layer=nn.LayerNorm):
        super().__init__()
        self.proj_after_attn = proj_after_attn
        self.pool_skip = None
        if _prod(cnf.stride_q) > 1:
            kernel = [s + 1 if s > 1 else s for s in cnf.stride_q]
            self.pool_skip = Pool(nn.MaxPool3d(kernel, stride=cnf.stride_q,
                                               padding=[k // 2 for k in kernel]), None)
        # v2 widens inside the attention, v1 in the MLP
        width = cnf.output_channels if proj_after_attn else cnf.input_channels
        self.norm1, self.norm2 = norm_layer(cnf.input_channels), norm_layer(width)
        # a batch norm normalises over the channel axis, which is not the last one here
        self.needs_transposal = isinstance(self.norm1, nn.BatchNorm1d)
        attn_dim = width
        self.attn = MultiscaleAttention(
            input_size, cnf.input_channels, attn_dim, cnf.num_heads, kernel_q=cnf.kernel_q,
            kernel_kv=cnf.kernel_kv, stride_q=cnf.stride_q, stride_kv=cnf.stride_kv,
            rel_pos_embed=rel_pos_embed, residual_pool=residual_pool,
            residual_with_cls_embed=residual_with_cls_embed, dropout=dropout,
            norm_layer=norm_layer)
        self.mlp = MLP(attn_dim, [4 * attn_dim, cnf.output_channels],
                       activation_layer=nn.GELU, dropout=dropout, inplace=None)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.project = (nn.Linear(cnf.input_channels, cnf.output_channels)
                        if cnf.input_channels != cnf.output_channels else None)

    def _norm(self, norm, x):
        return norm(x.transpose(1, 2)).transpose(1, 2) if self.needs_transposal else norm(x)

    def forward(self, x, thw):
        normed = self._norm(self.norm1, x)
        attended, new_thw = self.attn(normed, thw)
        if self.project is not None and self.proj_after_attn:
            x = self.project(normed)
        skip = x if self.pool_skip is None else self.pool_skip(x, thw)[0]
        x = skip + self.stochastic_depth(attended)
        normed = self._norm(self.norm2, x)
        if self.project is not None and not self.proj_after_attn:
            x = self.project(normed)
        return x + self.stochastic_depth(self.mlp(normed)), new_thw


class PositionalEncoding(nn.Module):
    """Prepends the class token; without relative positions, also adds learned absolute
    embeddings (a spatial and a temporal table summed, and one for the class token)."""

    def __init__(self, embed_size, spatial_size, temporal_size, rel_pos_embed):
        super().__init__()
        self.spatial_size = spatial_size
        self.temporal_size = temporal_size
        self.class_token = nn.Parameter(numtorch.zeros(embed_size))
        self.spatial_pos = self.temporal_pos = self.class_pos = None
        if not rel_pos_embed:
            self.spatial_pos = nn.Parameter(numtorch.zeros(_prod(spatial_size), embed_size))
            self.temporal_pos = nn.Parameter(numtorch.zeros(temporal_size, embed_size))
            self.class_pos = nn.Parameter(numtorch.zeros(embed_size))

    def forward(self, x):
        cls = self.class_token.expand(x.size(0), -1).unsqueeze(1)
        x = numtorch.cat([cls, x], dim=1)
        if self.spatial_pos is not None:
            grid = (self.temporal_pos[:, None, :] + self.spatial_pos[None, :, :]).reshape(
                -1, self.spatial_pos.shape[-1])
            x = x + numtorch.cat([self.class_pos.unsqueeze(0), grid], dim=0)
        return x


def _fill(value):
    def init(param):
        if param is not None:
            nn.init.constant_(param, value)
    return init


def _init_linear(m):
    nn.init.trunc_normal_(m.weight, std=0.02)
    _fill(0.0)(m.bias)


def _init_layer_norm(m):
    _fill(1.0)(m.weight)
    _fill(0.0)(m.bias)


def _init_positions(m):
    for table in m.parameters():
        nn.init.trunc_normal_(table, std=0.02)


def _init_by_kind(m):
    # subclasses of the three kinds initialise as their base
    for kind, init in ((nn.Linear, _init_linear), (nn.LayerNorm, _init_layer_norm),
                       (PositionalEncoding, _init_positions)):
        if isinstance(m, kind):
            init(m)
            return


_INIT = {nn.Linear: _init_linear, nn.LayerNorm: _init_layer_norm,
         PositionalEncoding: _init_positions}


class MViT(nn.Module):
    """Multiscale Vision Transformer.

    Args:
        spatial_size (2 ints), temporal_size (int): the clip size it is built for.
        block_setting (list of MSBlockConfig): the blocks.
        residual_pool (bool): add the pooled queries to the attention output (v2).
        residual_with_cls_embed (bool): the class token too.
        rel_pos_embed (bool): relative position biases instead of absolute embeddings (v2).
        proj_after_attn (bool): widen in the attention rather than after it (v2).
        dropout (float): before the head. Default: 0.5.
        attention_dropout (float): in the blocks. Default: 0.0.
        stochastic_depth_prob (float): of the last block, growing linearly. Default: 0.0.
        num_classes (int): outputs. Default: 400.
        block (callable, optional): default :class:`MultiscaleBlock`.
        norm_layer (callable, optional): default ``LayerNorm(eps=1e-6)``.
        patch_embed_kernel, patch_embed_stride, patch_embed_padding (3 ints each): the 3-D
            convolution that embeds patches.
    """

    def __init__(self, spatial_size, temporal_size, block_setting, residual_pool,
                 residual_with_cls_embed, rel_pos_embed, proj_after_attn, dropout=0.5,
                 attention_dropout=0.0, stochastic_depth_prob=0.0, num_classes=400,
                 block=None, norm_layer=None, patch_embed_kernel=(3, 7, 7),
                 patch_embed_stride=(2, 4, 4), patch_embed_padding=(1, 3, 3)):
        super().__init__()
        if len(block_setting) == 0:
            raise ValueError("The configuration parameter can't be empty.")
        block = MultiscaleBlock if block is None else block
        norm_layer = partial(nn.LayerNorm, eps=1e-6) if norm_layer is None else norm_layer
        self.conv_proj = nn.Conv3d(3, block_setting[0].input_channels,
                                   kernel_size=patch_embed_kernel, stride=patch_embed_stride,
                                   padding=patch_embed_padding)
        size = [s // st for s, st in zip((temporal_size,) + tuple(spatial_size),
                                         self.conv_proj.stride)]
        self.pos_encoding = PositionalEncoding(block_setting[0].input_channels,
                                               (size[1], size[2]), size[0], rel_pos_embed)
        self.blocks = nn.ModuleList()
        last = len(block_setting) - 1.0
        for i, cnf in enumerate(block_setting):
            self.blocks.append(block(
                input_size=size, cnf=cnf, residual_pool=residual_pool,
                residual_with_cls_embed=residual_with_cls_embed, rel_pos_embed=rel_pos_embed,
                proj_after_attn=proj_after_attn, dropout=attention_dropout,
                stochastic_depth_prob=stochastic_depth_prob * i / last, norm_layer=norm_layer))
            if len(cnf.stride_q) > 0:
                size = [s // st for s, st in zip(size, cnf.stride_q)]
        self.norm = norm_layer(block_setting[-1].output_channels)
        self.head = nn.Sequential(nn.Dropout(dropout, inplace=True),
                                  nn.Linear(block_setting[-1].output_channels, num_classes))
        for m in self.modules():
            _INIT.get(type(m), _init_by_kind)(m)

    def forward(self, x):
        if x.dim() == 4:  # one image: a clip of one frame
            x = x.unsqueeze(2)
        x = self.conv_proj(x).flatten(2).transpose(1, 2)
        x = self.pos_encoding(x)
        thw = (self.pos_encoding.temporal_size,) + tuple(self.pos_encoding.spatial_size)
        for blk in self.blocks:
            x, thw = blk(x, thw)
        return self.head(self.norm(x)[:, 0])


def _cfg(heads, cin, cout, pool_q, stride_kv):
    """A block: 3x3x3 pooling kernels; ``pool_q``: the query stride (None: queries not
    pooled, v1's plain blocks)."""
    k3 = [3, 3, 3]
    return MSBlockConfig(heads, cin, cout, k3 if pool_q else [], k3, pool_q or [],
                         stride_kv)


_S1, _S2 = [1, 1, 1], [1, 2, 2]
_V1_B = ([_cfg(1, 96, 192, None, [1, 8, 8]), _cfg(2, 192, 192, _S2, [1, 4, 4]),
          _cfg(2, 192, 384, None, [1, 4, 4]), _cfg(4, 384, 384, _S2, _S2)]
         + [_cfg(4, 384, 384, None, _S2) for _ in range(9)]
         + [_cfg(4, 384, 768, None, _S2), _cfg(8, 768, 768, _S2, _S1),
            _cfg(8, 768, 768, None, _S1)])
_V2_S = ([_cfg(1, 96, 96, _S1, [1, 8, 8]), _cfg(2, 96, 192, _S2, [1, 4, 4]),
          _cfg(2, 192, 192, _S1, [1, 4, 4]), _cfg(4, 192, 384, _S2, _S2)]
         + [_cfg(4, 384, 384, _S1, _S2) for _ in range(10)]
         + [_cfg(8, 384, 768, _S2, _S1), _cfg(8, 768, 768, _S1, _S1)])


def _kinetics_weights(file, recipe, num_params, acc1, acc5, ops, file_size):
    return Weights(
        url=_MODELS_URL + file,
        transforms=partial(VideoClassification, crop_size=(224, 224), resize_size=(256,),
                           mean=(0.45, 0.45, 0.45), std=(0.225, 0.225, 0.225)),
        meta={"min_size": (224, 224), "min_temporal_size": 16,
              "categories": _KINETICS400_CATEGORIES, "recipe": recipe,
              "num_params": num_params,
              "_metrics": {"Kinetics-400": {"acc@1": acc1, "acc@5": acc5}},
              "_ops": ops, "_file_size": file_size})


class MViT_V1_B_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights(
        "mvit_v1_b-dbeb1030.pth",
        "https://github.com/facebookresearch/pytorchvideo/blob/main/docs/source/model_zoo.md",
        36610672, 78.477, 93.582, 70.599, 139.764)
    DEFAULT = KINETICS400_V1


class MViT_V2_S_Weights(WeightsEnum):
    KINETICS400_V1 = _kinetics_weights(
        "mvit_v2_s-ae3be167.pth",
        "https://github.com/facebookresearch/SlowFast/blob/main/MODEL_ZOO.md",
        34537744, 80.757, 94.665, 64.224, 131.884)
    DEFAULT = KINETICS400_V1


def _mvit(block_setting, variant, weights, progress, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        if weights.meta["min_size"][0] != weights.meta["min_size"][1]:
            raise ValueError(f"min_size is {weights.meta['min_size']}, but the model "
                             "expects square clips")
        _ovewrite_named_param(kwargs, "spatial_size", weights.meta["min_size"])
        _ovewrite_named_param(kwargs, "temporal_size", weights.meta["min_temporal_size"])
    model = MViT(block_setting=block_setting, **variant,
                 stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", 0.2), **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


@register_model()
@handle_legacy_interface(weights=("pretrained", MViT_V1_B_Weights.KINETICS400_V1))
def mvit_v1_b(*, weights: Optional[MViT_V1_B_Weights] = None, progress: bool = True,
              **kwargs):
    """MViT-B (v1) for 16-frame 224x224 Kinetics-400 clips.

    Args:
        weights (MViT_V1_B_Weights, optional): pretrained weights; None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: arguments of :class:`MViT` (the clip size is fixed).
    """
    weights = MViT_V1_B_Weights.verify(weights)
    variant = {"residual_pool": kwargs.pop("residual_pool", False),
               "residual_with_cls_embed": kwargs.pop("residual_with_cls_embed", False),
               "rel_pos_embed": kwargs.pop("rel_pos_embed", False),
               "proj_after_attn": kwargs.pop("proj_after_attn", False)}
    # the clip size is fixed (a spatial_size or temporal_size argument is a TypeError)
    return _mvit([MSBlockConfig(**vars(c)) for c in _V1_B], variant, weights, progress,
                 spatial_size=(224, 224), temporal_size=16, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", MViT_V2_S_Weights.KINETICS400_V1))
def mvit_v2_s(*, weights: Optional[MViT_V2_S_Weights] = None, progress: bool = True,
              **kwargs):
    """MViTv2-S for 16-frame 224x224 Kinetics-400 clips (arguments as :func:`mvit_v1_b`)."""
    weights = MViT_V2_S_Weights.verify(weights)
    variant = {"residual_pool": kwargs.pop("residual_pool", True),
               "residual_with_cls_embed": kwargs.pop("residual_with_cls_embed", False),
               "rel_pos_embed": kwargs.pop("rel_pos_embed", True),
               "proj_after_attn": kwargs.pop("proj_after_attn", True)}
    # the clip size is fixed (a spatial_size or temporal_size argument is a TypeError)
    return _mvit([MSBlockConfig(**vars(c)) for c in _V2_S], variant, weights, progress,
                 spatial_size=(224, 224), temporal_size=16, **kwargs)
