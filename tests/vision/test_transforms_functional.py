"""transforms.functional against torchvision: PIL images (Pillow on both sides: exact) and
tensors (numtorch vs torch: equal up to float rounding)."""

import numpy as np
import pytest
import torch
import torchvision.transforms.functional as TF

import numtorch
import numtorchvision.transforms.functional as F

from ._helpers import assert_same_image, pair, rgb_image

IM = F.InterpolationMode
TIM = TF.InterpolationMode


def _tv_args(args):
    """Translate InterpolationMode members (and nested lists) to torchvision's."""
    out = []
    for a in args:
        out.append(TIM(a.value) if isinstance(a, IM) else a)
    return out


def both(name, img_nt, img_th, *args, **kwargs):
    kw_th = {k: (TIM(v.value) if isinstance(v, IM) else v) for k, v in kwargs.items()}
    return getattr(F, name)(img_nt, *args, **kwargs), getattr(TF, name)(img_th, *_tv_args(args),
                                                                         **kw_th)


PIL_CASES = [
    ("hflip", ()), ("vflip", ()),
    ("resize", ([11, 17],)), ("resize", (9,)), ("resize", (40, IM.BICUBIC)),
    ("resize", (12, IM.NEAREST)), ("resize", (12, IM.LANCZOS)), ("resize", (12, IM.BOX)),
    ("resize", (12, IM.HAMMING)), ("resize", (12, IM.NEAREST_EXACT)),
    ("pad", (3,)), ("pad", ([1, 2], 7)), ("pad", ([1, 2, 3, 4], (10, 20, 30))),
    ("pad", ([2, 3], 0, "edge")), ("pad", ([3, 1, 2, 4], 0, "reflect")),
    ("pad", ([3, -1, 2, 4], 0, "symmetric")),
    ("crop", (2, 3, 10, 12)), ("crop", (-2, -3, 30, 40)), ("center_crop", (10,)),
    ("center_crop", ([30, 40],)), ("center_crop", ([8, 13],)),
    ("resized_crop", (2, 3, 15, 20, [8, 9])),
    ("adjust_brightness", (1.4,)), ("adjust_contrast", (0.6,)), ("adjust_saturation", (1.7,)),
    ("adjust_hue", (0.2,)), ("adjust_hue", (-0.35,)), ("adjust_gamma", (0.7, 1.1)),
    ("adjust_sharpness", (2.5,)), ("rotate", (33.0,)), ("rotate", (-70, IM.BILINEAR, True)),
    ("rotate", (45, IM.NEAREST, False, [3, 4], [9, 8, 7])),
    ("affine", (25.0, [2, -3], 1.2, [10.0, -5.0])),
    ("affine", (-10, [0, 0], 0.8, 12.0, IM.BILINEAR, 40)),
    ("perspective", ([[0, 0], [30, 0], [30, 22], [0, 22]], [[2, 1], [28, 3], [29, 20], [1, 21]])),
    ("invert", ()), ("posterize", (3,)), ("solarize", (100,)), ("autocontrast", ()),
    ("equalize", ()), ("rgb_to_grayscale", ()), ("rgb_to_grayscale", (3,)),
    ("to_grayscale", (3,)), ("gaussian_blur", (5,)), ("gaussian_blur", ([3, 7], [0.8, 1.9])),
]


@pytest.mark.parametrize("name,args", PIL_CASES, ids=lambda x: str(x))
def test_pil_path_equals_torchvision(name, args):
    img = rgb_image()
    a, b = both(name, img, img, *args)
    # the blur runs on tensors inside torchvision too: float rounding may move a level
    atol = 1 if name == "gaussian_blur" else 0
    assert_same_image(a, b, atol=atol)


@pytest.mark.parametrize("mode", ["L", "RGBA", "LA"])
def test_pil_other_modes(mode):
    img = rgb_image(mode=mode)
    for name, args in [("pad", ([1, 2, 3, 4], 0, "reflect")), ("pad", (2, 5)),
                       ("resize", (9,)), ("rotate", (30.0,)), ("adjust_brightness", (0.5,)),
                       ("affine", (20.0, [1, 1], 1.0, 0.0))]:
        assert_same_image(*both(name, img, img, *args))


def test_pil_palette_pad_keeps_palette():
    img = rgb_image().convert("P")
    for mode in ("constant", "edge"):
        a, b = both("pad", img, img, 2, 0, mode)
        assert_same_image(a, b)
        assert a.getpalette() == b.getpalette()


def _tensor(dtype="uint8", shape=(3, 19, 26), seed=1):
    rng = np.random.default_rng(seed)
    if dtype == "uint8":
        arr = rng.integers(0, 256, size=shape).astype(np.uint8)
    else:
        arr = rng.random(shape).astype(dtype)
    return pair(arr)


