"""nn.functional: vision helpers: ``pixel_shuffle``/``pixel_unshuffle``, ``interpolate`` (and
the deprecated ``upsample*`` spellings), ``grid_sample`` and ``affine_grid``.

``interpolate`` is separable in every mode: along each spatial dim the output is a weighted sum
of a few gathered input positions, ``y[j] = sum_t w[t, j] * x[idx[t, j]]``, one ``Resample``
primitive per dim. Only the index and weight tables differ between modes; they are built here
with torch's exact formulas (in the input's floating dtype, as torch's CPU kernels do).
``grid_sample`` gathers the corners of every sampling point in one ``gather`` and weights them
with differentiable functions of the grid, so gradients flow to the input and to the grid.
"""

import math
import warnings

import numpy as np

from ... import _dtype, backend
from ..._tensor import Tensor, _make
from ...autograd.graph import rename_node
from ...ops import _resample, stack

__all__ = ["pixel_shuffle", "pixel_unshuffle", "interpolate", "upsample", "upsample_nearest",
           "upsample_bilinear", "grid_sample", "affine_grid"]


def _size_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _need_tensor(fn, name, pos, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not "
                        f"{type(value).__name__}")


def _need_int(fn, name, pos, value):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be int, not "
                        f"{type(value).__name__}")
    return int(value)


# ---------------------------------------------------------------------------------------------
# pixel shuffle


def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C * r**2, H, W)`` into ``(*, C, H * r, W * r)`` (sub-pixel convolution).

    Args:
        input (Tensor): at least 3-D.
        upscale_factor (int): the factor ``r``.

    Example:
        >>> torch.nn.functional.pixel_shuffle(torch.ones(1, 8, 2, 3), 2).shape
        torch.Size([1, 2, 4, 6])
    """
    _need_tensor("pixel_shuffle", "input", 1, input)
    r = _need_int("pixel_shuffle", "upscale_factor", 2, upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    k = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r).contiguous()


def pixel_unshuffle(input, downscale_factor):
    """Rearrange ``(*, C, H * r, W * r)`` into ``(*, C * r**2, H, W)`` (inverse of
    :func:`pixel_shuffle`).

    Args:
        input (Tensor): at least 3-D.
        downscale_factor (int): the factor ``r``.

    Example:
        >>> torch.nn.functional.pixel_unshuffle(torch.ones(1, 2, 4, 6), 2).shape
        torch.Size([1, 8, 2, 3])
    """
    _need_tensor("pixel_unshuffle", "input", 1, input)
    r = _need_int("pixel_unshuffle", "downscale_factor", 2, downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r).contiguous()


# ---------------------------------------------------------------------------------------------
# interpolate: index/weight tables per dim


def _scale(in_size, out_size, align_corners, scale):
    """Source step per output step (torch's area_pixel_compute_scale)."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _nearest_table(xp, in_size, out_size, scale, exact):
    s = np.float32(1.0 / scale if scale is not None and scale > 0 else in_size / out_size)
    j = xp.arange(out_size, dtype=np.float32)
    if exact:
        j += np.float32(0.5)
    idx = xp.minimum(xp.floor(j * s).astype(np.int64), in_size - 1)
    return idx.reshape(1, -1), None


def _source_index(xp, dt, scale, out_size, align_corners, cubic):
    j = xp.arange(out_size, dtype=dt)
    if align_corners:
        return dt.type(scale) * j
    src = dt.type(scale) * (j + dt.type(0.5)) - dt.type(0.5)
    return src if cubic else xp.maximum(src, dt.type(0))


def _linear_table(xp, dt, in_size, out_size, align_corners, scale):
    src = _source_index(xp, dt, _scale(in_size, out_size, align_corners, scale), out_size,
                        align_corners, False)
    i0 = xp.minimum(xp.floor(src).astype(np.int64), in_size - 1)
    lam = xp.clip(src - i0, 0, 1).astype(dt)
    i1 = i0 + (i0 < in_size - 1)
    return xp.stack([i0, i1]), xp.stack([1 - lam, lam])


_A = -0.75  # torch's cubic convolution coefficient (Keys' kernel)


def _cubic_weights(xp, t):
    def near(x):  # |x| <= 1
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_table(xp, dt, in_size, out_size, align_corners, scale):
    src = _source_index(xp, dt, _scale(in_size, out_size, align_corners, scale), out_size,
                        align_corners, True)
    i0 = xp.minimum(xp.floor(src).astype(np.int64), in_size - 1)
    t = xp.clip(src - i0, 0, 1).astype(dt)
    idx = xp.stack([xp.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4)])
    return idx, xp.stack(_cubic_weights(xp, t)).astype(dt)


