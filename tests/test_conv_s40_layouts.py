"""Session 40's convolution column builders, against torch: the per-sample GEMMs of a
network's first layer (few input channels) take their strided columns from phase planes
(``conv_phases.Planes.samples``), and ``conv_nhwc`` turns channel planes a multiple of 4 KiB
apart channels-last through ``(N, H, C, W)`` rows. Values, input/weight/bias gradients with
random cotangents (second order in float64), float32, channels-last and non-contiguous
inputs, odd sizes, and the shapes that must keep the old copies."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_nhwc
from tests.oracle import check_op


@pytest.fixture
def paths(conv_paths):
    return conv_paths


def _conv(channels_last=False, **kw):
    def fn(t, x, w, *b):
        if channels_last:
            x = x.contiguous(memory_format=t.channels_last)
        return t.nn.functional.conv2d(x, w, *b, **kw)
    return fn


# few input channels times taps (<= 64: per-sample GEMMs), output rows >= MIN_WIDTH (32)
PER_SAMPLE = [
    # dcgan's first discriminator layer (4x4 stride 2: every phase has the same taps)
    (_conv(stride=2, padding=1), [(2, 3, 64, 64), (5, 3, 4, 4), (5,)]),
    # odd sizes, no padding, a kernel not a multiple of the stride (phases with 2 and 1 taps)
    (_conv(stride=2), [(2, 2, 67, 69), (4, 2, 3, 3)]),
    (_conv(stride=2, padding=2), [(1, 1, 65, 66), (3, 1, 5, 5), (3,)]),
    # unequal strides, stride 3 with a 6-tap kernel row, padding wider on one dim
    (_conv(stride=(2, 3), padding=(1, 2)), [(2, 2, 9, 100), (3, 2, 4, 6), (3,)]),
    (_conv(stride=(3, 2), padding=(0, 1)), [(2, 3, 13, 70), (2, 3, 3, 4)]),
    # a kernel smaller than the stride in one dim (its second phase has no taps)
    (_conv(stride=(1, 3), padding=(1, 0)), [(2, 2, 5, 101), (4, 2, 3, 2), (4,)]),
]


@pytest.mark.parametrize("case", range(len(PER_SAMPLE)))
def test_per_sample_phase_columns_match_torch(paths, case):
    fn, shapes = PER_SAMPLE[case]
    check_op(fn, shapes)
    assert "forward-per-sample" in paths and "weight-per-sample" in paths
    assert "columns-phases" in paths


@pytest.mark.parametrize("case", [0, 1, 3])
def test_per_sample_phase_columns_float32(paths, case):
    fn, shapes = PER_SAMPLE[case]
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert "columns-phases" in paths


@pytest.mark.parametrize("block_bytes", [1, 1 << 14])  # one sample per block, or a few
def test_per_sample_phase_columns_in_blocks(monkeypatch, paths, block_bytes):
    """Blocks of samples (a partial last one) reuse one column buffer."""
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block_bytes)
    check_op(_conv(stride=2, padding=1), [(5, 2, 34, 66), (4, 2, 4, 4), (4,)],
             dtype="float32", second_order=False)
    assert "columns-phases" in paths


def test_per_sample_phase_columns_channels_last(paths):
    check_op(_conv(channels_last=True, stride=2, padding=1), [(2, 3, 36, 64), (4, 3, 4, 4), (4,)],
             second_order=False)
    assert "columns-phases" in paths


def test_per_sample_short_rows_keep_the_strided_view(paths):
    # output rows under MIN_WIDTH (MNIST-sized maps) or dilated: the windows' strided view
    check_op(_conv(stride=2, padding=1), [(2, 3, 28, 28), (4, 3, 4, 4), (4,)], second_order=False)
    check_op(_conv(stride=2, dilation=2), [(2, 2, 70, 70), (3, 2, 3, 3)], second_order=False)
    assert "forward-per-sample" in paths and "columns-phases" not in paths


def test_per_sample_phase_columns_off_match(monkeypatch, paths):
    """The phase-plane columns equal the strided view's exactly (same GEMM operands)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 3, 40, 70)).astype(np.float32)
    w = rng.standard_normal((6, 3, 4, 4)).astype(np.float32)
    gy = rng.standard_normal((3, 6, 20, 35)).astype(np.float32)
    pad = ((1, 1), (1, 1))
    new = (conv_ops._conv_forward(np, x, w, None, (2, 2), pad, (1, 1), 1),
           conv_ops._conv_weight(np, x, gy, (4, 4), (2, 2), pad, (1, 1), 1))
    monkeypatch.setattr(conv_ops, "_PHASED", False)
    old = (conv_ops._conv_forward(np, x, w, None, (2, 2), pad, (1, 1), 1),
           conv_ops._conv_weight(np, x, gy, (4, 4), (2, 2), pad, (1, 1), 1))
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a, b)
    assert paths.count("columns-phases") == 2


