"""Session 47 probes of numtorchvision against torchvision 0.28 at test time: normalize's
error for a mean/std of the wrong length, box_convert's exception class between rotated and
axis-aligned formats, and module-level names torchvision has (version, extension,
disable_beta_transforms_warning, quantization.mobilenet, initLevelMapper, roi_heads'
single-mask paste helpers)."""

import numpy as np
import pytest
import torch
import torchvision  # conftest imported it with register_fake patched
from torchvision.models.detection import roi_heads as tv_roi_heads
from torchvision.ops import boxes as tv_boxes
from torchvision.ops import poolers as tv_poolers
from torchvision.transforms import functional as tvF1

import numtorch
import numtorchvision
from numtorchvision.models.detection import roi_heads as nt_roi_heads
from numtorchvision.ops import boxes as nt_boxes
from numtorchvision.ops import poolers as nt_poolers
from numtorchvision.transforms import functional as ntF1

from ._helpers import pair, to_np


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the class and text are compared)
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("mean,std", [([0.5] * 2, [1.0, 1.0]), ([0.5] * 3, [1.0, 1.0]),
                                      ([0.5], [1.0] * 4), ([0.1] * 4, [1.0])])
@pytest.mark.parametrize("form", ["list", "tensor", "inplace"])
def test_normalize_wrong_length_error_matches(shape, mean, std, form):
    a, b = pair(np.random.default_rng(0).random(shape).astype(np.float32))

    def call(F, lib, x):
        m, s = (lib.tensor(mean), lib.tensor(std)) if form == "tensor" else (mean, std)
        return lambda: F.normalize(x, m, s, inplace=form == "inplace")

    got = _raised(call(ntF1, numtorch, a))
    want = _raised(call(tvF1, torch, b))
    assert want is not None and got == want


@pytest.mark.parametrize("in_fmt", ["xywhr", "cxcywhr", "xyxyxyxy", "xyxy", "cxcywh", "foo"])
@pytest.mark.parametrize("out_fmt", ["xyxy", "xywh", "xywhr", "xyxyxyxy", "bar"])
def test_box_convert_unsupported_pairs_raise_torchvisions_class(in_fmt, out_fmt):
    width = 8 if in_fmt == "xyxyxyxy" else 5 if in_fmt.endswith("r") else 4
    arr = np.random.default_rng(1).random((3, width)).astype(np.float32) * 10
    a, b = pair(arr)
    want = _raised(lambda: tv_boxes.box_convert(b, in_fmt, out_fmt))
    got = _raised(lambda: nt_boxes.box_convert(a, in_fmt, out_fmt))
    if want is None:
        np.testing.assert_allclose(to_np(nt_boxes.box_convert(a, in_fmt, out_fmt)),
                                   to_np(tv_boxes.box_convert(b, in_fmt, out_fmt)),
                                   rtol=1e-5, atol=1e-4)
    else:
        assert got == want


def test_module_level_names():
    assert numtorchvision.version.__version__ == numtorchvision.__version__
    assert torchvision.version.__version__.startswith(numtorchvision.version.__version__)
    assert isinstance(numtorchvision.version.git_version, str)
    assert numtorchvision.disable_beta_transforms_warning() is None
    assert torchvision.disable_beta_transforms_warning() is None
    assert numtorchvision.extension._has_ops() is True
    assert numtorchvision.extension._assert_has_ops() is None
    nt_mb = numtorchvision.models.quantization.mobilenet
    tv_mb = torchvision.models.quantization.mobilenet
    assert nt_mb.__all__ == tv_mb.__all__
    for name in tv_mb.__all__:
        assert hasattr(nt_mb, name), name


def test_init_level_mapper_matches():
    rng = np.random.default_rng(2)
    xy = rng.random((20, 2)) * 300
    arr = np.concatenate([xy, xy + rng.random((20, 2)) * 600 + 1], axis=1).astype(np.float32)
    a, b = pair(arr)
    for args in [(2, 5), (3, 6, 112, 3), (2, 4, 224, 4, 0.1)]:
        got = nt_poolers.initLevelMapper(*args)([a[:7], a[7:]])
        want = tv_poolers.initLevelMapper(*args)([b[:7], b[7:]])
        assert str(got.dtype) == str(want.dtype)
        np.testing.assert_array_equal(to_np(got), to_np(want))


