"""Layer norm over a permuted view (timm's LayerNorm2d: permute to channels-last, normalise the
channels, permute back), whose output gradient arrives strided: the row kernels take it after
one copy. Values and gradients with random cotangents against torch, float32 to the bit where
the contiguous case is, float64 with second order."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op


def _ln2d(t, x, w, b, channels_last=False):
    if channels_last:
        x = x.contiguous(memory_format=t.channels_last)
    y = t.nn.functional.layer_norm(x.permute(0, 2, 3, 1), (x.shape[1],), w, b, 1e-6)
    return y.permute(0, 3, 1, 2)


@pytest.mark.parametrize("channels_last", [False, True])
def test_matches_torch_float64(channels_last):
    check_op(lambda t, x, w, b: _ln2d(t, x, w, b, channels_last),
             [(2, 6, 3, 5), (6,), (6,)])


@pytest.mark.parametrize("channels_last", [False, True])
def test_float32_gradients_equal_the_contiguous_gradients(channels_last):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 40, 6, 7)).astype(np.float32)
    w, b = rng.standard_normal(40).astype(np.float32), rng.standard_normal(40).astype(np.float32)
    g = rng.standard_normal((4, 40, 6, 7)).astype(np.float32)

    def run(lib, permuted):
        X, W, B = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        if permuted:
            y = _ln2d(lib, X, W, B, channels_last)
            gy = lib.tensor(g)
        else:  # the same problem laid out contiguously by hand
            y = lib.nn.functional.layer_norm(X.permute(0, 2, 3, 1).contiguous(), (40,), W, B,
                                             1e-6)
            gy = lib.tensor(g).permute(0, 2, 3, 1).contiguous()
        grads = lib.autograd.grad(y, (X, W, B), gy)
        return [a.detach().numpy() for a in (y, *grads)]

    have, flat = run(numtorch, True), run(numtorch, False)
    want = run(torch, True)
    for h, f in zip(have[1:], flat[1:]):
        np.testing.assert_array_equal(h, f)  # the row kernels, as for a contiguous gradient
    np.testing.assert_array_equal(have[0].transpose(0, 2, 3, 1), flat[0])
    for h, v in zip(have, want):
        np.testing.assert_allclose(h, v, rtol=1e-5, atol=1e-5)
