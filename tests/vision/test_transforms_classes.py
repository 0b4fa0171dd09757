"""Transform classes against torchvision: reprs, deterministic outputs, the random parameters'
kinds and ranges, reproducibility under numtorch.manual_seed, constructor errors."""

import random
import warnings

import numpy as np
import pytest
import torch
import torchvision.transforms as TT

import numtorch
import numtorchvision.transforms as T

from ._helpers import assert_same_image, pair, rgb_image

IM, TIM = T.InterpolationMode, TT.InterpolationMode


def _conv(v):
    if isinstance(v, IM):
        return TIM(v.value)
    if isinstance(v, T.AutoAugmentPolicy):
        return TT.AutoAugmentPolicy(v.value)
    if isinstance(v, numtorch.Tensor):
        return torch.from_numpy(v.numpy().copy())
    if v is numtorch.float32:
        return torch.float32
    return v


def make(name, *args, **kwargs):
    """The same transform built in numtorchvision and in torchvision."""
    nt = getattr(T, name)(*args, **kwargs)
    th = getattr(TT, name)(*[_conv(a) for a in args], **{k: _conv(v) for k, v in kwargs.items()})
    return nt, th


REPR_CASES = [
    ("ToTensor", (), {}), ("PILToTensor", (), {}), ("ToPILImage", (), {}),
    ("ToPILImage", ("RGB",), {}), ("Normalize", ([0.5, 0.4], [0.2, 0.1]), {}),
    ("Resize", (10,), {}), ("Resize", ([10, 12], IM.BICUBIC, None, False), {}),
    ("Resize", (10, 3), {}), ("CenterCrop", (8,)), ("CenterCrop", ([8, 9],)),
    ("Pad", (2, 3, "edge")), ("RandomCrop", (8, 2)), ("RandomHorizontalFlip", (0.3,)),
    ("RandomVerticalFlip", ()), ("RandomResizedCrop", (8,), {"scale": (0.2, 0.9)}),
    ("FiveCrop", (5,)), ("TenCrop", (5, True)), ("ColorJitter", (0.1, 0.2, 0.3, 0.1)),
    ("ColorJitter", ((0.5, 1.5),)), ("RandomRotation", (30,), {"center": [1, 2]}),
    ("RandomAffine", (10,), {"translate": (0.1, 0.2), "scale": (0.8, 1.2), "shear": 5}),
    ("RandomAffine", ((-5, 5),), {"interpolation": IM.BILINEAR, "fill": 3}),
    ("Grayscale", (3,)), ("RandomGrayscale", ()), ("RandomPerspective", ()),
    ("RandomErasing", (), {"value": "random"}), ("GaussianBlur", (3, (0.5, 1.0))),
    ("RandomInvert", ()), ("RandomPosterize", (3,)), ("RandomSolarize", (100,)),
    ("RandomAdjustSharpness", (2,)), ("RandomAutocontrast", ()), ("RandomEqualize", ()),
    ("ElasticTransform", ()), ("AutoAugment", (T.AutoAugmentPolicy.CIFAR10,)),
    ("RandAugment", ()), ("TrivialAugmentWide", ()), ("AugMix", ()),
    ("ConvertImageDtype", (numtorch.float32,)), ("RandomChoice", ([T.RandomVerticalFlip()],)),
]


@pytest.mark.parametrize("case", REPR_CASES, ids=lambda c: c[0])
def test_repr_matches(case):
    name, args = case[0], case[1]
    kwargs = case[2] if len(case) > 2 else {}
    nt, th = make(name, *args, **kwargs)
    if name == "RandomChoice":
        th = TT.RandomChoice([TT.RandomVerticalFlip()])
    assert repr(nt) == repr(th)


