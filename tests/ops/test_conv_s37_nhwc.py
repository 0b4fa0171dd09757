"""Session 37: strided 2-d convolutions over small maps through channels-last columns
(``conv_nhwc``: paths ``forward-nhwc``, ``weight-nhwc``, ``input-nhwc``).

Values and input/weight/bias gradients with random cotangents against torch (float64 with
second order, float32, non-contiguous), odd sizes, asymmetric strides, padding, dilation,
rectangular kernels, transposed convolutions (whose forward is the input-gradient path), one
sample per block, a batch split in two parts; each case asserts the paths ran, and the
refusals (large maps, deep reductions, groups, stride 1) that they did not. CPU only."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import conv_nhwc, conv_samples
from tests.oracle import check_op

ALL = {"forward-nhwc", "weight-nhwc", "input-nhwc"}


@pytest.fixture
def paths(conv_paths):
    return conv_paths


@pytest.fixture
def small(monkeypatch, paths):
    """The input-gradient path for test-sized channel counts too."""
    monkeypatch.setattr(conv_nhwc, "MIN_INPUT_CHANNELS", 1)
    return paths


def _conv(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b, **kw)


def _convt(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv_transpose2d(x, w, *b, **kw)


CASES = [
    (_conv(stride=2, padding=1), [(3, 6, 7, 7), (5, 6, 3, 3), (5,)]),  # siamese's l2 shape
    (_conv(stride=2, padding=1), [(2, 5, 4, 4), (7, 5, 3, 3), (7,)]),  # l3: 2x2 outputs
    (_conv(stride=2), [(2, 4, 9, 8), (3, 4, 3, 3)]),  # odd sizes, no padding
    (_conv(stride=(2, 3), padding=(1, 0)), [(2, 3, 10, 11), (4, 3, 3, 2), (4,)]),
    (_conv(stride=2, padding=2, dilation=2), [(2, 4, 9, 9), (3, 4, 3, 3), (3,)]),
    (_conv(stride=3, padding=(0, 2)), [(1, 5, 13, 8), (2, 5, 2, 4), (2,)]),
    (_conv(stride=2, padding=1), [(2, 4, 8, 8), (3, 4, 4, 4), (3,)]),  # a 4x4/2 kernel
    (_convt(stride=2, padding=1), [(2, 5, 4, 4), (5, 3, 3, 3), (3,)]),
    (_convt(stride=2, padding=1, output_padding=1), [(2, 4, 3, 5), (4, 6, 4, 4), (6,)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_strided_small_maps_match_torch(small, case, dtype):
    fn, shapes = CASES[case]
    check_op(fn, shapes, dtype=dtype, second_order=dtype == "float64",
             non_contiguous=dtype == "float32")
    taken = set(small)
    if "backward-nhwc-pair" in taken:  # a transposed conv's two gradients in one pass
        taken |= {"forward-nhwc", "weight-nhwc"}
    assert ALL <= taken


def test_real_thresholds_take_every_path(paths):
    """128 input channels on 4x4 maps (siamese's l3, batch 2): all three passes, thresholds
    untouched."""
    check_op(_conv(stride=2, padding=1), [(2, 128, 4, 4), (16, 128, 3, 3), (16,)],
             dtype="float32", low=-0.5, high=0.5, second_order=False)
    assert ALL <= set(paths)


def test_64_channels_keep_col2im_for_the_input_gradient(paths):
    check_op(_conv(stride=2, padding=1), [(2, 64, 7, 7), (8, 64, 3, 3)], dtype="float32",
             low=-0.5, high=0.5, second_order=False)
    assert {"forward-nhwc", "weight-nhwc"} <= set(paths)
    assert "input-nhwc" not in paths and "input-col2im" in paths


def test_one_sample_per_block(small, monkeypatch):
    monkeypatch.setattr(conv_nhwc, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_nhwc, "_MIN_ROWS", 1)
    for dtype in ("float64", "float32"):
        check_op(_conv(stride=2, padding=1), [(5, 4, 7, 6), (3, 4, 3, 3), (3,)], dtype=dtype,
                 second_order=False)
    assert ALL <= set(small)


def test_batch_split_into_parts(small, monkeypatch):
    counts = []
    real = conv_samples.run

    def watched(kernel, n, k):
        counts.append((n, k))
        return real(kernel, n, k)

    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 2)
    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "run", watched)
    for dtype in ("float64", "float32"):
        check_op(_conv(stride=2, padding=1), [(6, 5, 7, 7), (4, 5, 3, 3), (4,)], dtype=dtype,
                 second_order=False)
    assert ALL <= set(small)
    assert (6, 2) in counts


@pytest.mark.parametrize("x_shape, w_shape, kw", [
    ((2, 4, 36, 36), (3, 4, 3, 3), dict(stride=2)),  # 289 output positions: too many
    ((2, 17, 20, 20), (3, 17, 3, 3), dict(stride=2)),  # 81 positions from 17 channels
    ((2, 160, 6, 6), (3, 160, 3, 3), dict(stride=2)),  # depth 1440: too deep
    ((2, 4, 8, 8), (4, 2, 3, 3), dict(stride=2, groups=2)),
    ((2, 4, 6, 6), (3, 4, 3, 3), dict(stride=1)),
    ((2, 4, 8, 8), (3, 4, 1, 1), dict(stride=2)),  # 1x1
])
def test_not_taken(small, x_shape, w_shape, kw):
    """Large maps, deep reductions, groups, stride 1 and 1x1 kernels keep the other paths."""
    rng = np.random.default_rng(0)
    x = numtorch.from_numpy(rng.standard_normal(x_shape)).requires_grad_()
    w = numtorch.from_numpy(rng.standard_normal(w_shape)).requires_grad_()
    numtorch.nn.functional.conv2d(x, w, **kw).sum().backward()
    assert not ALL & set(small)


def test_phase_rows_keep_phases(small, monkeypatch):
    """Where conv_phases' columns apply (rows of MIN_WIDTH+ outputs), they are taken."""
    from numtorch.ops import conv_phases

    monkeypatch.setattr(conv_phases, "MIN_WIDTH", 3)
    check_op(_conv(stride=2, padding=1), [(2, 4, 7, 7), (3, 4, 3, 3)], second_order=False)
    assert "columns-phases" in small
    assert not {"forward-nhwc", "weight-nhwc"} & set(small)
