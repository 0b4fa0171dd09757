"""Session 50: torchvision v2 resizes uint8 images with torch's native uint8 kernel for
bicubic too (also without antialias); that kernel adds the weights of the cubic taps that
fall on the same edge pixel before turning them into 16-bit fixed point, so pixels whose
value lands near k + 0.5 came out one level off (about 1% of pixels). Compared with torch /
torchvision at test time."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TNF
import torchvision.transforms.v2.functional as TF2

import numtorch
import numtorch.nn.functional as NF
import numtorchvision.transforms.v2.functional as F2

from ._helpers import assert_same_image, pair

_SIZES = [((17, 23), [9, 7]), ((17, 23), [31, 40]), ((5, 4), [9, 7]), ((4, 6), [31, 6]),
          ((1, 7), [17, 23]), ((64, 48), [128, 5]), ((23, 50), [40, 50]), ((48, 50), [5, 50]),
          ((7, 3), [3, 7])]


@pytest.mark.parametrize("channels", [1, 3, 4, 9])
@pytest.mark.parametrize("mode", ["bicubic", "bilinear"])
def test_v2_resize_uint8_without_antialias(channels, mode):
    rng = np.random.default_rng(channels)
    for (h, w), size in _SIZES:
        x, y = pair(rng.integers(0, 256, (2, channels, h, w)).astype(np.uint8))
        a = F2.resize(x, size, interpolation=F2.InterpolationMode(mode), antialias=False)
        b = TF2.resize(y, size, interpolation=TF2.InterpolationMode(mode), antialias=False)
        assert_same_image(a, b)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("antialias", [False, True])
def test_interpolate_uint8_bicubic(align_corners, antialias):
    rng = np.random.default_rng(3)
    for (h, w), size in _SIZES:
        x, y = pair(rng.integers(0, 256, (1, 3, h, w)).astype(np.uint8))
        kw = {"mode": "bicubic", "align_corners": align_corners, "antialias": antialias}
        assert_same_image(NF.interpolate(x, size=size, **kw), TNF.interpolate(y, size=size, **kw))


@pytest.mark.parametrize("factor", [1.7, 0.3, 2.0])
def test_interpolate_uint8_bicubic_scale_factor(factor):
    x, y = pair(np.random.default_rng(4).integers(0, 256, (1, 3, 11, 13)).astype(np.uint8))
    kw = {"scale_factor": factor, "mode": "bicubic", "recompute_scale_factor": False}
    assert_same_image(NF.interpolate(x, **kw), TNF.interpolate(y, **kw))


def test_v2_resize_transform_on_uint8_video_one_thread():
    # (torch's pixel-at-a-time paths with one thread give the same values)
    from torchvision import tv_tensors as tv_tt
    from torchvision.transforms import v2 as tvT

    from numtorchvision import tv_tensors as nt_tt
    from numtorchvision.transforms import v2 as ntT

    arr = np.random.default_rng(5).integers(0, 256, (3, 3, 19, 26)).astype(np.uint8)
    old_th, old_nt = torch.get_num_threads(), numtorch.get_num_threads()
    torch.set_num_threads(1)
    numtorch.set_num_threads(1)
    try:
        a = ntT.Resize((11, 33), interpolation=ntT.InterpolationMode.BICUBIC, antialias=False)(
            nt_tt.Video(numtorch.from_numpy(arr.copy())))
        b = tvT.Resize((11, 33), interpolation=tvT.InterpolationMode.BICUBIC, antialias=False)(
            tv_tt.Video(torch.from_numpy(arr.copy())))
    finally:
        torch.set_num_threads(old_th)
        numtorch.set_num_threads(old_nt)
    assert type(a).__name__ == "Video"
    assert_same_image(a, b)
