"""Stochastic depth: drop a residual branch for whole samples (or the whole batch) while
training, rescaling the survivors so the expected output is unchanged."""

import numtorch
import numtorch.fx
from numtorch import nn

__all__ = ["stochastic_depth", "StochasticDepth"]


def stochastic_depth(input, p, mode, training=True):
    """Zero ``input`` with probability ``p`` per sample (``mode="row"``) or for the whole
    batch (``mode="batch"``), dividing what is kept by ``1 - p``.

    Args:
        input (Tensor): the residual branch's output; dimension 0 is the batch.
        p (float): drop probability, in [0, 1].
        mode (str): ``"row"`` or ``"batch"``.
        training (bool): outside training the input is returned unchanged. Default: True.

    Returns:
        Tensor: same shape as ``input``.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ("batch", "row"):
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input
    keep = 1.0 - p
    shape = [1] * input.ndim
    if mode == "row":
        shape[0] = input.shape[0]
    mask = numtorch.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(keep)
    if keep > 0.0:
        mask.div_(keep)
    return input * mask


# fx records a call as one node (training mode draws a mask: not traceable through)
numtorch.fx.wrap("stochastic_depth")


class StochasticDepth(nn.Module):
    """Module form of :func:`stochastic_depth`; active only in training mode.

    Args:
        p (float): drop probability.
        mode (str): ``"row"`` or ``"batch"``.
    """

    def __init__(self, p, mode):
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input):
        return stochastic_depth(input, self.p, self.mode, self.training)

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p}, mode={self.mode})"
