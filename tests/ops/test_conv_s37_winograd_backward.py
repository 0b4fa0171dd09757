"""Session 37: both gradients of a 3x3 stride-1 convolution from one Winograd pass over the
output gradient's tiles (``conv_winograd.backward``, path ``backward-winograd``): the weight
gradient as before, the input gradient as the adjoint of the forward's tiles.

Values and input/weight/bias gradients with random cotangents against torch (float64 and
float32, second order in float64 through the op-level backward), odd sizes, every padding
up to the kernel's reach, padding modes, non-contiguous inputs, several sample blocks, a
batch split across two parts; each case asserts the path ran (or, where it must not apply,
that it did not). CPU only: device arrays take ``conv_device``'s paths."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import conv_samples, conv_winograd
from tests.oracle import check_op


@pytest.fixture
def paths(conv_paths):
    return conv_paths


@pytest.fixture
def small(monkeypatch, paths):
    """Winograd for test-sized operands: any channel count, from 8 tiles on."""
    monkeypatch.setattr(conv_winograd, "_MIN_CHANNELS", 1)
    monkeypatch.setattr(conv_winograd, "_MIN_TILES", 8)
    return paths


def _conv(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b, **kw)


def _padded_conv(mode, pad, **kw):
    def fn(t, x, w, b):
        F = t.nn.functional
        return F.conv2d(F.pad(x, pad, mode=mode), w, b, **kw)
    return fn


CASES = [
    (_conv(), [(2, 6, 8, 8), (5, 6, 3, 3), (5,)]),
    (_conv(), [(3, 5, 9, 11), (4, 5, 3, 3), (4,)]),  # odd sizes: overhanging tiles
    (_conv(padding=1), [(2, 7, 7, 10), (3, 7, 3, 3), (3,)]),
    (_conv(padding=2), [(2, 4, 5, 6), (6, 4, 3, 3)]),  # padding = the kernel's reach
    (_conv(padding=(1, 2)), [(1, 8, 6, 9), (5, 8, 3, 3), (5,)]),
    (_conv(padding=(2, 0)), [(2, 3, 8, 7), (2, 3, 3, 3), (2,)]),
    (_conv(padding="same"), [(2, 5, 6, 7), (3, 5, 3, 3), (3,)]),
    (_padded_conv("reflect", (1, 2, 0, 1)), [(2, 4, 7, 8), (3, 4, 3, 3), (3,)]),
    (_padded_conv("circular", (1, 1, 1, 1), padding=1), [(1, 6, 6, 6), (4, 6, 3, 3), (4,)]),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_both_gradients_match_torch(small, case, dtype):
    fn, shapes = CASES[case]
    check_op(fn, shapes, dtype=dtype, second_order=dtype == "float64",
             non_contiguous=dtype == "float32")
    assert "backward-winograd" in small


def test_mnist_shape_at_real_thresholds(paths):
    """The MNIST net's 32 -> 64 conv on 26x26 maps (batch 4 here), thresholds untouched.
    Inputs in [-0.5, 0.5): with the default [-2, 2) the forward's 288-term sums reach ~40
    and a near-zero output's float32 rounding alone (im2col, not this path) exceeds atol."""
    check_op(_conv(), [(4, 32, 26, 26), (64, 32, 3, 3), (64,)], dtype="float32",
             low=-0.5, high=0.5, second_order=False)
    assert "backward-winograd" in paths


def test_several_blocks(small, monkeypatch):
    """Blocks of one sample each (each block's dU added up, its dx written in place)."""
    monkeypatch.setattr(conv_winograd, "_BLOCK_TILES", 1)
    monkeypatch.setattr(conv_winograd, "_BLOCK_BYTES", 1)
    for dtype in ("float64", "float32"):
        check_op(_conv(padding=1), [(5, 6, 7, 9), (4, 6, 3, 3), (4,)], dtype=dtype,
                 second_order=False)
    assert "backward-winograd" in small


def test_batch_split_into_parts(small, monkeypatch):
    """Two parts of the batch, each writing its samples' input gradient into the shared
    result and its partial weight gradient summed."""
    counts = []
    real = conv_samples.run

    def watched(kernel, n, k):
        counts.append((n, k))
        return real(kernel, n, k)

    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 2)
    monkeypatch.setattr(conv_samples, "_MIN_PART_MACS", 1)
    monkeypatch.setattr(conv_samples, "run", watched)
    for dtype in ("float64", "float32"):
        check_op(_conv(padding=1), [(6, 5, 8, 8), (7, 5, 3, 3), (7,)], dtype=dtype,
                 second_order=False)
    assert "backward-winograd" in small
    assert (6, 2) in counts


def _grads(x_grad, w_grad, shape_x=(3, 6, 9, 9), shape_w=(4, 6, 3, 3)):
    rng = np.random.default_rng(3)
    x = numtorch.from_numpy(rng.standard_normal(shape_x)).requires_grad_(x_grad)
    w = numtorch.from_numpy(rng.standard_normal(shape_w)).requires_grad_(w_grad)
    y = numtorch.nn.functional.conv2d(x, w, padding=1)
    y.backward(numtorch.from_numpy(rng.standard_normal(tuple(y.shape))))


@pytest.mark.parametrize("x_grad, w_grad", [(True, False), (False, True)])
def test_one_gradient_keeps_its_own_path(small, x_grad, w_grad):
    _grads(x_grad, w_grad)
    assert "backward-winograd" not in small
    assert ("weight-winograd" in small) == w_grad


def test_not_taken_when_tiles_would_be_banded(small, monkeypatch):
    """A single sample too large for one block (a big image) keeps the banded paths."""
    monkeypatch.setattr(conv_winograd, "_BAND_BYTES", 1)
    monkeypatch.setattr(conv_winograd, "_BLOCK_TILES", 1)
    monkeypatch.setattr(conv_winograd, "_BLOCK_BYTES", 1)
    _grads(True, True, (1, 6, 40, 40))
    assert "backward-winograd" not in small
    assert "weight-winograd" in small


def test_not_taken_for_other_geometry(small):
    for kw in (dict(stride=2), dict(dilation=2), dict(padding=3)):
        del small[:]
        rng = np.random.default_rng(0)
        x = numtorch.from_numpy(rng.standard_normal((2, 4, 12, 12))).requires_grad_()
        w = numtorch.from_numpy(rng.standard_normal((4, 4, 3, 3))).requires_grad_()
        numtorch.nn.functional.conv2d(x, w, **kw).sum().backward()
        assert "backward-winograd" not in small, kw