@pytest.mark.parametrize("m,padding", [(28, 1), (14, 0), (7, 3)])
def test_expand_masks_tracing_scale_matches(m, padding):
    got = nt_roi_heads.expand_masks_tracing_scale(m, padding)
    want = tv_roi_heads.expand_masks_tracing_scale(m, padding)
    assert isinstance(got, numtorch.Tensor) and str(got.dtype) == str(want.dtype)
    assert got.shape == () and float(got) == float(want)


@pytest.mark.parametrize("box", [[2, 3, 10, 8], [-3, -2, 4, 20], [5, 5, 5, 5], [8, 1, 3, 4],
                                 [0, 0, 13, 11], [12, 10, 30, 30]])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_paste_mask_in_image_matches(box, dtype):
    mask = np.random.default_rng(3).random((5, 5)).astype(dtype)
    a, b = pair(mask)
    got = nt_roi_heads.paste_mask_in_image(a, numtorch.tensor(box), 12, 14)
    want = tv_roi_heads.paste_mask_in_image(b, torch.tensor(box), 12, 14)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(to_np(got), to_np(want), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype,threshold", [("uint8", 255), ("uint8", 255.5), ("uint8", 300),
                                             ("float32", 1.0), ("float32", 1.5),
                                             ("int32", 2 ** 31), ("uint8", -1)])
@pytest.mark.parametrize("api", ["functional", "transform"])
def test_v2_solarize_threshold_check_matches(dtype, threshold, api):
    from torchvision.transforms import v2 as tvT
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms import v2 as ntT
    from numtorchvision.transforms.v2 import functional as ntF

    arr = (np.arange(12).reshape(3, 2, 2) * 20).astype(dtype)
    if dtype == "float32":
        arr = arr / 255
    a, b = pair(arr)

    def call(T, F, x):
        if api == "functional":
            return lambda: F.solarize(x, threshold)
        return lambda: T.RandomSolarize(threshold, p=1.0)(x)

    want = _raised(call(tvT, tvF, b))
    got = _raised(call(ntT, ntF, a))
    assert got == want
    if want is None:
        np.testing.assert_array_equal(to_np(call(ntT, ntF, a)()), to_np(call(tvT, tvF, b)()))


def _video_and_mask_kernels():
    from torchvision.transforms.v2 import functional as tvF

    return sorted(n for n in dir(tvF) if n.endswith(("_video", "_mask"))
                  and not n.startswith("_") and callable(getattr(tvF, n)))


@pytest.mark.parametrize("name", _video_and_mask_kernels())
def test_video_and_mask_kernels_take_torchvisions_first_keyword(name):
    import inspect

    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    want = next(iter(inspect.signature(getattr(tvF, name)).parameters))
    got = next(iter(inspect.signature(getattr(ntF, name)).parameters))
    assert got == want


@pytest.mark.parametrize("name,kwargs", [
    ("horizontal_flip_video", {}), ("vertical_flip_mask", {}),
    ("resize_video", {"size": [3, 2]}), ("crop_mask", {"top": 1, "left": 0, "height": 2,
                                                       "width": 3}),
    ("pad_video", {"padding": [1, 2]}), ("adjust_brightness_video", {"brightness_factor": 0.7}),
    ("rotate_video", {"angle": 30.0}), ("center_crop_mask", {"output_size": [2, 2]}),
    ("get_size_video", {}), ("normalize_video", {"mean": [0.1] * 3, "std": [0.5] * 3})])
