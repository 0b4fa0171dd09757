"""Session 51: v2 ``*_video`` / ``*_mask`` kernels that share an image kernel were wrappers
(``(*args, **kwargs)``), so a bad call's TypeError named the image kernel
(``adjust_brightness_image() takes 2 positional arguments``). They are now copies of the
kernel under their own names, first argument ``video`` / ``mask``, as torchvision's.
Oracle: torchvision at test time."""

import inspect

import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision import tv_tensors as tv_tv
from torchvision.transforms.v2 import functional as TF

import numtorch
from numtorchvision import tv_tensors as nt_tv
from numtorchvision.transforms.v2 import functional as NF

_NAMES = sorted(n for n in dir(TF) if n.endswith(("_video", "_mask"))
                and inspect.isfunction(getattr(TF, n)) and not n.startswith("_")
                and n not in ("affine_mask", "elastic_mask", "perspective_mask", "resize_mask",
                              "resized_crop_mask", "rotate_mask", "normalize_video"))


def _message(f, args, kwargs):
    with pytest.raises(TypeError) as info:
        f(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("name", _NAMES)
def test_shared_kernels_report_their_own_name(name):
    t, n = tv_tv.Image(torch.rand(3, 5, 6)), nt_tv.Image(numtorch.rand(3, 5, 6))
    for args, kwargs in (((), {"zzz_bad": 1}), ((1,) * 12, {})):
        assert _message(getattr(NF, name), (n, *args), kwargs) == \
            _message(getattr(TF, name), (t, *args), kwargs)


def test_renamed_kernels_take_video_and_mask_keywords():
    v = numtorch.rand(2, 3, 5, 6)
    got = NF.adjust_brightness_video(video=v, brightness_factor=0.5)
    want = TF.adjust_brightness_video(video=torch.from_numpy(v.numpy()), brightness_factor=0.5)
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want)
    m = numtorch.arange(30).reshape(5, 6)
    got = NF.horizontal_flip_mask(mask=m)
    want = TF.horizontal_flip_mask(mask=torch.arange(30).reshape(5, 6))
    assert got.tolist() == want.tolist()
    assert next(iter(inspect.signature(NF.resize_video).parameters)) == "video"
