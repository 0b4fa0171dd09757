"""Attention: scaled dot-product attention and the multi-head attention forward pass.

``scaled_dot_product_attention`` runs the fused primitive
``numtorch.ops.attention_ops.scaled_dot_product`` (one node; output and gradients laid out like
the inputs) and falls back to a composition of existing ops (matmul, softmax, masked_fill,
dropout) for attention dropout, grouped-query heads, broadcast batch dims, half precision and
under vmap. ``multi_head_attention_forward`` projects with ``linear`` (one GEMM
for self-attention) and runs the heads through the fused primitive
``numtorch.ops.attention_ops.multi_head_attention_core`` (speed: one node instead of about
fifteen); options it does not cover (attention dropout, ``bias_k``/``bias_v``,
``add_zero_attn``, static keys) take the composed path. Gradients of any order work on both.
"""

import math
import warnings

import numpy as np

import numtorch

from ... import _dtype
from ...autograd import graph as _graph
from ...ops.attention_ops import (ScaledDotProductAttention, multi_head_attention_core,
                                  scaled_dot_product)
from . import _attention_half
from .dropout import dropout as _dropout
from .linear import linear_keep_layout as _linear
from .padding import pad as _pad
from ..attention import _flags as _sdp_flags

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_FUSED_DTYPES = (numtorch.float32, numtorch.float64)
_HALF_DTYPES = (numtorch.float16, numtorch.bfloat16)


def _is_bool(t):
    return t.dtype == numtorch.bool