def _area_table(xp, dt, in_size, out_size):
    j = np.arange(out_size)
    start = (j * in_size) // out_size
    end = ((j + 1) * in_size + out_size - 1) // out_size  # ceil, in exact integer arithmetic
    width = end - start
    taps = int(width.max())
    k = np.arange(taps)[:, None]
    idx = np.minimum(start + k, in_size - 1)
    w = np.where(k < width, 1.0 / width, 0.0)
    return xp.asarray(idx), xp.asarray(w.astype(dt))


def _aa_filter(mode):
    if mode == "bilinear":
        return 2, lambda x: np.maximum(1.0 - np.abs(x), 0.0)
    if mode == "bicubic":
        a = -0.5  # the antialiased kernel uses PIL's coefficient

        def cubic(x):
            x = np.abs(x)
            return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                            np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))

        return 4, cubic

    def lanczos(x):
        return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)

    return 6, lanczos


def _aa_table(xp, dt, mode, in_size, out_size, align_corners, scale):
    """Antialiased weights: the filter is stretched by the scale when downsampling."""
    size, fn = _aa_filter(mode)
    s = _scale(in_size, out_size, align_corners, scale)
    support = size * 0.5 * s if s >= 1.0 else size * 0.5
    inv = 1.0 / s if s >= 1.0 else 1.0
    j = np.arange(out_size)
    center = s * (j + 0.5)
    lo = np.maximum((center - support + 0.5).astype(np.int64), 0)
    width = np.minimum((center + support + 0.5).astype(np.int64), in_size) - lo
    taps = max(int(width.max()), 1)
    k = np.arange(taps)[:, None]
    w = np.where(k < width, fn((k + lo - center + 0.5) * inv), 0.0)
    total = w.sum(0)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w)
    idx = np.minimum(lo + k, in_size - 1)
    return xp.asarray(idx), xp.asarray(w.astype(dt))


# ---------------------------------------------------------------------------------------------
# interpolate: argument handling (torch's order of checks)

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}


