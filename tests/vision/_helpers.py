"""Helpers shared by numtorchvision's tests (conftest.py has already imported torchvision)."""

import numpy as np
import torch

import numtorch


def to_np(x):
    """A numtorch/torch tensor, PIL image or array as a NumPy array."""
    if isinstance(x, numtorch.Tensor):
        return x.detach().numpy()
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def pair(arr):
    """The same array as a (numtorch tensor, torch tensor) pair."""
    arr = np.ascontiguousarray(arr)
    return numtorch.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


def assert_same_image(a, b, atol=0, frac=0.0):
    """Equal images (PIL or tensors): same type of object, mode/dtype, size and pixels.

    ``atol`` allows a per-pixel difference, ``frac`` a fraction of pixels beyond it (for
    float rounding that lands on the other side of .5 in nearest/round-to-int steps).
    """
    from PIL import Image

    if isinstance(b, Image.Image):
        assert isinstance(a, Image.Image), type(a)
        assert a.mode == b.mode and a.size == b.size, (a.mode, a.size, b.mode, b.size)
    else:
        assert isinstance(a, numtorch.Tensor), type(a)
        assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    x, y = to_np(a).astype(np.float64), to_np(b).astype(np.float64)
    bad = np.abs(x - y) > atol
    assert bad.mean() <= frac, (f"{bad.sum()} of {bad.size} values differ by more than {atol}; "
                                f"max diff {np.abs(x - y).max()}")


def rgb_image(h=23, w=31, seed=0, mode="RGB"):
    """A random PIL image (smooth-ish, so resampling is meaningful)."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    bands = {"RGB": 3, "RGBA": 4, "L": 1, "LA": 2}[mode]
    base = rng.integers(0, 256, size=(h, w, bands)).astype(np.float64)
    yy, xx = np.mgrid[0:h, 0:w]
    base = 0.5 * base + 0.5 * (255 * (np.sin(xx / 3.0 + yy / 5.0)[..., None] + 1) / 2)
    arr = base.astype(np.uint8)
    return Image.fromarray(arr[..., 0] if bands == 1 else arr, mode)
