"""softmax along the last dim of larger float arrays (ops/softmax.py's row path: blocks of
rows, exp without the max shift where the row sum shows it is safe, parts on the intra-op
threads) against torch: values over ranges where rows overflow or underflow, masked (-inf),
NaN and infinite rows, both float dtypes, gradients with random cotangents, second order."""

import importlib
import math

import numpy as np
import pytest

import numtorch
from tests.oracle import check_op, same

softmax_ops = importlib.import_module("numtorch.ops.softmax")
intraop = importlib.import_module("numtorch.ops._intraop")


def _softmax(t, x):
    return t.nn.functional.softmax(x, dim=-1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("low,high", [(-3.0, 3.0), (-100.0, 100.0), (-100.0, -30.0),
                                      (700.0, 800.0)])
def test_row_path_values_and_gradients(dtype, low, high):
    # (-100, 100): rows whose exp sum overflows float32; (-100, -30): sums below the safe
    # bound (max-shifted rows); (700, 800): float64 overflow too
    check_op(_softmax, [(48, 7, 96)], low=low, high=high, dtype=dtype,
             second_order=dtype == "float64" and low == -3.0)


def test_row_path_is_taken_and_special_rows_match_torch(monkeypatch, device):
    calls = []
    real = softmax_ops._softmax_block
    monkeypatch.setattr(softmax_ops, "_softmax_block",
                        lambda xs, ys: calls.append(len(xs)) or real(xs, ys))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 128)).astype(np.float32)
    x[np.triu_indices(128, 1)[0] % 64, np.triu_indices(128, 1)[1]] = -math.inf  # causal-ish
    x[5] = -math.inf  # every key masked: NaN, as torch
    x[6, 3] = math.nan
    x[7, 9] = math.inf
    x[8] = 88.0  # exp overflows float32; the shifted form gives 1/128
    x[9] = -90.0  # exp underflows to 0
    x[10, :2] = (-1e30, 1e30)
    for dt in ("float32", "float64"):
        same(lambda t, dt=dt: _softmax(t, t.tensor(x, dtype=getattr(t, dt))), rtol=2e-6,
             atol=1e-30)
    assert bool(calls) == (device == "cpu")  # a GPU array keeps the xp code


def test_split_rows_give_the_same_values(monkeypatch):
    """Parts on two threads give exactly the one-thread values (each row is its own)."""
    rng = np.random.default_rng(4)
    x = numtorch.from_numpy(rng.uniform(-20, 20, (4096, 64)).astype(np.float32))
    g = numtorch.from_numpy(rng.standard_normal((4096, 64)).astype(np.float32))

    def run():
        x.grad = None
        xr = x.detach().requires_grad_()
        y = numtorch.softmax(xr, -1)
        y.backward(g)
        return y.detach().numpy().copy(), xr.grad.numpy().copy()

    one = run()
    threads = numtorch.get_num_threads()
    monkeypatch.setattr(softmax_ops, "split", lambda k, n, unit: intraop.run_split(k, n, 1))
    monkeypatch.setattr(intraop, "_MIN_PART", 256)
    numtorch.set_num_threads(2)
    try:
        two = run()
    finally:
        numtorch.set_num_threads(threads)
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])


@pytest.mark.parametrize("shape,dim", [((40, 130), 0), ((16, 2048), 1), ((130, 3), 1)])
def test_outside_the_row_path(shape, dim):
    """Other dims, long rows and short ones keep the general path's values."""
    check_op(lambda t, x: t.nn.functional.softmax(x, dim=dim), [shape], dtype="float32",
             second_order=False)
