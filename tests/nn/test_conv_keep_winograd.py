"""A convolution whose whole batch takes Winograd but whose split parts would not (too few
tiles per part: ResNet-18's 512-channel 4x4 maps) runs unsplit through Winograd, forward and
gradients (``conv._keep_winograd``); values and gradients match torch, and the paths taken
and the splits made are asserted."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_samples, conv_winograd
from tests import oracle
from tests.oracle import check_op


@pytest.fixture
def setup(monkeypatch):
    """Two free cores, tiny parts allowed, and Winograd from 12 tiles on: a batch of 4 on
    4x4 maps has 16 tiles, a part of 2 samples 8. Returns ((items, parts) of each split: 4
    samples, or the 5 filters of the Winograd filter transform; paths taken)."""
    counts, taken = [], []
    real = conv_samples.run

    def watched(kernel, n, k):
        counts.append((n, k))
        return real(kernel, n, k)

    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 2)
    monkeypatch.setattr(conv_samples, "run", watched)
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 12)
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    # the separate gradient paths (both at once: tests/ops/test_conv_s37_winograd_backward.py)
    monkeypatch.setattr(conv_ops, "_BOTH_WINOGRAD", False)
    return counts, taken


def _conv(t, x, w, b):
    return t.nn.functional.conv2d(x, w, b, padding=1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gradients_unsplit_through_winograd(setup, dtype):
    counts, taken = setup
    check_op(_conv, [(4, 8, 4, 4), (5, 8, 3, 3), (5,)], dtype=dtype,
             second_order=dtype == "float64")
    if oracle.DEVICE[0] != "cpu":
        return
    assert {"forward-winograd", "weight-winograd"} <= set(taken)


def test_first_order_paths_and_split(setup, monkeypatch):
    counts, taken = setup
    transforms = []
    real = conv_winograd.filters

    def watched(xp, w, parts=1):
        transforms.append(parts)
        return real(xp, w, parts)

    monkeypatch.setattr(conv_winograd, "filters", watched)
    rng = np.random.default_rng(0)
    x = numtorch.from_numpy(rng.standard_normal((4, 8, 4, 4))).requires_grad_()
    w = numtorch.from_numpy(rng.standard_normal((5, 8, 3, 3))).requires_grad_()
    y = numtorch.nn.functional.conv2d(x, w, padding=1)
    if oracle.DEVICE[0] != "cpu":
        return
    assert counts == [] and taken == ["forward-winograd"]
    del taken[:]
    y.backward(numtorch.from_numpy(rng.standard_normal(y.shape)))
    assert counts == []
    # the input gradient is a Winograd convolution of gy with the forward's filters reordered
    assert taken == ["input-as-conv", "forward-winograd", "weight-winograd"]
    assert transforms == [1]  # the filters were transformed once, in the forward


def test_split_kept_when_parts_take_winograd_too(setup, monkeypatch):
    counts, taken = setup
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 8)
    rng = np.random.default_rng(1)
    x = numtorch.from_numpy(rng.standard_normal((4, 8, 4, 4))).requires_grad_()
    w = numtorch.from_numpy(rng.standard_normal((5, 8, 3, 3))).requires_grad_()
    numtorch.nn.functional.conv2d(x, w, padding=1).sum().backward()
    if oracle.DEVICE[0] == "cpu":
        assert counts == [(5, 2), (4, 2), (4, 2)]  # filters, forward parts, backward parts


def test_reordered_filters_give_the_same_input_gradient(monkeypatch):
    # several blocks of samples: the input gradient's GEMM operands are the forward's filters
    # reordered once (one batched GEMM call per block), bit-identical to one GEMM per tap
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 1)
    monkeypatch.setattr(conv_winograd, "_BLOCK_TILES", 9)
    monkeypatch.setattr(conv_winograd, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    monkeypatch.setattr(conv_ops, "_BOTH_WINOGRAD", False)
    taken = []
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    check_op(_conv, [(5, 8, 6, 6), (7, 8, 3, 3), (7,)], dtype="float32", second_order=False)
    if oracle.DEVICE[0] != "cpu":
        return
    assert "forward-winograd" in taken[taken.index("input-as-conv"):]
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 8, 6, 6)).astype(np.float32)
    w = rng.standard_normal((7, 8, 3, 3)).astype(np.float32)
    g = rng.standard_normal((5, 7, 6, 6)).astype(np.float32)
    grads = []
    for reorder in (True, False):
        monkeypatch.setattr(conv_winograd, "_REORDER", reorder)
        xt = numtorch.from_numpy(x).requires_grad_()
        y = numtorch.nn.functional.conv2d(xt, numtorch.from_numpy(w), padding=1)
        y.backward(numtorch.from_numpy(g))
        grads.append(xt.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
