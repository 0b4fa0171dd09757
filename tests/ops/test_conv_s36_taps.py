"""Session 36 convolution paths against torch: the per-tap GEMM path for few filters under a
large kernel (``conv_taps``), and single-sample blocks cut into bands of output rows
(Winograd tile rows, im2col/phase-plane columns, flat-plane columns) for large images.

Values and input/weight/bias gradients with random cotangents (second order in float64),
float32 within the oracle's tolerance, padding modes, dilation, batch > 1, non-contiguous
inputs; each case asserts the path under test really ran. CPU only: device arrays take
``conv_device``'s paths."""

import pytest

from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_samples, conv_taps, conv_winograd
from tests.oracle import check_op


@pytest.fixture
def paths(monkeypatch, device):
    if device != "cpu":  # device arrays take conv_device's paths, none of these
        pytest.skip("CPU kernel paths")
    taken = []
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    # one part: a batch split across cores would change which blocks the kernels see
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    # small test maps under wide padding: let the taps path take them (see test_taps_not_taken)
    monkeypatch.setattr(conv_taps, "_MAX_GRID_SHARE", 100)
    return taken


def _conv(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b, **kw)


def _padded_conv(mode, pad, **kw):
    def fn(t, x, w, b):
        F = t.nn.functional
        return F.conv2d(F.pad(x, pad, mode=mode), w, b, **kw)
    return fn


TAPS = [
    (_conv(), [(1, 16, 13, 12), (3, 16, 9, 9), (3,)]),  # fast_neural_style's last layer
    (_conv(padding=4), [(2, 16, 9, 11), (2, 16, 9, 9), (2,)]),  # batch > 1, padded
    (_conv(padding=(2, 1), dilation=2), [(2, 16, 10, 9), (4, 16, 3, 3)]),  # dilation
    (_conv(padding=(0, 3)), [(3, 20, 8, 6), (5, 20, 3, 5), (5,)]),  # rectangular kernel
    (_conv(padding="same"), [(1, 16, 7, 8), (1, 16, 4, 4)]),  # even kernel: asymmetric pad
    (_padded_conv("reflect", (4, 4, 4, 4)), [(1, 16, 8, 7), (2, 16, 9, 9), (2,)]),
    (_padded_conv("replicate", (1, 2, 2, 0)), [(2, 32, 6, 5), (3, 32, 3, 3), (3,)]),
    (_padded_conv("circular", (1, 1, 1, 1)), [(1, 16, 5, 5), (4, 16, 3, 3), (4,)]),
]


@pytest.mark.parametrize("case", range(len(TAPS)))
def test_taps_conv_matches_torch(paths, case):
    fn, shapes = TAPS[case]
    check_op(fn, shapes, non_contiguous=True)
    assert {"forward-taps", "weight-taps"} <= set(paths)


@pytest.mark.parametrize("case", [0, 1, 2, 5])
def test_taps_conv_float32_matches_torch(paths, case):
    fn, shapes = TAPS[case]
    # small values: sums of ~1,300 products cancel, and float32 keeps ~7 digits of the terms
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True,
             low=-0.5, high=0.5)
    assert {"forward-taps", "weight-taps"} <= set(paths)


def test_taps_in_many_strips_matches_torch(paths, monkeypatch):
    # strips far shorter than a plane: every tap's slice is clipped at some strip edge
    monkeypatch.setattr(conv_taps, "_STRIP_BYTES", 1)
    monkeypatch.setattr(conv_taps, "_MIN_STRIP", 7)
    check_op(_conv(padding=(3, 2)), [(2, 16, 9, 10), (2, 16, 5, 7), (2,)],
             second_order=False)
    assert {"forward-taps", "weight-taps"} <= set(paths)


def test_taps_float32_large_image(paths):
    # a 1-sample map large enough for several default strips
    check_op(_conv(padding=4), [(1, 32, 70, 66), (3, 32, 9, 9), (3,)], dtype="float32",
             second_order=False, low=-0.5, high=0.5)
    assert {"forward-taps", "weight-taps"} <= set(paths)


def test_taps_not_taken(paths, monkeypatch):
    monkeypatch.setattr(conv_taps, "_MAX_GRID_SHARE", 2)  # the default
    # more filters than inputs, too few inputs, strided, grouped, or a 1x1 kernel: other paths
    check_op(_conv(padding=1), [(1, 16, 6, 6), (17, 16, 3, 3)], second_order=False)
    check_op(_conv(padding=1), [(1, 8, 6, 6), (2, 8, 3, 3)], second_order=False)
    check_op(_conv(stride=2), [(1, 16, 9, 9), (2, 16, 3, 3)], second_order=False)
    # small maps under wide padding: mostly junk grid positions
    check_op(_conv(padding=1), [(2, 16, 1, 1), (2, 16, 3, 3)], second_order=False)
    check_op(_conv(padding=4), [(1, 16, 6, 6), (2, 16, 9, 9)], second_order=False)
    check_op(_conv(groups=2), [(1, 32, 8, 8), (2, 16, 3, 3)], second_order=False)
    check_op(_conv(), [(1, 32, 8, 8), (2, 32, 1, 1)], second_order=False)
    assert "forward-taps" not in paths and "weight-taps" not in paths