def _safe_softmax(scores):
    """Softmax over the last dim where a row of only ``-inf`` gives zeros instead of NaN.

    Such rows are replaced by zeros before the softmax (so no NaN enters the graph and their
    gradient is zero) and their weights are zeroed afterwards.
    """
    # no test of whether any row is dead: that branch would depend on the values (which
    # vmap cannot batch); callers without a mask, where no row can be dead, skip this
    with numtorch.no_grad():
        dead = (scores == float("-inf")).all(dim=-1, keepdim=True)
    weights = numtorch.softmax(scores.masked_fill(dead, 0.0), dim=-1)
    return weights.masked_fill(dead, 0.0)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Attend from ``query`` over ``key``/``value``: ``softmax(q @ k^T * scale + mask) @ v``.

    Args:
        query: ``(..., L, E)`` queries.
        key: ``(..., S, E)`` keys.
        value: ``(..., S, Ev)`` values.
        attn_mask: boolean mask (True marks pairs that may attend) or float mask added to the
            scores; broadcast against ``(..., L, S)``.
        dropout_p: probability of dropping an attention weight (always applied when > 0).
        is_causal: use a lower-triangular mask; exclusive with ``attn_mask``.
        scale: factor for the scores; ``1 / sqrt(E)`` by default.
        enable_gqa: let ``query`` have a multiple of the key/value heads (dimension -3).

    Returns:
        Tensor of shape ``(..., L, Ev)``.
    """
    if attn_mask is None and not enable_gqa:
        out = _plain_call(query, key, value, dropout_p, is_causal, scale)
        if out is not None:
            return out
    hook = _graph._hook
    if hook is not None and getattr(hook, "count_call", None) is not None:  # FlopCounterMode
        return hook.count_call("scaled_dot_product_attention", scaled_dot_product_attention,
                               (query, key, value),
                               {"attn_mask": attn_mask, "dropout_p": dropout_p,
                                "is_causal": is_causal, "scale": scale,
                                "enable_gqa": enable_gqa})
    fn = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, numtorch.Tensor):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not (_sdp_flags.ENABLED[0] or _sdp_flags.ENABLED[1]):  # sdpa_kernel, enable_*_sdp
        _sdp_flags.check(query.device.type)
    cpp = _dtype._CPP_TYPE
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{cpp[query.dtype.name]} key.dtype: {cpp[key.dtype.name]} and value.dtype: "
            f"{cpp[value.dtype.name]} instead.")
    if attn_mask is not None and attn_mask.dtype not in (_dtype.bool, _dtype.float32,
                                                         query.dtype):
        raise RuntimeError(
            f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {cpp[attn_mask.dtype.name]} and  query.dtype: "
            f"{cpp[query.dtype.name]} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, "
                           f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
                           f"value.dim: {value.dim()} instead.")
    if enable_gqa:
        for t in (query, key, value):  # torch reads the head dim (-3) of all three
            if t.dim() < 3:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-t.dim()}, {t.dim() - 1}], but got -3)")
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")  # (torch's message ends there)
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    if key.shape[-1] != E:  # torch's CPU path fails in its batched product
        if query.dim() == 2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({L}x{E} and "
                               f"{key.shape[-1]}x{S})")
        batch = math.prod(query.shape[:-2])
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch}, {E}] but got: [{batch}, {key.shape[-1]}].")
    if attn_mask is not None and attn_mask.dtype is _dtype.float32 and \
            query.dtype is not _dtype.float32:
        attn_mask = attn_mask.to(query.dtype)  # a float32 mask serves any query dtype
    if is_causal and attn_mask is not None:
        # torch's math path refuses both; its CPU flash kernel applies both, the mask
        # restricted to the causal pattern. That kernel takes 4-d inputs of one batch size,
        # head count (unless grouped) and head size, without dropout.
        flash = all(t.dim() == 4 for t in (query, key, value)) and dropout_p == 0 and \
            query.shape[-1] == key.shape[-1] == value.shape[-1] and \
            query.shape[0] == key.shape[0] == value.shape[0] and \
            key.shape[1] == value.shape[1] and (enable_gqa or query.shape[1] == key.shape[1])
        if not flash:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not "
                               "be set when is_causal=True")
        causal = numtorch.ones(L, S, dtype=_dtype.bool, device=query.device).tril()
        attn_mask = attn_mask & causal if attn_mask.dtype is _dtype.bool else \
            attn_mask.masked_fill(~causal, float("-inf"))
        is_causal = False
    if value.shape[-2] != S:  # torch's CPU path fails in its product with ``value``
        if query.dim() == 2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({L}x{S} and "
                               f"{value.shape[-2]}x{value.shape[-1]})")
        batch = math.prod(query.shape[:-2])
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch}, {S}] but got: [{batch}, {value.shape[-2]}].")
    if enable_gqa:  # key and value each repeated up to the query's heads
        if key.shape[-3] != query.shape[-3]:
            key = key.repeat_interleave(query.shape[-3] // key.shape[-3], dim=-3)
        if value.shape[-3] != query.shape[-3]:
            value = value.repeat_interleave(query.shape[-3] // value.shape[-3], dim=-3)
    if attn_mask is not None and _is_bool(attn_mask):
        _check_mask_shape(query, key, attn_mask)
    factor = 1.0 / math.sqrt(E) if scale is None else scale
    if dropout_p > 1.0:  # torch's dropout check, a RuntimeError here (F.dropout's is a ValueError)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if dropout_p <= 0.0:
        if query.dtype in _HALF_DTYPES and query.device.type == "cpu":
            if _attention_half.applies(query, key, value, attn_mask):
                return _named_as_torch(_attention_half.attention(
                    query, key, value, attn_mask, is_causal, factor), query)
            return _named_as_torch(_half_attention(query, key, value, attn_mask, is_causal,
                                                   factor), query)
        if _fusable(query, key, value, attn_mask):
            out = scaled_dot_product(query, key, value, attn_mask, factor, is_causal)
        else:
            out = _composed(query, key, value, attn_mask, dropout_p, is_causal, factor)
        return _named_as_torch(out, query)
    return _composed(query, key, value, attn_mask, dropout_p, is_causal, factor)


def _check_mask_shape(query, key, mask):
    """torch turns a boolean mask into an additive one and adds it to the scores: a mask that
    does not broadcast fails there, with the scores as the first operand."""
    try:
        batch = numtorch.broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]))
    except RuntimeError:
        return  # the product of query and key fails with torch's error
    scores = tuple(batch) + (query.shape[-2], key.shape[-2])
    ms = tuple(mask.shape)
    n = max(len(scores), len(ms))
    for i in range(1, n + 1):
        a = scores[-i] if i <= len(scores) else 1
        b = ms[-i] if i <= len(ms) else 1
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                               f"({b}) at non-singleton dimension {n - i}")


_HOST_FUSED = (np.dtype(np.float32), np.dtype(np.float64))
_CPU_NODE = {2: "MmBackward0", 4: "ScaledDotProductFlashAttentionForCpuBackward0"}


def _plain_call(query, key, value, dropout_p, is_causal, scale):
    """The usual call, straight to the fused op: CPU tensors of one float32/float64 dtype and
    matching shapes, no mask and no dropout, so none of the general path's checks can fail
    (they cost three times the op at nanoGPT's smallest sizes). None for anything else."""
    Tensor = numtorch.Tensor
    if not (isinstance(query, Tensor) and isinstance(key, Tensor) and isinstance(value, Tensor)
            and (type(dropout_p) is float or type(dropout_p) is int) and dropout_p <= 0
            and _graph._hook is None and (_sdp_flags.ENABLED[0] or _sdp_flags.ENABLED[1])):
        return None
    q, k, v = query._array, key._array, value._array
    if not (type(q) is np.ndarray and type(k) is np.ndarray and type(v) is np.ndarray):
        return None
    dt = q.dtype
    qs, ks, vs = q.shape, k.shape, v.shape
    if not (dt in _HOST_FUSED and k.dtype == dt and v.dtype == dt and len(qs) >= 2
            and qs[:-2] == ks[:-2] == vs[:-2] and ks[-1] == qs[-1] and vs[-2] == ks[-2]):
        return None
    factor = 1.0 / math.sqrt(qs[-1]) if scale is None else scale
    return ScaledDotProductAttention.apply(
        query, key, value, scale=float(factor), causal=bool(is_causal),
        node_name=_CPU_NODE.get(len(qs), "UnsafeViewBackward0"))


def _named_as_torch(out, query):
    """The node name torch's CPU kernel choice gives (grad_fn reprs print it): the flash
    kernel for 4-d inputs, else the math path's last op (a matrix product for 2-d, a view of
    the batched product otherwise)."""
    if out.grad_fn is None or query.device.type != "cpu":
        return out
    if query.dim() != 4 and query.dtype in _HALF_DTYPES:
        return out  # the math path's float32 result cast back: ToCopyBackward0, as torch's
    name = {2: "MmBackward0", 4: "ScaledDotProductFlashAttentionForCpuBackward0"}.get(
        query.dim(), "UnsafeViewBackward0")
    return _graph.rename_node(out, name)


def _composed(query, key, value, attn_mask, dropout_p, is_causal, factor):
    L, S = query.shape[-2], key.shape[-2]
    scores = numtorch.matmul(query, key.transpose(-2, -1)) * factor
    if is_causal:
        allowed = numtorch.ones((L, S), dtype=numtorch.bool, device=query.device).tril()
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
    elif attn_mask is not None:
        if _is_bool(attn_mask):
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    # only a mask can leave a row with no allowed key (a causal mask keeps the first one)
    weights = _safe_softmax(scores) if attn_mask is not None else numtorch.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = _dropout(weights, dropout_p, training=True)
    return numtorch.matmul(weights, value)


def _half_attention(query, key, value, attn_mask, is_causal, factor):
    """float16/bfloat16 attention with torch's CPU roundings: its flash kernel (4-d inputs)
    keeps the scores and their exponentials in float32, rounds the exponentials to the input
    type for the product with ``value`` (accumulated in float32) and divides by the float32
    sum; its math path (other ranks) works in float32 throughout. Both round the result once.
    """
    half = query.dtype
    q, k, v = query.float(), key.float(), value.float()
    if attn_mask is not None and not _is_bool(attn_mask):
        attn_mask = attn_mask.float()
    if query.dim() != 4:
        return _composed(q, k, v, attn_mask, 0.0, is_causal, factor).to(half)
    scores = numtorch.matmul(q, k.transpose(-2, -1)) * factor
    if is_causal:
        L, S = query.shape[-2], key.shape[-2]
        allowed = numtorch.ones((L, S), dtype=numtorch.bool, device=query.device).tril()
        scores = scores.masked_fill(allowed.logical_not(), float("-inf"))
    elif attn_mask is not None:
        scores = scores.masked_fill(attn_mask.logical_not(), float("-inf")) \
            if _is_bool(attn_mask) else scores + attn_mask
    with numtorch.no_grad():  # the shift leaves the result unchanged (a row of -inf: 0)
        top = scores.amax(-1, keepdim=True)
        top = top.masked_fill(top == float("-inf"), 0.0)
    e = (scores - top).exp()
    total = e.sum(-1, keepdim=True)
    if attn_mask is not None:  # a query with no key to see gives 0, as the kernel's
        total = total.masked_fill(total == 0, 1.0)
    return (numtorch.matmul(e.to(half).float(), v) / total).to(half)


def _fusable(query, key, value, attn_mask):
    """Whether the fused primitive (``ops.attention_ops.scaled_dot_product``) covers this
    call: float32/float64 operands with equal batch dims, a mask (if any) that broadcasts to
    the scores without widening them, and no vmap active (the primitive has no batching
    rule; the composed ops do)."""
    if query.dtype not in _FUSED_DTYPES or _graph._hook is not None:
        return False
    qs, ks, vs = query.shape, key.shape, value.shape
    if qs[:-2] != ks[:-2] or qs[:-2] != vs[:-2]:
        return False
    if attn_mask is None:
        return True
    if not isinstance(attn_mask, numtorch.Tensor) or not (
            _is_bool(attn_mask) or attn_mask.dtype == query.dtype):
        return False
    scores = tuple(qs[:-1]) + (ks[-2],)
    ms = tuple(attn_mask.shape)
    if len(ms) > len(scores):
        return False
    return all(m in (1, s) for m, s in zip(ms[::-1], scores[::-1]))


def _canonical_mask(mask, name, other, other_name, target_dtype):
    """Turn a boolean mask (True = blocked) into an additive float mask of ``target_dtype``."""
    if mask is None:
        return None
    if not _is_bool(mask) and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. "
                      "Use same type for both instead.")
    if _is_bool(mask):
        zeros = numtorch.zeros(tuple(mask.shape), dtype=target_dtype, device=mask.device)
        return zeros.masked_fill(mask, float("-inf"))
    return mask


