"""Embedding backward with few, long buckets (a character vocabulary: nanoGPT's 65 symbols in
768 rows, minGPT's in 8192), s39's padded-reduction path in ``backend._numpy.index_add_rows``,
against torch 2.13 bit for bit: each bucket's rows added in their original order."""

import numpy as np
import pytest
import torch

import numtorch

CASES = [(768, 65, 128), (8192, 65, 128), (300, 65, 16), (768, 200, 32), (700, 660, 200),
         (2000, 1000, 64), (64, 3, 24), (50, 1, 16)]


def _embedding_grad(lib, idx, vals, num, **kw):
    w = lib.zeros(num, vals.shape[-1], dtype=lib.float32, requires_grad=True)
    lib.nn.functional.embedding(lib.from_numpy(idx), w, **kw).backward(lib.from_numpy(vals))
    return w.grad.numpy()


@pytest.mark.parametrize("rows,buckets,width", CASES)
def test_embedding_backward_bits_match_torch(rows, buckets, width):
    rng = np.random.default_rng(rows + buckets)
    idx = rng.integers(0, buckets, rows)
    vals = (rng.standard_normal((rows, width)) * 10 ** rng.uniform(-3, 3, (rows, 1)))
    vals = vals.astype(np.float32)
    got = _embedding_grad(numtorch, idx, vals, buckets)
    want = _embedding_grad(torch, idx, vals, buckets)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_embedding_backward_batched_index_padding_and_specials_match_torch():
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 65, (12, 64))
    vals = rng.standard_normal((12, 64, 128)).astype(np.float32)
    vals[0, :5, :3] = [np.inf, -np.inf, np.nan]
    vals[1, :, 7] = -0.0
    for kw in ({}, {"padding_idx": 3}):
        got = _embedding_grad(numtorch, idx, vals, 65, **kw)
        want = _embedding_grad(torch, idx, vals, 65, **kw)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # torch sums per frequency-scaled bucket in another order there (4,851 of 8,320 values an
    # ulp apart, before s39 as well)
    got = _embedding_grad(numtorch, idx, vals, 65, scale_grad_by_freq=True)
    want = _embedding_grad(torch, idx, vals, 65, scale_grad_by_freq=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


# float16/bfloat16: most values differ from torch's by up to 0.0078 / 0.078 on sums of ~12
# unit values, before s39 as well (numtorch sums in float32, rounds once): close, not equal
@pytest.mark.parametrize("dtype,tol", [("float64", 0), ("float16", 1.6e-2), ("bfloat16", 0.16)])
def test_embedding_backward_other_dtypes_match_torch(dtype, tol):
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 65, 768)
    vals = rng.standard_normal((768, 32)).astype(np.float32)
    out = []
    for lib in (numtorch, torch):
        dt = getattr(lib, dtype)
        w = lib.zeros(65, 32, dtype=dt, requires_grad=True)
        g = lib.from_numpy(vals).to(dt)
        lib.nn.functional.embedding(lib.from_numpy(idx), w).backward(g)
        out.append(w.grad.double().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=tol, atol=tol)


def test_integer_index_backward_close_to_torch():
    """x[int_tensor] backward shares the helper (torch accumulates its own way there)."""
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 40, 900)
    vals = rng.standard_normal((900, 48)).astype(np.float32)
    out = []
    for lib in (numtorch, torch):
        x = lib.zeros(40, 48, requires_grad=True)
        x[lib.from_numpy(idx)].backward(lib.from_numpy(vals))
        out.append(x.grad.numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-5)
