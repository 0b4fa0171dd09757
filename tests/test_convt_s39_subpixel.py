"""Strided transposed convolutions and strided input gradients whose kernel is a multiple of
the stride (dcgan's 4x4 stride 2) go through sub-pixel phases (``conv_subpixel``): values,
input/weight/bias gradients with random cotangents and second order against torch, and the
shapes that must keep col2im."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_subpixel
from tests.nn._conv_cases import conv as _conv
from tests.nn._conv_cases import conv_t as _conv_t
from tests.oracle import check_op


@pytest.fixture
def watched(monkeypatch):
    """Shapes of gy for each sub-pixel call while the test runs."""
    calls = []
    real = conv_subpixel.input_grad

    def spy(xp, gy, *args):
        calls.append(gy.shape)
        return real(xp, gy, *args)

    monkeypatch.setattr(conv_subpixel, "input_grad", spy)
    return calls


CASES = [
    # dcgan's generator and discriminator layers (small channel counts)
    (_conv_t(2, stride=2, padding=1), [(2, 12, 4, 4), (12, 9, 4, 4), (9,)]),
    (_conv(2, stride=2, padding=1), [(2, 9, 8, 8), (12, 9, 4, 4), (12,)]),
    # odd sizes, output padding, asymmetric stride and kernel, no padding
    (_conv_t(2, stride=2, padding=1, output_padding=1), [(3, 5, 3, 5), (5, 8, 4, 4)]),
    (_conv_t(2, stride=(2, 3), padding=(0, 2), output_padding=(1, 2)),
     [(2, 4, 3, 4), (4, 8, 4, 6), (8,)]),
    (_conv(2, stride=(3, 2), padding=(2, 1)), [(2, 8, 11, 7), (5, 8, 6, 4)]),
    (_conv_t(2, stride=2, padding=3), [(1, 6, 5, 6), (6, 10, 6, 4)]),
    # padding wider than the taps' reach: gy rows whose windows fall outside dx
    (_conv(2, stride=2, padding=(3, 0)), [(2, 8, 5, 9), (3, 8, 4, 4)]),
    # batch 1
    (_conv_t(2, stride=2, padding=1), [(1, 16, 3, 3), (16, 8, 4, 4), (8,)]),
]


@pytest.mark.parametrize("exact_below", [0, 1000])  # shared windows, or per column phase
@pytest.mark.parametrize("case", range(len(CASES)))
def test_subpixel_matches_torch(monkeypatch, watched, case, exact_below):
    monkeypatch.setattr(conv_subpixel, "EXACT_BELOW", exact_below)
    fn, shapes = CASES[case]
    check_op(fn, shapes)
    assert watched


@pytest.mark.parametrize("case", [0, 2, 3, 6])
def test_subpixel_float32_non_contiguous(watched, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes, dtype="float32", second_order=False, non_contiguous=True)
    assert watched


@pytest.mark.parametrize("extra", [0, 1])  # a dx size a multiple of the stride or not
@pytest.mark.parametrize("block_bytes", [1, 1 << 20])  # one sample per block, or the batch
@pytest.mark.parametrize("exact_below", [0, 1000])
def test_subpixel_in_blocks(monkeypatch, watched, block_bytes, extra, exact_below):
    """Blocks of samples reuse the padded and windowed buffers."""
    monkeypatch.setattr(conv_subpixel, "EXACT_BELOW", exact_below)
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1 if block_bytes == 1 else 512)
    check_op(_conv_t(2, stride=2, padding=1, output_padding=extra),
             [(5, 6, 3, 4), (6, 9, 4, 4), (9,)], dtype="float32", second_order=False)
    assert watched


@pytest.mark.parametrize("extra", [0, 1])
@pytest.mark.parametrize("exact_below", [0, 1000])
def test_subpixel_partial_last_block(monkeypatch, watched, extra, exact_below):
    """A last, partial block gets buffers of its own (5 samples in blocks of 2)."""
    monkeypatch.setattr(conv_subpixel, "EXACT_BELOW", exact_below)
    monkeypatch.setattr(conv_ops, "_chunk", lambda n, per_sample, length: 2)
    check_op(_conv_t(2, stride=2, padding=1, output_padding=extra),
             [(5, 6, 3, 4), (6, 9, 4, 4), (9,)], dtype="float32", second_order=False)
    assert len(watched) == 1


@pytest.mark.parametrize("stride,padding", [(2, 0), (2, 2), (3, 1), (4, 3)])
def test_subpixel_strides_and_paddings(watched, stride, padding):
    """dx sizes a multiple of the stride, window offsets per phase 0, 0, 1 (stride 3, padding
    1) or 0, 1, 1, 1 (stride 4, padding 3)."""
    k = 2 * stride
    size = 4 * stride  # dx rows and columns
    n_in = (size + 2 * padding - k) // stride + 1
    check_op(_conv_t(2, stride=stride, padding=padding,
                     output_padding=size - ((n_in - 1) * stride - 2 * padding + k)),
             [(2, 5, n_in, n_in), (5, 8, k, k)], second_order=False)
    assert watched


def test_subpixel_in_blocks_of_two(monkeypatch, watched):
    monkeypatch.setattr(conv_ops, "_chunk", lambda n, per_sample, length: 2)
    check_op(_conv(2, stride=2, padding=1), [(5, 8, 9, 7), (4, 8, 4, 4)], dtype="float32",
             second_order=False)
    assert len(watched) == 1


def test_subpixel_batch_split_across_parts(monkeypatch, watched):
    """Written into a shared result (each part its samples) when the batch is split."""
    from numtorch.ops import conv_samples
    monkeypatch.setattr(conv_samples, "parts", lambda arrays, n, macs: min(n, 2))
    check_op(_conv_t(2, stride=2, padding=1), [(4, 10, 4, 4), (10, 8, 4, 4), (8,)],
             dtype="float32", second_order=False)
    assert len(watched) >= 2


def test_dcgan_layer_float32_within_torch_tolerance(monkeypatch, watched):
    """A dcgan-sized layer (32 -> 16 channels, 16x16 -> 32x32, batch 4), float32 against
    torch: the output and the three gradients (sub-pixel, not the s2d grid that s41 gave
    this shape)."""
    monkeypatch.setattr(conv_ops, "_S2D", False)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 32, 16, 16)).astype(np.float32)
    w = (rng.standard_normal((32, 16, 4, 4)) * 0.1).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    g = rng.standard_normal((4, 16, 32, 32)).astype(np.float32)
    outs = {}
    for lib in (numtorch, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in (x, w, b)]
        y = lib.nn.functional.conv_transpose2d(*ts, stride=2, padding=1)
        grads = lib.autograd.grad(y, ts, lib.tensor(g))
        outs[lib] = [y.detach().numpy()] + [t.numpy() for t in grads]
    for a, e in zip(outs[numtorch], outs[torch]):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4 * np.abs(e).max())
    assert watched


@pytest.mark.parametrize("fn,shapes", [
    # a kernel equal to the stride (one tap per phase)
    (_conv_t(2, stride=2), [(2, 8, 3, 3), (8, 9, 2, 2)]),
    # a kernel that is no multiple of the stride
    (_conv_t(2, stride=2, padding=1), [(2, 8, 3, 3), (8, 9, 3, 3)]),
    # dilation, groups, too few dx channels, 1-d and 3-d
    (_conv_t(2, stride=2, padding=1, dilation=2), [(2, 8, 3, 3), (8, 9, 4, 4)]),
    (_conv_t(2, stride=2, padding=1, groups=2), [(2, 8, 3, 3), (8, 5, 4, 4)]),
    (_conv_t(2, stride=2, padding=1), [(2, 8, 3, 3), (8, 3, 4, 4)]),
    (_conv_t(1, stride=2, padding=1), [(2, 8, 5), (8, 9, 4)]),
    (_conv_t(3, stride=2, padding=1), [(1, 8, 2, 3, 2), (8, 9, 4, 4, 2)]),
    # 4x4 gy maps with a deep reduction (2x2 taps x 160 channels)
    (_conv_t(2, stride=2, padding=1), [(2, 160, 4, 4), (160, 8, 4, 4)]),
])
def test_other_shapes_keep_col2im(watched, fn, shapes):
    check_op(fn, shapes, second_order=False)
    assert not watched


def test_paths_named(monkeypatch):
    monkeypatch.setattr(conv_ops, "_PATHS", [])
    x = numtorch.randn(2, 12, 5, 5)
    w = numtorch.randn(12, 9, 4, 4)
    numtorch.nn.functional.conv_transpose2d(x, w, stride=2, padding=1)
    assert conv_ops._PATHS == ["input-subpixel"]
    monkeypatch.setattr(conv_ops, "_SUBPIXEL", False)
    numtorch.nn.functional.conv_transpose2d(x, w, stride=2, padding=1)
    assert conv_ops._PATHS[-1] == "input-col2im"


@pytest.mark.parametrize("fn,shapes,taken", [
    # dcgan's 16 -> 32 4x4/2 discriminator layer (16x16 outputs, depth 256): channels-last
    (_conv(2, stride=2, padding=1), [(2, 16, 32, 32), (5, 16, 4, 4), (5,)],
     ["forward-nhwc", "weight-nhwc"]),
    (_conv(2, stride=(2, 3), padding=(1, 0)), [(2, 7, 29, 30), (4, 7, 3, 4)],
     ["forward-nhwc", "weight-nhwc"]),
    # beyond it: 17 channels, or more than 256 positions, keep channels-first im2col
    (_conv(2, stride=2, padding=1), [(1, 17, 32, 32), (3, 17, 3, 3)],
     ["forward-im2col", "weight-im2col"]),
    (_conv(2, stride=2, padding=1), [(1, 8, 36, 30), (3, 8, 3, 3)],
     ["forward-im2col", "weight-im2col"]),
])
def test_shallow_strided_channels_last(monkeypatch, fn, shapes, taken):
    monkeypatch.setattr(conv_ops, "_PATHS", [])
    monkeypatch.setattr(conv_ops, "_S2D", False)  # s41: 4x4/2 on 16x16 maps takes conv_s2d
    check_op(fn, shapes, dtype="float32", second_order=False)
    for path in taken:
        assert path in conv_ops._PATHS
    check_op(fn, shapes)
