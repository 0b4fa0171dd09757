"""``torch.nn.attention.bias``: causal attention masks for sequences whose query and key
lengths differ.

A :class:`CausalBias` is a boolean Tensor (``True`` = may attend) of shape
``(seq_len_q, seq_len_kv)``, so passing it as ``attn_mask`` to
:func:`numtorch.nn.functional.scaled_dot_product_attention` applies it.
"""

import enum
import warnings

from ..._tensor import Tensor

__all__ = ["CausalVariant", "CausalBias", "causal_upper_left", "causal_lower_right"]


class CausalVariant(enum.IntEnum):
    """Where the causal diagonal sits when the query and key lengths differ.

    UPPER_LEFT: query ``i`` sees keys ``0..i`` (the diagonal starts at the top left).
    LOWER_RIGHT: the last query sees every key (the diagonal ends at the bottom right).
    """

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


def _mask(variant, seq_len_q, seq_len_kv, device=None):
    import numtorch

    ones = numtorch.ones(seq_len_q, seq_len_kv, dtype=numtorch.bool, device=device)
    offset = 0 if variant == CausalVariant.UPPER_LEFT else seq_len_kv - seq_len_q
    return ones.tril(offset)


class CausalBias(Tensor):
    """A causal attention mask (boolean, ``(seq_len_q, seq_len_kv)``) that records its
    variant; build it with :func:`causal_upper_left` or :func:`causal_lower_right`.

    Note: torch's CausalBias is an opaque tensor subclass dispatched inside attention;
    numtorch's holds the mask itself, which scaled dot product attention applies as any
    boolean mask.
    """

    def __new__(cls, variant, seq_len_q, seq_len_kv):
        mask = _mask(variant, seq_len_q, seq_len_kv)
        out = Tensor._make_subclass(cls, mask)
        out.variant, out.seq_len_q, out.seq_len_kv = variant, seq_len_q, seq_len_kv
        return out

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if variant == CausalVariant.LOWER_RIGHT and seq_len_q > seq_len_kv:
            warnings.warn("Lower right causal bias will produce NaNs in the output when "
                          "seq_len_q > seq_len_kv!", stacklevel=3)

    def _materialize(self, device=None):
        """The mask as a plain boolean tensor (on ``device`` if given)."""
        return _mask(self.variant, self.seq_len_q, self.seq_len_kv, device)

    def __repr__(self):
        return repr(self._materialize())


def causal_upper_left(*size):
    """A :class:`CausalBias` of the UPPER_LEFT variant; ``size`` is
    ``(seq_len_q, seq_len_kv)``."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    return CausalBias(CausalVariant.UPPER_LEFT, *size)


def causal_lower_right(*size):
    """A :class:`CausalBias` of the LOWER_RIGHT variant; ``size`` is
    ``(seq_len_q, seq_len_kv)``."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    return CausalBias(CausalVariant.LOWER_RIGHT, *size)
