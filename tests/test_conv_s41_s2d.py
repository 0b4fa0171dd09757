"""Session 41's space-to-depth convolutions (``conv_s2d``) against torch: strided 2-d
convolutions whose kernel is a multiple of the stride, computed as stride-1 convolutions of
``s x s`` cells through GEMMs that read one buffer at each tap's offset. Values, input/weight/
bias gradients with random cotangents (second order in float64), float32 (also
non-contiguous and channels-last inputs), odd sizes, unequal strides, padding wider than a
cell, input rows past the last window, blocks of samples, a batch split across parts, the
transposed convolution's one-fill pair, and the shapes that keep their old paths."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_s2d, conv_samples
from tests.oracle import check_op


@pytest.fixture
def paths(conv_paths):
    return conv_paths


@pytest.fixture
def anywhere(monkeypatch, paths):
    """Any output map size takes the grid (the measured floor is 16x16 positions)."""
    monkeypatch.setattr(conv_s2d, "MIN_POSITIONS", 1)
    return paths


def _conv(channels_last=False, **kw):
    def fn(t, x, w, *b):
        if channels_last:
            x = x.contiguous(memory_format=t.channels_last)
        return t.nn.functional.conv2d(x, w, *b, **kw)
    return fn


def _conv_t(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv_transpose2d(x, w, *b, **kw)


# dcgan's 16 -> 32 4x4/2 discriminator layer at the measured thresholds (16x16 outputs)
DCGAN = (_conv(stride=2, padding=1), [(2, 16, 32, 32), (6, 16, 4, 4), (6,)])

EDGES = [
    # unequal strides, a 4x6 kernel (2x2 taps on the grid), padding unequal per dim
    (_conv(stride=(2, 3), padding=(1, 2)), [(2, 5, 9, 11), (3, 5, 4, 6), (3,)]),
    # stride 3, a 6x6 kernel, padding 2 (cells start inside the padding)
    (_conv(stride=3, padding=2), [(1, 3, 13, 14), (4, 3, 6, 6)]),
    # padding wider than a cell
    (_conv(stride=2, padding=3), [(2, 4, 7, 9), (2, 4, 4, 4), (2,)]),
    # no padding, input rows/columns past the last window (zero gradient there)
    (_conv(stride=2), [(2, 4, 10, 11), (3, 4, 4, 4)]),
    # one tap along a dim (kernel equal to the stride there)
    (_conv(stride=2, padding=(0, 1)), [(2, 4, 8, 9), (3, 4, 2, 4), (3,)]),
    # two output positions per sample
    (_conv(stride=2, padding=1), [(3, 4, 2, 4), (2, 4, 4, 4)]),
]


def test_dcgan_layer_matches_torch(paths):
    fn, shapes = DCGAN
    check_op(fn, shapes)
    assert "forward-s2d" in paths and "input-s2d" in paths and "weight-s2d" in paths


def test_dcgan_layer_float32(paths):
    fn, shapes = DCGAN
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert "forward-s2d" in paths


def test_channels_last_input(paths):
    check_op(_conv(channels_last=True, stride=2, padding=1),
             [(2, 8, 32, 32), (5, 8, 4, 4), (5,)], dtype="float32", second_order=False)
    assert "forward-s2d" in paths


@pytest.mark.parametrize("case", range(len(EDGES)))
def test_edge_shapes_match_torch(anywhere, case):
    fn, shapes = EDGES[case]
    check_op(fn, shapes)
    assert "forward-s2d" in anywhere and "input-s2d" in anywhere
    assert "weight-s2d" in anywhere


@pytest.mark.parametrize("case", [0, 3])
def test_edge_shapes_float32(anywhere, case):
    fn, shapes = EDGES[case]
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert "forward-s2d" in anywhere


@pytest.mark.parametrize("block_bytes", [1, 3 * 16 * 17 * 17 * 4])  # 1 sample, or 3 of 5
def test_blocks_of_samples(monkeypatch, paths, block_bytes):
    """Blocks reuse one cell buffer (its padding cells and overhang must stay zero)."""
    monkeypatch.setattr(conv_s2d, "_BLOCK_BYTES", block_bytes)
    check_op(_conv(stride=2, padding=1), [(5, 4, 32, 32), (3, 4, 4, 4), (3,)],
             dtype="float32", second_order=False)
    check_op(_conv_t(stride=2, padding=1), [(5, 3, 16, 16), (3, 4, 4, 4)],
             dtype="float32", second_order=False)
    assert "forward-s2d" in paths and "input-s2d" in paths
    assert "backward-s2d-pair" in paths


def test_batch_split_across_parts(monkeypatch, paths):
    """Each part writes its samples into a shared result."""
    monkeypatch.setattr(conv_samples, "parts", lambda arrays, n, macs: min(n, 2))
    check_op(_conv(stride=2, padding=1), [(4, 4, 32, 32), (3, 4, 4, 4), (3,)],
             dtype="float32", second_order=False)
    assert "forward-s2d" in paths and "input-s2d" in paths


def test_input_gradient_of_three_channels(paths):
    """dcgan's first layer (3 channels: its forward stays per-sample) and its 16 -> 3
    transposed output layer: the input gradient on the grid."""
    check_op(_conv(stride=2, padding=1), [(2, 3, 32, 32), (4, 3, 4, 4)], second_order=False)
    assert "input-s2d" in paths and "forward-per-sample" in paths
    check_op(_conv_t(stride=2, padding=1), [(2, 6, 16, 16), (6, 3, 4, 4), (3,)],
             dtype="float32", second_order=False)


PAIRS = [
    (_conv_t(stride=2, padding=1), [(2, 12, 16, 16), (12, 16, 4, 4)]),
    (_conv_t(stride=2, padding=1, output_padding=1), [(2, 5, 16, 17), (5, 8, 4, 4), (8,)]),
]


@pytest.mark.parametrize("case", range(len(PAIRS)))
def test_transposed_pair_matches_torch(paths, case):
    fn, shapes = PAIRS[case]
    check_op(fn, shapes)
    assert "backward-s2d-pair" in paths


def test_transposed_pair_equals_separate_passes(monkeypatch, paths):
    """One fill gives the separate passes' gradients (the weight gradient's GEMM is the
    one ``weight`` runs; dx is the forward's)."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 12, 16, 16)).astype(np.float32)
    w = rng.standard_normal((12, 16, 4, 4)).astype(np.float32)
    g = rng.standard_normal((3, 16, 32, 32)).astype(np.float32)
    a_cells = conv_s2d.forward_weight(np, g, w, x, (2, 2), ((1, 1), (1, 1)), (16, 16))
    y = conv_s2d.forward(np, g, w, None, (2, 2), ((1, 1), (1, 1)), (16, 16))
    dw = conv_s2d.weight(np, g, x, (4, 4), (2, 2), ((1, 1), (1, 1)))
    np.testing.assert_array_equal(a_cells[0], y)
    np.testing.assert_array_equal(a_cells[1], dw)


