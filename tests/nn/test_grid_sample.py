"""grid_sample (every mode and padding rule, gradients for input and grid, edges, non-finite
points, the bincount transpose of its tap gather) and affine_grid against torch; their errors."""

import itertools
import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import _resample
from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]


def _z(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


GRID_CASES = [((2, 3, 4, 5), (2, 3, 4, 2), m) for m in ("bilinear", "nearest", "bicubic")] + \
    [((2, 2, 3, 4, 5), (2, 2, 3, 2, 3), m) for m in ("bilinear", "nearest")]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("si,sg,mode", GRID_CASES)
def test_grid_sample_matches_torch(si, sg, mode, padding_mode, align_corners):
    # grid points run past [-1, 1], so every padding rule is exercised
    check_op(lambda t, x, g: t.nn.functional.grid_sample(
        x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
        [si, sg], low=-1.4, high=1.4)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_float32_matches_torch(mode):
    check_op(lambda t, x, g: t.nn.functional.grid_sample(x, g, mode=mode, align_corners=False),
             [(2, 3, 5, 6), (2, 4, 3, 2)], dtype="float32", low=-1.1, high=1.1)


_EDGES = [-1.5, -1.0, -0.999, -0.5, 0.0, 1 / 3, 0.5, 1.0, 1.2, 2.5, -3.0]


@pytest.mark.parametrize("nd,mode", [(2, "bilinear"), (2, "nearest"), (2, "bicubic"),
                                     (3, "bilinear"), (3, "nearest")])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_gradients_at_and_beyond_the_edges_match_torch(nd, mode, padding_mode,
                                                                    align_corners):
    # grid points exactly on the edges (+-1, and 0 for a size-2 dim without align_corners):
    # torch's gradient with respect to the grid is 0 there for border and reflection
    shape = (1, 2, 3, 4) if nd == 2 else (1, 2, 3, 4, 2)
    pts = np.array(list(itertools.product(_EDGES, repeat=nd)))
    if nd == 3:
        pts = pts[np.random.default_rng(0).choice(len(pts), 200, replace=False)]
    grid = pts.reshape((1, 1, -1, nd) if nd == 2 else (1, 1, 1, -1, nd))
    check_op(lambda t, x, g: t.nn.functional.grid_sample(
        x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners),
        [shape, grid], second_order=False)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("value", [float("inf"), -float("inf"), float("nan"), 1e30])
def test_grid_sample_at_non_finite_and_huge_points_matches_torch(mode, padding_mode, value):
    # torch: NaN through non-finite weights, index 0 for a NaN coordinate after clipping,
    # the edge for a huge one
    grid = np.array([[[[value, 0.0]]]])
    check_op(lambda t, x, g: t.nn.functional.grid_sample(
        x, g, mode=mode, padding_mode=padding_mode, align_corners=False),
        [np.arange(12.).reshape(1, 1, 3, 4), grid], grad=False)


def test_grid_sample_grad_reaches_grid_alone_like_torch():
    for lib in (numtorch, torch):
        g = lib.zeros(1, 2, 2, 2, requires_grad=True)
        out = lib.nn.functional.grid_sample(lib.ones(1, 1, 3, 3), g, mode="nearest",
                                            align_corners=True)
        assert out.requires_grad
        out.sum().backward()
        assert float(g.grad.abs().sum()) == 0.0


def test_grid_sample_and_affine_grid_warn_without_align_corners():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        numtorch.nn.functional.grid_sample(numtorch.zeros(1, 1, 2, 2), numtorch.zeros(1, 1, 1, 2))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        numtorch.nn.functional.affine_grid(numtorch.zeros(1, 2, 3), (1, 1, 2, 2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("theta,size", [((2, 2, 3), (2, 3, 4, 5)), ((2, 3, 4), (2, 3, 4, 5, 3)),
                                        ((1, 2, 3), (1, 1, 1, 5)), ((1, 2, 3), [1, 1, 2, 1])])
def test_affine_grid_matches_torch(theta, size, align_corners, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids warn with align_corners=True
        check_op(lambda t, th: t.nn.functional.affine_grid(th, size,
                                                           align_corners=align_corners),
                 [theta], dtype=dtype)


def test_affine_grid_then_grid_sample_matches_torch():
    check_op(lambda t, x, th: t.nn.functional.grid_sample(
        x, t.nn.functional.affine_grid(th, (2, 3, 5, 4), align_corners=False),
        align_corners=False), [(2, 3, 6, 7), (2, 2, 3)], low=-0.8, high=0.8)


GRID_ERRORS = [
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, mode="foo"), [_z(2, 3, 4, 5),
                                                                     _z(2, 5, 6, 2)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, padding_mode="foo"),
     [_z(2, 3, 4, 5), _z(2, 5, 6, 2)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
     [_z(2, 3, 4, 5), _z(2, 5, 6, 3)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
     [_z(2, 3, 4, 5), _z(3, 5, 6, 2)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
     [_z(2, 3, 4, 5), _z(2, 5, 6)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, mode="bicubic", align_corners=False),
     [_z(2, 3, 4, 5, 6), _z(2, 5, 6, 2, 3)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
     [_z(2, 3, 4, 5), _z(2, 5, 6, 2, dtype=np.float64)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
     [_z(2, 3, 0, 5), _z(2, 5, 6, 2)]),
    (lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
     [_z(2, 3, 4, 5, dtype=np.int64), _z(2, 5, 6, 2, dtype=np.int64)]),
    (lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4, 5, 6), align_corners=False),
     [_z(2, 2, 3)]),
    (lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4, 5), align_corners=False),
     [_z(2, 3, 4)]),
    (lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4), align_corners=False),
     [_z(2, 2, 3)]),
    (lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 0, 5), align_corners=False),
     [_z(2, 2, 3)]),
    (lambda t, th: t.nn.functional.affine_grid(th, (3, 3, 4, 5), align_corners=True),
     [_z(2, 2, 3)]),
    (lambda t, th: t.nn.functional.affine_grid(th, (2, 3, 4, 5), align_corners=True),
     [_z(2, 2, 3, dtype=np.int64)]),
]


