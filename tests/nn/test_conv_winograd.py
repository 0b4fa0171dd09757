"""Winograd F(2x2, 3x3) convolutions and weight gradients (``numtorch.ops.conv_winograd``)
against torch: values, input/weight/bias gradients with random cotangents and second order in
float64, float32 within the oracle's tolerance, odd and even output sizes, asymmetric and wide
padding, padding modes, batch 1, non-contiguous inputs, transposed convolutions; each case
asserts the Winograd paths really ran."""

import numpy as np
import pytest

from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_samples, conv_winograd
from tests.oracle import check_op


@pytest.fixture
def paths(monkeypatch):
    taken = []
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    # the separate gradient paths (both at once: tests/ops/test_conv_s37_winograd_backward.py)
    monkeypatch.setattr(conv_ops, "_BOTH_WINOGRAD", False)
    return taken


@pytest.fixture
def small(monkeypatch):
    """Let small test shapes take the Winograd path."""
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 1)


def _conv(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b, **kw)


def _padded_conv(mode, pad):
    def fn(t, x, w, b):
        F = t.nn.functional
        return F.conv2d(F.pad(x, pad, mode=mode), w, b)
    return fn


CASES = [
    (_conv(padding=1), [(2, 3, 6, 8), (4, 3, 3, 3), (4,)]),  # even output
    (_conv(padding=1), [(2, 3, 7, 5), (4, 3, 3, 3)]),  # odd output: overhanging tiles
    (_conv(), [(1, 2, 6, 7), (3, 2, 3, 3), (3,)]),  # no padding, batch 1
    (_conv(padding=(2, 0)), [(2, 3, 4, 5), (2, 3, 3, 3)]),  # padding past the kernel
    (_conv(padding="same"), [(2, 2, 5, 4), (3, 2, 3, 3)]),
    (_padded_conv("reflect", (1, 2, 0, 1)), [(2, 3, 5, 6), (4, 3, 3, 3), (4,)]),
    (_padded_conv("circular", (1, 1, 1, 1)), [(1, 3, 4, 4), (2, 3, 3, 3), (2,)]),
    (lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, padding=1),
     [(2, 4, 5, 6), (4, 3, 3, 3), (3,)]),  # stride-1 transposed: a convolution of x
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_winograd_conv_matches_torch(paths, small, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes, non_contiguous=True)
    assert {"forward-winograd", "weight-winograd"} <= set(paths)


@pytest.mark.parametrize("case", [0, 1, 5])
def test_winograd_conv_float32_matches_torch(paths, small, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert "forward-winograd" in paths


def test_winograd_in_sample_blocks_matches_torch(paths, small, monkeypatch):
    monkeypatch.setattr(conv_winograd, "_MAX_BLOCK_BYTES", 1)  # one sample per block
    check_op(_conv(padding=1), [(3, 4, 5, 6), (2, 4, 3, 3), (2,)])
    assert {"forward-winograd", "weight-winograd"} <= set(paths)


def test_winograd_at_default_thresholds_float32(paths, monkeypatch):
    # 128 channels, 2 x 6 x 6 tiles: the default thresholds pick Winograd for forward and
    # the stride-1 input gradient; small values keep float32 within the oracle's tolerance.
    # The batch stays whole (a part of one sample has too few tiles)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    check_op(_conv(padding=1), [(2, 128, 12, 11), (128, 128, 3, 3), (128,)], dtype="float32",
             second_order=False, low=-0.5, high=0.5)
    assert paths.count("forward-winograd") >= 2 and "weight-winograd" in paths


def test_winograd_with_half_as_many_filters_at_default_thresholds(paths, monkeypatch):
    # 64 inputs, 32 filters: the forward and the weight gradient (32 channels on one side,
    # twice as many on the other) take Winograd; the input gradient (32 -> 64) does not
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    check_op(_conv(padding=1), [(2, 64, 12, 11), (32, 64, 3, 3)], dtype="float32",
             second_order=False, low=-0.5, high=0.5)
    assert paths.count("forward-winograd") == 1 and "weight-winograd" in paths


def test_winograd_weight_gradient_skips_32_by_32_channels(paths, monkeypatch):
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    check_op(_conv(padding=1), [(2, 32, 12, 11), (32, 32, 3, 3)], dtype="float32",
             second_order=False, low=-0.5, high=0.5)
    assert not {"forward-winograd", "weight-winograd"} & set(paths)


