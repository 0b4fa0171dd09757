"""masked_fill and where with one side a single value take a copy-and-masked-write path
(ops/comparison.py ``_fill_where``); values, gradients, dtypes and layouts stay torch's."""

import numpy as np
import pytest
import torch

import numtorch


def _both(a, requires_grad=False):
    return (torch.tensor(a, requires_grad=requires_grad),
            numtorch.tensor(a, requires_grad=requires_grad))


CASES = [
    ((4, 3, 9, 9), (1, 1, 9, 9)),  # minGPT's causal mask, broadcast over batch and heads
    ((2, 5, 7), (5, 7)),
    ((6, 17), (6, 17)),
    ((6, 17), (17,)),
    ((6, 17), (6, 1)),
    ((3, 4), ()),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,mask_shape", CASES)
def test_masked_fill_values_and_grads(shape, mask_shape, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    m = rng.random(mask_shape) < 0.4
    tx, nx = _both(x, True)
    tm, nm = _both(m)
    ty = tx.masked_fill(tm, float("-inf"))
    ny = nx.masked_fill(nm, float("-inf"))
    assert ny.dtype == getattr(numtorch, dtype)
    np.testing.assert_array_equal(ny.detach().numpy(), ty.detach().numpy())
    g = rng.standard_normal(shape).astype(dtype)
    g.reshape(-1)[::3] = np.nan  # masked places get 0 whatever the gradient holds
    ty.backward(torch.tensor(g))
    ny.backward(numtorch.tensor(g))
    np.testing.assert_array_equal(nx.grad.numpy(), tx.grad.numpy())


def test_where_scalar_sides_and_promotion():
    rng = np.random.default_rng(1)
    c = rng.random((4, 6)) < 0.5
    tc, nc = _both(c)
    for a in [np.float32, np.float64, np.int64]:
        x = (rng.standard_normal((4, 6)) * 10).astype(a)
        tx, nx = _both(x)
        for value in [1.5, 2, -7]:
            for args in [(value, "x"), ("x", value)]:
                t_args = [tx if v == "x" else v for v in args]
                n_args = [nx if v == "x" else v for v in args]
                ty = torch.where(tc, *t_args)
                ny = numtorch.where(nc, *n_args)
                assert str(ny.dtype) == str(ty.dtype)
                np.testing.assert_array_equal(ny.numpy(), ty.numpy())


def test_where_keeps_torchs_layout_for_a_transposed_side():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 8)).astype(np.float32)
    c = rng.random((8, 5)) < 0.5
    tx, nx = _both(x)
    tc, nc = _both(c)
    ty = torch.where(tc, 0.0, tx.t())
    ny = numtorch.where(nc, 0.0, nx.t())
    np.testing.assert_array_equal(ny.numpy(), ty.numpy())
    assert ny.stride() == ty.stride()


def test_larger_mask_broadcasts_the_result():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7,)).astype(np.float32)
    m = rng.random((3, 7)) < 0.5
    tx, nx = _both(x)
    tm, nm = _both(m)
    ty = tx.masked_fill(tm, 9.0)
    ny = nx.masked_fill(nm, 9.0)
    assert tuple(ny.shape) == tuple(ty.shape) == (3, 7)
    np.testing.assert_array_equal(ny.numpy(), ty.numpy())