def _output_size(input, size, scale_factor, recompute):
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of "
                                 f"{list(input.shape[2:])} and output size of {size}. Please "
                                 f"provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 f"output size in (o1, o2, ...,oK) format.")
            sizes = list(size)
        else:
            sizes = [size] * dim
        bad = [type(s) for s in sizes if isinstance(s, bool) or not hasattr(s, "__index__")]
        if bad:
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            f"Tuple[int, int, int], but got size with types {bad}")
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return [int(s) for s in sizes], [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, "
                             f"...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        if isinstance(scale_factor, Tensor):
            raise TypeError("interpolate(): scale_factor must be a float or a sequence of "
                            "floats, not Tensor")
        scales = [float(scale_factor)] * dim
    sizes = [math.floor(float(n) * s) for n, s in zip(input.shape[2:], scales)]
    return sizes, ([None] * dim if recompute else scales)


def _check_sizes(input, sizes):
    spatial = input.shape[2:]
    if all(s > 0 for s in spatial) and all(o > 0 for o in sizes):
        if input.numel() == 0 and input.shape[1] == 0:
            raise RuntimeError(f"Non-empty {input.dim()}D data tensor expected but got a tensor "
                               f"with sizes {_size_list(input.shape)}")
        return
    names = ("D", "H", "W")[3 - len(sizes):]
    ins = ", ".join(f"{n}: {s}" for n, s in zip(names, spatial))
    outs = ", ".join(f"{n}: {o}" for n, o in zip(names, sizes))
    sep = " and " if len(sizes) == 1 else " "
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins})"
                       f"{sep}output ({outs})")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize a batch of 1-D, 2-D or 3-D signals ``(N, C, *spatial)``.

    Args:
        input (Tensor): 3-D, 4-D or 5-D input.
        size (int or tuple, optional): output spatial size.
        scale_factor (float or tuple, optional): multiplier of the spatial size (exactly one
            of ``size`` and ``scale_factor`` is given).
        mode (str): ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-D), ``'bilinear'``
            (4-D), ``'bicubic'`` (4-D), ``'trilinear'`` (5-D), ``'area'`` or ``'lanczos'``
            (4-D, antialiased only). Default: ``'nearest'``.
        align_corners (bool, optional): for the linear and cubic modes, map the corner
            pixels' centres onto each other instead of the corners' outer edges.
            Default: False.
        recompute_scale_factor (bool, optional): compute the output size from
            ``scale_factor`` and then resample by the ratio of sizes (rather than by the
            given factor). Default: None (False).
        antialias (bool): low-pass filter when downsampling (bilinear, bicubic, lanczos on
            4-D input). Default: False.

    Returns:
        Tensor: ``(N, C, *size)``.

    Example:
        >>> x = torch.arange(4.).reshape(1, 1, 4)
        >>> torch.nn.functional.interpolate(x, scale_factor=2, mode="linear")
        tensor([[[0.0000, 0.2500, 0.7500, 1.2500, 1.7500, 2.2500, 2.7500, 3.0000]]])
    """
    _need_tensor("interpolate", "input", 1, input)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    sizes, scales = _output_size(input, size, scale_factor, recompute_scale_factor)
    if mode == "area" and size is None:
        scales = [None] * len(scales)  # area always works from the computed sizes
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    known = mode in ("nearest", "nearest-exact", "area") or mode in _NEEDS
    if input.dim() not in (3, 4, 5) or not known or (mode == "lanczos" and input.dim() != 4):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.dim()}D) for the modes: {_MODES} (got {mode})")
    if mode in _NEEDS and input.dim() != _NEEDS[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_NEEDS[mode]}D input")
    out = _resize(input, sizes, scales, mode, align_corners, antialias)
    kind, nd = _UPSAMPLE_NODES.get(mode), input.dim() - 2
    if out is input:
        return out
    if kind is not None:  # torch's node for the whole resize
        rename_node(out, f"Upsample{kind}{nd}D{'Aa' if antialias else ''}Backward0")
    elif mode == "area":  # torch's area mode is adaptive average pooling (a mean if global)
        rename_node(out, "SqueezeBackward1" if nd == 1 else "MeanBackward1"
                    if all(n == 1 for n in out.shape[2:]) else f"AdaptiveAvgPool{nd}DBackward0")
    return out


_UPSAMPLE_NODES = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
                   "bilinear": "Bilinear", "bicubic": "Bicubic", "trilinear": "Trilinear"}


def _resize(input, sizes, scales, mode, align_corners, antialias):
    dt = input.dtype
    if mode in ("nearest", "nearest-exact"):
        if not (dt.is_floating_point or dt is _dtype.uint8):
            raise NotImplementedError(f'"compute_indices_weights_nearest" not implemented for '
                                      f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    elif not dt.is_floating_point:
        name = {"area": f"adaptive_avg_pool{input.dim() - 2}d"}.get(
            mode, "compute_indices_weights_linear" if mode in ("linear", "bilinear",
                                                               "trilinear")
            else "compute_indices_weights_cubic")
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    _check_sizes(input, sizes)
    if dt in (_dtype.float16, _dtype.bfloat16) and mode not in ("nearest", "nearest-exact"):
        # weighted sums in half precision drift (an area average over 4096 values stalls);
        # torch computes them in float32 and rounds once
        return _resize(input.float(), sizes, scales, mode, align_corners, antialias).to(dt)
    xp = backend.xp_of(input._array)
    npdt = input._array.dtype
    out = input
    for k, (n_out, scale) in enumerate(zip(sizes, scales)):
        n_in = input.shape[2 + k]
        if mode in ("nearest", "nearest-exact"):
            idx, w = _nearest_table(xp, n_in, n_out, scale, mode == "nearest-exact")
        elif mode == "area":
            idx, w = _area_table(xp, npdt, n_in, n_out)
        elif antialias:
            idx, w = _aa_table(xp, npdt, mode, n_in, n_out, align_corners, scale)
        elif mode == "bicubic":
            idx, w = _cubic_table(xp, npdt, n_in, n_out, align_corners, scale)
        else:
            idx, w = _linear_table(xp, npdt, n_in, n_out, align_corners, scale)
        out = _resample.resample(out, 2 + k, idx, w, n_in)
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of :func:`interpolate` (warns, then calls it)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------------------------------------
# grid_sample / affine_grid

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


def _tap_index(xp, positions, sizes, padding_mode, align_corners):
    """Flat index and in-bounds mask of integer tap positions (one array per spatial dim)."""
    flat = 0
    ok = True
    for pos, size in zip(positions, sizes):
        if padding_mode == "border":
            pos = xp.clip(pos, 0, size - 1)
        elif padding_mode == "reflection":
            pos = _reflect_int(xp, pos, size, align_corners)
        inside = (pos >= 0) & (pos < size)
        ok = inside & ok
        flat = flat * size + xp.clip(pos, 0, size - 1)
    return flat, ok


def _reflect_int(xp, pos, size, align_corners):
    """Reflection padding applied to integer tap positions (bicubic reads taps this way)."""
    p = pos.astype(np.float64)
    lo, hi = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if lo == hi:
        return xp.zeros_like(pos)
    low, span = lo / 2, (hi - lo) / 2
    c = xp.abs(p - low)
    extra = xp.fmod(c, span)
    flips = xp.floor(c / span)
    r = xp.where(xp.fmod(flips, 2) == 0, extra + low, span - extra + low)
    return xp.clip(r, 0, size - 1).astype(np.int64)


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
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
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
    xp = backend.xp_of(input._array)
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
    taps = []  # per dim: the (integer position array, weight Tensor) of each tap
    if mode == "bicubic":
        for d in range(nd):
            # beyond 2**40 every tap is past the edge anyway: clipping keeps the integer
            # conversion from overflowing
            base = coords[d].detach().floor()
            t = coords[d] - base
            b = base.clamp(-2.0 ** 40, 2.0 ** 40)._array.astype(np.int64)
            taps.append([(b - 1 + k, w) for k, w in enumerate(_cubic_weights(xp, t))])
    else:
        coords = [_apply_padding(cd, s, padding_mode, align_corners)
                  for cd, s in zip(coords, sizes)]
        for d in range(nd):
            if mode == "nearest":
                # round() has a zero derivative: the grid stays in the graph with a zero
                # gradient, as in torch (where only the grid requires grad, too)
                r = coords[d].round()
                taps.append([(r._array.astype(np.int64), r * 0 + 1)])
            else:
                base = coords[d].detach().floor()
                frac = coords[d] - base
                b = base._array.astype(np.int64)
                taps.append([(b, 1 - frac), (b + 1, frac)])
    index, weights = [], []
    for combo in _product(taps):
        flat, ok = _tap_index(xp, [p for p, _ in combo], sizes,
                              padding_mode if mode == "bicubic" else "zeros", align_corners)
        index.append(flat)
        w = combo[0][1]
        for _, wd in combo[1:]:
            w = w * wd
        # a product with the mask, as torch: taps outside the input contribute 0, but a NaN or
        # infinite weight (from a non-finite grid point) makes the output NaN (nearest
        # sampling has no weights to speak of: 0 there)
        weights.append(w.where(_make(ok), 0.0) if mode == "nearest" else
                       w * _make(ok.astype(w._array.dtype)))
    k = len(index)
    weight = stack(weights, 1)  # (N, taps, points)
    idx = _make(xp.concatenate(index, axis=1).reshape(n, 1, k * points))
    vals = input.reshape(n, c, -1).gather(2, idx.expand(n, c, k * points))
    out = (vals.reshape(n, c, k, points) * weight.unsqueeze(1)).sum(2)
    return out.reshape((n, c) + out_sp)


def _product(taps):
    combos = [[]]
    for options in taps:
        combos = [c + [o] for c in combos for o in options]
    return combos


def _base_coords(xp, dt, n, align_corners):
    if n <= 1:
        return xp.zeros(1, dtype=dt)
    r = xp.linspace(-1, 1, n, dtype=dt)
    return r if align_corners else r * dt.type((n - 1) / n)


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
    xp = backend.xp_of(theta._array)
    dt = theta._array.dtype
    axes = [_base_coords(xp, dt, s, align_corners) for s in spatial]
    # base[..., k] = coordinate along the k-th axis counted from the last (x first), then 1
    mesh = xp.meshgrid(*axes, indexing="ij")
    cols = [m.reshape(-1) for m in reversed(mesh)] + [xp.ones(mesh[0].size, dtype=dt)]
    base = _make(xp.stack(cols, axis=1))  # (points, nd + 1)
    grid = base @ theta.transpose(1, 2)  # (N, points, nd)
    return grid.reshape(size[0], *spatial, len(spatial))
