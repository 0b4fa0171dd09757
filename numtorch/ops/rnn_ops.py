"""Primitive used by the recurrent layers (numtorch.nn.modules.rnn).

Why a primitive: the layers project every time step with one matmul, then read the steps one
by one. Reading them with ``unbind`` makes each step's backward scatter into a zero tensor of
the whole sequence, so backward costs O(T^2). ``unbind_steps`` is one node whose backward
stacks the step gradients once: O(T).
"""

from .. import ops
from ..autograd.graph import Op

__all__ = ["unbind_steps"]


class UnbindSteps(Op):
    """ys[t] = x[t] for every t along dim 0; dx = stack(dys)."""

    def forward(self, x):
        # views are safe: the layers feed a fresh intermediate that nothing writes in place
        return tuple(x[t] for t in range(x.shape[0]))

    def backward(self, *grads):
        return ops.stack(list(grads), 0)


def unbind_steps(x):
    """Split ``x`` along dim 0 into its slices, with a single O(T) backward node.

    Args:
        x (Tensor): at least 1-D; for the recurrent layers ``(T, B, G)``.

    Returns:
        tuple of Tensor: ``x[0], ..., x[T-1]``.
    """
    if x.shape[0] == 1:
        return (x.squeeze(0),)
    return UnbindSteps.apply(x)
