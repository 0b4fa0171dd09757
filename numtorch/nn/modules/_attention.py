"""MultiheadAttention (torch's ``nn.modules.activation``, re-exported there; ``__module__``
names that path so pickles do)."""

from ... import _creation, _dtype
from ...autograd.grad_mode import is_grad_enabled
from ...backends import mha as mha_backend
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Attention over ``num_heads`` parallel subspaces of the embedding.

    Args:
        embed_dim: model width; must be divisible by ``num_heads``.
        num_heads: number of heads.
        dropout: dropout on the attention weights (training only).
        bias: learn input and output projection biases.
        add_bias_kv: append a learned bias to the key and value sequences.
        add_zero_attn: append a zero step to the key and value sequences.
        kdim: key width (``embed_dim`` by default).
        vdim: value width (``embed_dim`` by default).
        batch_first: inputs and outputs are ``(N, L, E)`` instead of ``(L, N, E)``.

    Example:
        >>> m = torch.nn.MultiheadAttention(8, 2)
        >>> x = torch.randn(5, 3, 8)
        >>> m(x, x, x)[0].shape
        torch.Size([5, 3, 8])
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        kw = {"dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_creation.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_creation.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(_creation.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(_creation.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_creation.empty((3 * embed_dim,), **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(_creation.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(_creation.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """Xavier-uniform projections, zero biases, Xavier-normal key/value biases."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attend from ``query`` over ``key``/``value``; returns ``(output, weights)``."""
        fast = _fast_path(self, query, key, value, key_padding_mask, attn_mask)
        if fast:
            is_causal = False  # torch's fast path drops the hint and uses attn_mask as given
        batched = query.dim() == 3
        if self.batch_first and batched:
            # self-attention keeps one tensor for all three, so F projects them in one GEMM
            if query is key and key is value:
                query = key = value = query.transpose(1, 0)
            elif key is value:
                query, key = query.transpose(1, 0), key.transpose(1, 0)
                value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        if fast and not need_weights:
            out = _nan_fully_masked(out, key_padding_mask, attn_mask, self.num_heads)
        return out, weights


def _fast_path(m, query, key, value, key_padding_mask, attn_mask):
    """Whether torch would run ``m`` on its inference fast path (self-attention on batched,
    batch-first inputs in eval mode with nothing to differentiate, default projections, an
    even head count, boolean masks)."""
    if not (mha_backend.get_fastpath_enabled() and query is key and key is value and
            query.dim() == 3 and m.batch_first and not m.training):
        return False
    if m.bias_k is not None or m.add_zero_attn or not m._qkv_same_embed_dim or \
            m.in_proj_bias is None or m.num_heads % 2:
        return False
    if any(mask is not None and mask.dtype is not _dtype.bool
           for mask in (key_padding_mask, attn_mask)):
        return False
    return not (is_grad_enabled() and any(
        t.requires_grad for t in (query, m.in_proj_weight, m.in_proj_bias, m.out_proj.weight,
                                  m.out_proj.bias) if t is not None))


def _blocked(mask):
    """Where a mask shuts a key out on torch's fast path: True entries of a bool mask, every
    nonzero entry of a float one (the fused kernel reads a float mask as a boolean one)."""
    return mask if mask.dtype is _dtype.bool else mask != 0


def _nan_fully_masked(out, key_padding_mask, attn_mask, num_heads):
    """The (N, L, E) output with nan in the rows whose query sees no key in some head: the
    fast path's softmax over nothing (the composed path, without weights, gives 0 there)."""
    n, length = out.shape[0], out.shape[1]
    blocked = None
    if attn_mask is not None:
        attn_mask = _blocked(attn_mask)
        am = attn_mask if attn_mask.dim() == 3 else attn_mask.unsqueeze(0)
        blocked = am.reshape(-1, 1, length, am.shape[-1]) if am.shape[0] == 1 else \
            am.reshape(n, num_heads, length, am.shape[-1])
    if key_padding_mask is not None:
        kp = _blocked(key_padding_mask).reshape(n, 1, 1, key_padding_mask.shape[-1])
        blocked = kp if blocked is None else blocked | kp
    if blocked is None:
        return out
    rows = blocked.all(-1).any(1)
    if rows.shape[-1] != length:
        rows = rows.expand(n, length)
    if not bool(rows.any()):
        return out
    return out.masked_fill(rows.expand(n, length).unsqueeze(-1), float("nan"))


MultiheadAttention.__module__ = "numtorch.nn.modules.activation"
