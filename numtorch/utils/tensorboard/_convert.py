"""Turning what users log (tensors, arrays, numbers) into NumPy arrays and image layouts."""

import math

import numpy as np


def make_np(x):
    """``x`` (a Tensor, array, list, string or number) as a NumPy array."""
    from ..._tensor import Tensor

    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, list):
        return np.array(x)
    if isinstance(x, str) or np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        return x.detach().cpu().numpy()
    if type(x).__module__.startswith("torch") and hasattr(x, "numpy"):  # a real torch tensor
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def _check_format(tensor, dataformats):
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shorthand twice. "
                             f"input_format: {dataformats}")
    if tensor.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. "
                             f"tensor shape: {tensor.shape}, input_format: {dataformats}")


def to_hwc(tensor, dataformats):
    """An image array in layout ``dataformats`` (NCHW, CHW, HWC, HW, ...) as HWC with 3 or 4
    channels; a batch is tiled into one grid image."""
    dataformats = dataformats.upper()
    _check_format(tensor, dataformats)
    if len(dataformats) == 4:
        nchw = tensor.transpose([dataformats.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(dataformats) == 3:
        hwc = tensor.transpose([dataformats.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = tensor.transpose([dataformats.find(c) for c in "HW"])
    return np.stack([hw] * 3, 2)


def make_grid(images, ncols=8):
    """Tile an (N, C, H, W) batch row by row into one (C, rows*H, cols*W) image, no padding;
    one channel becomes three."""
    if images.ndim != 4:
        raise AssertionError("images should be 4D (N, C, H, W)")
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.shape[1] not in (3, 4):
        raise AssertionError("images should have 1, 3 or 4 channels")
    n, c, h, w = images.shape
    ncols = min(n, ncols)
    nrows = math.ceil(n / ncols)
    padded = np.zeros((nrows * ncols, c, h, w), dtype=images.dtype)
    padded[:n] = images
    grid = padded.reshape(nrows, ncols, c, h, w).transpose(2, 0, 3, 1, 4)
    return grid.reshape(c, nrows * h, ncols * w)


def to_uint8(image):
    """Float images in [0, 1] scaled to bytes (truncating, as torch does); uint8 kept."""
    scale = 1 if image.dtype == np.uint8 else 255
    return (image.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


def encode_png(hwc):
    """PNG bytes of an (H, W, C) uint8 array (Pillow, from the ``vision`` extra)."""
    import io

    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError('logging images needs Pillow: pip install "numtorch[vision]"') from e
    buf = io.BytesIO()
    Image.fromarray(hwc).save(buf, format="PNG")
    return buf.getvalue()


def figure_to_chw(figure, close=True):
    """Render a matplotlib figure to a (3, H, W) uint8 RGB array."""
    try:
        import matplotlib.pyplot as plt
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as e:
        raise ImportError("add_figure needs matplotlib: pip install matplotlib") from e
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    rgb = np.asarray(canvas.buffer_rgba(), dtype=np.uint8)[..., :3]  # alpha dropped
    if close:
        plt.close(figure)
    return np.ascontiguousarray(rgb.transpose(2, 0, 1))
