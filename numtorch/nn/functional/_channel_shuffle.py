"""``channel_shuffle``: interleave the channels of ``groups`` groups (ShuffleNet)."""

from ...autograd.graph import rename_node
from ...ops._util import fmt_shape
from ._memory_format import suggest

__all__ = ["channel_shuffle"]


def channel_shuffle(input, groups):
    """Split the channels (dim 1) into ``groups`` groups and interleave them: channel ``j`` of
    group ``i`` moves to position ``j * groups + i``.

    Args:
        input (Tensor): of shape ``(N, C, *)`` with at least three dims, ``C`` divisible by
            ``groups``.
        groups (int): the number of groups.

    Example:
        >>> torch.channel_shuffle(torch.arange(4.).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    shape = tuple(input.shape)
    if len(shape) <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {fmt_shape(shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    c = shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    out = input.reshape(shape[0], groups, c // groups, *shape[2:]).transpose(1, 2)
    fmt = suggest(input)  # torch keeps a channels-last input's layout
    out = out.reshape(shape)
    out = out.contiguous() if fmt is None else out.contiguous(memory_format=fmt)
    return rename_node(out, "ChannelShuffleBackward0")