def _check_padding_mask(key_padding_mask, bsz, src_len):
    for i, want in enumerate((bsz, src_len)):  # torch's words (its spelling too)
        if key_padding_mask.shape[i] != want:
            raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                 f"{key_padding_mask.shape[i]}")


def _project_inputs(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                    use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight):
    """(q, k, v) projections; for self-attention with the packed weight, ``(qkv, None,
    None)`` from one GEMM, the three side by side in the last dim."""
    E = query.shape[-1]
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:
            return _linear(query, in_proj_weight, in_proj_bias), None, None
        ws = in_proj_weight.chunk(3, dim=0)
    else:
        for n, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {n}_proj_weight is None")
        for n, w, x in (("key", k_proj_weight, key), ("value", v_proj_weight, value)):
            if tuple(w.shape) != (E, x.shape[-1]):
                raise AssertionError(f"expecting {n} weights shape of {(E, x.shape[-1])}, but "
                                     f"got {w.shape}")
        ws = (q_proj_weight, k_proj_weight, v_proj_weight)
    bs = (None, None, None) if in_proj_bias is None else in_proj_bias.split(E, dim=0)
    return tuple(_linear(x, w, b) for x, w, b in zip((query, key, value), ws, bs))


def _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(bsz * num_heads, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on sequence-first inputs ``(L, N, E)`` (or unbatched ``(L, E)``).

    Masks follow the module's convention: in a boolean ``key_padding_mask`` or ``attn_mask``
    True marks a position that must NOT be attended; float masks are added to the scores.

    Returns:
        ``(output, weights)``: output ``(L, N, E)``; weights ``(N, L, S)`` averaged over the
        heads (``(N, H, L, S)`` when ``average_attn_weights`` is False) or None when
        ``need_weights`` is False.
    """
    batched = query.dim() == 3
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {'batched' if batched else 'unbatched'} "
                             f"{query.dim()}-D `query`, expected `key` and `value` to be "
                             f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D "
                             "tensors respectively")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(f"For {'batched (3-D)' if batched else 'unbatched (2-D)'} "
                             "`query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                             f"found {attn_mask.dim()}-D tensor instead")
    if batched and key_padding_mask is not None and key_padding_mask.dim() != 2:
        raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                             f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                             "instead")
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            if key_padding_mask.dim() != 1:
                raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` "
                                     f"to be `None` or 1-D but found {key_padding_mask.dim()}-D "
                                     "tensor instead")
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, "
                             f"but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:  # (kdim/vdim may differ: only the leading dims must agree)
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not "
                                 f"match value's {value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # torch then attends causally and drops attn_mask (is_causal promises it is causal)
        attn_mask = numtorch.ones(tgt_len, src_len, dtype=numtorch.bool,
                                  device=query.device).triu(1)
    dtype = query.dtype
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                       "attn_mask", dtype)
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dtype)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)

    q, k, v = _project_inputs(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                              use_separate_proj_weight, q_proj_weight, k_proj_weight,
                              v_proj_weight)
    for t in (k, v):  # torch views the projections as heads: keys of another batch size fail
        if t is not None and t.shape[1] != bsz and bias_k is None:  # (else cat fails first)
            raise RuntimeError(f"shape '[{t.shape[0]}, {bsz * num_heads}, {head_dim}]' is "
                               f"invalid for input of size {t.numel()}")
    if not training:
        dropout_p = 0.0
    # the fused primitive covers everything but these options (and half-precision types,
    # which the composed ops compute in float32 as torch does)
    if (static_k is None and static_v is None and not add_zero_attn and dropout_p <= 0.0
            and bias_k is None and bias_v is None and q.dtype in _FUSED_DTYPES):
        out, weights = _fused_heads(q, k, v, attn_mask, key_padding_mask, num_heads,
                                    need_weights)
        return _finish(out, weights, out_proj_weight, out_proj_bias, batched, need_weights,
                       average_attn_weights)
    if k is None:
        q, k, v = q.chunk(3, dim=-1)
    if bias_k is not None and bias_v is not None:
        k = numtorch.cat([k, bias_k.expand(1, bsz, embed_dim)], dim=0)
        v = numtorch.cat([v, bias_v.expand(1, bsz, embed_dim)], dim=0)
        if attn_mask is not None:
            attn_mask = _pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _pad(key_padding_mask, (0, 1))
    elif (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    # (L, N, E) -> (N * H, L, head_dim), the batch-major layout the heads are computed in.
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) \
        if static_k is None else static_k
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) \
        if static_v is None else static_v
    if add_zero_attn:
        k = numtorch.cat([k, numtorch.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype,
                                         device=k.device)],
                         dim=1)
        v = numtorch.cat([v, numtorch.zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype,
                                         device=v.device)],
                         dim=1)
        if attn_mask is not None:
            attn_mask = _pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = _pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        _check_padding_mask(key_padding_mask, bsz, src_len)
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not need_weights and dropout_p <= 0.0 and q.dtype in _HALF_DTYPES and \
            q.device.type == "cpu":
        # torch's weightless path is scaled_dot_product_attention on (N, H, L, E) heads (its
        # 16-bit roundings differ from the composed ops' on ~half of the outputs)
        if attn_mask is not None and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
                attn_mask.reshape(bsz, num_heads, -1, src_len)
        out = scaled_dot_product_attention(
            q.reshape(bsz, num_heads, tgt_len, head_dim), k.reshape(bsz, num_heads, src_len,
                                                                    head_dim),
            v.reshape(bsz, num_heads, src_len, head_dim), attn_mask=attn_mask)
        out = out.permute(2, 0, 1, 3).reshape(tgt_len, bsz, embed_dim)
        return _finish(out, None, out_proj_weight, out_proj_bias, batched, need_weights,
                       average_attn_weights)
    scores = numtorch.matmul(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))
    if attn_mask is not None:
        scores = scores + attn_mask
    # torch computes the weightless path with scaled_dot_product_attention, where rows with
    # every key masked give zeros; the path returning weights gives NaN there.
    weights = _safe_softmax(scores) if not need_weights else numtorch.softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = _dropout(weights, dropout_p, training=True)
    out = numtorch.matmul(weights, v)
    out = out.transpose(0, 1).reshape(tgt_len, bsz, embed_dim)
    return _finish(out, weights.reshape(bsz, num_heads, tgt_len, src_len), out_proj_weight,
                   out_proj_bias, batched, need_weights, average_attn_weights)


def _fused_heads(q, k, v, attn_mask, key_padding_mask, num_heads, need_weights):
    """The heads through the fused attention primitive: ``(out (L, N, E), weights (N, H, L,
    S) or None)``; ``k``/``v`` None when ``q`` holds the packed projections."""
    tgt_len, bsz = q.shape[0], q.shape[1]
    src_len = tgt_len if k is None else k.shape[0]
    head_dim = (q.shape[-1] // 3 if k is None else q.shape[-1]) // num_heads
    mask = None
    if attn_mask is not None:  # (1 or N*H, L, S) -> broadcastable to (N, H, L, S)
        mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
            attn_mask.reshape(bsz, num_heads, tgt_len, src_len)
    if key_padding_mask is not None:
        _check_padding_mask(key_padding_mask, bsz, src_len)
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len)
        mask = kpm if mask is None else mask + kpm
    # torch computes the weightless path with scaled_dot_product_attention, where rows with
    # every key masked give zeros; the path returning weights gives NaN there.
    res = multi_head_attention_core(q, k, v, mask, num_heads, 1.0 / math.sqrt(head_dim),
                                    safe=not need_weights, need_weights=need_weights)
    return res if need_weights else (res, None)


def _finish(out, weights, out_proj_weight, out_proj_bias, batched, need_weights,
            average_attn_weights):
    """Output projection of the merged heads (L, N, E) and the (averaged) weights."""
    hook = _graph._hook
    if hook is not None and getattr(hook, "count_call", None) is not None:
        # a FlopCounterMode sees torch's one addmm on the heads as rows of one matrix; the
        # plain path keeps the merged heads' memory order (a batch-first output stays
        # row-major, without a copy)
        tgt_len, bsz, width = out.shape
        out = _linear(out.reshape(tgt_len * bsz, width), out_proj_weight,
                      out_proj_bias).view(tgt_len, bsz, out_proj_weight.shape[0])
    else:
        out = _linear(out, out_proj_weight, out_proj_bias)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        weights = weights.squeeze(0)
    return out, weights
