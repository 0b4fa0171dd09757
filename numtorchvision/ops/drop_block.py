"""DropBlock (Ghiasi et al., 2018): dropout of contiguous square (cubic) regions of feature
maps, with the kept activations rescaled."""

import numtorch
import numtorch.fx
from numtorch import nn
from numtorch.nn import functional as F

__all__ = ["drop_block2d", "DropBlock2d", "drop_block3d", "DropBlock3d"]


def _drop_block(input, p, block_size, inplace, eps, training, spatial_dims):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.ndim != spatial_dims + 2:
        raise ValueError(f"input should be {spatial_dims + 2} dimensional. Got {input.ndim} "
                         f"dimensions.")
    if not training or p == 0.0:
        return input
    sizes = input.shape[2:]
    block_size = min(block_size, *sizes)
    if block_size % 2 == 0:
        raise ValueError(f"block size should be odd. Got {block_size} which is even.")
    valid = [s - block_size + 1 for s in sizes]  # where a block may be centred
    area = 1
    for s in sizes:
        area *= s
    centres = 1
    for v in valid:
        centres *= v
    # seed rate so that about a fraction p of all positions ends up dropped
    gamma = (p * area) / ((block_size ** spatial_dims) * centres)
    seeds = numtorch.empty((*input.shape[:2], *valid), dtype=input.dtype,
                           device=input.device).bernoulli_(gamma)
    half = block_size // 2
    seeds = F.pad(seeds, [half] * (2 * spatial_dims), value=0)
    pool = F.max_pool2d if spatial_dims == 2 else F.max_pool3d
    dropped = pool(seeds, kernel_size=(block_size,) * spatial_dims, stride=(1,) * spatial_dims,
                   padding=half)
    keep = 1 - dropped
    scale = keep.numel() / (eps + keep.sum())
    if inplace:
        return input.mul_(keep).mul_(scale)
    return input * keep * scale


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """Drop ``block_size`` x ``block_size`` squares of each ``(N, C, H, W)`` map.

    Args:
        input (Tensor[N, C, H, W]): the feature maps.
        p (float): fraction of positions to drop, in [0, 1].
        block_size (int): side of the squares (odd; capped at the map size).
        inplace (bool): change ``input`` itself. Default: False.
        eps (float): keeps the rescaling finite. Default: 1e-6.
        training (bool): outside training the input is returned as is. Default: True.
    """
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """:func:`drop_block2d` for ``(N, C, D, H, W)`` volumes (cubes of side ``block_size``)."""
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


# one fx node each, as in torchvision (training mode draws a random mask)
numtorch.fx.wrap("drop_block2d")
numtorch.fx.wrap("drop_block3d")


class DropBlock2d(nn.Module):
    """Module form of :func:`drop_block2d`, active in training mode."""

    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        self.p = p
        self.block_size = block_size
        self.inplace = inplace
        self.eps = eps

    def forward(self, input):
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps,
                            self.training)

    def __repr__(self):
        return (f"{self.__class__.__name__}(p={self.p}, block_size={self.block_size}, "
                f"inplace={self.inplace})")


class DropBlock3d(DropBlock2d):
    """Module form of :func:`drop_block3d`, active in training mode."""

    def __init__(self, p, block_size, inplace=False, eps=1e-06):  # (its own name in errors)
        super().__init__(p, block_size, inplace, eps)

    def forward(self, input):
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps,
                            self.training)