def test_video_and_mask_kernels_by_keyword_match(name, kwargs):
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    first = name.rsplit("_", 1)[1]
    shape = (2, 3, 5, 6) if first == "video" else (5, 6)
    a, b = pair(np.random.default_rng(7).random(shape).astype(np.float32))
    got = getattr(ntF, name)(**{first: a}, **kwargs)
    want = getattr(tvF, name)(**{first: b}, **kwargs)
    if isinstance(want, torch.Tensor):
        np.testing.assert_allclose(to_np(got), to_np(want), rtol=1e-6, atol=1e-6)
    else:
        assert got == want


def _tv_tensor_samples(tt, lib):
    return {"bb": tt.BoundingBoxes([[1, 2, 3, 4.0]], format="XYWH", canvas_size=(4, 5),
                                   clamping_mode="hard"),
            "img": tt.Image(lib.arange(6.0).reshape(1, 2, 3)),
            "mask": tt.Mask(lib.ones(2, 2, dtype=lib.bool)),
            "video": tt.Video(lib.zeros(1, 1, 2, 2)),
            "kp": tt.KeyPoints([[1.0, 2.0]], canvas_size=(3, 3)),
            "plain": lib.ones(2)}


def _described(d):
    return {k: (type(v).__name__, str(getattr(v, "format", None)),
                getattr(v, "canvas_size", None), getattr(v, "clamping_mode", None), v.tolist())
            for k, v in d.items()}


@pytest.mark.parametrize("direction", ["numtorch_to_torch", "torch_to_numtorch", "numtorch"])
def test_tv_tensors_survive_save_and_load(tmp_path, direction):
    from torchvision import tv_tensors as tv_tt

    from numtorchvision import tv_tensors as nt_tt

    path = tmp_path / "tv.pt"
    want = _described(_tv_tensor_samples(tv_tt, torch))
    if direction == "torch_to_numtorch":
        torch.save(_tv_tensor_samples(tv_tt, torch), path)
    else:
        numtorch.save(_tv_tensor_samples(nt_tt, numtorch), path)
    loader = torch if direction == "numtorch_to_torch" else numtorch
    assert _described(loader.load(path, weights_only=False)) == want
    with pytest.raises(Exception) as info:  # tv_tensors are not in weights_only's allow-list
        loader.load(path)
    assert type(info.value).__name__ == "UnpicklingError"


class _Tagged(numtorch.Tensor):
    """A user's tensor subclass (saved under its own class, as torch does)."""


def test_user_tensor_subclass_survives_save_and_load(tmp_path):
    x = numtorch.arange(3.0).as_subclass(_Tagged)
    x.note = "kept"
    numtorch.save({"x": x, "bare": numtorch.ones(1).as_subclass(_Tagged)}, tmp_path / "s.pt")
    got = numtorch.load(tmp_path / "s.pt", weights_only=False)
    assert type(got["x"]) is _Tagged and got["x"].note == "kept"
    assert got["x"].tolist() == [0.0, 1.0, 2.0]
    assert type(got["bare"]) is _Tagged


_LOW_RANK_CALLS = {
    "affine": lambda F, x: F.affine(x, 10.0, [1, 1], 1.0, [0.0, 0.0]),
    "rotate": lambda F, x: F.rotate(x, 10.0, expand=True),
    "perspective": lambda F, x: F.perspective(x, [[0, 0], [11, 0], [11, 9], [0, 9]],
                                              [[1, 1], [10, 0], [11, 8], [0, 9]]),
    "resize": lambda F, x: F.resize(x, [5, 6]),
    "gaussian_blur": lambda F, x: F.gaussian_blur(x, [3, 3]),
    "adjust_sharpness": lambda F, x: F.adjust_sharpness(x, 1.5),
    "hflip": lambda F, x: F.horizontal_flip(x),
    "equalize": lambda F, x: F.equalize(x),
    "elastic": lambda F, x: F.elastic(x, (numtorch if isinstance(x, numtorch.Tensor)
                                          else torch).zeros(1, 10, 12, 2)),
}


