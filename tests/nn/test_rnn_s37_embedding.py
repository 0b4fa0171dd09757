"""The embedding weight gradient's segment sums (``backend._numpy.index_add_rows``: buckets of
up to 32 rows by rank passes, longer ones by one ``reduceat``) against torch: bit for bit where
every index occurs at most 32 times (torch adds each row's contributions in order, as the rank
passes do), close otherwise; padding_idx, scale_grad_by_freq, float64, multi-dim indices and
``index_add_``/advanced-indexing backward that share the helper."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _numpy as backend_np


def _indices(rng, kind, vocab, shape):
    n = int(np.prod(shape))
    if kind == "uniform":
        return rng.integers(0, vocab, n).reshape(shape)
    if kind == "zipf":  # word frequencies: a few indices occur many times
        return np.minimum(rng.zipf(1.3, n) - 1, vocab - 1).reshape(shape)
    return np.full(shape, vocab // 2)  # one index everywhere: one long bucket


def _grads(vocab, dim, idx, g, dtype, **kw):
    tw = torch.nn.Embedding(vocab, dim, dtype=getattr(torch, np.dtype(dtype).name), **kw)
    nw = numtorch.nn.Embedding(vocab, dim, dtype=getattr(numtorch, np.dtype(dtype).name), **kw)
    tw(torch.from_numpy(idx)).backward(torch.from_numpy(g))
    nw(numtorch.from_numpy(idx)).backward(numtorch.from_numpy(g))
    return tw.weight.grad.numpy(), nw.weight.grad.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(35, 20), (700,), (4, 5, 6)])
def test_embedding_grad_bitwise_short_buckets(dtype, shape):
    rng = np.random.default_rng(0)
    for vocab in (5045, 60, 25):  # sparse, then buckets of ~12 and ~28 rows
        idx = _indices(rng, "uniform", vocab, shape)
        if np.bincount(idx.ravel()).max() > 32:
            continue
        g = rng.standard_normal(shape + (7,)).astype(dtype)
        ref, got = _grads(vocab, 7, idx, g, dtype)
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("kind", ["zipf", "same"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_grad_long_buckets_close(kind, dtype):
    rng = np.random.default_rng(1)
    idx = _indices(rng, kind, 300, (50, 40))
    g = rng.standard_normal((50, 40, 9)).astype(dtype)
    ref, got = _grads(300, 9, idx, g, dtype)
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(got, ref, **tol)
    counts = np.bincount(idx.ravel(), minlength=300)
    short = counts <= 32  # those rows still come out bit for bit
    np.testing.assert_array_equal(got[short], ref[short])


@pytest.mark.parametrize("kw", [dict(padding_idx=3), dict(scale_grad_by_freq=True),
                                dict(padding_idx=0, scale_grad_by_freq=True)])
def test_embedding_grad_options(kw):
    rng = np.random.default_rng(2)
    idx = _indices(rng, "uniform", 12, (30, 4))
    idx[0, :] = kw.get("padding_idx", 0)
    g = rng.standard_normal((30, 4, 5)).astype(np.float32)
    ref, got = _grads(12, 5, idx, g, np.float32, **kw)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    if "padding_idx" in kw:
        assert not got[kw["padding_idx"]].any()


def test_index_add_rows_keeps_sign_and_dtypes():
    # a bucket's single row ends as torch's sum into zeros leaves it: a -0.0 as +0.0
    v0 = np.array([[-0.0], [1.0]], np.float32)
    out = backend_np.index_add_rows(3, np.array([0, 2]), v0)
    ref = torch.zeros(3, 1).index_add_(0, torch.tensor([0, 2]), torch.from_numpy(v0)).numpy()
    np.testing.assert_array_equal(np.signbit(out), np.signbit(ref))
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 4, 90)
    for dtype in (np.int64, np.complex64, np.float64):
        v = (rng.standard_normal((90, 3)) * 10).astype(dtype)
        ref = torch.zeros(4, 3, dtype=torch.from_numpy(v).dtype).index_add_(
            0, torch.from_numpy(idx), torch.from_numpy(v))
        got = backend_np.index_add_rows(4, idx, v)
        assert got.dtype == v.dtype
        np.testing.assert_array_equal(got, ref.numpy())


def test_index_add_rows_one_dim_values_and_empty():
    rng = np.random.default_rng(4)
    idx = rng.integers(0, 5, 60)  # buckets of ~12 rows: added in order, as torch
    v = rng.standard_normal(60).astype(np.float32)
    ref = torch.zeros(5).index_add_(0, torch.from_numpy(idx), torch.from_numpy(v))
    np.testing.assert_array_equal(backend_np.index_add_rows(5, idx, v), ref.numpy())
    assert not backend_np.index_add_rows(5, idx[:0], v[:0]).any()


def test_advanced_index_backward_matches_torch():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((10, 6)).astype(np.float32)
    idx = rng.integers(0, 10, 45)
    g = rng.standard_normal((45, 6)).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    nx = numtorch.from_numpy(x).requires_grad_()
    tx[torch.from_numpy(idx)].backward(torch.from_numpy(g))
    nx[numtorch.from_numpy(idx)].backward(numtorch.from_numpy(g))
    np.testing.assert_allclose(nx.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)
