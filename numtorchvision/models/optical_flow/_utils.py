"""Pixel-grid helpers of the flow models: coordinate grids, sampling at absolute pixel
positions, and upsampling a 1/8-resolution flow field to full resolution."""

import numtorch
from numtorch.nn import functional as F


def grid_sample(img, absolute_grid, mode="bilinear", align_corners=None):
    """``F.grid_sample`` at absolute pixel coordinates ``(..., 2)`` (x then y)."""
    h, w = img.shape[-2:]
    x, y = absolute_grid.split([1, 1], dim=-1)
    x = 2 * x / (w - 1) - 1
    if h > 1:
        y = 2 * y / (h - 1) - 1
    return F.grid_sample(img, numtorch.cat([x, y], dim=-1), mode=mode,
                         align_corners=align_corners)


def make_coords_grid(batch_size, h, w, device="cpu"):
    """``(batch_size, 2, h, w)``: every pixel's own (x, y) coordinates."""
    device = numtorch.device(device)
    ys, xs = numtorch.meshgrid(numtorch.arange(h, device=device),
                               numtorch.arange(w, device=device), indexing="ij")
    coords = numtorch.stack([xs, ys], dim=0).float()
    return coords[None].repeat(batch_size, 1, 1, 1)


def upsample_flow(flow, up_mask=None, factor=8):
    """``(N, 2, h, w)`` flow to ``(N, 2, factor*h, factor*w)`` (values scaled by
    ``factor``): bilinear without ``up_mask``; otherwise each output pixel is a convex
    combination (softmax of ``up_mask``'s 9 weights) of the 3x3 neighbourhood of its coarse
    pixel."""
    n, c, h, w = flow.shape
    if up_mask is None:
        return factor * F.interpolate(flow, size=(factor * h, factor * w), mode="bilinear",
                                      align_corners=True)
    weights = numtorch.softmax(up_mask.view(n, 1, 9, factor, factor, h, w), dim=2)
    neighbours = F.unfold(factor * flow, kernel_size=3, padding=1).view(n, c, 9, 1, 1, h, w)
    up = (weights * neighbours).sum(dim=2)  # (n, c, factor, factor, h, w)
    return up.permute(0, 1, 4, 2, 5, 3).reshape(n, c, factor * h, factor * w)