# conv_nhwc's channels-last copy through (N, H, C, W) rows: 16+ channels, planes a multiple of
# 4 KiB (32x32 float32, 32x32 float64 = 8 KiB); dcgan's 16 -> 32 4x4/2 discriminator layer
ALIASED = [
    (_conv(stride=2, padding=1), [(2, 16, 32, 32), (6, 16, 4, 4), (6,)]),
    (_conv(stride=2, padding=(1, 0)), [(3, 16, 32, 32), (5, 16, 3, 3)]),
    (_conv(channels_last=True, stride=2, padding=1), [(2, 16, 32, 32), (4, 16, 4, 4), (4,)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(ALIASED)))
def test_nhwc_aliased_planes_match_torch(monkeypatch, paths, case, dtype):
    monkeypatch.setattr(conv_ops, "_S2D", False)  # s41: 4x4/2 on 16x16 maps takes conv_s2d
    fn, shapes = ALIASED[case]
    check_op(fn, shapes, dtype=dtype, second_order=dtype == "float64",
             non_contiguous=dtype == "float32")
    assert "forward-nhwc" in paths and "weight-nhwc" in paths


def test_channels_last_rows_equal_direct_copy(monkeypatch):
    """Both ways of turning the input channels-last give the same padded buffer (also for a
    block of samples written into a reused buffer)."""
    rng = np.random.default_rng(5)
    for shape, dtype in [((3, 16, 32, 32), np.float32), ((2, 17, 64, 16), np.float32),
                         ((2, 16, 32, 32), np.float64)]:
        x = rng.standard_normal(shape).astype(dtype)
        pad = ((1, 2), (0, 1))
        rows = conv_nhwc._channels_last(np, x, pad)
        monkeypatch.setattr(conv_nhwc, "_ALIASED_MIN_CHANNELS", 1 << 30)
        direct = conv_nhwc._channels_last(np, x, pad)
        monkeypatch.undo()
        np.testing.assert_array_equal(rows, direct)
        reused = conv_nhwc._channels_last(np, x[:1], pad, direct.copy()[:1])
        np.testing.assert_array_equal(reused, direct[:1])


def test_dcgan_discriminator_step_matches_torch(monkeypatch, paths):
    """A float32 step through dcgan-shaped discriminator layers (3 -> 8 -> 16 channels,
    64x64): both new column builders inside one graph, gradients against torch."""
    monkeypatch.setattr(conv_ops, "_S2D", False)  # s41: the second layer takes conv_s2d
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
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)
    assert "columns-phases" in paths and "forward-nhwc" in paths