def test_container_reprs_and_calls():
    nt = T.Compose([T.Resize(12), T.RandomApply([T.CenterCrop(10)], p=1.0), T.ToTensor()])
    th = TT.Compose([TT.Resize(12), TT.RandomApply([TT.CenterCrop(10)], p=1.0), TT.ToTensor()])
    assert repr(nt) == repr(th)
    img = rgb_image()
    assert_same_image(nt(img), th(img))
    assert repr(T.RandomOrder([T.ToTensor()])) == repr(TT.RandomOrder([TT.ToTensor()]))
    assert repr(T.Lambda(abs)) == repr(TT.Lambda(abs))


DETERMINISTIC = [
    ("Resize", (10,)), ("Resize", ([10, 14], IM.NEAREST)), ("CenterCrop", (9,)),
    ("Pad", ([1, 2], 4, "reflect")), ("FiveCrop", (6,)), ("TenCrop", (6,)),
    ("Grayscale", (3,)), ("Grayscale", ()),
]


@pytest.mark.parametrize("name,args", DETERMINISTIC)
def test_deterministic_transforms(name, args):
    nt, th = make(name, *args)
    img = rgb_image()
    a, b = nt(img), th(img)
    for p, q in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        assert_same_image(p, q)
    x, y = pair(np.asarray(img).transpose(2, 0, 1).copy())
    a, b = nt(x), th(y)
    for p, q in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        assert_same_image(p, q, atol=1, frac=0.002)


def test_to_tensor_normalize_pipeline():
    img = rgb_image()
    nt = T.Compose([T.ToTensor(), T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])
    th = TT.Compose([TT.ToTensor(), TT.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])
    assert_same_image(nt(img), th(img), atol=1e-6)
    back_nt = T.ToPILImage()(T.ToTensor()(img))
    assert_same_image(back_nt, TT.ToPILImage()(TT.ToTensor()(img)))


def test_probability_zero_and_one():
    img = rgb_image()
    for name in ("RandomHorizontalFlip", "RandomVerticalFlip", "RandomGrayscale",
                 "RandomInvert", "RandomAutocontrast", "RandomEqualize"):
        for p in (0.0, 1.0):
            nt, th = make(name, p=p)
            assert_same_image(nt(img), th(img))
    for name, arg in (("RandomPosterize", 3), ("RandomSolarize", 90),
                      ("RandomAdjustSharpness", 2.0)):
        nt, th = make(name, arg, p=1.0)
        assert_same_image(nt(img), th(img))


def _fixed(monkeypatch, cls_nt, cls_th, params):
    monkeypatch.setattr(cls_nt, "get_params", staticmethod(lambda *a, **k: params))
    monkeypatch.setattr(cls_th, "get_params", staticmethod(lambda *a, **k: params))


def test_random_transforms_with_the_same_parameters(monkeypatch):
    img = rgb_image()
    cases = [
        ("RandomCrop", (10,), {"padding": 3, "fill": 7}, (2, 5, 10, 10)),
        ("RandomCrop", (30,), {"pad_if_needed": True, "padding_mode": "symmetric"},
         (1, 0, 30, 30)),
        ("RandomResizedCrop", (12,), {}, (3, 2, 15, 20)),
        ("RandomRotation", (30,), {"fill": (1, 2, 3)}, 17.5),
        ("RandomAffine", (30,), {"fill": 9}, (12.0, (2, -1), 1.1, (3.0, 4.0))),
        ("GaussianBlur", (5,), {}, 1.3),
    ]
    for name, args, kwargs, params in cases:
        nt, th = make(name, *args, **kwargs)
        _fixed(monkeypatch, type(nt), type(th), params)
        atol = 1 if name == "GaussianBlur" else 0
        assert_same_image(nt(img), th(img), atol=atol)
        x, y = pair(np.asarray(img).transpose(2, 0, 1).copy())
        assert_same_image(nt(x), th(y), atol=1, frac=0.002)


