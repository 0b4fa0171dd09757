"""Session 51 (perfgpt): correctness of the fast paths changed for the Transformer / GPT
benchmarks. No test here is timed.

- ReLU's backward on large contiguous arrays (``activation._relu_grad_flat``) now runs in
  cache-sized blocks (mask and bit pattern per block) instead of whole-part temporaries:
  checked bit for bit against the former form (``_keep``) and torch's gradient, float32 and
  float64, with NaN, signed zeros and infinities in the output and the incoming gradient,
  sizes that are not a multiple of the block, and split over the intra-op threads.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import _intraop, activation
from numtorch.ops._activation_base import _keep

RNG = np.random.default_rng(51)


def _bits(a):
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _specials(a):
    """Mark a few places with NaN (both signs), signed zeros and infinities."""
    a = a.copy()
    a[::97] = np.nan
    a[::101] = -0.0
    a[::103] = 0.0
    a[::107] = np.inf
    a[::109] = -np.inf
    a[7] = -np.nan
    return a


def _relu_grad(lib, x, g):
    t = lib.tensor(x).requires_grad_(True)
    y = lib.relu(t)
    (gx,) = lib.autograd.grad(y, t, lib.tensor(g))
    return y.detach().numpy(), gx.numpy()


# sizes: the smallest that takes the flat path, one block plus a tail, the Transformer's
SIZES = [2 * activation._SPLIT_FROM, 2 * activation._SPLIT_FROM + activation._GRAD_BLOCK + 5,
         16 * 64 * 512]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_relu_grad_blocks_bitwise_former_form(dtype, n):
    x = _specials(RNG.standard_normal(n).astype(dtype))
    y = np.maximum(dtype(0), x)
    g = _specials(RNG.standard_normal(n).astype(dtype)[::-1])
    got = activation._relu_grad_flat(y, g)
    want = _keep(y <= 0, g, invert=True)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_backward_large_matches_torch_bits(dtype):
    shape = (16, 64, 512)
    x = _specials(RNG.standard_normal(shape).astype(dtype).reshape(-1)).reshape(shape)
    g = _specials(RNG.standard_normal(shape).astype(dtype).reshape(-1)).reshape(shape)
    y_n, gx_n = _relu_grad(numtorch, x, g)
    y_t, gx_t = _relu_grad(torch, x, g)
    assert gx_n.dtype == gx_t.dtype
    np.testing.assert_array_equal(_bits(y_n), _bits(y_t))
    np.testing.assert_array_equal(_bits(gx_n), _bits(gx_t))


@pytest.fixture
def forced_split(monkeypatch):
    """Every splittable kernel takes three parts and the cores count as free."""
    calls = []
    real = _intraop.run_ranges
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "parts", lambda n, unit=1: 3 if n >= 3 and not getattr(
        _intraop._worker, "busy", False) else 1)
    monkeypatch.setattr(_intraop, "run_ranges",
                        lambda k, bounds: calls.append(len(bounds)) or real(k, bounds))
    return calls


def test_relu_grad_split_bitwise_whole_and_torch(forced_split):
    n = 2 * activation._SPLIT_FROM + 3 * activation._GRAD_BLOCK + 11  # parts end mid-block
    x = _specials(RNG.standard_normal(n).astype(np.float32))
    g = _specials(RNG.standard_normal(n).astype(np.float32)[::-1])
    split = _relu_grad(numtorch, x, g)
    assert forced_split, "the ReLU backward never split"
    forced_split.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_intraop, "parts", lambda n, unit=1: 1)
        whole = _relu_grad(numtorch, x, g)
    for s, w, t in zip(split, whole, _relu_grad(torch, x, g)):
        np.testing.assert_array_equal(_bits(s), _bits(w))
        np.testing.assert_array_equal(_bits(s), _bits(t))


def test_relu_grad_module_training_step_matches_torch():
    """Linear -> ReLU -> Linear (the Transformer's feed-forward shape), one backward: the
    first layer's gradients against torch's."""
    d, ff = 128, 512
    x = RNG.standard_normal((16, 64, d)).astype(np.float32)
    w1 = (RNG.standard_normal((ff, d)) / np.sqrt(d)).astype(np.float32)
    w2 = (RNG.standard_normal((d, ff)) / np.sqrt(ff)).astype(np.float32)
    grads = []
    for lib in (numtorch, torch):
        a, b = lib.tensor(w1).requires_grad_(True), lib.tensor(w2).requires_grad_(True)
        xt = lib.tensor(x).requires_grad_(True)
        h = lib.relu(xt @ a.T)
        (h @ b.T).square().mean().backward()
        grads.append([t.grad.numpy() for t in (a, b, xt)])
    for n_, t_ in zip(*grads):
        np.testing.assert_allclose(n_, t_, rtol=1e-4, atol=1e-6)
