"""nll_loss 'sum'/'mean' of float16/bfloat16 (N, C) inputs against torch, bitwise: torch adds
the samples in a cascade of half partial sums (ops/half_nll_sum.py)."""

import numpy as np
import pytest
import torch

import numtorch

SIZES = [(1, 4), (10, 5), (17, 3), (300, 7), (5000, 10), (40000, 3), (70000, 2)]


def _run(L, x, y, w, dt, red, ignore_index=-100, unbatched=False, grad=False):
    xt = L.from_numpy(x).to(getattr(L, dt))
    if grad:
        xt.requires_grad_()
    yt = L.from_numpy(y)
    if unbatched:
        xt, yt = xt[0], yt[0]
    wt = None if w is None else L.from_numpy(w).to(getattr(L, dt))
    out = L.nn.functional.nll_loss(xt, yt, weight=wt, reduction=red, ignore_index=ignore_index)
    res = [str(out.dtype), out.detach().float().numpy()]
    if grad:
        out.backward()
        res.append(xt.grad.float().numpy())
    return res


def _data(n, c, seed, ignore=None, frac=0.2):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c)).astype(np.float32) * 3
    y = rng.integers(0, c, n)
    if ignore is not None:
        y[rng.random(n) < frac] = ignore
    w = (rng.random(c) + 0.25).astype(np.float32)
    return x, y, w


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("red", ["sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("size", SIZES)
def test_half_nll_reduction(size, weighted, red, dt):
    x, y, w = _data(*size, seed=size[0])
    w = w if weighted else None
    a, b = _run(torch, x, y, w, dt, red), _run(numtorch, x, y, w, dt, red)
    assert b[0] == a[0]
    np.testing.assert_array_equal(b[1], a[1])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("red", ["sum", "mean"])
@pytest.mark.parametrize("ignore", [-100, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_half_nll_ignore_index(ignore, weighted, red, dt):
    x, y, w = _data(3000, 5, seed=7, ignore=ignore)
    w = w if weighted else None
    a = _run(torch, x, y, w, dt, red, ignore_index=ignore)
    b = _run(numtorch, x, y, w, dt, red, ignore_index=ignore)
    assert b[0] == a[0]
    np.testing.assert_array_equal(b[1], a[1])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("red", ["sum", "mean"])
def test_half_nll_all_ignored_and_unbatched(red, dt):
    x, y, w = _data(40, 3, seed=2, ignore=-100, frac=1.0)
    a, b = _run(torch, x, y, w, dt, red), _run(numtorch, x, y, w, dt, red)
    assert b[0] == a[0]
    np.testing.assert_array_equal(b[1], a[1])
    x, y, w = _data(1, 6, seed=3)
    a = _run(torch, x, y, w, dt, red, unbatched=True)
    b = _run(numtorch, x, y, w, dt, red, unbatched=True)
    assert b[0] == a[0]
    np.testing.assert_array_equal(b[1], a[1])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("weighted", [False, True])
def test_half_nll_mean_grad(weighted, dt):
    x, y, w = _data(500, 4, seed=5, ignore=-100)
    w = w if weighted else None
    a = _run(torch, x, y, w, dt, "mean", grad=True)
    b = _run(numtorch, x, y, w, dt, "mean", grad=True)
    np.testing.assert_array_equal(b[1], a[1])
    np.testing.assert_allclose(b[2], a[2], rtol=2.0 ** -7, atol=0)