def test_perspective_and_color_jitter_with_the_same_parameters(monkeypatch):
    img = rgb_image()
    nt, th = make("RandomPerspective", 0.4, 1.0)
    params = ([[0, 0], [30, 0], [30, 22], [0, 22]], [[2, 1], [28, 3], [29, 20], [1, 21]])
    _fixed(monkeypatch, type(nt), type(th), params)
    assert_same_image(nt(img), th(img))
    nt, th = make("ColorJitter", 0.5, 0.5, 0.5, 0.2)
    monkeypatch.setattr(type(nt), "get_params", staticmethod(
        lambda *a: (numtorch.tensor([2, 0, 3, 1]), 1.2, 0.7, 1.4, -0.1)))
    monkeypatch.setattr(type(th), "get_params", staticmethod(
        lambda *a: (torch.tensor([2, 0, 3, 1]), 1.2, 0.7, 1.4, -0.1)))
    assert_same_image(nt(img), th(img))
    x, y = pair(np.asarray(img).transpose(2, 0, 1).copy())
    assert_same_image(nt(x), th(y), atol=1, frac=0.002)


def test_erasing_with_the_same_parameters(monkeypatch):
    x, y = pair(np.random.default_rng(0).random((3, 12, 15)).astype(np.float32))
    nt, th = make("RandomErasing", p=1.0, value=(0.1, 0.2, 0.3))
    monkeypatch.setattr(type(nt), "get_params", staticmethod(
        lambda *a, **k: (2, 3, 4, 5, numtorch.tensor([0.1, 0.2, 0.3])[:, None, None])))
    monkeypatch.setattr(type(th), "get_params", staticmethod(
        lambda *a, **k: (2, 3, 4, 5, torch.tensor([0.1, 0.2, 0.3])[:, None, None])))
    assert_same_image(nt(x), th(y))


def _draws(fn, n=200):
    return [fn() for _ in range(n)]


def test_get_params_ranges_and_kinds():
    numtorch.manual_seed(1)
    torch.manual_seed(1)
    x, y = pair(np.zeros((3, 40, 60), np.uint8))
    for lib, img in ((T, x), (TT, y)):
        boxes = _draws(lambda: lib.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3)))
        assert all(isinstance(v, int) for v in boxes[0])
        boxes = np.array(boxes)
        i, j, h, w = boxes.T
        assert (i >= 0).all() and (j >= 0).all() and (i + h <= 40).all() and (j + w <= 60).all()
        frac = h * w / 2400
        assert 0.05 < frac.min() and frac.max() <= 1.0 and 0.35 < frac.mean() < 0.65
        angle = _draws(lambda: lib.RandomRotation.get_params([-10.0, 20.0]))
        assert -10 <= min(angle) and max(angle) <= 20 and 2 < np.mean(angle) < 8
        crops = np.array(_draws(lambda: lib.RandomCrop.get_params(img, (10, 20))))
        assert crops[:, 0].max() == 30 and crops[:, 1].max() == 40 and crops.min() == 0
        a, t, s, sh = lib.RandomAffine.get_params([-5, 5], [0.1, 0.2], [0.9, 1.1],
                                                  [-3, 3, -4, 4], [60, 40])
        assert isinstance(t[0], int) and abs(t[0]) <= 6 and abs(t[1]) <= 8
        assert 0.9 <= s <= 1.1 and abs(sh[0]) <= 3 and abs(sh[1]) <= 4 and abs(a) <= 5
        start, end = lib.RandomPerspective.get_params(60, 40, 0.5)
        assert start == [[0, 0], [59, 0], [59, 39], [0, 39]]
        assert 0 <= end[0][0] <= 15 and 44 <= end[1][0] <= 59 and 29 <= end[2][1] <= 39
        order, b, c, s_, h_ = lib.ColorJitter.get_params((0.5, 1.5), None, (0.9, 1.1), (-0.1, 0.1))
        assert sorted(order.tolist()) == [0, 1, 2, 3] and c is None
        assert 0.5 <= b <= 1.5 and 0.9 <= s_ <= 1.1 and -0.1 <= h_ <= 0.1
        sig = lib.GaussianBlur.get_params(0.1, 2.0)
        assert 0.1 <= sig <= 2.0
        i, j, h, w, v = lib.RandomErasing.get_params(img.float(), (0.02, 0.33), (0.3, 3.3),
                                                     value=None)
        assert tuple(v.shape) == (3, h, w) and i + h <= 40 and j + w <= 60
        disp = lib.ElasticTransform.get_params([50.0, 50.0], [5.0, 5.0], [40, 60])
        assert tuple(disp.shape) == (1, 40, 60, 2)
        pid, probs, signs = lib.AutoAugment.get_params(25)
        assert 0 <= pid < 25 and tuple(probs.shape) == (2,) and set(signs.tolist()) <= {0, 1}


