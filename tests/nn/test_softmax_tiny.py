"""softmax/log_softmax on tiny inputs (ops/softmax.py's scalar path) against torch: values,
NaN/inf rows, dtypes, gradients to second order, the graph node, and the cost per call."""

import importlib
import math
import time

import numpy as np
import pytest

import numtorch
from tests.oracle import check_op, same

softmax_ops = importlib.import_module("numtorch.ops.softmax")

_ROWS = [[1.0, 2.0], [math.nan, 1.0], [1.0, math.nan], [math.inf, 1.0], [-math.inf, -math.inf],
         [-math.inf, 1.0], [3e38, -3e38], [0.0, 0.0], [-1e30, 1e30], [5.0]]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiny_rows_match_torch(name, dtype):
    for row in _ROWS:
        same(lambda t, row=row: getattr(t.nn.functional, name)(
            t.tensor([row], dtype=getattr(t, dtype)), dim=-1), rtol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((1, 2), -1), ((2,), 0), ((3, 4), 1), ((2, 2, 3), 2)])
def test_tiny_values_and_gradients(name, shape, dim):
    check_op(lambda t, x: getattr(t.nn.functional, name)(x, dim=dim), [shape])
    check_op(lambda t, x: getattr(t.nn.functional, name)(x, dim=dim), [shape],
             dtype="float32")


def test_tiny_path_graph_and_modes():
    x = numtorch.randn(1, 2, requires_grad=True)
    y = numtorch.nn.functional.softmax(x, dim=-1)
    assert type(y.grad_fn).__name__ == "SoftmaxBackward0"
    assert numtorch.nn.functional.log_softmax(x.detach(), dim=-1).grad_fn is None
    with numtorch.no_grad():
        assert numtorch.nn.functional.softmax(x, dim=-1).grad_fn is None
    # a view of a tensor that needs gradients keeps its graph
    v = x[0]
    assert numtorch.nn.functional.softmax(v, dim=0).grad_fn is not None
    # dtype=, another dim, half precision: the general path, same results as torch
    same(lambda t: t.nn.functional.softmax(t.tensor([[1.0, 2.0]]), dim=0))
    same(lambda t: t.nn.functional.softmax(t.tensor([[1.0, 2.0]]), dim=-1,
                                           dtype=t.float64))
    same(lambda t: t.nn.functional.softmax(t.tensor([[1.0, 2.0]], dtype=t.float16), dim=-1))


def test_tiny_path_is_cheap():
    """The scalar path is taken and costs far less than the NumPy one (~8 us CPU before)."""
    x = numtorch.randn(1, 2, device="cpu")
    a = x._array
    assert softmax_ops._tiny_ok(a, 1)
    f = numtorch.nn.functional.softmax
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        for _ in range(2000):
            f(x, dim=-1)
        best = min(best, (time.process_time() - start) / 2000)
    assert best < 6e-6, best
    np.testing.assert_allclose(f(x, dim=-1).numpy().sum(), 1.0, rtol=1e-6)
