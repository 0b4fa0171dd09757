"""``torch.nn.attention.flex_attention``: attention with a user score function and a
block-sparse mask.

numtorch computes it as torch's eager (uncompiled) path does: the whole score matrix, with
``score_mod`` and ``mask_mod`` called once on broadcast index tensors (not per position),
composed from differentiable ops, so gradients reach the inputs and any tensor the
functions capture.
"""

import math
import typing
import warnings

from ... import _dtype
from ..._tensor import Tensor
from ._block_mask import (  # noqa: F401
    _DEFAULT_SPARSE_BLOCK_SIZE,
    _LARGE_SPARSE_BLOCK_SIZE,
    BlockMask,
    _sliced_mask_mod_error,
    and_masks,
    create_block_mask,
    create_mask,
    index_grids,
    noop_mask,
    or_masks,
)

__all__ = [
    "AuxOutput",
    "AuxRequest",
    "BlockMask",
    "FlexKernelOptions",
    "and_masks",
    "create_block_mask",
    "create_mask",
    "flex_attention",
    "noop_mask",
    "or_masks",
]

# torch reads the compile-debug switch here; numtorch always runs the eager composition
_FLEX_ATTENTION_DISABLE_COMPILE_DEBUG = False
_WARNINGS_SHOWN = set()


class AuxRequest(typing.NamedTuple):
    """Which extra outputs :func:`flex_attention` should return (``return_aux=``)."""

    lse: bool = False
    max_scores: bool = False


class AuxOutput(typing.NamedTuple):
    """Extra outputs of :func:`flex_attention`: ``lse`` (B, H, Q) and ``max_scores``."""

    lse: Tensor | None = None
    max_scores: Tensor | None = None


class FlexKernelOptions(typing.TypedDict, total=False):
    """Tuning options of torch's fused kernels; accepted and unused by the composition."""


def _identity(score, batch, head, token_q, token_kv):
    return score


def _warn_once(key, message, category):
    if key not in _WARNINGS_SHOWN:
        _WARNINGS_SHOWN.add(key)
        warnings.warn(message, category, stacklevel=3)