def test_reproducible_under_manual_seed():
    img = rgb_image()
    pipeline = T.Compose([T.RandomResizedCrop(12), T.RandomHorizontalFlip(), T.ColorJitter(
        0.4, 0.4, 0.4, 0.1), T.RandomRotation(20), T.RandAugment(), T.TrivialAugmentWide(),
        T.AutoAugment(), T.RandomPerspective(), T.ToTensor(), T.RandomErasing(value="random")])
    outs = []
    for _ in range(2):
        numtorch.manual_seed(123)
        outs.append(pipeline(img).numpy())
    np.testing.assert_array_equal(*outs)
    numtorch.manual_seed(124)
    assert not np.array_equal(outs[0], pipeline(img).numpy())


def test_scalar_draws_are_the_tensor_draws():
    # the per-image parameters skip the tensor ops but must draw what they would have drawn
    from numtorchvision.transforms import transforms as TT

    def draws(direct):
        numtorch.manual_seed(3)
        out = [TT._uniform(lo, hi) if direct else numtorch.empty(1).uniform_(lo, hi).item()
               for lo, hi in [(0.08, 1.0), (-0.29, 0.29), (0, 1), (2.5, 2.5), (-3, 7)]]
        out += [TT._randint(lo, hi) if direct else numtorch.randint(lo, hi, (1,)).item()
                for lo, hi in [(0, 33), (5, 6), (-4, 100)]]
        out += [TT._rand_below(p) if direct else bool(numtorch.rand(1) < p)
                for p in (0.5, 0.3, 0.9)]
        return out

    assert draws(True) == draws(False)
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        TT._randint(5, 5)


def test_policies_run_on_pil_and_tensors():
    img = rgb_image()
    x = T.PILToTensor()(img)
    for policy in T.AutoAugmentPolicy:
        for _ in range(3):
            assert T.AutoAugment(policy)(img).size == img.size
            assert tuple(T.AutoAugment(policy, fill=[1, 2, 3])(x).shape) == tuple(x.shape)
    for t in (T.RandAugment(num_ops=4), T.TrivialAugmentWide(), T.AugMix(), T.AugMix(
            chain_depth=2, all_ops=False)):
        assert t(img).size == img.size
        out = t(x)
        assert out.dtype == numtorch.uint8 and tuple(out.shape) == tuple(x.shape)
    batch = T.AugMix()(x.unsqueeze(0).expand(2, 3, 23, 31).contiguous())
    assert tuple(batch.shape) == (2, 3, 23, 31)


def test_random_order_and_choice_use_python_random():
    img = rgb_image()
    ts = [T.CenterCrop(10), T.Resize(5), T.Grayscale()]
    tts = [TT.CenterCrop(10), TT.Resize(5), TT.Grayscale()]
    for cls in ("RandomOrder", "RandomChoice"):
        random.seed(5)
        a = getattr(T, cls)(ts)(img)
        random.seed(5)
        b = getattr(TT, cls)(tts)(img)
        assert_same_image(a, b)