def _conv_t(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv_transpose2d(x, w, *b, **kw)


# a transposed convolution whose two gradients both read its output gradient's channels-last
# columns (conv_nhwc.forward_weight): dcgan's 32 -> 16 generator layer, odd sizes, a
# 3x3/2 kernel with output padding, bias, one sample
PAIRS = [
    (_conv_t(stride=2, padding=1), [(2, 12, 8, 8), (12, 16, 4, 4)]),
    (_conv_t(stride=2, padding=1, output_padding=1), [(2, 6, 5, 7), (6, 9, 3, 3), (9,)]),
    (_conv_t(stride=(2, 3), padding=(1, 0)), [(1, 8, 4, 3), (8, 5, 4, 3), (5,)]),
]


@pytest.mark.parametrize("case", range(len(PAIRS)))
def test_transposed_pair_matches_torch(paths, case):
    fn, shapes = PAIRS[case]
    check_op(fn, shapes)
    assert "backward-nhwc-pair" in paths


@pytest.mark.parametrize("step", [1, 64])  # blocks of one sample, or the whole batch
def test_transposed_pair_float32_in_blocks(monkeypatch, paths, step):
    monkeypatch.setattr(conv_nhwc, "_BLOCK_BYTES", step)
    monkeypatch.setattr(conv_nhwc, "_MIN_ROWS", 1)
    check_op(_conv_t(stride=2, padding=1), [(3, 16, 8, 8), (16, 16, 4, 4), (16,)],
             dtype="float32", second_order=False, non_contiguous=True)
    assert "backward-nhwc-pair" in paths


def test_transposed_pair_only_with_both_gradients(paths):
    """One gradient alone (a frozen weight, or an input that needs none) keeps its own path;
    so does a shape another path takes first (the per-sample GEMMs of 3 channels)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 8, 8, 8)).astype(np.float32)
    w = rng.standard_normal((8, 16, 4, 4)).astype(np.float32)
    g = rng.standard_normal((2, 16, 16, 16)).astype(np.float32)
    for needs in ((True, False), (False, True)):
        out = {}
        for lib in (numtorch, torch):
            xs = lib.tensor(x, requires_grad=needs[0])
            ws = lib.tensor(w, requires_grad=needs[1])
            y = lib.nn.functional.conv_transpose2d(xs, ws, stride=2, padding=1)
            y.backward(lib.tensor(g))
            out[lib] = (xs if needs[0] else ws).grad.numpy()
        np.testing.assert_allclose(out[numtorch], out[torch], rtol=1e-4, atol=1e-4)
    check_op(_conv_t(stride=2, padding=1), [(2, 4, 16, 16), (4, 3, 4, 4)], second_order=False)
    assert "backward-nhwc-pair" not in paths


# a strided transposed convolution to few channels: both gradients from one pass over the
# output gradient's per-sample columns (dcgan's 16 -> 3 output layer; phase-plane columns
# for long rows, the strided view for short ones or a kernel not a multiple of the stride)
PER_SAMPLE_PAIRS = [
    (_conv_t(stride=2, padding=1), [(2, 6, 32, 32), (6, 3, 4, 4)]),
    (_conv_t(stride=2, padding=1, output_padding=1), [(2, 5, 9, 17), (5, 2, 3, 3), (2,)]),
    (_conv_t(stride=(2, 3), padding=(0, 1)), [(1, 4, 10, 14), (4, 3, 2, 5), (3,)]),
]


@pytest.mark.parametrize("case", range(len(PER_SAMPLE_PAIRS)))
def test_transposed_per_sample_pair_matches_torch(paths, case):
    fn, shapes = PER_SAMPLE_PAIRS[case]
    check_op(fn, shapes)
    assert "backward-per-sample-pair" in paths


@pytest.mark.parametrize("block_bytes", [1, 1 << 20])
def test_transposed_per_sample_pair_float32(monkeypatch, paths, block_bytes):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block_bytes)
    check_op(_conv_t(stride=2, padding=1), [(3, 8, 16, 20), (8, 3, 4, 4), (3,)],
             dtype="float32", second_order=False, non_contiguous=True)
    assert "backward-per-sample-pair" in paths


def test_transposed_per_sample_pair_equals_separate_passes(monkeypatch, paths):
    """One pass gives the separate passes' gradients exactly (the same GEMM operands)."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 8, 32, 32)).astype(np.float32)
    w = rng.standard_normal((8, 3, 4, 4)).astype(np.float32)
    g = rng.standard_normal((3, 3, 64, 64)).astype(np.float32)

    def grads():
        xs = numtorch.tensor(x, requires_grad=True)
        ws = numtorch.tensor(w, requires_grad=True)
        y = numtorch.nn.functional.conv_transpose2d(xs, ws, stride=2, padding=1)
        y.backward(numtorch.tensor(g))
        return xs.grad.numpy(), ws.grad.numpy()

    one = grads()
    assert "backward-per-sample-pair" in paths
    monkeypatch.setattr(conv_ops, "_per_sample_pair", lambda *a: False)
    for a, b in zip(one, grads()):
        np.testing.assert_array_equal(a, b)
