"""matmul with an inner size of 1 (a column times a row): values, gradients and second order
against torch, and the broadcast-product path that replaces NumPy's slow non-BLAS loop."""

import numpy as np
import pytest

import numtorch
from numtorch import _dtype
from tests.oracle import check_op

SHAPES = [((5, 1), (1, 4)), ((3, 5, 1), (3, 1, 4)), ((2, 3, 5, 1), (1, 4)),
          ((5, 1), (2, 1, 4)), ((1, 1), (1, 1))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_inner_size_one_matches_torch(sa, sb, dtype):
    check_op(lambda t, a, b: t.matmul(a, b), [sa, sb], dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_transposed_column_operands_match_torch(dtype):
    # Linear(1, 4) forward: x (B, 1) @ W.T with W (4, 1); Linear(5, 1)'s input gradient
    check_op(lambda t, x, w: x @ w.mT, [(6, 1), (4, 1)], dtype=dtype)
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(6, 5), (1, 5), (1,)],
             dtype=dtype)
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(6, 1), (4, 1), (4,)],
             dtype=dtype)
    check_op(lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(1, 5), (4, 5), (4,)],
             dtype=dtype)  # one row: the weight gradient g^T @ x has an inner size of 1
    check_op(lambda t, x, w: t.nn.functional.linear(x, w), [(2, 3, 1), (4, 1)], dtype=dtype)
    check_op(lambda t, a, b: t.outer(a, b) + a.unsqueeze(1) @ b.unsqueeze(0), [(5,), (3,)],
             dtype=dtype)


def test_inner_size_one_skips_numpy_matmul(monkeypatch):
    calls = []
    real = _dtype.opmath_matmul
    monkeypatch.setattr(_dtype, "opmath_matmul",
                        lambda xp, a, b: calls.append((a.shape, b.shape)) or real(xp, a, b))
    rng = np.random.default_rng(0)
    a = numtorch.from_numpy(rng.standard_normal((64, 1)).astype(np.float32).T.copy().T)
    b = numtorch.from_numpy(rng.standard_normal((3, 1)).astype(np.float32)).mT
    y = a @ b
    assert calls == [] and y.dtype is numtorch.float32
    np.testing.assert_array_equal(y.numpy(), a.numpy() * b.numpy())
    a @ numtorch.ones(1, 2)[:, :1]  # (64, 1) @ (1, 1)
    assert calls == []
    numtorch.ones(2, 3) @ numtorch.ones(3, 2)
    assert calls == [((2, 3), (3, 2))]
    calls.clear()
    lin = numtorch.nn.Linear(1, 3)
    x = numtorch.ones(1, 1, requires_grad=True)
    lin(x).sum().backward()  # forward, input and weight gradients: inner sizes 1, 3, 1
    assert calls == [((1, 3), (3, 1))]


def test_inner_size_one_integers_and_bfloat16():
    a = numtorch.arange(6).reshape(3, 2)[:, :1]
    b = numtorch.arange(4).reshape(1, 4)
    assert (a @ b).tolist() == [[0, 0, 0, 0], [0, 2, 4, 6], [0, 4, 8, 12]]
    x = numtorch.tensor([[1.5], [3.0]], dtype=numtorch.bfloat16)
    y = numtorch.tensor([[2.25, -1.0]], dtype=numtorch.bfloat16)
    assert (x @ y).dtype is numtorch.bfloat16
    assert (x @ y).float().tolist() == [[3.375, -1.5], [6.75, -3.0]]
