"""Accumulation precision of reductions, scans and scatters against torch.

torch adds float16/bfloat16 in float32 and rounds once, sums float32 with a cascade along every
dim and carries float32 scans in double. Inputs here are built so that plain NumPy accumulation
in the input's dtype (or slice after slice along an outer axis) is visibly off: a constant 0.1
added thousands of times, values whose squares overflow float16.
"""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same, check_op

HALF = ("float16", "bfloat16")
TOL = {"float16": (1e-3, 1e-3), "bfloat16": (8e-3, 8e-3), "float32": (1e-6, 1e-6)}


def _rand(shape, seed=0, low=0.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def _both(fn, arrays, dtype):
    """``fn(lib, *tensors)`` on both libraries, the arrays converted to ``dtype``."""
    nt = [numtorch.from_numpy(a).to(getattr(numtorch, dtype)) for a in arrays]
    th = [torch.from_numpy(a).to(getattr(torch, dtype)) for a in arrays]
    return fn(numtorch, *nt), fn(torch, *th)


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


def _close(a, b, rtol, atol):
    assert str(a.dtype) == str(b.dtype)
    assert_same(a.float(), b.float(), rtol, atol)  # NumPy cannot hold torch's bfloat16


CASES = [
    ("sum", lambda t, x: x.sum(), [np.full(4096, 0.1)]),
    ("sum-dim0", lambda t, x: x.sum(0), [_rand((5000, 3))]),
    ("sum-dim0-keepdim", lambda t, x: x.sum(0, keepdim=True), [_rand((5000, 3))]),
    ("mean-dim0", lambda t, x: x.mean(0), [_rand((5000, 3))]),
    ("cumsum", lambda t, x: x.cumsum(0)[-3:], [np.full(4096, 0.1)]),
    ("cumsum-dim1", lambda t, x: x.cumsum(1)[:, -1], [np.full((2, 4096), 0.1)]),
    ("cumprod", lambda t, x: x.cumprod(0)[-1], [_rand(2000, 1, 0.999, 1.001)]),
    ("var", lambda t, x: x.var(), [np.arange(100.)]),
    ("std", lambda t, x: x.std(), [np.arange(100.)]),
    ("var-mean", lambda t, x: t.var_mean(x), [np.arange(100.)]),
    ("std-mean-dim0", lambda t, x: t.std_mean(x, 0), [_rand((5000, 3)) * 30 + 300]),
    ("norm", lambda t, x: x.norm(), [np.full(4, 300.)]),
    ("vector-norm-3", lambda t, x: t.linalg.vector_norm(x, 3), [_rand(1000, 2, 0, 30)]),
    ("dist", lambda t, x: t.dist(x, x * 0), [np.full(4, 300.)]),
    ("logsumexp", lambda t, x: x.logsumexp(0), [_rand(10000)]),
    ("softmax", lambda t, x: t.softmax(x, 0)[:5], [_rand(5000)]),
    ("log-softmax", lambda t, x: t.log_softmax(x, 0)[:5], [_rand(5000) * 0.01]),
    ("scatter-add", lambda t, x: t.zeros(1, dtype=x.dtype).scatter_add_(
        0, t.zeros(4096, dtype=t.long), x), [np.full(4096, 0.1)]),
    ("embedding-bag", lambda t, x: t.nn.functional.embedding_bag(
        t.zeros(1, 4096, dtype=t.long), x, mode="sum"), [np.full((1, 3), 0.1)]),
    ("cross-entropy", lambda t, x: t.nn.functional.cross_entropy(
        x, t.zeros(4096, dtype=t.long)), [_rand((4096, 3))]),
    ("mse-sum", lambda t, x: t.nn.functional.mse_loss(x, x * 0, reduction="sum"),
     [np.full(4096, 0.1)]),
    ("interpolate-area", lambda t, x: t.nn.functional.interpolate(x, size=1, mode="area"),
     [np.full((1, 3, 4096), 300.)]),
]


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("fn,arrays", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_half_precision_accumulates_in_float32(fn, arrays, dtype):
    a, b = _both(fn, arrays, dtype)
    rtol, atol = TOL[dtype]
    for x, y in zip(_flat(a), _flat(b)):
        _close(x, y, rtol, atol)


FLOAT32 = [
    ("sum-dim0", lambda t, x: x.sum(0), [np.full((200000, 3), 0.1)]),
    ("sum-dim0-transposed", lambda t, x: x.t().sum(1), [np.full((200000, 3), 0.1)]),
    ("var-dim0", lambda t, x: x.var(0), [np.full((100000, 2), 1000.1)]),
    ("cumsum", lambda t, x: x.cumsum(0)[-1], [np.full(100000, 0.1)]),
    ("cumsum-dim0", lambda t, x: x.cumsum(0)[-1], [np.full((100000, 2), 0.1)]),
    ("cumprod", lambda t, x: x.cumprod(0)[-1], [_rand(100000, 3, 0.99999, 1.00001)]),
    ("logsumexp-dim0", lambda t, x: x.logsumexp(0), [np.full((100000, 2), 0.1)]),
]


@pytest.mark.parametrize("fn,arrays", [c[1:] for c in FLOAT32], ids=[c[0] for c in FLOAT32])
def test_float32_sums_and_scans_match_torchs_precision(fn, arrays):
    a, b = _both(fn, arrays, "float32")
    for x, y in zip(_flat(a), _flat(b)):
        assert_same(x, y, *TOL["float32"])


def test_float32_scan_of_complex64_is_carried_in_double():
    z = (np.full(100000, 0.1) + 0.1j).astype(np.complex64)
    a = numtorch.from_numpy(z).cumsum(0)[-1]
    b = torch.from_numpy(z).cumsum(0)[-1]
    assert_same(a, b, 1e-6, 1e-6)


def test_blocked_sums_keep_gradients_and_shapes():
    check_op(lambda t, x: (x * x).sum((0, 2)), [(600, 2, 3)], dtype="float32")
    check_op(lambda t, x: x.mean(0, keepdim=True), [(1100, 3)], dtype="float32")


def test_cdist_of_half_is_not_implemented():
    for lib in (numtorch, torch):
        with pytest.raises(NotImplementedError, match="cdist"):
            lib.cdist(lib.ones(1, 2, dtype=lib.float16), lib.ones(1, 2, dtype=lib.float16))