def test_old_names_scale_and_random_sized_crop():
    img = rgb_image()
    with pytest.warns(FutureWarning, match="Resize"):
        scale = T.Scale(12, interpolation=2)
    assert_same_image(scale(img), TT.Resize(12, interpolation=2)(img))
    assert isinstance(scale, T.Resize)
    with pytest.warns(FutureWarning, match="RandomResizedCrop"):
        rsc = T.RandomSizedCrop(8)
    assert rsc(img).size == (8, 8) and isinstance(rsc, T.RandomResizedCrop)


def test_linear_transformation():
    rng = np.random.default_rng(0)
    mat = rng.random((12, 12)).astype(np.float32)
    mean = rng.random(12).astype(np.float32)
    nt, th = make("LinearTransformation", numtorch.from_numpy(mat), numtorch.from_numpy(mean))
    x, y = pair(rng.random((3, 2, 2)).astype(np.float32))
    assert_same_image(nt(x), th(y), atol=1e-5)
    assert repr(nt) == repr(th)


def _same_ctor_error(name, *args, **kwargs):
    with pytest.raises(Exception) as th_err:
        getattr(TT, name)(*[_conv(a) for a in args], **kwargs)
    with pytest.raises(type(th_err.value)) as nt_err:
        getattr(T, name)(*args, **kwargs)
    assert str(nt_err.value) == str(th_err.value)


def test_constructor_errors_match():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_ctor_error("Resize", 1.5)
        _same_ctor_error("Resize", [1, 2, 3])
        _same_ctor_error("CenterCrop", [1, 2, 3])
        _same_ctor_error("Pad", "x")
        _same_ctor_error("Pad", 1, padding_mode="wrap")
        _same_ctor_error("Pad", [1, 2, 3])
        _same_ctor_error("Lambda", 3)
        _same_ctor_error("RandomResizedCrop", 8, scale=3)
        _same_ctor_error("ColorJitter", -1)
        _same_ctor_error("ColorJitter", 0, 0, 0, 0.7)
        _same_ctor_error("ColorJitter", (1, 2, 3))
        _same_ctor_error("RandomRotation", -3)
        _same_ctor_error("RandomRotation", [1, 2, 3])
        _same_ctor_error("RandomAffine", 3, translate=(0.1, 2))
        _same_ctor_error("RandomAffine", 3, scale=(0, 2))
        _same_ctor_error("RandomAffine", 3, shear=(1, 2, 3))
        _same_ctor_error("RandomErasing", value="x")
        _same_ctor_error("RandomErasing", p=2)
        _same_ctor_error("RandomErasing", scale=(0.5, 2))
        _same_ctor_error("GaussianBlur", 4)
        _same_ctor_error("GaussianBlur", 3, sigma=(2, 1))
        _same_ctor_error("ElasticTransform", alpha=3)
        _same_ctor_error("AugMix", severity=11)
        _same_ctor_error("RandomChoice", [T.ToTensor()], p=0.5)
        _same_ctor_error("RandomOrder", 3)


def test_crop_larger_than_image_without_padding():
    img = rgb_image()
    with pytest.raises(ValueError, match=r"Required crop size \(40, 40\) is larger than input "
                                         r"image size \(23, 31\)"):
        T.RandomCrop(40)(img)
    with pytest.raises(ValueError):
        TT.RandomCrop(40)(img)


def test_transforms_are_modules_and_work_in_sequential():
    seq = numtorch.nn.Sequential(T.Resize(8), T.CenterCrop(6), T.ConvertImageDtype(
        numtorch.float32), T.Normalize([0.5] * 3, [0.5] * 3))
    x, y = pair(np.random.default_rng(0).integers(0, 256, (3, 20, 24)).astype(np.uint8))
    ref = torch.nn.Sequential(TT.Resize(8), TT.CenterCrop(6), TT.ConvertImageDtype(torch.float32),
                              TT.Normalize([0.5] * 3, [0.5] * 3))
    assert_same_image(seq(x), ref(y), atol=1e-5)