def test_dcgan_discriminator_step_matches_torch(paths):
    """A float32 step through a dcgan-shaped discriminator (3 -> 16 -> 8 channels, 64x64):
    the per-sample first layer and the grid's forward and input gradient in one graph."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 64, 64)).astype(np.float32)
    w1 = (rng.standard_normal((16, 3, 4, 4)) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((8, 16, 4, 4)) * 0.1).astype(np.float32)
    g = rng.standard_normal((2, 8, 16, 16)).astype(np.float32)
    res = {}
    for lib in (numtorch, torch):
        xs = lib.tensor(x, requires_grad=True)
        a, b = lib.tensor(w1, requires_grad=True), lib.tensor(w2, requires_grad=True)
        h = lib.nn.functional.leaky_relu(lib.nn.functional.conv2d(xs, a, stride=2, padding=1),
                                         0.2)
        y = lib.nn.functional.conv2d(h, b, stride=2, padding=1)
        y.backward(lib.tensor(g))
        res[lib] = [t.detach().numpy() for t in (y, xs.grad, a.grad, b.grad)]
    for ours, theirs in zip(res[numtorch], res[torch]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * np.abs(theirs).max())
    assert "forward-s2d" in paths and "input-s2d" in paths


@pytest.mark.parametrize("fn,shapes", [
    (_conv(stride=2, padding=1, dilation=2), [(1, 8, 34, 34), (3, 8, 4, 4)]),
    (_conv(stride=2, padding=1, groups=2), [(1, 8, 32, 32), (4, 4, 4, 4)]),
    (_conv(stride=2, padding=1), [(1, 8, 33, 33), (3, 8, 3, 3)]),  # 3 % 2
    (_conv(stride=2, padding=1), [(1, 16, 16, 16), (3, 16, 4, 4)]),  # 8x8 outputs
    (_conv(stride=2, padding=1), [(1, 32, 32, 32), (3, 32, 4, 4)]),  # forward cells of 128
    (_conv(stride=1, padding=1), [(1, 8, 16, 16), (3, 8, 2, 2)]),  # stride 1
    (lambda t, x, w: t.nn.functional.conv1d(x, w, stride=2, padding=1),
     [(1, 8, 600), (3, 8, 4)]),
])
def test_other_shapes_keep_their_paths(paths, fn, shapes):
    check_op(fn, shapes, second_order=False)
    assert "forward-s2d" not in paths and "weight-s2d" not in paths
    assert "backward-s2d-pair" not in paths


def test_deep_cells_forward_keeps_path_input_takes_grid(paths):
    """32 channels: the forward's cells (128) are past its measured range, the input
    gradient's are not."""
    check_op(_conv(stride=2, padding=1), [(1, 32, 32, 32), (3, 32, 4, 4)], second_order=False)
    assert "forward-s2d" not in paths and "input-s2d" in paths


def test_disabled_by_flag(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_S2D", False)
    fn, shapes = DCGAN
    check_op(fn, shapes, dtype="float32", second_order=False)
    assert not any("s2d" in p for p in paths)


@pytest.mark.parametrize("shapes,grid", [
    ([(2, 32, 16, 16), (3, 32, 4, 4)], True),  # 8x8 maps, cells of 128: dcgan's D 32 -> 64
    ([(1, 32, 8, 8), (3, 32, 4, 4)], False),  # 4x4 maps
    ([(1, 64, 16, 16), (3, 64, 4, 4)], False),  # 8x8 maps, cells of 256
])
def test_input_gradient_on_small_maps(paths, shapes, grid):
    check_op(_conv(stride=2, padding=1), shapes, second_order=False)
    assert ("input-s2d" in paths) == grid
    assert "forward-s2d" not in paths