@pytest.mark.parametrize("name", list(_LOW_RANK_CALLS))
@pytest.mark.parametrize("shape", [(10, 12), (12,)])
@pytest.mark.parametrize("dtype", ["float32", "uint8"])
def test_v2_kernels_on_tensors_below_three_dims_match(name, shape, dtype):
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    arr = np.random.default_rng(8).random(shape)
    arr = (arr * 255).astype(np.uint8) if dtype == "uint8" else arr.astype(np.float32)
    a, b = pair(arr)
    want = _raised(lambda: _LOW_RANK_CALLS[name](tvF, b))
    got = _raised(lambda: _LOW_RANK_CALLS[name](ntF, a))
    assert got == want
    if want is None:
        g, w = _LOW_RANK_CALLS[name](ntF, a), _LOW_RANK_CALLS[name](tvF, b)
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(to_np(g), to_np(w))


@pytest.mark.parametrize("name", ["affine", "rotate", "perspective", "elastic_transform"])
def test_v1_grid_warps_of_2d_tensors_fail_as_torchs(name):
    calls = {
        "affine": lambda F, x: F.affine(x, 10.0, [1, 1], 1.0, [0.0, 0.0]),
        "rotate": lambda F, x: F.rotate(x, 10.0, expand=True),
        "perspective": lambda F, x: F.perspective(x, [[0, 0], [11, 0], [11, 9], [0, 9]],
                                                  [[1, 1], [10, 0], [11, 8], [0, 9]]),
        "elastic_transform": lambda F, x: F.elastic_transform(x, F_disp(x)),
    }

    def F_disp(x):
        return (numtorch if isinstance(x, numtorch.Tensor) else torch).zeros(1, 10, 12, 2)

    a, b = pair(np.random.default_rng(9).random((10, 12)).astype(np.float32))
    assert _raised(lambda: calls[name](ntF1, a)) == _raised(lambda: calls[name](tvF1, b))
    # and a displacement of the wrong shape names it as torch.Size
    x1, y1 = pair(np.zeros(5, np.float32))
    d1, e1 = numtorch.zeros(1, 10, 12, 2), torch.zeros(1, 10, 12, 2)
    assert (_raised(lambda: ntF1.elastic_transform(x1, d1))
            == _raised(lambda: tvF1.elastic_transform(y1, e1)))


_UINT16_CALLS = {
    "rotate": lambda F, x: F.rotate(x, 30.0, interpolation=F.InterpolationMode.BILINEAR),
    "affine": lambda F, x: F.affine(x, 30.0, [1, 1], 1.1, [0.0, 0.0], fill=3,
                                    interpolation=F.InterpolationMode.BILINEAR),
    "perspective": lambda F, x: F.perspective(x, [[0, 0], [5, 0], [5, 4], [0, 4]],
                                              [[1, 0], [5, 1], [4, 4], [0, 3]]),
    "gaussian_blur": lambda F, x: F.gaussian_blur(x, [3, 3], [1.0, 1.0]),
    "resize": lambda F, x: F.resize(x, [3, 4]),
    "resize_bicubic": lambda F, x: F.resize(x, [7, 9],
                                            interpolation=F.InterpolationMode.BICUBIC),
    "adjust_sharpness": lambda F, x: F.adjust_sharpness(x, 2.0),
}


@pytest.mark.parametrize("name", list(_UINT16_CALLS))
@pytest.mark.parametrize("api", ["v1", "v2"])
@pytest.mark.parametrize("dtype", ["uint16", "int32"])
def test_wide_integer_images_round_as_torchvision(name, api, dtype):
    from torchvision.transforms import functional as tvF1_
    from torchvision.transforms.v2 import functional as tvF2

    from numtorchvision.transforms import functional as ntF1_
    from numtorchvision.transforms.v2 import functional as ntF2

    arr = np.round(np.random.default_rng(10).random((1, 5, 6)) * 65535).astype(dtype)
    a, b = pair(arr)
    nt, tv = (ntF1_, tvF1_) if api == "v1" else (ntF2, tvF2)
    want = _UINT16_CALLS[name](tv, b)
    got = _UINT16_CALLS[name](nt, a)
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(to_np(got).astype(np.int64), to_np(want).astype(np.int64))