TENSOR_CASES = [
    ("hflip", ()), ("vflip", ()),
    ("resize", ([11, 17],)), ("resize", (9,)), ("resize", (40, IM.BICUBIC)),
    ("resize", ([7, 30], IM.BICUBIC)), ("resize", (12, IM.NEAREST)),
    ("resize", (12, IM.NEAREST_EXACT)), ("resize", ([50, 11], IM.BILINEAR, None, False)),
    ("resize", (10, IM.BILINEAR, 14)),
    ("pad", (3,)), ("pad", ([1, 2], 7)), ("pad", ([2, 3], 0, "edge")),
    ("pad", ([3, 1, 2, 4], 0, "reflect")), ("pad", ([3, -1, 2, 4], 0, "symmetric")),
    ("crop", (2, 3, 10, 12)), ("crop", (-2, -3, 30, 40)), ("center_crop", (10,)),
    ("center_crop", ([30, 40],)), ("resized_crop", (2, 3, 15, 20, [8, 9])),
    ("five_crop", (7,)), ("ten_crop", ([6, 8], True)),
    ("adjust_brightness", (1.4,)), ("adjust_contrast", (0.6,)), ("adjust_saturation", (1.7,)),
    ("adjust_hue", (0.2,)), ("adjust_hue", (-0.45,)), ("adjust_gamma", (0.7, 1.1)),
    ("adjust_sharpness", (2.5,)), ("rotate", (90.0,)), ("rotate", (33.0, IM.BILINEAR)),
    ("rotate", (-70, IM.BILINEAR, True)), ("rotate", (45, IM.NEAREST, False, [3, 4], [9, 8, 7])),
    ("affine", (25.0, [2, -3], 1.2, [10.0, -5.0])),
    ("affine", (-10, [0, 0], 0.8, 12.0, IM.BILINEAR, [40.0])),
    ("perspective", ([[0, 0], [25, 0], [25, 18], [0, 18]], [[2, 1], [23, 3], [24, 16], [1, 17]])),
    ("invert", ()), ("solarize", (100,)), ("autocontrast", ()), ("rgb_to_grayscale", ()),
    ("rgb_to_grayscale", (3,)), ("gaussian_blur", (5,)), ("gaussian_blur", ([3, 7], [0.8, 1.9])),
    ("convert_image_dtype", (numtorch.float32,)),
]


def _th_args(args):
    return [torch.float32 if a is numtorch.float32 else a for a in args]


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("name,args", TENSOR_CASES, ids=lambda x: str(x))
def test_tensor_path_equals_torchvision(name, args, dtype):
    x, y = _tensor(dtype)
    try:
        b = getattr(TF, name)(y, *_tv_args(_th_args(args)))
    except Exception as exc:  # the same bad input must fail the same way
        with pytest.raises(type(exc)):
            getattr(F, name)(x, *args)
        return
    a = getattr(F, name)(x, *args)
    if isinstance(b, tuple):
        assert len(a) == len(b)
    else:
        a, b = (a,), (b,)
    for p, q in zip(a, b):
        if dtype == "uint8":
            # float results cast to ints: a value at .5 may round the other way
            assert_same_image(p, q, atol=1, frac=0.002)
        else:
            assert_same_image(p, q, atol=2e-5, frac=0.002 if "rotate" in name or "affine" in name
                              or "perspective" in name else 0.0)


@pytest.mark.parametrize("name,args", [("posterize", (3,)), ("equalize", ()),
                                       ("posterize", (0,)), ("posterize", (8,))])
def test_uint8_only_ops(name, args):
    x, y = _tensor("uint8", shape=(2, 3, 16, 20))
    assert_same_image(getattr(F, name)(x, *args), getattr(TF, name)(y, *args))
    with pytest.raises(TypeError, match="Only torch.uint8"):
        getattr(F, name)(x.float(), *args)


def test_equalize_flat_and_two_level_channels():
    arr = np.zeros((3, 8, 8), np.uint8)
    arr[1, :4] = 200
    arr[2] = np.arange(64).reshape(8, 8) * 3
    x, y = pair(arr)
    assert_same_image(F.equalize(x), TF.equalize(y))


def test_batched_tensor_leading_dims():
    x, y = _tensor("float32", shape=(2, 2, 3, 12, 14))
    for name, args in [("resize", ([6, 9],)), ("rotate", (30.0, IM.BILINEAR)),
                       ("gaussian_blur", (3,)), ("adjust_hue", (0.1,))]:
        a = getattr(F, name)(x, *args)
        b = getattr(TF, name)(y.reshape(4, 3, 12, 14), *_tv_args(args)).reshape(
            2, 2, *getattr(TF, name)(y[0], *_tv_args(args)).shape[1:])
        assert_same_image(a, b, atol=2e-5)


