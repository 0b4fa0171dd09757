"""16-bit gradients rounded in torch's order.

- Embedding (and embedding_bag's dense path) adds a row's gradients one after another in the
  dtype, each sum rounded: adding them in float32 and rounding once differed on 2-70% of the
  gradient (more rows per index, more differences).
- var/std: torch scales the incoming gradient first, ``(2 / dof * g) * (x - mean)``; the other
  order differed on 30-40% of 16-bit values and ~25% of float32 ones."""

import numpy as np
import pytest
import torch

import numtorch as nt

DTYPES = ["float16", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_idx,vocab,dim", [(33, 7, 5), (2000, 65, 32), (5000, 7, 3),
                                             (4000, 1000, 8), (300, 3, 40)])
def test_embedding_grad_rows_in_order(dtype, n_idx, vocab, dim):
    outs = []
    for lib in (nt, torch):
        rng = np.random.default_rng(n_idx)
        idx = lib.tensor(rng.integers(0, vocab, n_idx))
        lib.manual_seed(0)
        m = lib.nn.Embedding(vocab, dim).to(getattr(lib, dtype))
        y = m(idx)
        g = lib.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)).to(y.dtype)
        (gw,) = lib.autograd.grad(y, m.weight, g)
        outs.append((gw.float().numpy(), str(gw.dtype)))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]


@pytest.mark.parametrize("dtype", DTYPES)
def test_embedding_padding_and_freq(dtype):
    outs = []
    for lib in (nt, torch):
        rng = np.random.default_rng(3)
        idx = lib.tensor(rng.integers(0, 9, (6, 40)))
        lib.manual_seed(0)
        m = lib.nn.Embedding(9, 6, padding_idx=2, scale_grad_by_freq=True).to(
            getattr(lib, dtype))
        y = m(idx)
        g = lib.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)).to(y.dtype)
        outs.append(lib.autograd.grad(y, m.weight, g)[0].float().numpy())
    np.testing.assert_array_equal(*outs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1])
def test_var_std_grad_order(dtype, fn, correction):
    outs = []
    for lib in (nt, torch):
        rng = np.random.default_rng(5)
        x = lib.tensor(rng.standard_normal((3, 5, 33)).astype(np.float32)).to(
            getattr(lib, dtype)).requires_grad_()
        y = getattr(x, fn)(-1, keepdim=True, correction=correction)
        g = lib.tensor(rng.standard_normal(tuple(y.shape)).astype(np.float32)).to(y.dtype)
        outs.append(lib.autograd.grad(y, x, g)[0].float().numpy())
    np.testing.assert_array_equal(*outs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_embedding_long_buckets_in_order(dtype):
    """A row index that occurs hundreds of times (makemore's padding token, a frequent
    character) adds its gradients one after another as torch: NumPy's reduceat there was
    not sequential (50 of 64 values a bit off in a float32 bucket of 212 rows)."""
    outs = []
    for lib in (nt, torch):
        rng = np.random.default_rng(0)
        idx = rng.integers(0, 27, 512)
        idx[:200] = 27
        lib.manual_seed(0)
        m = lib.nn.Embedding(28, 64).to(getattr(lib, dtype))
        y = m(lib.tensor(idx))
        g = lib.tensor(rng.standard_normal((512, 64)).astype(np.float32)).to(y.dtype)
        outs.append(lib.autograd.grad(y, m.weight, g)[0].float().numpy())
    np.testing.assert_array_equal(*outs)
