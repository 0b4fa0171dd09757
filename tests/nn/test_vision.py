"""Vision functions against torch: pixel_shuffle/unshuffle, interpolate (every mode, sizes and
scale factors, align_corners, recompute_scale_factor, antialias), the upsample spellings; their
modules and errors (grid_sample and affine_grid: test_grid_sample.py)."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

DTYPES = ["float64", "float32"]


# ---------------------------------------------------------------------------------------------
# pixel shuffle


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((1, 2, 18, 3, 4), 3),
                                     ((2, 3, 2, 2), 1)])
def test_pixel_shuffle_matches_torch(shape, r, dtype):
    check_op(lambda t, x: t.nn.functional.pixel_shuffle(x, r), [shape], dtype=dtype)


def test_pixel_shuffle_empty_batch_matches_torch_forward():
    # torch's own backward fails on an empty batch, so only the forward is compared
    check_op(lambda t, x: t.nn.functional.pixel_shuffle(x, 2), [(0, 4, 2, 2)], grad=False)
    x = numtorch.zeros(0, 4, 2, 2, requires_grad=True)
    (g,) = numtorch.autograd.grad(numtorch.nn.functional.pixel_shuffle(x, 2).sum(), [x])
    assert tuple(g.shape) == (0, 4, 2, 2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,r", [((2, 3, 4, 6), 2), ((2, 6, 9), 3), ((1, 2, 1, 4, 6), 2)])
def test_pixel_unshuffle_matches_torch(shape, r, dtype):
    check_op(lambda t, x: t.nn.functional.pixel_unshuffle(x, r), [shape], dtype=dtype)


def test_pixel_shuffle_roundtrip_and_layout():
    x = numtorch.arange(2 * 8 * 3 * 4).reshape(2, 8, 3, 4)
    y = numtorch.nn.functional.pixel_shuffle(x, 2)
    assert y.dtype is numtorch.int64 and y.is_contiguous()
    assert numtorch.equal(numtorch.nn.functional.pixel_unshuffle(y, 2), x)


@pytest.mark.parametrize("make,shape", [(lambda t: t.nn.PixelShuffle(2), (2, 8, 3, 4)),
                                        (lambda t: t.nn.PixelUnshuffle(3), (1, 2, 6, 9))])
def test_pixel_shuffle_modules_match_torch(make, shape):
    check_module(make, [shape])
    assert repr(make(numtorch)) == repr(make(torch))


SHUFFLE_ERRORS = [
    lambda t, x: t.nn.functional.pixel_shuffle(x.reshape(8, 12), 2),
    lambda t, x: t.nn.functional.pixel_shuffle(x.reshape(6, 4, 4), 2),
    lambda t, x: t.nn.functional.pixel_shuffle(x, 0),
    lambda t, x: t.nn.functional.pixel_shuffle(x, -2),
    lambda t, x: t.nn.functional.pixel_shuffle(x, 2.0),
    lambda t, x: t.nn.functional.pixel_unshuffle(x.reshape(2, 3, 16), 2),
    lambda t, x: t.nn.functional.pixel_unshuffle(x.reshape(2, 16, 3), 2),
    lambda t, x: t.nn.functional.pixel_unshuffle(x.reshape(8, 12), 2),
    lambda t, x: t.nn.functional.pixel_unshuffle(x, 0),
]


@pytest.mark.parametrize("fn", SHUFFLE_ERRORS)
def test_pixel_shuffle_errors_match_torch(fn):
    nt, th = check_raises(fn, [np.zeros((8, 3, 4), np.float32)])
    assert str(nt) == str(th)


# ---------------------------------------------------------------------------------------------
# interpolate

LINEAR_MODES = [((2, 3, 5), "linear"), ((2, 3, 5, 4), "bilinear"), ((2, 3, 5, 4), "bicubic"),
                ((1, 2, 3, 4, 5), "trilinear")]


def _sizes(shape):
    return [dict(size=tuple(s * 2 + 1 for s in shape[2:])), dict(scale_factor=1.7),
            dict(scale_factor=0.6), dict(size=tuple(max(s - 2, 1) for s in shape[2:])),
            dict(scale_factor=2.5, recompute_scale_factor=True), dict(size=1)]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("case", range(6))
@pytest.mark.parametrize("shape,mode", LINEAR_MODES)
def test_interpolate_linear_modes_match_torch(shape, mode, case, align_corners):
    kw = _sizes(shape)[case]
    check_op(lambda t, x: t.nn.functional.interpolate(x, mode=mode, align_corners=align_corners,
                                                      **kw), [shape])


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "area"])
@pytest.mark.parametrize("case", range(6))
@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 5, 4), (1, 2, 3, 4, 5)])
def test_interpolate_nearest_and_area_match_torch(shape, mode, case):
    kw = _sizes(shape)[case]
    check_op(lambda t, x: t.nn.functional.interpolate(x, mode=mode, **kw), [shape])


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
def test_interpolate_float32_matches_torch(mode):
    check_op(lambda t, x: t.nn.functional.interpolate(x, scale_factor=(1.5, 0.7), mode=mode),
             [(2, 3, 6, 7)], dtype="float32")


@pytest.mark.parametrize("scale", [2.1, 1.1, 3.0, 0.34])
def test_interpolate_nearest_scale_factor_rounding_matches_torch(scale):
    # for 2.1 and 1.1 (output exactly twice / as long as the input) torch's backward kernel
    # maps outputs to inputs differently from its forward; numtorch returns the gradient of
    # the forward it computed, so only the forward is compared there
    grad = scale not in (2.1, 1.1)
    check_op(lambda t, x: t.nn.functional.interpolate(x, scale_factor=scale), [(1, 2, 5)],
             grad=grad)
    check_op(lambda t, x: t.nn.functional.interpolate(x, scale_factor=scale,
                                                      mode="nearest-exact"), [(1, 2, 7)])


def test_interpolate_nearest_gradient_is_the_forward_transposed():
    x = numtorch.arange(5.0).reshape(1, 1, 5).requires_grad_()
    y = numtorch.nn.functional.interpolate(x, scale_factor=2.1)
    u = numtorch.arange(10.0).reshape(1, 1, 10)
    (g,) = numtorch.autograd.grad(y, [x], u)
    src = y.detach().cpu().numpy().ravel().astype(int)  # x holds its own indices
    expected = np.bincount(src, weights=np.arange(10.0), minlength=5)
    np.testing.assert_array_equal(g.cpu().numpy().ravel(), expected)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("kw", [dict(size=(3, 2)), dict(scale_factor=0.4), dict(size=(11, 9)),
                                dict(scale_factor=(0.5, 1.5))])
def test_interpolate_antialias_matches_torch(mode, kw):
    check_op(lambda t, x: t.nn.functional.interpolate(x, mode=mode, antialias=True, **kw),
             [(2, 3, 8, 7)])
    if mode != "lanczos":
        check_op(lambda t, x: t.nn.functional.interpolate(x, mode=mode, antialias=True,
                                                          align_corners=True, **kw),
                 [(2, 3, 8, 7)])


def test_interpolate_nearest_uint8_matches_torch():
    x = np.arange(2 * 3 * 5).reshape(1, 6, 5).astype(np.uint8)
    check_op(lambda t, a: t.nn.functional.interpolate(a, size=8), [x], grad=False)
    check_op(lambda t, a: t.nn.functional.interpolate(a, size=3, mode="nearest-exact"), [x],
             grad=False)


def test_interpolate_empty_batch_matches_torch():
    check_op(lambda t, x: t.nn.functional.interpolate(x, size=4, mode="linear"), [(0, 2, 3)])


@pytest.mark.parametrize("fn", ["upsample", "upsample_nearest", "upsample_bilinear"])
def test_upsample_spellings_warn_and_match_torch(fn):
    with pytest.warns(UserWarning, match="is deprecated. Use `nn.functional.interpolate`"):
        getattr(numtorch.nn.functional, fn)(numtorch.zeros(1, 1, 3, 3), size=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(lambda t, x: getattr(t.nn.functional, fn)(x, scale_factor=2), [(1, 2, 3, 4)])


UPSAMPLE_MODULES = [
    (lambda t: t.nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    (lambda t: t.nn.Upsample(size=(3, 7), mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    (lambda t: t.nn.Upsample(scale_factor=(2.0, 1.5), mode="bicubic"), (1, 2, 4, 5)),
    (lambda t: t.nn.Upsample(scale_factor=1.5, mode="linear", recompute_scale_factor=True),
     (2, 3, 5)),
    (lambda t: t.nn.Upsample(size=4, mode="trilinear"), (1, 2, 3, 2, 3)),
    (lambda t: t.nn.Upsample(scale_factor=2, mode="nearest-exact"), (2, 3, 5)),
    (lambda t: t.nn.UpsamplingNearest2d(scale_factor=2), (2, 3, 4, 5)),
    (lambda t: t.nn.UpsamplingBilinear2d(size=(5, 7)), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", UPSAMPLE_MODULES)
def test_upsample_modules_match_torch(make, shape, dtype):
    check_module(make, [shape], dtype=dtype)
    assert repr(make(numtorch)) == repr(make(torch))


def _z(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


INTERP_ERRORS = [
    (lambda t, x: t.nn.functional.interpolate(x, size=(7,), mode="bilinear"), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, scale_factor=(2, 3, 4)), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, scale_factor=2), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="linear"), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="trilinear"), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="bilinear"), _z(2, 3, 4)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="foo"), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, align_corners=True), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, antialias=True), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="bilinear", antialias=True),
     _z(2, 3, 4)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="lanczos"), _z(2, 3, 8, 9)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, mode="lanczos", antialias=True,
                                              align_corners=True), _z(2, 3, 8, 9)),
    (lambda t, x: t.nn.functional.interpolate(x, size=3, recompute_scale_factor=True),
     _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=0), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, scale_factor=0.1), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.interpolate(x, size=4), _z(2, 3)),
    (lambda t, x: t.nn.functional.interpolate(x, size=4), _z(1, 2, 3, 4, 5, 6)),
    (lambda t, x: t.nn.functional.interpolate(x, size=4), _z(1, 2, 3, dtype=np.int64)),
    (lambda t, x: t.nn.functional.interpolate(x, size=4, mode="linear"),
     _z(1, 2, 3, dtype=np.int64)),
    (lambda t, x: t.nn.functional.interpolate(x, size=4), _z(2, 0, 3)),
    (lambda t, x: t.nn.functional.interpolate(x, size=4), _z(2, 2, 0)),
    (lambda t, x: t.nn.functional.interpolate(x, size=[4.0]), _z(2, 2, 3)),
]


@pytest.mark.parametrize("fn,x", INTERP_ERRORS)
def test_interpolate_errors_match_torch(fn, x):
    nt, th = check_raises(fn, [x])
    assert str(nt) == str(th)


@pytest.mark.parametrize("shape,kw", [
    ((2, 3, 16), {"size": 23, "mode": "linear"}),
    ((1, 2, 9), {"scale_factor": 0.7, "mode": "linear", "align_corners": True}),
    ((2, 3, 5, 7), {"size": (8, 11), "mode": "bilinear"}),
    ((1, 2, 9, 6), {"size": (4, 13), "mode": "bilinear", "align_corners": True}),
    ((2, 3, 5, 7), {"scale_factor": (1.7, 0.6), "mode": "bilinear"}),
    ((1, 1, 4, 6), {"scale_factor": (1.4, 2.0), "mode": "bilinear"}),  # a size kept
])
def test_float32_linear_interpolation_rounds_as_torch(shape, kw, device):
    # torch's kernel: float32 weight products and fused multiply-adds in its own order
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x[0, 0, 0] = np.inf  # NaN where a zero weight meets it, as in torch
    want = torch.nn.functional.interpolate(torch.from_numpy(x), **kw).numpy()
    got = numtorch.nn.functional.interpolate(numtorch.from_numpy(x), **kw).cpu().numpy()
    if str(device) == "cpu":
        np.testing.assert_array_equal(got, want)
    else:  # (CUDA kernels round their own way)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    g = np.random.default_rng(1).standard_normal(want.shape).astype(np.float32)
    xt, xn = torch.from_numpy(x[1:] if shape[0] > 1 else x).requires_grad_(), None
    xn = numtorch.from_numpy(xt.detach().numpy()).requires_grad_()
    torch.nn.functional.interpolate(xt, **kw).backward(torch.from_numpy(g[len(g) - len(xt):]))
    numtorch.nn.functional.interpolate(xn, **kw).backward(numtorch.from_numpy(g[len(g) - len(xt):]))
    np.testing.assert_allclose(xn.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_interpolate_refuses_dtypes_as_torch(nd):
    # the kernel name in torch's refusal depends on the mode, the rank and antialiasing
    modes = {1: ["nearest", "linear", "area"], 2: ["nearest", "nearest-exact", "bilinear",
                                                  "bicubic", "area"],
             3: ["nearest", "trilinear", "area"]}[nd]
    for dt in ("int8", "int32", "int64", "bool", "float16"):
        for mode in modes:
            for aa in (False, True) if mode in ("bilinear", "bicubic") else (False,):
                got = []
                for lib in (torch, numtorch):
                    x = lib.zeros((1, 2) + (3,) * nd, dtype=getattr(lib, dt))
                    try:
                        y = lib.nn.functional.interpolate(x, scale_factor=2, mode=mode,
                                                          antialias=aa)
                        got.append(str(y.dtype))
                    except NotImplementedError as e:
                        got.append(str(e))
                assert got[1] == got[0], (dt, mode, aa)


@pytest.mark.parametrize("mode,antialias", [("bilinear", False), ("bilinear", True),
                                            ("bicubic", True), ("bicubic", False)])
def test_uint8_resize_matches_torch(mode, antialias):
    # torch's uint8 kernel: width pass then height pass in 16-bit fixed point
    x = np.random.default_rng(0).integers(0, 256, (2, 3, 17, 23), dtype=np.uint8)
    for kw in ({"size": (9, 11)}, {"size": (30, 40)}, {"scale_factor": (1.7, 0.4)},
               {"size": (30, 7), "align_corners": True}):
        want = torch.nn.functional.interpolate(torch.from_numpy(x), mode=mode,
                                               antialias=antialias, **kw).numpy()
        got = numtorch.nn.functional.interpolate(numtorch.from_numpy(x), mode=mode,
                                                 antialias=antialias, **kw).cpu().numpy()
        assert got.dtype == np.uint8 and got.shape == want.shape
        diff = np.abs(got.astype(int) - want.astype(int))
        if mode == "bicubic" and not antialias:  # a few pixels off by one
            assert diff.max() <= 1 and (diff > 0).mean() < 0.02
        else:
            np.testing.assert_array_equal(got, want)
