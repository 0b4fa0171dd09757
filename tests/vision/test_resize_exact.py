"""Resizing integer images: every pixel equal to torchvision's, in every mode.

torchvision resizes an integer tensor through torch's float32 kernels and rounds the result,
so a value that torch computes a few float32 ulps to one side of ``k + 0.5`` lands on another
level than an accurate resize would give. The sweep below draws many sizes (down- and
upscaling, either edge alone, tiny outputs that take torch's other bilinear kernel) and asks
for exact equality.
"""

import numpy as np
import pytest
import torch
import torchvision.transforms as TT
import torchvision.transforms.functional as TF

import numtorch
import numtorchvision.transforms as T
import numtorchvision.transforms.functional as F

from ._helpers import assert_same_image, pair, rgb_image

IM = F.InterpolationMode
TIM = TF.InterpolationMode


def _sizes(rng, count):
    """(input (h, w), output [h, w]) pairs: up, down, mixed, one edge kept, tiny outputs."""
    out = []
    for k in range(count):
        h, w = (int(v) for v in rng.integers(2, 70, 2))
        kind = k % 5
        if kind == 0:  # upscale
            size = [int(h * rng.uniform(1.05, 3.2)), int(w * rng.uniform(1.05, 3.2))]
        elif kind == 1:  # downscale
            size = [max(1, int(h * rng.uniform(0.2, 0.95))),
                    max(1, int(w * rng.uniform(0.2, 0.95)))]
        elif kind == 2:  # one edge kept
            size = [h, int(rng.integers(1, 150))] if k % 2 else [int(rng.integers(1, 150)), w]
        elif kind == 3:  # outputs whose edges sum to <= 128 (torch's pixel-at-a-time kernel)
            size = [int(rng.integers(1, 64)), int(rng.integers(1, 64))]
        else:
            size = [int(rng.integers(1, 160)), int(rng.integers(1, 160))]
        out.append(((h, w), size))
    return out


@pytest.mark.parametrize("mode", [IM.BILINEAR, IM.BICUBIC])
@pytest.mark.parametrize("channels", [1, 3, 4, 9])
def test_uint8_resize_without_antialias_is_exact(mode, channels):
    rng = np.random.default_rng(channels * 10 + (mode == IM.BICUBIC))
    for (h, w), size in _sizes(rng, 24):
        arr = rng.integers(0, 256, (2, channels, h, w)).astype(np.uint8)
        x, y = pair(arr)
        a = F.resize(x, size, mode, antialias=False)
        b = TF.resize(y, size, TIM(mode.value), antialias=False)
        assert_same_image(a, b)


@pytest.mark.parametrize("mode", [IM.BILINEAR, IM.BICUBIC])
def test_uint8_resize_without_antialias_one_thread(mode):
    # with one thread torch sends 3-channel images through its pixel-at-a-time kernel
    rng = np.random.default_rng(11)
    old_th, old_nt = torch.get_num_threads(), numtorch.get_num_threads()
    torch.set_num_threads(1)
    numtorch.set_num_threads(1)
    try:
        for (h, w), size in _sizes(rng, 10):
            x, y = pair(rng.integers(0, 256, (3, h, w)).astype(np.uint8))
            assert_same_image(F.resize(x, size, mode, antialias=False),
                              TF.resize(y, size, TIM(mode.value), antialias=False))
    finally:
        torch.set_num_threads(old_th)
        numtorch.set_num_threads(old_nt)


@pytest.mark.parametrize("dtype", ["int16", "int32"])
def test_other_integer_dtypes_without_antialias(dtype):
    rng = np.random.default_rng(3)
    for (h, w), size in _sizes(rng, 10):
        arr = (rng.integers(-3000, 3000, (3, h, w))).astype(dtype)
        x, y = pair(arr)
        for mode in (IM.BILINEAR, IM.BICUBIC):
            assert_same_image(F.resize(x, size, mode, antialias=False),
                              TF.resize(y, size, TIM(mode.value), antialias=False))


@pytest.mark.parametrize("mode", [IM.BILINEAR, IM.BICUBIC])
def test_uint8_resize_with_antialias_is_exact(mode):
    rng = np.random.default_rng(5 + (mode == IM.BICUBIC))
    for (h, w), size in _sizes(rng, 20):
        x, y = pair(rng.integers(0, 256, (3, h, w)).astype(np.uint8))
        assert_same_image(F.resize(x, size, mode, antialias=True),
                          TF.resize(y, size, TIM(mode.value), antialias=True))


@pytest.mark.parametrize("mode", [IM.NEAREST, IM.NEAREST_EXACT])
def test_uint8_nearest_resize_is_exact(mode):
    rng = np.random.default_rng(2)
    for (h, w), size in _sizes(rng, 20):
        x, y = pair(rng.integers(0, 256, (3, h, w)).astype(np.uint8))
        for aa in (False, True):
            assert_same_image(F.resize(x, size, mode, antialias=aa),
                              TF.resize(y, size, TIM(mode.value), antialias=aa))


def test_resize_transform_on_uint8_batches():
    rng = np.random.default_rng(9)
    x, y = pair(rng.integers(0, 256, (2, 3, 45, 61)).astype(np.uint8))
    for size in (17, [100, 23], 90):
        for mode in (IM.BILINEAR, IM.BICUBIC):
            a = T.Resize(size, mode, antialias=False)(x)
            b = TT.Resize(size, TIM(mode.value), antialias=False)(y)
            assert_same_image(a, b)


@pytest.mark.parametrize("mode", [IM.BILINEAR, IM.BICUBIC, IM.NEAREST, IM.LANCZOS, IM.BOX,
                                  IM.HAMMING])
def test_pil_resize_is_exact(mode):
    rng = np.random.default_rng(4)
    for (h, w), size in _sizes(rng, 8):
        img = rgb_image(h, w, seed=int(rng.integers(100)))
        for aa in (True, None):
            assert_same_image(F.resize(img, size, mode, antialias=aa),
                              TF.resize(img, size, TIM(mode.value), antialias=aa))


def test_channels_last_uint8_resize():
    # channels-last images of more than 3 channels take torch's pixel-at-a-time bilinear kernel
    rng = np.random.default_rng(8)
    for (h, w), size in _sizes(rng, 8):
        arr = rng.integers(0, 256, (2, 5, h, w)).astype(np.uint8)
        x = numtorch.from_numpy(arr.copy()).contiguous(memory_format=numtorch.channels_last)
        y = torch.from_numpy(arr.copy()).contiguous(memory_format=torch.channels_last)
        for mode in (IM.BILINEAR, IM.BICUBIC):
            for aa in (False, True):
                a = F.resize(x, size, mode, antialias=aa)
                b = TF.resize(y, size, TIM(mode.value), antialias=aa)
                assert_same_image(a, b)
                assert a.is_contiguous(memory_format=numtorch.channels_last) == \
                    b.is_contiguous(memory_format=torch.channels_last)


def test_two_dim_uint8_image_error_matches():
    x, y = pair(np.zeros((9, 11), np.uint8))
    with pytest.raises(ValueError) as th_err:
        TF.resize(y, [5, 7], antialias=False)
    with pytest.raises(ValueError) as nt_err:
        F.resize(x, [5, 7], antialias=False)
    assert str(nt_err.value) == str(th_err.value)
