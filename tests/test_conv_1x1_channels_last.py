"""1x1, unpadded, stride-1 convolutions of channels-last inputs as one GEMM on rows
(ConvNeXt's MLP, channels-last models), forward, weight and input gradients, against torch:
values, gradients with random cotangents (second order in float64), output and gradient
strides, transposed 1x1 convolutions, and the layouts that keep the channels-first path."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op


@pytest.fixture
def paths(conv_paths):
    return conv_paths


def _cl(fn):
    def run(t, x, *rest):
        return fn(t, x.contiguous(memory_format=t.channels_last), *rest)
    return run


CASES = [
    (_cl(lambda t, x, w, b: t.nn.functional.conv2d(x, w, b)), [(3, 6, 5, 7), (9, 6, 1, 1), (9,)]),
    (_cl(lambda t, x, w: t.nn.functional.conv2d(x, w)), [(2, 4, 2, 3), (5, 4, 1, 1)]),
    (_cl(lambda t, x, w: t.nn.functional.conv2d(x, w)), [(2, 4, 1, 6), (3, 4, 1, 1)]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_torch(paths, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes)
    assert "forward-1x1-channels-last" in paths and "weight-1x1-channels-last" in paths


def test_float32(paths):
    fn, shapes = CASES[0]
    check_op(fn, shapes, dtype="float32", second_order=False)
    assert "forward-1x1-channels-last" in paths


@pytest.mark.parametrize("grad_layout", ["channels_last", "contiguous"])
def test_strides_of_output_and_gradients_match_torch(paths, grad_layout):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 6, 4, 5)), rng.standard_normal((7, 6, 1, 1)), \
        rng.standard_normal(7)
    g = rng.standard_normal((2, 7, 4, 5))
    got = {}
    for lib in (torch, numtorch):
        fmt = getattr(lib, grad_layout if grad_layout == "channels_last" else
                      "contiguous_format")
        X = lib.tensor(x).contiguous(memory_format=lib.channels_last).requires_grad_(True)
        W, B = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
        y = lib.nn.functional.conv2d(X, W, B)
        gx, gw, gb = lib.autograd.grad(y, (X, W, B), lib.tensor(g).contiguous(
            memory_format=fmt))
        got[lib.__name__] = (y.stride(), gx.stride(), gw.stride(),
                             [t.detach().numpy() for t in (y, gx, gw, gb)])
    want, have = got["torch"], got["numtorch"]
    assert have[:3] == want[:3]
    for h, v in zip(have[3], want[3]):
        np.testing.assert_allclose(h, v, rtol=1e-12, atol=1e-12)
    if grad_layout == "channels_last":
        assert "input-1x1-channels-last" in paths


def test_transposed_1x1(paths):
    check_op(_cl(lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b)),
             [(2, 5, 3, 4), (5, 3, 1, 1), (3,)])
    assert "input-1x1-channels-last" in paths  # the transposed forward


@pytest.mark.parametrize("fn,shapes", [
    (_cl(lambda t, x, w: t.nn.functional.conv2d(x, w, stride=2)), [(2, 4, 5, 5), (3, 4, 1, 1)]),
    (_cl(lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1)), [(2, 4, 3, 3), (3, 4, 1, 1)]),
    (_cl(lambda t, x, w: t.nn.functional.conv2d(x, w, groups=2)), [(2, 4, 3, 3), (6, 2, 1, 1)]),
    (lambda t, x, w: t.nn.functional.conv2d(x, w), [(2, 4, 3, 3), (3, 4, 1, 1)]),  # row-major
])
def test_other_cases_keep_their_paths(paths, fn, shapes):
    check_op(fn, shapes, second_order=False)
    assert "forward-1x1-channels-last" not in paths


def test_channels_last_mlp_trains_as_torch(paths):
    def build(t):
        return t.nn.Sequential(t.nn.Conv2d(8, 16, 1), t.nn.GELU(), t.nn.Conv2d(16, 8, 1))

    def forward(m, x):
        lib = numtorch if type(x).__module__.startswith("numtorch") else torch
        return m(x.contiguous(memory_format=lib.channels_last))
    check_module(build, [(2, 8, 4, 4)], forward=forward)
    assert "forward-1x1-channels-last" in paths and "input-1x1-channels-last" in paths


@pytest.mark.parametrize("nd", [1, 3])
def test_other_ranks_strides_match_torch(paths, nd):
    """conv1d of a transposed (channels-innermost) input writes row-major in torch; conv3d of
    a channels_last_3d input writes channels_last_3d (and takes the rows)."""
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 4) + (3,) * nd)
    w = rng.standard_normal((5, 4) + (1,) * nd)
    perm = (0,) + tuple(range(2, nd + 2)) + (1,)
    back = (0, nd + 1) + tuple(range(1, nd + 1))
    got = {}
    for lib in (torch, numtorch):
        X = lib.tensor(x).permute(*perm).contiguous().permute(*back).requires_grad_(True)
        y = getattr(lib.nn.functional, f"conv{nd}d")(X, lib.tensor(w))
        (gx,) = lib.autograd.grad(y, X, lib.ones_like(y))
        got[lib.__name__] = (y.stride(), gx.stride(), y.detach().numpy(), gx.numpy())
    (ys, gs, yv, gv), (tys, tgs, tyv, tgv) = got["numtorch"], got["torch"]
    assert (ys, gs) == (tys, tgs)
    np.testing.assert_allclose(yv, tyv, rtol=1e-12)
    np.testing.assert_allclose(gv, tgv, rtol=1e-12)
    assert ("forward-1x1-channels-last" in paths) == (nd == 3)
