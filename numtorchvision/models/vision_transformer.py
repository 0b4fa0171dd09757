"""Vision Transformer (Dosovitskiy et al., "An Image is Worth 16x16 Words", 2020)."""

import math
from collections import OrderedDict
from functools import partial
from typing import Callable, NamedTuple, Optional

import numtorch
from numtorch import nn

from ..ops.misc import MLP, Conv2dNormActivation
from ._api import WeightsEnum, register_model
from ._utils import _imagenet, _ovewrite_named_param, handle_legacy_interface

__all__ = ["VisionTransformer", "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights",
           "ViT_L_32_Weights", "ViT_H_14_Weights", "vit_b_16", "vit_b_32", "vit_l_16",
           "vit_l_32", "vit_h_14"]


class ConvStemConfig(NamedTuple):
    """One convolution of an optional convolutional stem (instead of the patch projection)."""

    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable = nn.BatchNorm2d
    activation_layer: Callable = nn.ReLU


class MLPBlock(MLP):
    """The transformer's feed-forward block: Linear, GELU, dropout, Linear, dropout."""

    _version = 2

    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None,
                         dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # version 1 named the two linear layers linear_1 / linear_2 instead of 0 / 3
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            for i in range(2):
                for kind in ("weight", "bias"):
                    old = f"{prefix}linear_{i + 1}.{kind}"
                    if old in state_dict:
                        state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class EncoderBlock(nn.Module):
    """Pre-norm transformer layer: x + attention(ln_1(x)), then y + mlp(ln_2(y))."""

    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads,
                                                    dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        numtorch._assert(input.dim() == 3,
                         f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Learned position embeddings, dropout, ``num_layers`` encoder blocks, final norm."""

    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                 attention_dropout, norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.pos_embedding = nn.Parameter(
            numtorch.empty(1, seq_length, hidden_dim).normal_(std=0.02))
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.Sequential(OrderedDict(
            (f"encoder_layer_{i}", EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                attention_dropout, norm_layer))
            for i in range(num_layers)))
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        numtorch._assert(input.dim() == 3,
                         f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")
        return self.ln(self.layers(self.dropout(input + self.pos_embedding)))


class VisionTransformer(nn.Module):
    """ViT: image patches projected to tokens, a class token, a transformer encoder, and a
    head on the class token.

    Args:
        image_size (int): side of the (square) input; must be divisible by ``patch_size``.
        patch_size (int): side of a patch.
        num_layers, num_heads, hidden_dim, mlp_dim (int): transformer size.
        dropout (float): dropout in the encoder. Default: 0.0.
        attention_dropout (float): dropout on attention weights. Default: 0.0.
        num_classes (int): outputs. Default: 1000.
        representation_size (int, optional): add a tanh pre-logits layer of this width.
        norm_layer (callable): default ``LayerNorm(eps=1e-6)``.
        conv_stem_configs (list of ConvStemConfig, optional): a convolutional stem instead of
            the patch projection.
    """

    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim,
                 dropout=0.0, attention_dropout=0.0, num_classes=1000, representation_size=None,
                 norm_layer=partial(nn.LayerNorm, eps=1e-6), conv_stem_configs=None):
        super().__init__()
        numtorch._assert(image_size % patch_size == 0, "Input shape indivisible by patch size!")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer
        if conv_stem_configs is not None:
            stem = nn.Sequential()
            channels = 3
            for i, cfg in enumerate(conv_stem_configs):
                stem.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                    in_channels=channels, out_channels=cfg.out_channels,
                    kernel_size=cfg.kernel_size, stride=cfg.stride, norm_layer=cfg.norm_layer,
                    activation_layer=cfg.activation_layer))
                channels = cfg.out_channels
            stem.add_module("conv_last", nn.Conv2d(in_channels=channels,
                                                   out_channels=hidden_dim, kernel_size=1))
            self.conv_proj = stem
        else:
            self.conv_proj = nn.Conv2d(in_channels=3, out_channels=hidden_dim,
                                       kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2 + 1  # + the class token
        self.class_token = nn.Parameter(numtorch.zeros(1, 1, hidden_dim))
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, norm_layer)
        self.seq_length = seq_length
        heads = OrderedDict()
        if representation_size is None:
            heads["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads["act"] = nn.Tanh()
            heads["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads)

        if isinstance(self.conv_proj, nn.Conv2d):
            k = self.conv_proj.kernel_size
            nn.init.trunc_normal_(self.conv_proj.weight,
                                  std=math.sqrt(1 / (self.conv_proj.in_channels * k[0] * k[1])))
            if self.conv_proj.bias is not None:
                nn.init.zeros_(self.conv_proj.bias)
        elif isinstance(getattr(self.conv_proj, "conv_last", None), nn.Conv2d):
            last = self.conv_proj.conv_last
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
            if last.bias is not None:
                nn.init.zeros_(last.bias)
        if isinstance(getattr(self.heads, "pre_logits", None), nn.Linear):
            pre = self.heads.pre_logits
            nn.init.trunc_normal_(pre.weight, std=math.sqrt(1 / pre.in_features))
            nn.init.zeros_(pre.bias)
        if isinstance(self.heads.head, nn.Linear):
            nn.init.zeros_(self.heads.head.weight)
            nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, _, h, w = x.shape
        p = self.patch_size
        numtorch._assert(h == self.image_size,
                         f"Wrong image height! Expected {self.image_size} but got {h}!")
        numtorch._assert(w == self.image_size,
                         f"Wrong image width! Expected {self.image_size} but got {w}!")
        # the patch counts before the projection: fx graphs list the nodes in torchvision's
        # order
        rows, cols = h // p, w // p
        x = self.conv_proj(x).reshape(n, self.hidden_dim, rows * cols)
        return x.permute(0, 2, 1)  # (N, tokens, hidden)

    def forward(self, x):
        x = self._process_input(x)
        n = x.shape[0]
        cls = self.class_token.expand(n, -1, -1)
        x = self.encoder(numtorch.cat([cls, x], dim=1))
        return self.heads(x[:, 0])


def _vision_transformer(patch_size, num_layers, num_heads, hidden_dim, mlp_dim, weights,
                        progress, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        side = weights.meta["min_size"]
        numtorch._assert(side[0] == side[1], "weights for a square input expected")
        _ovewrite_named_param(kwargs, "image_size", side[0])
    image_size = kwargs.pop("image_size", 224)
    model = VisionTransformer(image_size=image_size, patch_size=patch_size,
                              num_layers=num_layers, num_heads=num_heads, hidden_dim=hidden_dim,
                              mlp_dim=mlp_dim, **kwargs)
    if weights:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


_R_REF = "https://github.com/pytorch/vision/tree/main/references/classification"
_R_SWAG = "https://github.com/facebookresearch/SWAG"
_R_LINEAR = "https://github.com/pytorch/vision/pull/5793"
_SWAG_LICENSE = "https://github.com/facebookresearch/SWAG/blob/main/LICENSE"


class ViT_B_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_b_16-c867db91.pth", 86567656, 81.072, 95.318, 17.564,
        330.285, _R_REF + "#vit_b_16", min_size=(224, 224))
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("vit_b_16_swag-9ac1b537.pth", 86859496, 85.304, 97.65,
        55.484, 331.398, _R_SWAG, min_size=(384, 384),
        crop_size=384, resize_size=384, interpolation="BICUBIC", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("vit_b_16_lc_swag-4e70ced5.pth", 86567656, 81.886,
        96.18, 17.564, 330.285, _R_LINEAR,
        min_size=(224, 224), resize_size=224, interpolation="BICUBIC", license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V1


class ViT_B_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_b_32-d86f8d99.pth", 88224232, 75.912, 92.466, 4.409,
        336.604, _R_REF + "#vit_b_32", min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


class ViT_L_16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_l_16-852ce7e3.pth", 304326632, 79.662, 94.638, 61.555,
        1161.023, _R_REF + "#vit_l_16", min_size=(224, 224), resize_size=242)
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("vit_l_16_swag-4f3808c9.pth", 305174504, 88.064, 98.512,
        361.986, 1164.258, _R_SWAG, min_size=(512, 512),
        crop_size=512, resize_size=512, interpolation="BICUBIC", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("vit_l_16_lc_swag-4d563306.pth", 304326632, 85.146,
        97.422, 61.555, 1161.023, _R_LINEAR,
        min_size=(224, 224), resize_size=224, interpolation="BICUBIC", license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V1


class ViT_L_32_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("vit_l_32-c7638314.pth", 306535400, 76.972, 93.07, 15.378,
        1169.449, _R_REF + "#vit_l_32", min_size=(224, 224))
    DEFAULT = IMAGENET1K_V1


class ViT_H_14_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("vit_h_14_swag-80465313.pth", 633470440, 88.552, 98.694,
        1016.717, 2416.643, _R_SWAG, min_size=(518, 518),
        crop_size=518, resize_size=518, interpolation="BICUBIC", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("vit_h_14_lc_swag-c1eb923e.pth", 632045800, 85.708,
        97.73, 167.295, 2411.209, _R_LINEAR,
        min_size=(224, 224), resize_size=224, interpolation="BICUBIC", license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_B_16_Weights.IMAGENET1K_V1))
def vit_b_16(*, weights: Optional[ViT_B_16_Weights] = None, progress: bool = True, **kwargs):
    """ViT-B/16: patch 16, 12 layers, 12 heads, width 768, MLP 3072.

    Args:
        weights (ViT_B_16_Weights, optional): pretrained weights (they fix
            ``image_size``); None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VisionTransformer` (``image_size`` defaults to 224).
    """
    weights = ViT_B_16_Weights.verify(weights)
    return _vision_transformer(16, 12, 12, 768, 3072, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_B_32_Weights.IMAGENET1K_V1))
def vit_b_32(*, weights: Optional[ViT_B_32_Weights] = None, progress: bool = True, **kwargs):
    """ViT-B/32: patch 32, 12 layers, 12 heads, width 768, MLP 3072.

    Args:
        weights (ViT_B_32_Weights, optional): pretrained weights (they fix
            ``image_size``); None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VisionTransformer` (``image_size`` defaults to 224).
    """
    weights = ViT_B_32_Weights.verify(weights)
    return _vision_transformer(32, 12, 12, 768, 3072, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_L_16_Weights.IMAGENET1K_V1))
def vit_l_16(*, weights: Optional[ViT_L_16_Weights] = None, progress: bool = True, **kwargs):
    """ViT-L/16: patch 16, 24 layers, 16 heads, width 1024, MLP 4096.

    Args:
        weights (ViT_L_16_Weights, optional): pretrained weights (they fix
            ``image_size``); None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VisionTransformer` (``image_size`` defaults to 224).
    """
    weights = ViT_L_16_Weights.verify(weights)
    return _vision_transformer(16, 24, 16, 1024, 4096, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", ViT_L_32_Weights.IMAGENET1K_V1))
def vit_l_32(*, weights: Optional[ViT_L_32_Weights] = None, progress: bool = True, **kwargs):
    """ViT-L/32: patch 32, 24 layers, 16 heads, width 1024, MLP 4096.

    Args:
        weights (ViT_L_32_Weights, optional): pretrained weights (they fix
            ``image_size``); None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VisionTransformer` (``image_size`` defaults to 224).
    """
    weights = ViT_L_32_Weights.verify(weights)
    return _vision_transformer(32, 24, 16, 1024, 4096, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", None))
def vit_h_14(*, weights: Optional[ViT_H_14_Weights] = None, progress: bool = True, **kwargs):
    """ViT-H/14: patch 14, 32 layers, 16 heads, width 1280, MLP 5120.

    Args:
        weights (ViT_H_14_Weights, optional): pretrained weights (they fix
            ``image_size``); None for random.
        progress (bool): show a download progress bar. Default: True.
        **kwargs: passed to :class:`VisionTransformer` (``image_size`` defaults to 224).
    """
    weights = ViT_H_14_Weights.verify(weights)
    return _vision_transformer(14, 32, 16, 1280, 5120, weights, progress, **kwargs)


def interpolate_embeddings(image_size, patch_size, model_state, interpolation_mode="bicubic",
                           reset_heads=False):
    """Resize a checkpoint's position embeddings to another image size (fine-tuning at a new
    resolution): the patch-grid part is interpolated (align_corners=True), the class token's
    embedding kept.

    Args:
        image_size (int): the new model's image size.
        patch_size (int): the new model's patch size.
        model_state (OrderedDict): the pretrained state dict (changed and returned).
        interpolation_mode (str): ``interpolate`` mode. Default: ``"bicubic"``.
        reset_heads (bool): drop the ``heads.*`` entries. Default: False.

    Returns:
        OrderedDict: a state dict for the new model.
    """
    pos = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos.shape}")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length != seq_length:
        seq_length -= 1
        new_seq_length -= 1
        token, grid = pos[:, :1, :], pos[:, 1:, :].permute(0, 2, 1)
        side = int(math.sqrt(seq_length))
        if side * side != seq_length:
            raise ValueError(f"seq_length is not a perfect square! Instead got seq_length_1d * "
                             f"seq_length_1d = {side * side} and seq_length = {seq_length}")
        grid = grid.reshape(1, hidden_dim, side, side)
        grid = nn.functional.interpolate(grid, size=image_size // patch_size,
                                         mode=interpolation_mode, align_corners=True)
        grid = grid.reshape(1, hidden_dim, new_seq_length).permute(0, 2, 1)
        model_state["encoder.pos_embedding"] = numtorch.cat([token, grid], dim=1)
        if reset_heads:
            model_state = OrderedDict((k, v) for k, v in model_state.items()
                                      if not k.startswith("heads"))
    return model_state
