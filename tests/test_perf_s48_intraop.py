"""Session 48 (perf): the intra-op fan-out (``numtorch.ops._intraop.run_ranges``) hands its
parts to helper threads woken by locks instead of a ThreadPoolExecutor.

Checked: every range runs once; exceptions from a helper's part or the caller's own part
reach the caller and leave the helpers usable; a fan-out from inside a part, or from another
thread while one is running, completes (its ranges one after another); helper parts run with
NumPy's errors silenced and never split again; a forgotten pool (as after a fork) is rebuilt;
and ops that split (exact GELU, AdamW's grouped step) give the same bits split as whole and
torch's values.
"""

import threading
import time
import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import _intraop

RNG = np.random.default_rng(48)


def _filled(n, bounds):
    """Run a kernel writing each range's own marks; returns the array (each index written
    by exactly one range, the count of writes per index)."""
    out = np.zeros(n, np.int64)

    def kernel(lo, hi):
        out[lo:hi] += 1 + np.arange(lo, hi)

    _intraop.run_ranges(kernel, bounds)
    return out


@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_every_range_runs_once(parts):
    n = 1000
    step = -(-n // parts)
    bounds = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    np.testing.assert_array_equal(_filled(n, bounds), 1 + np.arange(n))


def _threads_alive(timeout, fn):
    """Run ``fn`` in a thread; fail if it does not finish within ``timeout`` s (a deadlock)."""
    box = {}

    def target():
        try:
            box["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - reported below
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "the fan-out did not finish (deadlock)"
    if "error" in box:
        raise box["error"]
    return box.get("result")


def test_helper_exception_reaches_the_caller_and_helpers_keep_working():
    def kernel(lo, hi):
        if lo:
            raise ValueError(f"part {lo} failed")

    with pytest.raises(ValueError, match="part 5 failed"):
        _intraop.run_ranges(kernel, [(0, 5), (5, 10)])
    np.testing.assert_array_equal(_filled(10, [(0, 5), (5, 10)]), 1 + np.arange(10))


def test_caller_exception_waits_for_the_helpers():
    out = np.zeros(4)

    def kernel(lo, hi):
        if lo == 0:
            raise KeyError("own part")
        time.sleep(0.02)
        out[lo:hi] = 1

    with pytest.raises(KeyError, match="own part"):
        _intraop.run_ranges(kernel, [(0, 2), (2, 4)])
    # the helper's part had finished before the exception left run_ranges
    np.testing.assert_array_equal(out, [0, 0, 1, 1])
    np.testing.assert_array_equal(_filled(4, [(0, 2), (2, 4)]), 1 + np.arange(4))


def test_nested_fan_out_from_inside_a_part():
    out = np.zeros(16, np.int64)

    def inner(lo, hi):
        out[lo:hi] += 1

    def outer(lo, hi):
        mid = (lo + hi) // 2
        _intraop.run_ranges(inner, [(lo, mid), (mid, hi)])

    _threads_alive(20, lambda: _intraop.run_ranges(outer, [(0, 8), (8, 16)]))
    np.testing.assert_array_equal(out, np.ones(16))


def test_fan_outs_from_two_threads_at_once():
    n = 200_000
    outs = [np.zeros(n), np.zeros(n)]

    def make(out):
        def kernel(lo, hi):
            for _ in range(5):
                out[lo:hi] += 1.0
        return kernel

    def run(k):
        for _ in range(20):
            _intraop.run_ranges(make(outs[k]), [(0, n // 3), (n // 3, 2 * n // 3),
                                                (2 * n // 3, n)])

    def both():
        ts = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    _threads_alive(60, both)
    for out in outs:
        np.testing.assert_array_equal(out, np.full(n, 100.0))


def test_helper_parts_are_quiet_and_do_not_split_again():
    seen = {}

    def kernel(lo, hi):
        with np.errstate(divide="raise"):
            pass
        np.divide(np.ones(2), np.zeros(2))  # silenced in a helper's part (torch warns never)
        seen[lo] = _intraop.parts(10**9)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):  # the caller's own part runs in the caller's state
            _intraop.run_ranges(kernel, [(0, 1), (1, 2), (2, 3)])
    assert seen[1] == 1 and seen[2] == 1
    # the fallback (a fan-out inside a part) restores the caller's own flag
    assert not getattr(_intraop._worker, "busy", False)


def test_a_forgotten_pool_is_rebuilt():
    _intraop.run_ranges(lambda lo, hi: None, [(0, 1), (1, 2)])
    _intraop._forget_pool()  # what a forked child runs
    assert _intraop._helpers == []
    np.testing.assert_array_equal(_filled(6, [(0, 2), (2, 4), (4, 6)]), 1 + np.arange(6))


@pytest.fixture
def forced_split(monkeypatch):
    """Every splittable kernel takes two parts and the cores count as free; the fan-outs
    are counted."""
    calls = []
    real = _intraop.run_ranges
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "parts", lambda n, unit=1: 2 if n >= 2 and not getattr(
        _intraop._worker, "busy", False) else 1)
    monkeypatch.setattr(_intraop, "run_ranges",
                        lambda k, bounds: calls.append(len(bounds)) or real(k, bounds))
    return calls


def _gelu_pair(lib, a, g):
    x = lib.tensor(a).requires_grad_(True)
    y = lib.nn.functional.gelu(x)
    (gx,) = lib.autograd.grad(y, x, lib.tensor(g))
    return y.detach().numpy(), gx.numpy()


def test_exact_gelu_split_is_bitwise_whole_and_matches_torch(forced_split):
    a = (RNG.standard_normal((96, 512)) * 3).astype(np.float32)
    g = RNG.standard_normal(a.shape).astype(np.float32)
    split = _gelu_pair(numtorch, a, g)
    assert forced_split, "GELU never split"
    forced_split.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_intraop, "parts", lambda n, unit=1: 1)
        whole = _gelu_pair(numtorch, a, g)
    for s, w, t in zip(split, whole, _gelu_pair(torch, a, g)):
        np.testing.assert_array_equal(s, w)
        # (torch's own float32 GELU is a few ulps off erf: the tolerance of the GELU tests)
        np.testing.assert_allclose(s, t, rtol=2e-6, atol=1e-5)


def _adamw(lib, params, grads, steps=3):
    ps = [lib.tensor(p).requires_grad_(True) for p in params]
    opt = lib.optim.AdamW(ps, lr=1e-2, weight_decay=0.1)
    for _ in range(steps):
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in ps]


def test_adamw_group_split_is_bitwise_whole_and_matches_torch(forced_split):
    shapes = [(64, 128), (128,), (128, 96), (7,)]
    params = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    split = _adamw(numtorch, params, grads)
    assert forced_split, "the group step never split"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_intraop, "parts", lambda n, unit=1: 1)
        whole = _adamw(numtorch, params, grads)
    for s, w, t in zip(split, whole, _adamw(torch, params, grads)):
        np.testing.assert_array_equal(s, w)
        np.testing.assert_allclose(s, t, rtol=1e-6, atol=1e-7)
