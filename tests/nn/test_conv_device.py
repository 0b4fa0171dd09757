"""Convolutions on a GPU (ops/conv_device.py) against torch: every pass is one im2col copy and
one GEMM, never the CPU's Winograd, blocks, flat planes or batch splits, so the number of
kernels a convolution launches does not grow with the batch (issue 16, item 7)."""

import numpy as np
import pytest

import numtorch
from tests.nn._conv_cases import conv as _conv
from tests.nn._conv_cases import conv_t as _conv_t
from tests.oracle import check_op

DEVICE_PATHS = {"forward-device", "weight-device", "input-as-conv", "input-device-col2im"}


CASES = [
    (_conv(2, padding=1), [(2, 16, 6, 5), (8, 16, 3, 3), (8,)]),  # Winograd's shape on the CPU
    (_conv(2, stride=2, padding=1), [(2, 4, 7, 6), (5, 4, 3, 3), (5,)]),  # strided: col2im
    (_conv(2), [(3, 6, 5, 5), (4, 6, 1, 1)]),  # 1x1
    (_conv(2, stride=2), [(2, 6, 5, 6), (4, 6, 1, 1)]),  # strided 1x1
    (_conv(2, padding=1, groups=4), [(2, 4, 5, 5), (4, 1, 3, 3)]),  # depthwise
    (_conv(2, groups=2, dilation=(2, 1), padding="same"), [(2, 4, 6, 5), (6, 2, 3, 2)]),
    (_conv(1, padding=2, dilation=2, stride=2), [(3, 5, 9), (4, 5, 3)]),
    (_conv(3, padding=(1, 0, 1)), [(2, 3, 3, 4, 3), (2, 3, 2, 3, 2), (2,)]),
    (_conv_t(2, stride=2, padding=1, output_padding=1), [(2, 3, 4, 3), (3, 4, 3, 3), (4,)]),
    (_conv_t(2, groups=2), [(2, 4, 1, 1), (4, 3, 3, 3)]),  # a tiny input: col2im
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_device_conv_matches_torch(device, paths, case):
    fn, shapes = CASES[case]
    check_op(fn, shapes)
    if device == "cpu":
        assert not (DEVICE_PATHS - {"input-as-conv"}) & set(paths)
    else:
        assert set(paths) <= DEVICE_PATHS and "forward-device" in paths


def test_device_conv_float32_and_empty_batch(device, paths):
    check_op(_conv(2, padding=1), [(4, 32, 12, 12), (32, 32, 3, 3)], dtype="float32",
             second_order=False)
    check_op(_conv(2, padding=1), [(0, 3, 5, 5), (4, 3, 3, 3), (4,)])
    if device != "cpu":
        assert set(paths) <= DEVICE_PATHS


def _launches(n):
    from tests.cuda import standin

    conv = numtorch.nn.Conv2d(16, 32, 3, padding=1).cuda()
    x = numtorch.randn(n, 16, 12, 12, device="cuda")
    standin.reset_stats()
    conv(x).sum().backward()
    return standin.STATS["kernels"], standin.STATS["sync"]


def test_device_conv_launches_do_not_grow_with_the_batch():
    """On the stand-in, which counts kernels: a 3x3 convolution's training pass launches the
    same few kernels for a batch of 2 and of 64 (the CPU path's blocks and Winograd tiles
    would add launches per block), and never synchronises."""
    from tests.cuda import standin

    with standin.active():
        small, big = _launches(2), _launches(64)
    assert small == big, (small, big)
    kernels, syncs = big
    # 17 measured: forward (pad 2, im2col, GEMM, copy + bias), input gradient (weight flip,
    # pad 2, im2col, GEMM, copy), weight gradient (pad 2, im2col, gy copy, GEMM), the bias
    # gradient's sum, the loss's sum and its gradient
    assert kernels <= 20 and syncs == 0, big


def test_device_conv_is_the_cpu_result(device):
    """The GPU's single GEMM gives the CPU path's values (float64: to rounding)."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 8, 9, 9)), rng.standard_normal((6, 8, 3, 3))
    out = numtorch.nn.functional.conv2d(numtorch.from_numpy(x).to(device),
                                        numtorch.from_numpy(w).to(device), padding=1)
    cpu = numtorch.nn.functional.conv2d(numtorch.from_numpy(x), numtorch.from_numpy(w),
                                        padding=1)
    np.testing.assert_allclose(out.cpu().numpy(), cpu.numpy(), rtol=1e-12, atol=1e-12)
