"""softmax/log_softmax on tiny inputs (ops/softmax.py's scalar path) against torch: values,
NaN/inf rows, dtypes, gradients to second order, and the graph node."""

import importlib
import math

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


def test_tiny_path_skips_the_op_when_no_graph_is_needed(monkeypatch):
    """Without a graph to build, a tiny softmax is computed on Python floats and builds no
    Op; with one, it goes through the op (whose forward takes the same scalar rows)."""
    x = numtorch.randn(1, 2, device="cpu")
    assert softmax_ops._tiny_ok(x._array, 1)
    rows = []
    real_rows = softmax_ops._tiny_rows
    monkeypatch.setattr(softmax_ops, "_tiny_rows", lambda a, log: rows.append(log) or
                        real_rows(a, log))

    def no_op(*a, **k):
        raise AssertionError("the Op was built")

    monkeypatch.setattr(softmax_ops.Softmax, "apply", classmethod(no_op))
    y = numtorch.nn.functional.softmax(x, dim=-1)
    assert rows == [False] and y.grad_fn is None
    np.testing.assert_allclose(y.numpy().sum(), 1.0, rtol=1e-6)
    monkeypatch.undo()
    y = numtorch.nn.functional.softmax(x.requires_grad_(), dim=-1)
    assert y.grad_fn is not None