def test_antialiased_downscale_matches_torchvision():
    x, y = _tensor("float32", shape=(3, 64, 80))
    for mode in (IM.BILINEAR, IM.BICUBIC):
        for size in ([13, 29], [31, 17], [64, 40]):
            a, b = F.resize(x, size, mode, antialias=True), TF.resize(y, size, TIM(mode.value),
                                                                      antialias=True)
            assert_same_image(a, b, atol=1e-5)


@pytest.mark.parametrize("dtype", ["uint8", "int16"])
def test_antialiased_resize_of_integer_images_is_exact(dtype):
    # torchvision rounds torch's float32 result: equal pixels need torch's float32 rounding
    # (about 0.04% of pixels moved by one level before); down- and upscaling, either edge alone
    x, y = _tensor("uint8", shape=(2, 3, 97, 131), seed=7)
    if dtype == "int16":
        x, y = x.to(numtorch.int16) * 37, y.to(torch.int16) * 37
    for mode in (IM.BILINEAR, IM.BICUBIC):
        for size in ([40, 50], [150, 200], [97, 60], [31, 131], [17, 301]):
            a = F.resize(x, size, mode, antialias=True)
            b = TF.resize(y, size, TIM(mode.value), antialias=True)
            assert_same_image(a, b)
    for size in ([0, 10], [-3, -4]):
        with pytest.raises(RuntimeError) as th_err:
            TF.resize(y, size, antialias=True)
        with pytest.raises(RuntimeError, match="sizes should be greater than 0") as nt_err:
            F.resize(x, size, antialias=True)
        assert str(nt_err.value) == str(th_err.value)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64, np.int16, np.int32])
@pytest.mark.parametrize("to", ["uint8", "float32", "float64", "int16", "int32", "int64"])
def test_convert_image_dtype(dtype, to):
    rng = np.random.default_rng(0)
    arr = (rng.random((3, 4, 5)) * (1 if np.issubdtype(dtype, np.floating) else 120)).astype(dtype)
    x, y = pair(arr)
    try:
        b = TF.convert_image_dtype(y, getattr(torch, to))
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match="cannot be performed safely"):
            F.convert_image_dtype(x, getattr(numtorch, to))
        assert "cannot be performed safely" in str(exc)
        return
    assert_same_image(F.convert_image_dtype(x, getattr(numtorch, to)), b, atol=1e-7)


