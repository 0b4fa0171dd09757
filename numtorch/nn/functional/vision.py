"""nn.functional: vision helpers: ``pixel_shuffle``/``pixel_unshuffle`` and ``interpolate``
(and the deprecated ``upsample*`` spellings); ``grid_sample``/``affine_grid`` are in
``grid_sample.py``.

``interpolate`` is separable in every mode: along each spatial dim the output is a weighted sum
of a few gathered input positions, ``y[j] = sum_t w[t, j] * x[idx[t, j]]``, one ``Resample``
primitive per dim. Only the index and weight tables differ between modes; they are built in
``ops/resample_tables.py`` with torch's exact formulas (in the input's floating dtype, as
torch's CPU kernels do).
"""

import math
import warnings

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.graph import rename_node
from ...ops import _resample
from . import _memory_format as _mf

__all__ = [
    "interpolate",
    "pixel_shuffle",
    "pixel_unshuffle",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]


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


def _shuffle_factor(fn, name, input, factor):
    """The checks pixel_shuffle and pixel_unshuffle share, in torch's order; returns the
    factor as an int."""
    _need_tensor(fn, "input", 1, input)
    r = _need_int(fn, name, 2, factor)
    if input.dim() < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{fn} expects a positive {name}, but got {r}")
    return r


def pixel_shuffle(input, upscale_factor):
    """Rearrange ``(*, C * r**2, H, W)`` into ``(*, C, H * r, W * r)`` (sub-pixel convolution).

    Args:
        input (Tensor): at least 3-D.
        upscale_factor (int): the factor ``r``.

    Example:
        >>> torch.nn.functional.pixel_shuffle(torch.ones(1, 8, 2, 3), 2).shape
        torch.Size([1, 2, 4, 6])
    """
    r = _shuffle_factor("pixel_shuffle", "upscale_factor", input, upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    k = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    out = _shuffled(input, x.reshape(*lead, c // (r * r), h * r, w * r))
    return rename_node(out, "PixelShuffleBackward0")  # torch's node name


def _shuffled(input, out):
    """``out`` in torch's layout for a pixel (un)shuffle of ``input``: channels-last stays."""
    fmt = _mf.suggest(input)
    return out.contiguous() if fmt is None else _mf.output(out, fmt)


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
    r = _shuffle_factor("pixel_unshuffle", "downscale_factor", input, downscale_factor)
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
    out = _shuffled(input, x.reshape(*lead, c * r * r, h // r, w // r))
    return rename_node(out, "PixelUnshuffleBackward0")  # torch's node name


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
    if input.is_quantized:  # torch's quantized kernels (numtorch/_quantized_ops_float.py)
        from ..._quantized_ops_float import quantized_dispatch

        return quantized_dispatch("interpolate", input, size, scale_factor, mode,
                                  align_corners, recompute_scale_factor)
    kind, nd = _UPSAMPLE_NODES.get(mode), input.dim() - 2
    if mode == "area" and input.dtype.is_floating_point and all(n > 0 for n in input.shape[2:]):
        # torch's area mode is its adaptive average pooling (values, layouts, nodes)
        from . import adaptive_pooling

        pool = getattr(adaptive_pooling, f"adaptive_avg_pool{nd}d")
        return pool(input, sizes[0] if nd == 1 else tuple(sizes))
    # torch resizes a channels-last input to channels-last (3-d area pooling: row-major)
    fmt = _mf.suggest(input) if nd > 1 else None
    if fmt is not None and mode == "area" and nd == 3:
        return interpolate(input.contiguous(), size, scale_factor, mode, align_corners,
                           recompute_scale_factor, antialias)
    x = _mf.grad_input(input, fmt)
    out = _resize(x, sizes, scales, mode, align_corners, antialias)
    if out is x:
        return input
    if antialias and nd == 2 and sizes[1] == 1 and sizes[0] != input.shape[2] and \
            input.dtype in (_dtype.float32, _dtype.float64) and input.device.type == "cpu":
        # torch's CPU antialiased float kernels (2.13) write every output row as the first one
        # when the output is one column wide and the height changes (its gradient is that of
        # the true resize): the same values, with the true resize's gradient
        first = out[..., :1, :].detach().expand(out.shape)
        out = first + (out - out.detach())
    if kind is not None:  # torch's node for the whole resize
        rename_node(out, f"Upsample{kind}{nd}D{'Aa' if antialias else ''}Backward0")
    elif mode == "area":  # torch's area mode is adaptive average pooling (a mean if global)
        rename_node(out, "SqueezeBackward1" if nd == 1 else "MeanBackward1"
                    if all(n == 1 for n in out.shape[2:]) else f"AdaptiveAvgPool{nd}DBackward0")
    return _mf.output(out, fmt)


_UPSAMPLE_NODES = {"nearest": "Nearest", "nearest-exact": "NearestExact", "linear": "Linear",
                   "bilinear": "Bilinear", "bicubic": "Bicubic", "trilinear": "Trilinear"}


def _resize(input, sizes, scales, mode, align_corners, antialias):
    dt = input.dtype
    nd = input.dim() - 2
    name = None  # the kernel torch names when it refuses the dtype
    if antialias and dt is not _dtype.float32 and dt is not _dtype.float64 and \
            dt is not _dtype.uint8:
        name = "compute_index_ranges_weights"
    elif mode in ("nearest", "nearest-exact"):
        if not (dt.is_floating_point or dt is _dtype.uint8):
            name = ("upsample_nearest2d_channels_last" if nd == 2
                    else "compute_indices_weights_nearest")
    elif not dt.is_floating_point:
        name = {"area": "adaptive_avg_pool3d_cpu" if nd == 3 else "adaptive_avg_pool2d",
                "bilinear": "upsample_bilinear2d_channels_last"}.get(
            mode, "compute_indices_weights_linear" if mode in ("linear", "trilinear")
            else "compute_indices_weights_cubic")
    if dt is _dtype.uint8 and nd == 2 and mode in ("bilinear", "bicubic", "lanczos"):
        _check_sizes(input, sizes)  # (integer arithmetic on the host for any device)
        return _resample.resize_uint8(input.cpu(), sizes, scales, mode, align_corners,
                                      antialias).to(input.device)
    if name is not None:
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{_dtype._TYPE_DISPLAY[dt.name]}'")
    if mode == "area" and 0 in sizes and all(n > 0 for n in input.shape[2:]):
        # torch's area mode is its adaptive average pool, where an output size of 0 gives an
        # empty result (the other modes refuse it)
        from . import adaptive_pooling

        pool = getattr(adaptive_pooling, f"adaptive_avg_pool{nd}d")
        return pool(input, sizes[0] if nd == 1 else tuple(sizes))
    _check_sizes(input, sizes)
    if dt in (_dtype.float16, _dtype.bfloat16) and mode not in ("nearest", "nearest-exact"):
        # weighted sums in half precision drift (an area average over 4096 values stalls);
        # torch computes them in float32 and rounds once
        return _resize(input.float(), sizes, scales, mode, align_corners, antialias).to(dt)
    return _resample.resize(input, sizes, scales, mode, align_corners, antialias)


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
