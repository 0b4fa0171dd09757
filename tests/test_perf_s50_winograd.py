"""Session 50 (perf): the Winograd backward's input gradient keeps the output-gradient tiles'
signs in ``dM @ U`` and takes them out in the scatter's additions (``_scatter_tiles(...,
signed=True)``) instead of multiplying them into the filters on every call.

The signed scatter must give the same values as the former route (filters times
``TILE_SIGNS``, plain scatter) to the bit (zeros' signs aside), and the whole backward must
still match torch. Correctness only, nothing timed."""

import numpy as np
import pytest

from numtorch.ops import conv_winograd as W
from tests.oracle import check_op


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("th,tw,n,o,c", [(3, 4, 2, 5, 3), (1, 1, 1, 1, 1), (6, 2, 3, 8, 16)])
def test_signed_scatter_equals_signed_filters(dtype, th, tw, n, o, c):
    rng = np.random.default_rng(th * 100 + tw * 10 + c)
    dm = rng.standard_normal((16, th * tw * n, o)).astype(dtype)
    u = rng.standard_normal((16, o, c)).astype(dtype)
    old = W._scatter_tiles(np, np.matmul(dm, W._signed(np, u, dtype)).reshape(
        4, 4, th, tw, n, c), th, tw)
    new = W._scatter_tiles(np, np.matmul(dm, u).reshape(4, 4, th, tw, n, c), th, tw, True)
    assert new.dtype == old.dtype == dtype
    assert np.array_equal(new, old)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fold_signed_is_fold_of_negated_g3(dtype):
    rng = np.random.default_rng(5)
    g = [rng.standard_normal((3, 4, 2)).astype(dtype) for _ in range(4)]
    out_a = [np.empty((3, 5, 2), dtype) for _ in range(2)]
    out_b = [np.empty((3, 5, 2), dtype) for _ in range(2)]
    W._fold(np, *g, *out_a, 4)
    W._fold(np, g[0], g[1], g[2], -g[3], *out_b, 4, True)
    for a, b in zip(out_a, out_b):
        assert np.array_equal(a, b)


def _conv(**kw):
    return lambda t, x, w, *b: t.nn.functional.conv2d(x, w, *b, **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backward_winograd_against_torch(conv_paths, dtype):
    """A ResNet-style 64 -> 64 channel 3x3 conv (padding 1) at the real thresholds: both
    gradients through ``backward-winograd`` against torch's."""
    check_op(_conv(padding=1), [(2, 64, 12, 12), (64, 64, 3, 3)], dtype=dtype,
             low=-0.5, high=0.5, second_order=False)
    assert "backward-winograd" in conv_paths


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("o,c,parts", [(64, 64, 1), (64, 64, 2), (128, 96, 3), (8, 5, 1),
                                       (8, 5, 2)])
def test_filters_padded_planes_are_the_plain_product(dtype, o, c, parts):
    """``filters`` writes its 16 planes with a padded row stride (a view): the values are
    the plain (16, 9) @ (9, O*C) product's, each plane a contiguous (O, C) matrix."""
    w = np.random.default_rng(o + c).standard_normal((o, c, 3, 3)).astype(dtype)
    u = W.filters(np, w, parts)
    want = np.matmul(W._WEIGHT_MAP.astype(dtype), w.reshape(o * c, 9).T).reshape(16, o, c)
    assert u.shape == (16, o, c) and u.dtype == dtype
    assert np.array_equal(u, want)
    assert all(u[t].flags.c_contiguous for t in range(16))