def test_to_tensor_and_pil_to_tensor():
    for mode in ("RGB", "L", "RGBA", "LA", "1", "I", "F", "I;16", "P", "CMYK", "YCbCr"):
        img = rgb_image(7, 9).convert(mode)
        a, b = F.to_tensor(img), TF.to_tensor(img)
        assert_same_image(a, b)
        assert_same_image(F.pil_to_tensor(img), TF.pil_to_tensor(img))  # I;16: uint16
    for arr in (np.arange(60, dtype=np.uint8).reshape(3, 4, 5), np.ones((4, 5), np.float64),
                np.arange(20, dtype=np.int32).reshape(4, 5)):
        assert_same_image(F.to_tensor(arr), TF.to_tensor(arr))
    numtorch.set_default_dtype(numtorch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        assert_same_image(F.to_tensor(rgb_image(4, 4)), TF.to_tensor(rgb_image(4, 4)))
    finally:
        torch.set_default_dtype(torch.float32)


def test_to_pil_image_modes():
    cases = [(np.random.default_rng(0).random((3, 5, 6)).astype(np.float32), None),
             (np.arange(30, dtype=np.uint8).reshape(1, 5, 6), None),
             (np.arange(60, dtype=np.uint8).reshape(2, 5, 6), None),
             (np.arange(120, dtype=np.uint8).reshape(4, 5, 6), "CMYK"),
             (np.arange(90, dtype=np.uint8).reshape(3, 5, 6), "HSV"),
             (np.arange(30, dtype=np.int32).reshape(1, 5, 6), None),
             (np.arange(30, dtype=np.int16).reshape(1, 5, 6), None),
             (np.random.default_rng(1).random((1, 5, 6)).astype(np.float32), "F")]
    for arr, mode in cases:
        x, y = pair(arr)
        assert_same_image(F.to_pil_image(x, mode), TF.to_pil_image(y, mode))
        hwc = np.ascontiguousarray(arr.transpose(1, 2, 0))
        assert_same_image(F.to_pil_image(hwc, mode), TF.to_pil_image(hwc, mode))


def _same_error(fn_nt, fn_th, exc=None, match=None):
    with pytest.raises(Exception) as th_err:
        fn_th()
    kind = exc or type(th_err.value)
    with pytest.raises(kind, match=match) as nt_err:
        fn_nt()
    assert isinstance(nt_err.value, type(th_err.value)), (nt_err.value, th_err.value)
    return nt_err.value


def test_errors_match_torchvision():
    x, y = _tensor("float32")
    img = rgb_image()
    _same_error(lambda: F.to_pil_image(np.zeros((5, 6, 3), np.uint8), "L"),
                lambda: TF.to_pil_image(np.zeros((5, 6, 3), np.uint8), "L"), match="mode")
    _same_error(lambda: F.to_pil_image(np.zeros((5, 6, 5), np.uint8)),
                lambda: TF.to_pil_image(np.zeros((5, 6, 5), np.uint8)), match="channels")
    for dt in (np.uint8, np.int16, np.float32):
        a = np.zeros((5, 6, 1), dt)
        with pytest.raises(ValueError) as th_err:
            TF.to_pil_image(a, "RGBA")
        with pytest.raises(ValueError) as nt_err:
            F.to_pil_image(a, "RGBA")
        assert str(nt_err.value) == str(th_err.value)
    _same_error(lambda: F.normalize(x, [0.5, 0.5], [0.2, 0.2]),
                lambda: TF.normalize(y, [0.5, 0.5], [0.2, 0.2]),
                match=r"tensor a \(3\) must match the size of tensor b \(2\)")
    _same_error(lambda: F.normalize(x, [0.5] * 3, [0.2] * 4),
                lambda: TF.normalize(y, [0.5] * 3, [0.2] * 4),
                match=r"tensor a \(3\) must match the size of tensor b \(4\)")
    _same_error(lambda: F.normalize(x, [0.5] * 3, [0.2, 0, 1]),
                lambda: TF.normalize(y, [0.5] * 3, [0.2, 0, 1]), match="std evaluated to zero")
    _same_error(lambda: F.normalize(x.to(numtorch.uint8), [0.5], [0.2]),
                lambda: TF.normalize(y.to(torch.uint8), [0.5], [0.2]), match="float tensor")
    _same_error(lambda: F.normalize(img, [0.5], [0.2]), lambda: TF.normalize(img, [0.5], [0.2]))
    _same_error(lambda: F.five_crop(img, 40), lambda: TF.five_crop(img, 40), match="bigger")
    _same_error(lambda: F.adjust_hue(x, 0.7), lambda: TF.adjust_hue(y, 0.7), match="hue_factor")
    _same_error(lambda: F.adjust_brightness(x, -1), lambda: TF.adjust_brightness(y, -1))
    _same_error(lambda: F.adjust_saturation(x[:2], 1.5), lambda: TF.adjust_saturation(y[:2], 1.5),
                match="channel")
    _same_error(lambda: F.pad(img, [1, 2, 3]), lambda: TF.pad(img, [1, 2, 3]), match="Padding")
    _same_error(lambda: F.pad(x, 1, padding_mode="wrap"), lambda: TF.pad(y, 1, padding_mode="wrap"))
    _same_error(lambda: F.pad(x, 1, fill=(1, 2)), lambda: TF.pad(y, 1, fill=(1, 2)), match="fill")
    _same_error(lambda: F.resize(x, [1, 2, 3]), lambda: TF.resize(y, [1, 2, 3]), match="Size")
    _same_error(lambda: F.resize(x, 10, max_size=8), lambda: TF.resize(y, 10, max_size=8),
                match="max_size")
    _same_error(lambda: F.resize(x, 10, interpolation="bilinear"),
                lambda: TF.resize(y, 10, interpolation="bilinear"), match="interpolation")
    _same_error(lambda: F.rotate(x, 10, IM.BICUBIC), lambda: TF.rotate(y, 10, TIM.BICUBIC),
                match="unsupported")
    _same_error(lambda: F.affine(x, 10, [1], 1.0, 0), lambda: TF.affine(y, 10, [1], 1.0, 0),
                match="translate")
    _same_error(lambda: F.affine(x, 10, [1, 1], -1.0, 0), lambda: TF.affine(y, 10, [1, 1], -1.0, 0),
                match="scale")
    _same_error(lambda: F.rotate(x, 10, fill=[1, 2]), lambda: TF.rotate(y, 10, fill=[1, 2]),
                match="fill")
    _same_error(lambda: F.gaussian_blur(x, 4), lambda: TF.gaussian_blur(y, 4), match="odd")
    _same_error(lambda: F.gaussian_blur(x, 3, -1.0), lambda: TF.gaussian_blur(y, 3, -1.0),
                match="sigma")
    _same_error(lambda: F.posterize(img, 9), lambda: TF.posterize(img, 9), match="bits")
    _same_error(lambda: F.solarize(x, 2.0), lambda: TF.solarize(y, 2.0), match="Threshold")
    _same_error(lambda: F.to_tensor(np.zeros((2, 2, 2, 2))), lambda: TF.to_tensor(
        np.zeros((2, 2, 2, 2))), match="dimensional")
    _same_error(lambda: F.to_tensor("x"), lambda: TF.to_tensor("x"), match="PIL Image")
    _same_error(lambda: F.convert_image_dtype(img), lambda: TF.convert_image_dtype(img))
    _same_error(lambda: F.perspective(x, [[0, 0]] * 3, [[0, 0]] * 4),
                lambda: TF.perspective(y, [[0, 0]] * 3, [[0, 0]] * 4), match="four corners")
    _same_error(lambda: F.hflip(np.zeros((3, 3))), lambda: TF.hflip(np.zeros((3, 3))))


def test_perspective_coefficients_and_affine_matrix():
    from torchvision.transforms.functional import _get_inverse_affine_matrix as tv_mat
    from torchvision.transforms.functional import _get_perspective_coeffs as tv_coeffs

    start = [[0, 0], [30, 0], [30, 22], [0, 22]]
    end = [[2, 1], [28, 3], [29, 20], [1, 21]]
    np.testing.assert_allclose(F._get_perspective_coeffs(start, end), tv_coeffs(start, end),
                               rtol=1e-6)
    for inverted in (True, False):
        args = ([3.0, 4.0], 33.0, [2.0, -1.0], 1.3, [12.0, -7.0])
        np.testing.assert_allclose(F._get_inverse_affine_matrix(*args, inverted=inverted),
                                   tv_mat(*args, inverted=inverted), rtol=1e-12, atol=1e-12)


def test_normalize_inplace_and_autograd():
    x, y = _tensor("float32", shape=(2, 3, 4, 5))
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]
    assert_same_image(F.normalize(x, mean, std), TF.normalize(y, mean, std), atol=1e-6)
    z = x.clone()
    out = F.normalize(z, mean, std, inplace=True)
    assert out is z
    w = x.clone().requires_grad_()
    F.resize(F.normalize(w, mean, std), [3, 3]).sum().backward()
    v = y.clone().requires_grad_()
    TF.resize(TF.normalize(v, mean, std), [3, 3]).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), v.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_elastic_transform_with_given_displacement():
    x, y = _tensor("float32", shape=(3, 12, 14))
    rng = np.random.default_rng(3)
    disp = (rng.random((1, 12, 14, 2)).astype(np.float32) - 0.5) * 0.2
    a = F.elastic_transform(x, numtorch.from_numpy(disp), fill=[0.5])
    b = TF.elastic_transform(y, torch.from_numpy(disp), fill=[0.5])
    assert_same_image(a, b, atol=1e-5)
    img = rgb_image(12, 14)
    a = F.elastic_transform(img, numtorch.from_numpy(disp))
    b = TF.elastic_transform(img, torch.from_numpy(disp))
    assert_same_image(a, b, atol=1)


@pytest.mark.parametrize("name,args", [
    ("rotate", (30.0, IM.BILINEAR)), ("affine", (10.0, [1, 2], 1.1, [5.0, 3.0], IM.BILINEAR,
                                                 [0.3])),
    ("perspective", ([[0, 0], [13, 0], [13, 11], [0, 11]], [[1, 1], [12, 0], [13, 10], [0, 11]])),
    ("adjust_hue", (0.2,)), ("gaussian_blur", (3,)), ("adjust_contrast", (0.5,)),
    ("pad", ([1, 2], 0, "symmetric")), ("resize", ([7, 9],)), ("adjust_sharpness", (1.5,))])
def test_float_tensor_gradients_match(name, args):
    rng = np.random.default_rng(0)
    arr = rng.random((2, 3, 12, 14)).astype(np.float32)
    x = numtorch.from_numpy(arr.copy()).requires_grad_()
    y = torch.from_numpy(arr.copy()).requires_grad_()
    a, b = getattr(F, name)(x, *args), getattr(TF, name)(y, *_tv_args(args))
    cot = rng.random(tuple(b.shape)).astype(np.float32)
    (a * numtorch.from_numpy(cot)).sum().backward()
    (b * torch.from_numpy(cot)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), atol=1e-5)
