"""Transformer family: encoder/decoder layers, their stacks and the full Transformer.

Every block is a composition of MultiheadAttention, Linear, LayerNorm and Dropout, so the
forward passes are plain Python over those modules.
"""

import copy
import warnings

from ... import _creation, _dtype, _ranges
from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F
from ..functional.attention import _canonical_mask
from .. import init
from ...backends import mha as mha_backend
from ._attention import MultiheadAttention, _blocked, _nan_fully_masked
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder",
           "TransformerEncoderLayer", "TransformerDecoderLayer"]


def _activation_fn(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _live(fn):
    """``fn`` as ``F`` holds it now: a TorchFunctionMode puts dispatching wrappers in place
    of F.relu / F.gelu, which a layer made before the mode must call for the mode to see
    them (torch's always dispatch)."""
    name = getattr(fn, "__name__", None)
    if name not in ("relu", "gelu"):
        return fn
    now = getattr(F, name)
    return now if getattr(now, "__wrapped__", now) is getattr(fn, "__wrapped__", fn) else fn


def _relu_or_gelu(fn):
    from .activation import GELU, ReLU

    if fn is F.relu or isinstance(fn, ReLU):
        return 1
    if fn is F.gelu or isinstance(fn, GELU):
        return 2
    return 0


def _nested_tensor_blocker(layer):
    """Why torch's encoder would not take its nested-tensor fast path with ``layer`` (the
    first reason in torch's order), or None."""
    if not isinstance(layer, TransformerEncoderLayer):
        return "encoder_layer was not TransformerEncoderLayer"
    attn = layer.self_attn
    checks = (
        (layer.norm_first, "encoder_layer.norm_first was True"),
        (not attn.batch_first, "encoder_layer.self_attn.batch_first was not True(use "
                               "batch_first for better inference performance)"),
        (not attn._qkv_same_embed_dim,
         "encoder_layer.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, "encoder_layer.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu,
         "encoder_layer.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps,
         "encoder_layer.norm1.eps was not equal to encoder_layer.norm2.eps"),
        (attn.num_heads % 2 == 1, "encoder_layer.self_attn.num_heads is odd"),
    )
    return next((why for bad, why in checks if bad), None)


def _layer_fast_path(layer, src):
    """Whether torch would run the encoder layer on its inference fast path (a fused kernel
    whose visible differences numtorch follows: ``is_causal`` without a mask is dropped, a
    query that sees no key gives nan)."""
    attn = layer.self_attn
    if not (mha_backend.get_fastpath_enabled() and src.dim() == 3 and attn.batch_first and
            not layer.training and layer.activation_relu_or_gelu and
            layer.norm1.eps == layer.norm2.eps and attn._qkv_same_embed_dim and
            attn.in_proj_bias is not None and attn.num_heads % 2 == 0):
        return False
    if any(m._forward_hooks or m._forward_pre_hooks for m in layer.modules()):
        return False
    return not (is_grad_enabled() and (src.requires_grad or
                                       any(p.requires_grad for p in layer.parameters())))


def _nested_padding(encoder, src, mask, padding_mask):
    """The (N, S) bool padding of ``src`` where torch's encoder would take its nested-tensor
    path, else None. On that path each sequence runs without its padded tokens and comes back
    padded with zeros, so the padded positions of the output are 0 (not what the layers
    compute there; a fully padded sequence gives zeros, not nan). numtorch runs the plain
    layers with the padding mask, which gives the same values elsewhere, and zeroes those
    positions."""
    if not encoder.use_nested_tensor or padding_mask is None or mask is not None or \
            src.dim() != 3:
        return None
    first = encoder.layers[0]
    if first.training:
        return None
    if is_grad_enabled() and (src.requires_grad or
                              any(p.requires_grad for p in first.parameters())):
        return None
    pad = padding_mask if padding_mask.dtype is _dtype.bool else padding_mask != 0
    if tuple(pad.shape) != tuple(src.shape[:2]):
        return None
    if bool((pad[:, :-1] & ~pad[:, 1:]).any()):
        # a sequence whose padding does not all come last: torch's mask_check then keeps the
        # plain path; without it the nested tensor holds each sequence's first n tokens,
        # n its count of unpadded ones
        if encoder.mask_check:
            return None
        kept = (~pad).sum(1, keepdim=True)
        pad = _ranges.arange(pad.shape[1], device=pad.device).unsqueeze(0) >= kept
    return pad


def _clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _square_causal_mask(sz, dtype=None):
    # Default dtype is float32 like torch's default floating type.
    return _creation.full((sz, sz), float("-inf"), dtype=dtype).triu(diagonal=1)


def _canonical_pair(padding_mask, padding_name, mask, mask_name, dtype):
    """Both masks as additive float masks, converted once where torch converts them (its
    mismatched-type warning names the caller's arguments; the layers below then see floats)."""
    padding_mask = _canonical_mask(padding_mask, padding_name, mask, mask_name, dtype)
    return padding_mask, _canonical_mask(mask, mask_name, None, "", dtype)

class TransformerEncoderLayer(Module):
    """Self-attention followed by a feed-forward block, each with a residual and LayerNorm.

    Args:
        d_model: model width.
        nhead: number of attention heads.
        dim_feedforward: hidden width of the feed-forward block.
        dropout: dropout probability.
        activation: ``"relu"``, ``"gelu"`` or a callable.
        layer_norm_eps: LayerNorm epsilon.
        batch_first: inputs are ``(N, S, E)`` instead of ``(S, N, E)``.
        norm_first: normalise before each block (pre-LN) instead of after.
        bias: learn biases in the linear layers and LayerNorms.

    Example:
        >>> layer = torch.nn.TransformerEncoderLayer(8, 2, 16)
        >>> layer(torch.randn(5, 3, 8)).shape
        torch.Size([5, 3, 8])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation_fn(activation)
        # as torch: 1 for ReLU, 2 for GELU (names, functions or modules), else 0; one of the
        # conditions of the encoder's nested-tensor fast path
        self.activation_relu_or_gelu = _relu_or_gelu(self.activation)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        act = _live(self.activation)
        return self.dropout2(self.linear2(self.dropout(act(self.linear1(x)))))

    def _ff_fast(self, x):
        # torch's fused inference kernel applies plain relu or exact gelu (the kind
        # ``activation_relu_or_gelu`` recorded), whatever the module's own settings (a
        # GELU(approximate='tanh') runs as exact gelu there)
        act = F.relu if self.activation_relu_or_gelu == 1 else F.gelu
        return self.linear2(act(self.linear1(x)))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """Run one encoder layer over ``src``."""
        src_key_padding_mask, src_mask = _canonical_pair(
            src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask", src.dtype)
        fast = _layer_fast_path(self, src)
        if fast:
            is_causal = False  # a hint torch's fast path drops (it uses src_mask as given)
            # the fused kernel shuts out every key a float mask gives a nonzero value
            src_key_padding_mask, src_mask = (
                None if m is None else m.new_zeros(()).expand(m.shape).masked_fill(
                    _blocked(m), float("-inf")) for m in (src_key_padding_mask, src_mask))
        x = src
        ff = self._ff_fast if fast else self._ff_block
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + ff(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + ff(x))
        if fast:
            x = _nan_fully_masked(x, src_key_padding_mask, src_mask, self.self_attn.num_heads)
        return x


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder memory, and a feed-forward block.

    Arguments are those of :class:`TransformerEncoderLayer`.

    Example:
        >>> layer = torch.nn.TransformerDecoderLayer(8, 2, 16)
        >>> layer(torch.randn(4, 3, 8), torch.randn(5, 3, 8)).shape
        torch.Size([4, 3, 8])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        act = _live(self.activation)
        return self.dropout3(self.linear2(self.dropout(act(self.linear1(x)))))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """Run one decoder layer over ``tgt`` attending to ``memory``."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x))


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of an encoder layer, optionally followed by ``norm``.

    Example:
        >>> enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16), 2)
        >>> enc(torch.randn(5, 3, 8)).shape
        torch.Size([5, 3, 8])
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        # Nested tensors are a fast path of torch's inference; numtorch keeps the flags (and
        # torch's warning when the layer rules the path out) and the path's zeros at padded
        # positions (_nested_padding), running the plain layers.
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _nested_tensor_blocker(encoder_layer) if enable_nested_tensor else None
        if why is not None:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {why}", stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Pass ``src`` through every layer (and the final norm)."""
        is_causal = bool(is_causal)
        padded = _nested_padding(self, src, mask, src_key_padding_mask)
        if padded is not None:
            src_key_padding_mask = padded  # what the nested tensor leaves out
        src_key_padding_mask, mask = _canonical_pair(
            src_key_padding_mask, "src_key_padding_mask", mask, "mask", src.dtype)
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=is_causal,
                        src_key_padding_mask=src_key_padding_mask)
        if padded is not None:
            out = out.masked_fill(padded.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of a decoder layer, optionally followed by ``norm``.

    Example:
        >>> dec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16), 2)
        >>> dec(torch.randn(4, 3, 8), torch.randn(5, 3, 8)).shape
        torch.Size([4, 3, 8])
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Pass ``tgt`` through every layer, each attending to ``memory``."""
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """Encoder-decoder Transformer.

    Args:
        d_model: model width.
        nhead: attention heads.
        num_encoder_layers: encoder depth.
        num_decoder_layers: decoder depth.
        dim_feedforward: feed-forward hidden width.
        dropout: dropout probability.
        activation: ``"relu"``, ``"gelu"`` or a callable.
        custom_encoder: use this encoder instead of building one.
        custom_decoder: use this decoder instead of building one.
        layer_norm_eps: LayerNorm epsilon.
        batch_first: inputs are batch-major.
        norm_first: pre-LN layers.
        bias: learn biases in linear layers and LayerNorms.

    Example:
        >>> m = torch.nn.Transformer(8, 2, 1, 1, 16)
        >>> m(torch.randn(5, 3, 8), torch.randn(4, 3, 8)).shape
        torch.Size([4, 3, 8])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, **kw)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src`` and decode ``tgt`` against the encoding."""
        batched = src.dim() == 3
        bdim = 0 if self.batch_first else 1
        if batched and src.shape[bdim] != tgt.shape[bdim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """Float ``(sz, sz)`` mask: ``-inf`` above the diagonal, 0 elsewhere."""
        return _square_causal_mask(sz, dtype)
