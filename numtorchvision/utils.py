"""Image grids, saving, and drawing boxes, masks, keypoints and optical flow on tensor images.

``make_grid``/``save_image`` tile a batch into one picture; the ``draw_*`` functions return a
new (C, H, W) tensor of the input's dtype, drawn with Pillow's ``ImageDraw``.
"""

import collections.abc
import math
import warnings
from itertools import repeat

import numpy as np

import numtorch as torch
import numtorch.nn.functional as NF

from ._pil import from_array, pil, pil_submodule

__all__ = ["make_grid", "save_image", "draw_bounding_boxes", "draw_segmentation_masks",
           "draw_keypoints", "flow_to_image"]

_Image_fromarray = from_array


def _log_api_usage_once(obj):
    """torchvision logs API usage for telemetry; numtorchvision records nothing."""


def _make_ntuple(x, n):
    """``x`` as a tuple: itself when iterable, else ``n`` copies."""
    if isinstance(x, collections.abc.Iterable):
        return tuple(x)
    return tuple(repeat(x, n))


def _as_batch(tensor):
    """(N, C, H, W) from a tensor, or a list of tensors; one-channel images become RGB."""
    if not isinstance(tensor, torch.Tensor):
        if not isinstance(tensor, list):
            raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
        for t in tensor:
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"tensor or list of tensors expected, got a list containing "
                                f"{type(t)}")
        tensor = torch.stack(tensor, dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.size(0) == 1:
            tensor = torch.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:
        tensor = torch.cat((tensor, tensor, tensor), 1)
    return tensor


def _normalize_(img, low, high):
    img.clamp_(min=low, max=high)
    img.sub_(low).div_(max(high - low, 1e-5))


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False,
              pad_value=0.0, **kwargs):
    """Tile a batch of images into one (C, H', W') image, ``nrow`` images per row, with
    ``padding`` pixels of ``pad_value`` around each.

    Args:
        tensor (Tensor or list of Tensor): (B, C, H, W) batch or a list of same-size images.
        nrow (int): images per row of the grid. Default: 8.
        padding (int): width of the border between images. Default: 2.
        normalize (bool): rescale values to [0, 1], using ``value_range`` (min, max) or the
            data's own min and max.
        value_range (tuple, optional): the (min, max) mapped to (0, 1) when ``normalize``.
        scale_each (bool): normalise each image by its own min and max.
        pad_value (float): the border's value.

    The 0.x keyword ``range`` is accepted as an old name of ``value_range``.
    """
    if "range" in kwargs:
        warnings.warn("make_grid's argument range is now called value_range", FutureWarning,
                      stacklevel=2)
        value_range = kwargs.pop("range")
    if kwargs:
        raise TypeError(f"make_grid() got an unexpected keyword argument "
                        f"'{next(iter(kwargs))}'")
    with torch.no_grad():
        tensor = _as_batch(tensor)
        if normalize is True:
            tensor = tensor.clone()
            if value_range is not None and not isinstance(value_range, tuple):
                raise TypeError("value_range has to be a tuple (min, max) if specified. min and "
                                "max are numbers")
            parts = tensor if scale_each is True else [tensor]
            for t in parts:
                low, high = value_range if value_range is not None else (float(t.min()),
                                                                         float(t.max()))
                _normalize_(t, low, high)
        if tensor.size(0) == 1:
            return tensor.squeeze(0)
        n, c, h, w = tensor.shape
        cols = min(nrow, n)
        rows = int(math.ceil(float(n) / cols))
        # each cell is the image with `padding` border above and to its left; the grid gets
        # one more border at the bottom and the right
        cells = NF.pad(tensor, (padding, 0, padding, 0), value=float(pad_value))
        if rows * cols > n:
            blank = cells.new_full((rows * cols - n, c, h + padding, w + padding), pad_value)
            cells = torch.cat((cells, blank), 0)
        grid = cells.reshape(rows, cols, c, h + padding, w + padding).permute(2, 0, 3, 1, 4)
        grid = grid.reshape(c, rows * (h + padding), cols * (w + padding))
        return NF.pad(grid, (0, padding, 0, padding), value=float(pad_value))


def save_image(tensor, fp, format=None, **kwargs):
    """Save a tensor image, or a batch tiled by :func:`make_grid`, as an image file.

    Values are taken as [0, 1] and rounded to bytes. Any format Pillow writes works; it is
    chosen from the file name unless ``format`` is given (needed for file objects).

    Args:
        tensor (Tensor or list of Tensor): the image(s).
        fp (str, os.PathLike or file object): where to write.
        format (str, optional): Pillow's format name (``'PNG'``, ``'JPEG'``, ...).
        **kwargs: passed to :func:`make_grid`.
    """
    grid = make_grid(tensor, **kwargs)
    with torch.no_grad():
        arr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8)
    pil().fromarray(arr.numpy()).save(fp, format=format)


def _palette(num):
    """Distinct default colours: multiples of three large odd numbers, modulo 255."""
    base = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1], dtype=np.int64)
    return [tuple(int(v) for v in (i * base) % 255) for i in range(num)]


def _parse_colors(colors, *, num_objects, dtype=torch.uint8):
    if colors is None:
        colors = _palette(num_objects)
    elif isinstance(colors, list):
        if len(colors) < num_objects:
            raise ValueError(f"Number of colors must be equal or larger than the number of "
                             f"objects, but got {len(colors)} < {num_objects}.")
    elif not isinstance(colors, (tuple, str)):
        raise ValueError(f"colors must be a tuple or a string, or a list thereof, but got "
                         f"{colors}.")
    elif isinstance(colors, tuple) and len(colors) != 3:
        raise ValueError(f"If passed as tuple, colors should be an RGB triplet, but got "
                         f"{colors}.")
    else:
        colors = [colors] * num_objects
    color_mod = pil_submodule("ImageColor")
    colors = [color_mod.getrgb(c) if isinstance(c, str) else tuple(c) for c in colors]
    if dtype.is_floating_point:
        colors = [tuple(v / 255 for v in c) for c in colors]
    return colors


def _to_uint8(image):
    """A float image in [0, 1] as bytes (scaled by 255.999, truncated)."""
    return image.mul(255 + 1.0 - 1e-3).to(torch.uint8)


def _from_uint8(arr, dtype, device):
    out = torch.from_numpy(np.ascontiguousarray(arr)).to(device)
    if dtype.is_floating_point:
        out = out.to(dtype).mul_(1.0 / 255)
    return out


def _check_image(image, rgb_only):
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"Tensor expected, got {type(image)}" if not rgb_only
                        else f"The image must be a tensor, got {type(image)}")
    if not (image.dtype == torch.uint8 or image.is_floating_point()):
        raise ValueError(f"The image dtype must be uint8 or float, got {image.dtype}")
    if image.dim() != 3:
        raise ValueError("Pass individual images, not batches")
    if rgb_only and image.size(0) != 3:
        raise ValueError("Pass an RGB image. Other Image formats are not supported")
    if not rgb_only and image.size(0) not in (1, 3):
        raise ValueError("Only grayscale and RGB images are supported")


from ._draw import draw_bounding_boxes, draw_keypoints, draw_segmentation_masks, flow_to_image
