"""Session 51: output layouts (strides) of v1 tensor kernels, compared with torchvision at
test time. A layout that differs only matters when the program then calls ``.view``: these
are the cases where torchvision's result is row-major and numtorchvision's was not (the
``.view`` worked under torch and failed under numtorch).

- equalize kept a permuted (HWC array seen as CHW) input's strides;
- resize of an integer image decided channels-last by ``is_contiguous(channels_last)`` after
  a reshape; torch follows its memory-format suggestion on the image as given (a 1xCxHxW
  image whose batch stride is C is resized as row-major)."""

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as TF
from torchvision.transforms.v2 import functional as TF2

import numtorch
import numtorchvision.transforms.functional as NF
from numtorchvision.transforms.v2 import functional as NF2


def _hwc(seed, h=13, w=17, c=3):
    return np.random.default_rng(seed).integers(0, 256, (h, w, c), dtype=np.uint8)


def _layouts():
    """(name, builder(lib, hwc)) of input layouts a program meets."""
    return [
        ("permuted", lambda m, a: m.from_numpy(a).permute(2, 0, 1)),
        ("permuted_batch1", lambda m, a: m.from_numpy(a).permute(2, 0, 1)[None]),
        ("channels_last_batch1", lambda m, a: m.from_numpy(a).permute(2, 0, 1)[None].clone(
            memory_format=m.channels_last)),
        ("channels_last_batch1_fresh", lambda m, a: m.from_numpy(
            np.ascontiguousarray(a.transpose(2, 0, 1)))[None].contiguous(
            memory_format=m.channels_last)),
        ("channels_last_batch2", lambda m, a: m.from_numpy(a).permute(2, 0, 1)[None].repeat(
            2, 1, 1, 1).contiguous(memory_format=m.channels_last)),
        ("row_major", lambda m, a: m.from_numpy(np.ascontiguousarray(a.transpose(2, 0, 1)))),
    ]


def _same(got, want):
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    assert got.is_contiguous() == want.is_contiguous()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("name,build", _layouts(), ids=[n for n, _ in _layouts()])
@pytest.mark.parametrize("v2", [False, True])
def test_equalize_result_layout(name, build, v2):
    a = _hwc(0)
    want = (TF2.equalize if v2 else TF.equalize)(build(torch, a))
    got = (NF2.equalize if v2 else NF.equalize)(build(numtorch, a))
    _same(got, want)
    assert got.view(-1).shape[0] == want.numel()


@pytest.mark.parametrize("name,build", _layouts(), ids=[n for n, _ in _layouts()])
@pytest.mark.parametrize("dtype", ["uint8", "int16"])
@pytest.mark.parametrize("mode,antialias", [("bilinear", True), ("bilinear", False),
                                            ("bicubic", True), ("bicubic", False)])
def test_v1_integer_resize_result_layout(name, build, dtype, mode, antialias):
    a = _hwc(1)
    t = build(torch, a).to(getattr(torch, dtype))
    n = build(numtorch, a).to(getattr(numtorch, dtype))
    for size in ([9, 11], [30, 41]):
        want = TF.resize(t, size, interpolation=TF.InterpolationMode(mode), antialias=antialias)
        got = NF.resize(n, size, interpolation=NF.InterpolationMode(mode), antialias=antialias)
        _same(got, want)


def test_v1_integer_resize_four_channels_batch1_channels_last_values():
    # the kernel choice (channels-last, C > 3) follows the same suggestion as the layout
    a = _hwc(2, c=4)
    t = torch.from_numpy(a).permute(2, 0, 1)[None].clone(memory_format=torch.channels_last)
    n = numtorch.from_numpy(a).permute(2, 0, 1)[None].clone(memory_format=numtorch.channels_last)
    for size in ([9, 11], [40, 70]):
        want = TF.resize(t, size, antialias=False)
        got = NF.resize(n, size, antialias=False)
        _same(got, want)