@pytest.mark.parametrize("shape", [(), (12,), (4, 5), (5, 4, 6), (2, 5, 4, 6)])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32", "float64"])
@pytest.mark.parametrize("op", ["invert", "equalize"])
def test_v2_invert_and_equalize_any_shape_match(shape, dtype, op):
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    arr = np.random.default_rng(11).random(shape)
    if dtype in ("uint8", "int16", "int32"):
        arr = (arr * {"uint8": 255, "int16": 32767, "int32": 1000}[dtype]).astype(dtype)
    else:
        arr = arr.astype(dtype)
    a, b = pair(arr)
    want = _raised(lambda: getattr(tvF, op)(b))
    got = _raised(lambda: getattr(ntF, op)(a))
    assert got == want
    if want is None:
        g, w = getattr(ntF, op)(a), getattr(tvF, op)(b)
        assert str(g.dtype) == str(w.dtype) and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(to_np(g), to_np(w))


@pytest.mark.parametrize("shape", [(), (7,), (4, 5), (1, 4, 5), (2, 4, 5), (3, 4, 5),
                                   (4, 4, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("op", ["brightness", "brightness_negative", "solarize"])
def test_v2_brightness_and_solarize_any_shape_match(shape, dtype, op):
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    arr = np.random.default_rng(12).random(shape)
    arr = (arr * 255).astype(np.uint8) if dtype == "uint8" else arr.astype(np.float32)
    a, b = pair(arr)

    def call(F, x):
        if op == "solarize":
            return lambda: F.solarize(x, 100 if dtype == "uint8" else 0.5)
        return lambda: F.adjust_brightness(x, -0.5 if op.endswith("negative") else 1.3)

    want = _raised(call(tvF, b))
    assert _raised(call(ntF, a)) == want
    if want is None:
        g, w = call(ntF, a)(), call(tvF, b)()
        assert str(g.dtype) == str(w.dtype) and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(to_np(g), to_np(w))


@pytest.mark.parametrize("shape", [(), (7,), (4, 5), (3, 4, 5)])
@pytest.mark.parametrize("op", ["crop", "center_crop", "pad", "pad_reflect"])
def test_v2_crop_and_pad_low_rank_match(shape, op):
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    a, b = pair(np.random.default_rng(13).random(shape).astype(np.float32))
    calls = {"crop": lambda F, x: F.crop(x, 0, 0, 2, 2),
             "center_crop": lambda F, x: F.center_crop(x, [2, 2]),
             "pad": lambda F, x: F.pad(x, [1]),
             "pad_reflect": lambda F, x: F.pad(x, [1, 2], padding_mode="reflect")}
    want = _raised(lambda: calls[op](tvF, b))
    assert _raised(lambda: calls[op](ntF, a)) == want
    if want is None:
        g, w = calls[op](ntF, a), calls[op](tvF, b)
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(to_np(g), to_np(w))


@pytest.mark.parametrize("shape", [(), (7,), (4, 5), (1, 4, 5), (2, 4, 5), (3, 4, 5),
                                   (2, 1, 4, 5), (2, 2, 4, 5)])
@pytest.mark.parametrize("op", ["grayscale_to_rgb", "permute_channels"])
def test_v2_channel_ops_any_shape_match(shape, op):
    from torchvision.transforms.v2 import functional as tvF

    from numtorchvision.transforms.v2 import functional as ntF

    a, b = pair(np.random.default_rng(14).random(shape).astype(np.float32))
    calls = {"grayscale_to_rgb": lambda F, x: F.grayscale_to_rgb(x),
             "permute_channels": lambda F, x: F.permute_channels(
                 x, list(range(x.shape[-3]))[::-1] if x.ndim >= 3 else [0])}
    want = _raised(lambda: calls[op](tvF, b))
    assert _raised(lambda: calls[op](ntF, a)) == want
    if want is None:
        g, w = calls[op](ntF, a), calls[op](tvF, b)
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(to_np(g), to_np(w))
