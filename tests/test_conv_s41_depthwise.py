"""Session 41's depthwise 2-d convolutions as per-channel GEMVs over tap rows
(``conv_depthwise_gemv``) against torch: forward (stride 1, strided, dilated), the stride-1
input gradient through it, the strided input gradient (per phase) and weight gradient; values and input/weight/bias
gradients with random cotangents (second order in float64), float32 with non-contiguous and
channels-last inputs, odd sizes, unequal strides, input rows past the last window, blocks of
channels, and the shapes that keep the older kernels."""

import pytest

from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_depthwise_band, conv_depthwise_gemv
from tests.oracle import check_op


@pytest.fixture
def paths(monkeypatch, conv_paths):
    # the banded GEMMs (conv_depthwise_band, tests/test_conv_depthwise_band.py) would take
    # the large stride-1 kernels here
    monkeypatch.setattr(conv_depthwise_band, "MIN_TAPS", 10 ** 9)
    return conv_paths


def _dw(channels_last=False, **kw):
    def fn(t, x, w, *b):
        if channels_last:
            x = x.contiguous(memory_format=t.channels_last)
        return t.nn.functional.conv2d(x, w, *b, groups=x.shape[1], **kw)
    return fn


STRIDE_ONE = [
    (_dw(padding=1), [(2, 6, 8, 8), (6, 1, 3, 3), (6,)]),  # MobileViT's 3x3
    (_dw(padding=2, dilation=2), [(2, 4, 7, 9), (4, 1, 3, 3)]),
    (_dw(padding=(3, 0)), [(1, 3, 6, 10), (3, 1, 7, 1), (3,)]),  # a 7x1 kernel
    (_dw(), [(2, 5, 4, 4), (5, 1, 4, 4)]),  # one output position per plane
]

STRIDED = [
    (_dw(stride=2, padding=1), [(2, 6, 8, 8), (6, 1, 3, 3), (6,)]),
    (_dw(stride=2, padding=2), [(2, 4, 11, 9), (4, 1, 5, 5)]),  # odd sizes, 5x5
    (_dw(stride=(1, 2), padding=(1, 0)), [(2, 3, 7, 10), (3, 1, 3, 3), (3,)]),
    (_dw(stride=2), [(1, 4, 10, 8), (4, 1, 3, 3)]),  # rows/columns past the last window
    (_dw(stride=3, padding=1), [(2, 3, 10, 11), (3, 1, 2, 4)]),  # kernel < stride
]


@pytest.mark.parametrize("case", range(len(STRIDE_ONE)))
def test_stride_one_matches_torch(paths, case):
    fn, shapes = STRIDE_ONE[case]
    check_op(fn, shapes)
    assert "forward-depthwise-gemv" in paths
    assert "weight-depthwise" in paths  # the stride-1 weight gradient keeps its kernel


@pytest.mark.parametrize("case", range(len(STRIDED)))
def test_strided_matches_torch(paths, case):
    fn, shapes = STRIDED[case]
    check_op(fn, shapes)
    assert "forward-depthwise-gemv" in paths and "weight-depthwise-gemv" in paths
    assert "input-depthwise-gemv" in paths


def test_strided_transposed_matches_torch(paths):
    """A strided depthwise transposed convolution: its forward is the input gradient."""
    check_op(lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                                 output_padding=1, groups=4),
             [(2, 4, 5, 6), (4, 1, 3, 3), (4,)])
    assert "input-depthwise-gemv" in paths


@pytest.mark.parametrize("fn,shapes", [STRIDE_ONE[0], STRIDED[1]])
def test_float32_non_contiguous(paths, fn, shapes):
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert "forward-depthwise-gemv" in paths


def test_channels_last_input(paths):
    check_op(_dw(channels_last=True, stride=2, padding=1), [(2, 8, 9, 9), (8, 1, 3, 3), (8,)],
             dtype="float32", second_order=False)
    assert "forward-depthwise-gemv" in paths


@pytest.mark.parametrize("block_bytes", [1, 3 * 9 * 2 * 5 * 5 * 8])  # 1 channel, or 3 of 7
def test_blocks_of_channels(monkeypatch, paths, block_bytes):
    monkeypatch.setattr(conv_depthwise_gemv, "_BLOCK_BYTES", block_bytes)
    check_op(_dw(stride=2, padding=1), [(2, 7, 9, 9), (7, 1, 3, 3), (7,)],
             second_order=False)
    assert "forward-depthwise-gemv" in paths and "weight-depthwise-gemv" in paths


def test_large_maps_keep_flat_planes(monkeypatch, paths):
    monkeypatch.setattr(conv_depthwise_gemv, "MAX_CELLS", 100)
    check_op(_dw(padding=1), [(2, 3, 8, 8), (3, 1, 3, 3)], second_order=False)
    assert "forward-depthwise" in paths and "forward-depthwise-gemv" not in paths


@pytest.mark.parametrize("fn,shapes", [
    # a channel multiplier of 2 (two filters per channel)
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1, groups=3),
     [(1, 3, 6, 6), (6, 1, 3, 3)]),
    # grouped, not depthwise
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1, groups=2),
     [(1, 4, 6, 6), (4, 2, 3, 3)]),
    # strided and dilated at once
    (lambda t, x, w: t.nn.functional.conv2d(x, w, stride=2, dilation=2, groups=3),
     [(1, 3, 9, 9), (3, 1, 3, 3)]),
    # 1-d
    (lambda t, x, w: t.nn.functional.conv1d(x, w, padding=1, groups=4), [(2, 4, 9), (4, 1, 3)]),
])
def test_other_shapes_keep_their_paths(paths, fn, shapes):
    check_op(fn, shapes, second_order=False)
    assert not any("gemv" in p for p in paths)


def test_disabled_by_flag(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_DW_GEMV", False)
    fn, shapes = STRIDED[0]
    check_op(fn, shapes, dtype="float32", second_order=False)
    assert not any("gemv" in p for p in paths)
