"""Exact GELU after session 37: up to 1024 values without a graph, x erfc(-x / sqrt 2) / 2 in
float64 rounded once (five NumPy calls), and the intra-op split's load check asked only for
arrays large enough to split. Against torch (values, random-cotangent gradients, second
order) and against the large-array path (the same function to float32 precision)."""

import importlib

import numpy as np
import pytest
import torch

import numtorch

smooth = importlib.import_module("numtorch.ops._smooth_activation")
_intraop = importlib.import_module("numtorch.ops._intraop")


def _on_device():
    return numtorch.backend.is_device_array(numtorch.zeros(1)._array)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 4, 32), (7,), (), (0, 3), (32, 32)])
def test_small_gelu_without_graph_matches_torch(dtype, shape):
    rng = np.random.default_rng(0)
    x = np.asarray(rng.standard_normal(shape) * 3, dtype=dtype)
    with numtorch.no_grad():
        got = numtorch.nn.functional.gelu(numtorch.from_numpy(x)).numpy()
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = dict(rtol=2e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, want, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_gelu_specials_and_tail_match_large_path(dtype):
    if _on_device():
        pytest.skip("the small form is the CPU's")
    x = np.concatenate([np.linspace(-12, 6, 500), [-0.0, 0.0, np.nan, -np.inf]]).astype(dtype)
    small = numtorch.nn.functional.gelu(numtorch.from_numpy(x)).numpy()
    large = numtorch.nn.functional.gelu(numtorch.from_numpy(np.tile(x, 4))).numpy()[:x.size]
    np.testing.assert_array_equal(np.isnan(small), np.isnan(large))
    np.testing.assert_array_equal(np.signbit(small), np.signbit(large))  # -0.0 stays -0.0
    ok = ~np.isnan(large) & (large != 0)
    rel = np.abs(small[ok] - large[ok]) / np.abs(large[ok])
    assert rel.max() <= (6e-6 if dtype == np.float32 else 1e-15)
    # the small form is float64's erfc rounded once: within an ulp of the exact tail
    exact = x[:500].astype(np.float64) * 0.5 * _erfc64(-x[:500].astype(np.float64) / np.sqrt(2))
    if dtype == np.float32:
        np.testing.assert_allclose(small[:500], exact.astype(np.float32), rtol=1.2e-7,
                                   atol=0)


def _erfc64(z):
    from scipy import special

    return special.erfc(z)


@pytest.mark.parametrize("n", [1023, 1024, 1025])
def test_gelu_at_the_small_size_boundary(n):
    x = np.linspace(-6, 6, n).astype(np.float32)
    got = numtorch.nn.functional.gelu(numtorch.from_numpy(x)).numpy()
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_gelu_with_graph_gradients_and_second_order(dtype):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 32)) * 2).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    v = rng.standard_normal(x.shape).astype(dtype)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        y = lib.nn.functional.gelu(xt)
        (gx,) = lib.autograd.grad(y, xt, lib.from_numpy(g), create_graph=True)
        (ggx,) = lib.autograd.grad((gx * lib.from_numpy(v)).sum(), xt)
        res.append([y.detach().numpy(), gx.detach().numpy(), ggx.numpy()])
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-13)
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_small_half_gelu_keeps_torch_rounding(dtype):
    x = np.linspace(-8, 8, 257).astype(np.float32)
    got = numtorch.nn.functional.gelu(numtorch.from_numpy(x).to(getattr(numtorch, dtype)))
    want = torch.nn.functional.gelu(torch.from_numpy(x).to(getattr(torch, dtype)))
    assert got.dtype == getattr(numtorch, dtype)
    g, w = got.float().numpy(), want.float().numpy()
    assert (g == w).mean() >= 0.95
    np.testing.assert_allclose(g, w, rtol=1e-2, atol=1e-3)


def test_small_elementwise_kernels_skip_the_load_check(monkeypatch):
    if _on_device():
        pytest.skip("the split is the CPU's")

    def refuse():
        raise AssertionError("asked for the load below the split size")

    monkeypatch.setattr(_intraop, "_cores_taken", refuse)
    x = numtorch.from_numpy(np.linspace(-3, 3, 4096).astype(np.float32)).requires_grad_()
    for mode in ("none", "tanh"):
        y = numtorch.nn.functional.gelu(x, approximate=mode)
        y.backward(numtorch.ones_like(y))
    calls = []
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: calls.append(1) or True)
    big = numtorch.from_numpy(np.zeros(1 << 17, dtype=np.float32))
    numtorch.nn.functional.gelu(big)
    assert calls  # a large array still asks
