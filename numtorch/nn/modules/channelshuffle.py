"""``ChannelShuffle``: the module form of :func:`numtorch.nn.functional.channel_shuffle`."""

from ..functional._channel_shuffle import channel_shuffle
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups (see :func:`channel_shuffle`).

    Args:
        groups (int): the number of channel groups.

    Shape:
        - Input: ``(N, C, *)`` with ``C`` divisible by ``groups``.
        - Output: the same shape.
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
