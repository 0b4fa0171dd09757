"""Session 51b: v2 resize keeps a single channels-last image channels-last. torchvision gives
a one-image batch that is channels-last contiguous (an HWC array permuted to CHW, with or
without [None]) the full extent as batch stride before interpolating, so the result stays
channels-last; numtorchvision returned row-major results there (strides (35, 7, 1) where
torchvision gives (1, 21, 3)). Oracle: torchvision at test time."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision import tv_tensors as tv_tv
from torchvision.transforms import v2 as tv_v2

import numtorch
from numtorchvision import tv_tensors as nt_tv
from numtorchvision.transforms import v2 as nt_v2

_BASE = (np.arange(2 * 9 * 11 * 3) % 251).astype(np.float32).reshape(2, 9, 11, 3)
_LAYOUTS = {
    "chw_from_hwc": lambda m, a: m.from_numpy(a[0].copy()).permute(2, 0, 1),
    "1chw_from_hwc": lambda m, a: m.from_numpy(a[0].copy()).permute(2, 0, 1)[None],
    "1chw_from_nhwc": lambda m, a: m.from_numpy(a[:1].copy()).permute(0, 3, 1, 2),
    "nchw_from_nhwc": lambda m, a: m.from_numpy(a.copy()).permute(0, 3, 1, 2),
    "gray_from_hwc": lambda m, a: m.from_numpy(a[0, :, :, :1].copy()).permute(2, 0, 1),
    "chw_contiguous": lambda m, a: m.from_numpy(a[0].copy()).permute(2, 0, 1).contiguous(),
    "video_from_thwc": lambda m, a: m.from_numpy(a.copy()).permute(0, 3, 1, 2)[None],
}
_MODES = ["BILINEAR", "NEAREST", "BICUBIC", "NEAREST_EXACT"]


@pytest.mark.parametrize("dtype", ["float32", "uint8", "int16"])
@pytest.mark.parametrize("mode", _MODES)
@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_v2_resize_keeps_channels_last(layout, mode, dtype):
    t = _LAYOUTS[layout](torch, _BASE).to(getattr(torch, dtype))
    n = _LAYOUTS[layout](numtorch, _BASE).to(getattr(numtorch, dtype))
    want = tv_v2.functional.resize(t, [5, 7], interpolation=getattr(
        tv_v2.InterpolationMode, mode), antialias=True)
    got = nt_v2.functional.resize(n, [5, 7], interpolation=getattr(
        nt_v2.InterpolationMode, mode), antialias=True)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    assert got.is_contiguous() == want.is_contiguous()
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64),
                               rtol=0, atol=1e-4 if dtype == "float32" else 0)


def test_v2_resize_transform_on_image_from_hwc():
    t = tv_tv.Image(torch.from_numpy(_BASE[0].astype(np.uint8)).permute(2, 0, 1))
    n = nt_tv.Image(numtorch.from_numpy(_BASE[0].astype(np.uint8)).permute(2, 0, 1))
    want = tv_v2.Resize((6, 4))(t)
    got = nt_v2.Resize((6, 4))(n)
    assert type(got).__name__ == type(want).__name__ == "Image"
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
