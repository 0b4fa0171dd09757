"""Session 51: v2 colour functionals' calling conventions, against torchvision at test time.

torchvision's functionals (adjust_brightness, solarize, posterize, invert, ...) call the kernel
of the input's kind with their parameters as keywords, so a kernel registered for a custom
TVTensor as ``def k(inpt, **kwargs)`` gets ``brightness_factor=...``; numtorchvision passed
them on as the caller gave them (positionally: such a kernel raised TypeError). Their
signatures were ``(inpt, *args, **kwargs)``, so a bad call's TypeError named an internal
helper (``_v2_brightness() missing 1 required positional argument``)."""

import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision import tv_tensors as tv_tv
from torchvision.transforms.v2 import functional as TF

import numtorch
from numtorchvision import tv_tensors as nt_tv
from numtorchvision.transforms.v2 import functional as NF

_CALLS = {
    "adjust_brightness": (1.2,), "adjust_contrast": (1.2,), "adjust_saturation": (1.2,),
    "adjust_hue": (0.1,), "adjust_gamma": (0.8,), "adjust_sharpness": (2.0,),
    "posterize": (3,), "solarize": (0.5,), "autocontrast": (), "equalize": (), "invert": (),
    "rgb_to_grayscale": (), "grayscale_to_rgb": (), "permute_channels": ([2, 1, 0],),
    "horizontal_flip": (), "resize": ([2, 2],), "rotate": (10.0,), "pad": ([1, 1],),
    "gaussian_blur": ([3, 3],), "normalize": ([0.5], [0.5]), "erase": (0, 0, 1, 1, None),
}


def _custom_kind_calls(tvt, F, lib):
    class Mine(tvt.TVTensor):
        pass

    seen = {}
    for name, args in _CALLS.items():
        fn = getattr(F, name)

        def kernel(inpt, *a, _name=name, **kw):
            seen[_name] = (len(a), sorted(kw))
            return inpt

        F.register_kernel(fn, Mine)(kernel)
        args = tuple(lib.zeros(1) if a is None else a for a in args)
        out = fn(Mine(lib.zeros(1, 3, 4)), *args)
        assert type(out) is Mine
    return seen


def test_custom_kernels_get_keyword_parameters_as_in_torchvision():
    want = _custom_kind_calls(tv_tv, TF, torch)
    got = _custom_kind_calls(nt_tv, NF, numtorch)
    assert got == want
    assert got["adjust_brightness"] == (0, ["brightness_factor"])


_BAD = [
    ("adjust_brightness", (), {"factor": 1.2}),
    ("adjust_brightness", (), {}),
    ("adjust_brightness", (1.2, 3), {}),
    ("adjust_brightness_image", (), {"brightness": 1.2}),
    ("adjust_gamma", (), {"gain": 2}),
    ("adjust_hue", (), {}),
    ("adjust_saturation", (), {"factor": 1}),
    ("adjust_contrast_image", (1.0, 2.0), {}),
    ("adjust_sharpness", (), {}),
    ("solarize", (), {}),
    ("solarize_image", (), {"t": 1}),
    ("posterize", (), {"nbits": 3}),
    ("equalize", (3,), {}),
    ("autocontrast", (True,), {}),
    ("invert", (), {"x": 1}),
    ("invert_image", (1,), {}),
    ("permute_channels_image", (), {}),
    ("grayscale_to_rgb_image", (3,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", _BAD,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(_BAD)])
def test_bad_calls_raise_torchvisions_type_error(name, args, kwargs):
    with pytest.raises(TypeError) as want:
        getattr(TF, name)(tv_tv.Image(torch.rand(3, 4, 5)), *args, **kwargs)
    with pytest.raises(TypeError) as got:
        getattr(NF, name)(nt_tv.Image(numtorch.rand(3, 4, 5)), *args, **kwargs)
    assert str(got.value) == str(want.value)


def test_keyword_calls_give_torchvisions_values():
    x = torch.rand(3, 4, 5, generator=torch.Generator().manual_seed(0))
    n = numtorch.from_numpy(x.numpy().copy())
    pairs = [
        ("adjust_brightness", {"brightness_factor": 1.3}),
        ("adjust_gamma", {"gamma": 0.7, "gain": 1.1}),
        ("solarize", {"threshold": 0.4}),
        ("adjust_hue", {"hue_factor": -0.2}),
        ("adjust_brightness_image", {"brightness_factor": 0.5}),
        ("solarize_image", {"threshold": 0.6}),
    ]
    for name, kw in pairs:
        want = getattr(TF, name)(inpt=x, **kw) if not name.endswith("_image") else \
            getattr(TF, name)(image=x, **kw)
        got = getattr(NF, name)(inpt=n, **kw) if not name.endswith("_image") else \
            getattr(NF, name)(image=n, **kw)
        torch.testing.assert_close(torch.from_numpy(got.numpy()), want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32"])
@pytest.mark.parametrize("factor", [300, 2, 1, 0, 1.5, 2.0, True])
def test_adjust_brightness_multiplies_as_given(dtype, factor):
    # v2 multiplies the image by the factor itself: an integer factor keeps an integer
    # image's dtype and its products wrap around before the clamp (numtorchvision used v1's
    # float blend, which saturates)
    x = torch.randint(0, 256, (3, 4, 5), generator=torch.Generator().manual_seed(0))
    x = x.to(getattr(torch, dtype)) * (100 if dtype == "int16" else 1)
    if dtype == "float32":
        x = x / 255
    want = TF.adjust_brightness(tv_tv.Image(x), factor)
    got = NF.adjust_brightness(nt_tv.Image(numtorch.from_numpy(x.numpy().copy())), factor)
    assert str(got.dtype).split(".")[-1] == dtype
    torch.testing.assert_close(torch.from_numpy(got.numpy()), want.as_subclass(torch.Tensor),
                               rtol=0, atol=0)


def test_adjust_brightness_bad_factor_type_error_text():
    with pytest.raises(TypeError) as want:
        TF.adjust_brightness(tv_tv.Image(torch.rand(3, 2, 2)), (1, 2))
    with pytest.raises(TypeError) as got:
        NF.adjust_brightness(nt_tv.Image(numtorch.rand(3, 2, 2)), (1, 2))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("bits", [0, 1, 3, 8, 1.5, 0.0, 1e-3, 9, -2, True])
def test_v1_posterize_mask_formula(bits):
    # torchvision's v1 tensor kernel ANDs with -int(2 ** (8 - bits)): a float ``bits`` gives
    # a mask too (numtorchvision raised TypeError on ``<<`` with a float)
    import torchvision.transforms.functional as TF1

    import numtorchvision.transforms.functional as NF1

    x = torch.randint(0, 256, (3, 4, 5), dtype=torch.uint8,
                      generator=torch.Generator().manual_seed(0))
    def outcome(F, img):
        try:
            return "ok", F.posterize(img, bits).tolist()
        except Exception as e:  # noqa: BLE001 (compared)
            return type(e).__name__, str(e)

    assert outcome(NF1, numtorch.from_numpy(x.numpy().copy())) == outcome(TF1, x)


@pytest.mark.parametrize("bits", [300, -2, 9, 0])
def test_v2_posterize_pil_uses_pillows_check(bits):
    import numpy as np
    from PIL import Image

    img = Image.fromarray(np.arange(60, dtype=np.uint8).reshape(4, 5, 3))

    def outcome(F):
        try:
            return "ok", np.asarray(F.posterize(img, bits)).tolist()
        except Exception as e:  # noqa: BLE001 (compared)
            return type(e).__name__, str(e)

    assert outcome(NF) == outcome(TF)
