"""Session 51: InterpolationMode.LANCZOS on tensors. torchvision 0.28 (on torch 2.13) resizes
tensor images with torch's antialiased Lanczos-3 interpolate (uint8 natively), where
numtorchvision refused every call with "Lanczos mode requires antialias=True" (the antialias
flag was dropped for that mode) and numtorch's interpolate had no uint8 Lanczos kernel.
Oracle: torchvision / torch at test time."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision import tv_tensors as tv_tv
from torchvision.transforms import v2 as tv_v2

import numtorch
from numtorchvision import tv_tensors as nt_tv
from numtorchvision.transforms import v2 as nt_v2

_TL = tv_v2.InterpolationMode.LANCZOS
_NL = nt_v2.InterpolationMode.LANCZOS


def _pair(shape, dtype, seed):
    x = torch.rand(*shape, generator=torch.Generator().manual_seed(seed))
    if dtype == "uint8":
        x = (x * 255).to(torch.uint8)
    elif dtype == "int16":
        x = (x * 1000).to(torch.int16)
    else:
        x = x.to(getattr(torch, dtype))
    return x, numtorch.from_numpy(x.numpy().copy())


@pytest.mark.parametrize("size", [[10, 13], [30, 40], [9], [17, 40], [5, 50]])
@pytest.mark.parametrize("shape", [(3, 17, 23), (2, 3, 17, 23), (2, 4, 17, 23)])
def test_v2_resize_uint8_lanczos_is_bit_identical(shape, size):
    t, n = _pair(shape, "uint8", 0)
    want = tv_v2.functional.resize(t, size, interpolation=_TL)
    got = nt_v2.functional.resize(n, size, interpolation=_NL)
    assert got.dtype == numtorch.uint8 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 2e-6)])
@pytest.mark.parametrize("size", [[10, 13], [30, 40], [17, 9]])
def test_v2_resize_float_lanczos(dtype, tol, size):
    t, n = _pair((2, 3, 17, 23), dtype, 1)
    want = tv_v2.functional.resize(t, size, interpolation=_TL)
    got = nt_v2.functional.resize(n, size, interpolation=_NL)
    assert str(got.dtype).split(".")[-1] == dtype
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=tol)


def test_v2_lanczos_tv_tensors_and_random_transforms():
    t, n = _pair((3, 21, 26), "uint8", 2)
    pairs = [
        (lambda m, tvt, x: m.RandomResizedCrop(8, interpolation=_TL if m is tv_v2 else _NL)(
            tvt.Image(x))),
        (lambda m, tvt, x: m.Resize(10, max_size=12, interpolation="lanczos")(tvt.Video(
            x[None]))),
        (lambda m, tvt, x: m.ScaleJitter((20, 20), interpolation=_TL if m is tv_v2 else _NL)(
            tvt.Image(x))),
        (lambda m, tvt, x: m.RandomShortestSize([8, 9], interpolation="lanczos")(x)),
    ]
    for i, fn in enumerate(pairs):
        torch.manual_seed(i)
        want = fn(tv_v2, tv_tv, t)
        numtorch.manual_seed(i)
        got = fn(nt_v2, nt_tv, n)
        assert type(got).__name__ == type(want).__name__
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_v2_lanczos_without_antialias_refused_like_torchvision():
    t, n = _pair((3, 9, 11), "float32", 3)
    with pytest.raises(ValueError) as want:
        tv_v2.functional.resize(t, [5, 6], interpolation=_TL, antialias=False)
    with pytest.raises(ValueError) as got:
        nt_v2.functional.resize(n, [5, 6], interpolation=_NL, antialias=False)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("channels", [1, 3, 4, 5])
@pytest.mark.parametrize("shape_in,shape_out", [((17, 23), (10, 13)), ((17, 23), (30, 40)),
                                                ((64, 48), (7, 100)), ((9, 9), (4, 4))])
def test_interpolate_uint8_lanczos_is_bit_identical(channels, shape_in, shape_out):
    t, n = _pair((2, channels) + shape_in, "uint8", 4)
    want = torch.nn.functional.interpolate(t, size=shape_out, mode="lanczos", antialias=True)
    got = numtorch.nn.functional.interpolate(n, size=shape_out, mode="lanczos",
                                             antialias=True)
    assert got.dtype == numtorch.uint8
    np.testing.assert_array_equal(got.numpy(), want.numpy())