def _check_inputs(query, key, value, block_mask, enable_gqa):
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    if query.size(-1) != key.size(-1):
        raise ValueError("Expect query and key/value to have the same embedding dimension "
                         f"but got E={query.size(-1)} and E={key.size(-1)}.")
    bq, hq = query.shape[:2]
    bkv, hkv = key.shape[:2]
    if bq != bkv and (block_mask is None or bkv != 1):
        raise ValueError("Expect query and key/value to have the same batch size, or "
                         f"non-none block_mask, but got block_mask={block_mask}, Bq={bq}, "
                         f"and Bkv={bkv}.")
    if hq != hkv:
        if not enable_gqa:
            raise ValueError("Expect query and key/value to have the same number of heads "
                             f"but got Hq={hq} and Hkv={hkv}. Try setting enable_gqa=True "
                             "for GQA.")
        if hq % hkv:
            raise ValueError("Expect number of query heads to be a multiple of kv heads for "
                             f"GQA but got Hq={hq} and Hkv={hkv}.")
    if key.shape[:3] != value.shape[:3]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{bkv * hkv}, {key.size(2)}] but got: "
                           f"[{value.size(0) * value.size(1)}, {value.size(2)}].")
    if block_mask is not None:
        mask_q, mask_kv = block_mask.seq_lengths
        q_len, kv_len = query.size(2), key.size(2)
        if (mask_q, mask_kv) != (q_len, kv_len):
            shape = block_mask.shape
            if mask_q >= q_len and mask_kv >= kv_len:
                advice = ("As the block mask was created for a larger length than you're "
                          "using it for, you can either 1. create a new block mask with the "
                          "correct length, or 2. 'adjust' the existing block mask to the "
                          "correct length by calling block_mask._adjust(q_len, kv_len). This "
                          "essentially 'crops' the block mask to the upper left corner, which "
                          "does not work for all mask_mods!")
            else:
                advice = ("As the block mask was created for a smaller length than you're "
                          "using it for, you likely need to create a new block mask.")
            raise ValueError(f"block_mask was created for block_mask.shape={shape} but got "
                             f"q_len={q_len} and kv_len={kv_len}. {advice}")


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None,
                   enable_gqa=False, return_lse=False, kernel_options=None, *,
                   return_aux=None):
    """Attention whose scores pass through ``score_mod`` and whose positions are limited by
    ``block_mask``.

    .. math:: \\mathrm{out} = \\mathrm{softmax}(\\mathrm{score\\_mod}(QK^T \\cdot
              \\mathrm{scale}))\\,V

    Args:
        query (Tensor): (B, Hq, L, E).
        key (Tensor): (B, Hkv, S, E).
        value (Tensor): (B, Hkv, S, Ev).
        score_mod (callable, optional): ``score_mod(score, b, h, q_idx, kv_idx)`` returns
            the new score. The arguments are broadcastable tensors covering every position.
        block_mask (BlockMask, optional): which positions may be attended (from
            :func:`create_block_mask`). Default: all.
        scale (float, optional): score scale. Default: ``1 / sqrt(E)``.
        enable_gqa (bool): allow Hq to be a multiple of Hkv (grouped-query attention).
        return_lse (bool): also return the log-sum-exp of the scores (B, Hq, L).
            Deprecated in torch for ``return_aux=AuxRequest(lse=True)``.
        kernel_options (dict, optional): fused-kernel tuning; unused.
        return_aux (AuxRequest, optional): which extra outputs to return as an AuxOutput.

    Returns:
        Tensor (B, Hq, L, Ev), with the lse or an AuxOutput when asked. A query row with no
        allowed position gives zeros (and an lse of -inf).

    Example:
        >>> q = torch.randn(1, 2, 8, 4)
        >>> causal = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, 8, 8)
        >>> flex_attention(q, q, q, block_mask=causal).shape
        torch.Size([1, 2, 8, 4])

    Note:
        torch warns that the uncompiled call materialises the score matrix; numtorch always
        does so and does not warn. ``max_scores`` is refused on the CPU, as in torch.
    """
    if return_lse and return_aux is not None:
        raise ValueError("Cannot specify both return_lse and return_aux. return_lse is "
                         "deprecated, please use return_aux=AuxRequest(lse=True) instead.")
    if return_lse:
        _warn_once("deprecated_return_lse", "return_lse is deprecated and will be removed in "
                   "v2.10. Please use return_aux=AuxRequest(lse=True) instead.", FutureWarning)
    if return_aux is not None and return_aux.max_scores:
        raise NotImplementedError("Returning max scores is not supported on CPU/MPS.")
    _check_inputs(query, key, value, block_mask, enable_gqa)
    if scale is None:
        scale = 1.0 / math.sqrt(query.size(-1))
    out, lse = _attend(query, key, value, score_mod, block_mask, scale)
    if return_aux is not None:
        return out, AuxOutput(lse=lse if return_aux.lse else None)
    if return_lse:
        return out, lse
    return out


def _attend(query, key, value, score_mod, block_mask, scale):
    batch, q_heads, q_len, _ = query.shape
    kv_heads, kv_len = key.size(1), key.size(2)
    # torch's CPU path computes half precision in float32; the output keeps query's dtype
    work = _dtype.float64 if query.dtype == _dtype.float64 else _dtype.float32
    q, k, v = query.to(work), key.to(work), value.to(work)
    group = q_heads // kv_heads
    # grouped-query attention: query head h reads kv head h // group, without copying k/v
    q5 = q.reshape(batch, kv_heads, group, q_len, q.size(-1))
    scores = (q5 @ k.unsqueeze(2).transpose(-2, -1)).reshape(batch, q_heads, q_len, kv_len)
    scores = scores * scale
    if score_mod is not None:
        b, h, qi, ki = index_grids(batch, q_heads, q_len, kv_len, query.device)
        scores = score_mod(scores, b, h, qi, ki)
        if scores.shape != (batch, q_heads, q_len, kv_len):
            scores = scores.expand(batch, q_heads, q_len, kv_len)
    if block_mask is not None:
        allowed = block_mask._element_mask(batch, q_heads, q_len, kv_len, query.device)
        scores = scores.masked_fill(~allowed, float("-inf"))
    # a row with nothing allowed has max -inf: shift by 0 there so exp gives 0, not nan
    row_max = scores.detach().amax(dim=-1, keepdim=True)
    row_max = row_max.masked_fill(row_max == float("-inf"), 0.0)
    weights = (scores - row_max).exp()
    total = weights.sum(dim=-1, keepdim=True)
    probs = weights / total.masked_fill(total == 0, 1.0)
    probs5 = probs.reshape(batch, kv_heads, group, q_len, kv_len)
    out = (probs5 @ v.unsqueeze(2)).reshape(batch, q_heads, q_len, v.size(-1))
    lse = (total.log() + row_max).squeeze(-1)
    return out.to(query.dtype), lse
