"""``backends.mha``: whether MultiheadAttention and TransformerEncoderLayer may take torch's
inference fast path. numtorch has one implementation, but the fast path has visible rules
of its own (``is_causal`` without a mask is ignored there, a fully masked query row gives
nan), which numtorch follows while this flag is on."""

_is_fastpath_enabled = True


def get_fastpath_enabled():
    """Whether the inference fast path of the attention modules is allowed."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value):
    """Allow (True) or forbid (False) the attention modules' inference fast path."""
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
