"""LayerNorm's row path and GELU's kernels split across threads only while two cores are
free (``_intraop._cores_taken``), from sizes weighted by their passes; the split results
are bit for bit the one-thread ones, and torch's within tolerance."""

import importlib

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import _intraop

norm_rows = importlib.import_module("numtorch.ops.norm_rows")
smooth = importlib.import_module("numtorch.ops._smooth_activation")


def _layer_norm(lib, x, w, b, gy):
    t = lib.from_numpy(x.copy()).requires_grad_()
    ws = [lib.from_numpy(a.copy()).requires_grad_() for a in (w, b)]
    y = lib.nn.functional.layer_norm(t, (x.shape[-1],), *ws)
    grads = lib.autograd.grad(y, [t, *ws], lib.from_numpy(gy))
    return [y.detach().numpy()] + [g.numpy() for g in grads]


def _gelu(lib, x, g):
    t = lib.from_numpy(x.copy()).requires_grad_()
    y = lib.nn.functional.gelu(t)
    (gx,) = lib.autograd.grad(y, t, lib.from_numpy(g))
    return [y.detach().numpy(), gx.numpy()]


@pytest.fixture
def watch(monkeypatch):
    """Pretend 2 threads and a 1000-value part size; record every split's part count."""
    calls = []
    real = _intraop.run_split

    def watched(kernel, n, unit=1):
        calls.append(_intraop.parts(n, unit))
        return real(kernel, n, unit)

    monkeypatch.setattr(_intraop, "_MIN_PART", 1000)
    monkeypatch.setattr(norm_rows, "run_split", watched)
    monkeypatch.setattr(smooth, "run_split", watched)
    monkeypatch.setattr(norm_rows, "_BLOCK", 5 * 64)  # several blocks within each part
    monkeypatch.setattr(smooth, "_BLOCK", 700)
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(2)
    yield calls
    numtorch.set_num_threads(old)


@pytest.mark.parametrize("idle", [True, False])
def test_small_layer_norm_splits_only_on_free_cores(monkeypatch, watch, idle):
    rng = np.random.default_rng(7)
    # 12 * 64 values: below 2 * _MIN_PART, above it once weighted by the row passes
    x = rng.standard_normal((3, 4, 64)).astype(np.float32) * 2 + 1
    w, b = (rng.standard_normal(64).astype(np.float32) for _ in range(2))
    gy = rng.standard_normal(x.shape).astype(np.float32)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: True)
    one = _layer_norm(numtorch, x, w, b, gy)
    assert not watch  # general path, one thread
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: not idle)
    got = _layer_norm(numtorch, x, w, b, gy)
    if numtorch.backend.is_device_array(numtorch.from_numpy(x)._array):
        return
    assert watch == ([2, 2] if idle else [])  # forward and input gradient
    for a, c in zip(one, got):
        np.testing.assert_array_equal(a, c)
    for a, c in zip(got, _layer_norm(torch, x, w, b, gy)):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("idle", [True, False])
def test_gelu_splits_from_a_weighted_size_only_on_free_cores(monkeypatch, watch, idle):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((6, 100)) * 4).astype(np.float32)  # 600 values
    g = rng.standard_normal(x.shape).astype(np.float32)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: True)
    one = _gelu(numtorch, x, g)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: not idle)
    got = _gelu(numtorch, x, g)
    if numtorch.backend.is_device_array(numtorch.from_numpy(x)._array):
        return
    # the forward (~25 passes, and the slope the gradient is then one product of) splits at
    # 600 values
    assert watch == ([2] if idle else [])
    for a, c in zip(one, got):
        np.testing.assert_array_equal(a, c)
    for a, c in zip(got, _gelu(torch, x, g)):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-6)