def test_taps_weight_only_from_as_many_filters(paths):
    # as many filters as inputs: the forward stays with im2col, the weight gradient takes taps
    check_op(_conv(padding=1), [(2, 16, 6, 7), (16, 16, 3, 3), (16,)], second_order=False)
    assert "weight-taps" in paths and "forward-taps" not in paths


def test_taps_transposed_conv_matches_torch(paths):
    # a stride-1 transposed convolution from few channels: its weight gradient is the taps
    # weight gradient of the convolution it transposes (gy has the many channels)
    fn = lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, padding=2)  # noqa: E731
    check_op(fn, [(2, 2, 7, 6), (2, 16, 5, 5), (16,)])
    assert "weight-taps" in paths


def _banded(monkeypatch, block):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    # small strided maps from few channels go channels-last (conv_nhwc): keep im2col's bands
    monkeypatch.setattr(conv_ops, "_NHWC", False)


@pytest.mark.parametrize("kw,shapes", [
    (dict(stride=2), [(1, 4, 17, 19), (6, 4, 3, 3), (6,)]),  # phase-plane columns
    (dict(stride=2, padding=1, groups=2), [(1, 4, 16, 15), (6, 2, 3, 3), (6,)]),
    (dict(stride=(3, 1), padding=(1, 2), dilation=2), [(1, 3, 19, 14), (5, 3, 3, 3)]),
])
def test_im2col_row_bands_match_torch(paths, monkeypatch, kw, shapes):
    _banded(monkeypatch, 2048)
    check_op(_conv(**kw), shapes, non_contiguous=True)
    check_op(_conv(**kw), shapes, dtype="float32", second_order=False)
    assert {"forward-im2col", "weight-im2col"} <= set(paths)


def test_flat_row_bands_match_torch(paths, monkeypatch):
    _banded(monkeypatch, 4096)
    monkeypatch.setattr(conv_ops, "_FLAT_MIN_WIDTH", 1)
    check_op(_conv(padding=2), [(1, 3, 15, 13), (8, 3, 5, 5), (8,)], non_contiguous=True)
    check_op(_conv(padding=(1, 4)), [(2, 2, 11, 9), (4, 2, 3, 5)], dtype="float32",
             second_order=False)
    assert "forward-flat" in paths


@pytest.mark.parametrize("shapes,pad", [
    ([(1, 4, 23, 18), (5, 4, 3, 3), (5,)], 1),  # odd output rows: the last band overhangs
    ([(1, 4, 20, 17), (3, 4, 3, 3), (3,)], 0),
    ([(1, 3, 9, 22), (2, 3, 3, 3)], (0, 1)),
])
def test_winograd_tile_row_bands_match_torch(paths, monkeypatch, shapes, pad):
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 1)
    monkeypatch.setattr(conv_winograd, "_BAND_BYTES", 1)  # one tile row per band
    monkeypatch.setattr(conv_winograd, "_BLOCK_TILES", 1)
    check_op(_conv(padding=pad), shapes, non_contiguous=True)
    check_op(_conv(padding=pad), shapes, dtype="float32", second_order=False)
    assert {"forward-winograd", "weight-winograd"} <= set(paths)
    assert conv_winograd._tile_rows(1, 5, 4, 4, 4) == 1


@pytest.mark.parametrize("kw,shapes", [
    (dict(padding=1), [(3, 8, 1, 1), (5, 8, 3, 3), (5,)]),  # ResNet's last stage, small input
    (dict(padding=2), [(2, 4, 2, 3), (3, 4, 5, 5), (3,)]),  # the outer rows/cols only
    (dict(padding=1, stride=2), [(2, 6, 1, 2), (4, 6, 3, 3)]),
    (dict(padding=2, dilation=2), [(2, 3, 1, 1), (2, 3, 3, 3), (2,)]),
    (dict(padding=(2, 0)), [(2, 3, 1, 4), (2, 3, 5, 3)]),  # rows cropped, columns not
])
def test_live_taps_match_torch(paths, kw, shapes):
    check_op(_conv(**kw), shapes, non_contiguous=True)
    check_op(_conv(**kw), shapes, dtype="float32", second_order=False)
    assert "forward-live-taps" in paths


def test_live_taps_keep_every_live_tap(paths):
    # every tap reads data somewhere: the kernel stays whole
    check_op(_conv(padding=1), [(2, 4, 2, 2), (3, 4, 3, 3)], second_order=False)
    check_op(_conv(padding=3, stride=2), [(1, 2, 2, 2), (2, 2, 3, 3)], second_order=False)
    assert "forward-live-taps" not in paths