def test_winograd_skips_what_it_does_not_compute(paths, small):
    check_op(_conv(padding=1, stride=2), [(2, 3, 6, 6), (4, 3, 3, 3)], second_order=False)
    check_op(_conv(padding=2, dilation=2), [(2, 3, 6, 6), (4, 3, 3, 3)], second_order=False)
    check_op(_conv(padding=1, groups=2), [(2, 4, 6, 6), (4, 2, 3, 3)], second_order=False)
    check_op(_conv(padding=1), [(2, 3, 6, 6), (4, 3, 5, 5)])
    assert not {"forward-winograd", "weight-winograd"} & set(paths)


def test_winograd_skips_one_wide_outputs(paths, small):
    # a 1x1 (or 1-wide) output would fill a whole 2x2 tile: im2col is cheaper there
    check_op(_conv(padding=1), [(3, 4, 1, 1), (5, 4, 3, 3), (5,)])
    check_op(_conv(padding=1), [(2, 4, 1, 6), (3, 4, 3, 3)], second_order=False)
    assert not {"forward-winograd", "weight-winograd"} & set(paths)


def test_winograd_float32_error_is_within_a_few_ulps_of_float64(monkeypatch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 64, 14, 14)).astype(np.float32)
    w = (rng.standard_normal((64, 64, 3, 3)) * 0.1).astype(np.float32)
    got = conv_winograd.forward(np, x, w, None, ((1, 1), (1, 1)), (14, 14))
    ref = conv_winograd.forward(np, x.astype(np.float64), w.astype(np.float64), None,
                                ((1, 1), (1, 1)), (14, 14))
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 10**9)  # im2col + GEMM
    direct = conv_ops._conv_forward(np, x, w, None, (1, 1), ((1, 1), (1, 1)), (1, 1), 1,
                                    None)
    scale = np.abs(ref).max()
    # no worse than twice the error of the direct float32 sum
    assert np.abs(got - ref).max() <= 2 * max(np.abs(direct - ref).max(), 1e-7 * scale)


@pytest.mark.parametrize("parts", [1, 2])
def test_winograd_filters_transformed_once_per_convolution(paths, small, monkeypatch, parts):
    # the forward transforms the weight once for all the batch's parts, and the input
    # gradient reuses those filters reordered (flipped kernel) instead of transforming again
    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: parts)
    calls = []
    real = conv_winograd.filters
    monkeypatch.setattr(conv_winograd, "filters", lambda xp, w, k=1: calls.append(w.shape)
                        or real(xp, w, k))
    check_op(_conv(padding=1), [(4, 8, 6, 5), (5, 8, 3, 3), (5,)], dtype="float32",
             second_order=False)
    check_op(_conv(padding=1), [(4, 8, 6, 5), (5, 8, 3, 3), (5,)], second_order=False)
    assert paths.count("forward-winograd") >= 4 and "weight-winograd" in paths
    # check_op runs the op a few times; each forward is one transform, backward none
    assert calls and all(s == (5, 8, 3, 3) for s in calls)
    assert len(calls) == paths.count("forward-winograd") // (2 * parts)


def test_winograd_for_64_channels_at_default_thresholds(paths, monkeypatch):
    # 64 in, 64 out (ResNet's first stage): forward, input and weight gradients all Winograd
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    check_op(_conv(padding=1), [(2, 64, 12, 11), (64, 64, 3, 3)], dtype="float32",
             second_order=False, low=-0.5, high=0.5)
    assert paths.count("forward-winograd") >= 2 and "weight-winograd" in paths


@pytest.mark.parametrize("n, side, channels, want", [
    (16, 28, 64, 1),  # 196 tiles per sample, 0.8 MB of tiles: one sample per block
    (64, 26, 64, 2),  # the MNIST net's input gradient: 169 tiles
    (16, 14, 128, 5),  # 49 tiles
    (16, 7, 256, 16),  # 16 tiles per sample: the whole batch
    (16, 4, 512, 16),
])
def test_winograd_blocks_are_cache_sized_but_not_skinny(n, side, channels, want):
    tiles = (-(-side // 2)) ** 2
    assert conv_winograd._samples_per_block(n, tiles, channels, 4) == want