@pytest.mark.parametrize("fn,arrays", GRID_ERRORS)
def test_grid_errors_match_torch(fn, arrays):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nt, th = check_raises(fn, arrays)
    assert str(nt) == str(th)


# ---------------------------------------------------------------------------------------------
# the tap gather's transpose (bincount)


@pytest.mark.parametrize("bins", [1 << 20, 7])
def test_grid_sample_taps_summed_back_in_chunks_match_torch(monkeypatch, bins, device):
    # 7 bins per bincount call: one sample per call, so the chunk loop runs once per sample;
    # every point of the grid lands within a pixel of the centre, so taps collide many times
    monkeypatch.setattr(_resample, "_BINCOUNT_BINS", bins)
    grid = np.random.default_rng(1).uniform(-0.1, 0.1, (3, 5, 6, 2))
    check_op(lambda t, x, g: t.nn.functional.grid_sample(x, g, align_corners=False),
             [(3, 2, 4, 5), grid])


def test_tap_gather_backward_is_its_transpose():
    rng = np.random.default_rng(2)
    x = numtorch.tensor(rng.standard_normal((2, 3, 5)))
    g = numtorch.tensor(rng.standard_normal((2, 3, 8)))
    # an index array on the tensors' device (the default one: the stand-in's under it)
    index = numtorch.as_tensor(rng.integers(0, 5, (2, 8)), device=x.device)._array
    y = _resample.tap_gather(x, index)
    back = _resample.TapGatherBackward.apply(g, index=index, size=5)
    assert np.allclose(float((y * g).sum()), float((x * back).sum()))
    assert back.dtype is numtorch.float64 and back.shape == (2, 3, 5)
