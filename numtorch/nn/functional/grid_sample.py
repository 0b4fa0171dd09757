"""nn.functional: ``grid_sample`` (sampling an input at the positions of a normalised grid, with
bilinear, nearest or bicubic taps and zeros/border/reflection padding) and ``affine_grid``.

``grid_sample`` reads the taps of every sampling point (the corners for bilinear) in one
``TapGather`` (shared by all channels; its transpose sums with ``bincount``, not ``add.at``)
and weights them with differentiable functions of the grid, so gradients flow to the input and
to the grid.
"""

import warnings

from ... import _dtype
from ..._creation import ones, zeros
from ..._ranges import linspace
from ...autograd.graph import rename_node
from ...ops import _resample
from ...ops._util import user_stacklevel
from ...ops.join import stack
from ...ops.repetition import meshgrid
from .vision import _need_tensor, _size_list

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (coord - low).abs()
    extra = c.fmod(span)
    flips = (c.detach() / span).floor()
    return (extra + low).where(flips.fmod(2) == 0, span - extra + low)


def _apply_padding(coord, size, padding_mode, align_corners):
    """Source coordinate after torch's border clipping or reflection (differentiable)."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _clip(coord, size):
    """``coord`` clipped into ``[0, size - 1]``; its gradient is 0 at and beyond either edge
    (torch's rule, where a clamp would pass it through at the edge itself)."""
    inside = (coord > 0) & (coord < size - 1)
    # a NaN coordinate (from NaN in the grid or reflecting an infinite one) reads index 0
    return coord.where(inside, coord.detach().clamp(0, size - 1).nan_to_num(0.0))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` at the normalised positions in ``grid`` (spatial transformer networks).

    ``grid[n, ..., :]`` holds ``(x, y)`` (or ``(x, y, z)`` for 5-D input) in ``[-1, 1]``,
    where -1 and 1 are the left/top and right/bottom edges of the input (their pixel centres
    with ``align_corners=True``).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        grid (Tensor): ``(N, H_out, W_out, 2)`` or ``(N, D_out, H_out, W_out, 3)``.
        mode (str): ``'bilinear'``, ``'nearest'`` or ``'bicubic'`` (4-D only).
            Default: ``'bilinear'``.
        padding_mode (str): values outside the input: ``'zeros'``, ``'border'`` (nearest
            edge) or ``'reflection'``. Default: ``'zeros'``.
        align_corners (bool, optional): see above. Default: False (with torch's warning
            when not given).

    Returns:
        Tensor: ``(N, C, H_out, W_out)`` (or ``(N, C, D_out, H_out, W_out)``).

    Example:
        >>> grid = torch.zeros(1, 1, 1, 2)
        >>> torch.nn.functional.grid_sample(torch.ones(1, 1, 3, 3), grid, align_corners=True)
        tensor([[[[1.]]]])
    """
    _need_tensor("grid_sample", "input", 1, input)
    _need_tensor("grid_sample", "grid", 2, grid)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:  # at the user's line (a vmap wrapper may lie between)
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=user_stacklevel())
        align_corners = False
    _check_grid_sampler(input, grid, mode)
    return _grid_sample(input, grid, mode, padding_mode, align_corners)


def _check_grid_sampler(input, grid, mode):
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {_size_list(input.shape)} and grid with "
                           f"sizes {_size_list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {_size_list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {_size_list(input.shape)} with "
                               f"dimension {i} being empty")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        nd = 4 if input.dim() != 5 else 5
        raise RuntimeError(f"grid_sampler(): expected {nd}D input and grid with same number of "
                           f"dimensions, but got input with sizes {_size_list(input.shape)} and "
                           f"grid with sizes {_size_list(grid.shape)}")
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    di, dg = input.dtype, grid.dtype
    if not di.is_floating_point:
        raise NotImplementedError(f'"grid_sampler_{input.dim() - 2}d_cpu_kernel_impl" not '
                                  f"implemented for '{_dtype._TYPE_DISPLAY[di.name]}'")
    if di is not dg:
        raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[di.name]} but found "
                           f"{_dtype._TYPE_DISPLAY[dg.name]}")


def _grid_sample(input, grid, mode, padding_mode, align_corners):
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])
    nd = len(sizes)
    out_sp = tuple(grid.shape[1:-1])
    points = 1
    for s in out_sp:
        points *= s
    g = grid.reshape(n, points, nd)
    # grid's last dim lists x (the last spatial dim) first
    coords = [_unnormalize(g[:, :, nd - 1 - d], sizes[d], align_corners) for d in range(nd)]
    if mode != "bicubic":
        coords = [_apply_padding(cd, s, padding_mode, align_corners)
                  for cd, s in zip(coords, sizes)]
    plane = 1
    for s in sizes:
        plane *= s
    # (the plane size named, not -1: an empty batch is fine)
    out = _resample.grid_taps(input.reshape(n, c, plane), coords, sizes, mode, padding_mode,
                              align_corners)
    return rename_node(out.reshape((n, c) + out_sp), f"GridSampler{nd}DBackward0")  # torch's


def _base_coords(theta, n, align_corners):
    """The ``n`` normalised sample positions along one output dim (pixel centres in
    ``[-1, 1]``, or the edges with ``align_corners``)."""
    opts = {"dtype": theta.dtype, "device": theta.device}
    if n <= 1:
        return zeros(1, **opts)
    r = linspace(-1, 1, n, **opts)
    return r if align_corners else r * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """Sampling grid of the affine maps ``theta`` for an output of ``size`` (for
    :func:`grid_sample`).

    Args:
        theta (Tensor): ``(N, 2, 3)`` for 2-D or ``(N, 3, 4)`` for 3-D transforms.
        size (torch.Size or list): target size ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        align_corners (bool, optional): as in :func:`grid_sample`. Default: False.

    Returns:
        Tensor: ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``.

    Example:
        >>> theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
        >>> torch.nn.functional.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, 0]
        tensor([[-1., -1.],
                [ 1., -1.]])
    """
    _need_tensor("affine_grid", "theta", 1, theta)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{tuple(size)}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{tuple(size)}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {tuple(size)}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {len(spatial) + 1}] but got: [{theta.shape[0]}, "
                           f"{theta.shape[2]}].")
    axes = [_base_coords(theta, s, align_corners) for s in spatial]
    # base[..., k] = coordinate along the k-th axis counted from the last (x first), then 1
    mesh = meshgrid(*axes, indexing="ij")
    cols = [m.reshape(-1) for m in reversed(mesh)]
    cols.append(ones(cols[0].shape[0], dtype=theta.dtype, device=theta.device))
    base = stack(cols, 1)  # (points, nd + 1)
    grid = base @ theta.transpose(1, 2)  # (N, points, nd)
    return rename_node(grid.reshape(size[0], *spatial, len(spatial)),
                       "AffineGridGeneratorBackward0")  # torch's node name
