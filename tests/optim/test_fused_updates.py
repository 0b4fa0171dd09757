"""The fused SGD/Adam updates (intermediates in reused buffers, maximize folded into a sign):
torch's trajectories for every branch, bit-identical to the update written with temporaries,
and no per-step temporary the size of a parameter."""

import tracemalloc

import numpy as np
import pytest
import torch

import numtorch

CASES = [
    ("SGD", dict(lr=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, maximize=True, amsgrad=True)),
    ("AdamW", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("AdamW", dict(lr=0.05, amsgrad=True)),
]


def _run(lib, name, kwargs, dtype, steps=6, unfused=False):
    rng = np.random.default_rng(1)
    ps = [lib.nn.Parameter(lib.from_numpy(rng.standard_normal(s).astype(dtype)))
          for s in [(7, 5), (5,)]]
    grads = [[rng.standard_normal(p.shape).astype(dtype) for p in ps] for _ in range(steps)]
    opt = getattr(lib.optim, name)(ps, **kwargs)
    if unfused:  # the same rule through the path with temporaries (odd-shaped gradients)
        if name == "SGD":
            opt._update = lambda p, g, s, grp: opt._update_unfused(p._array, g, s, grp)
        else:
            opt._update = opt._update_unfused
    out = []
    for gs in grads:
        for p, g in zip(ps, gs):
            p.grad = lib.from_numpy(g.copy())
        opt.step()
        out += [p.detach().numpy().copy() for p in ps]
    return out


@pytest.mark.parametrize("name,kwargs", CASES, ids=str)
def test_fused_matches_torch(name, kwargs):
    ours = _run(numtorch, name, kwargs, np.float32)
    ref = _run(torch, name, kwargs, np.float32)
    for a, b in zip(ours, ref):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    ours64 = _run(numtorch, name, kwargs, np.float64)
    ref64 = _run(torch, name, kwargs, np.float64)
    for a, b in zip(ours64, ref64):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name,kwargs", CASES, ids=str)
def test_fused_is_bitwise_the_plain_rule(name, kwargs):
    fused = _run(numtorch, name, kwargs, np.float32)
    plain = _run(numtorch, name, kwargs, np.float32, unfused=True)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.1, weight_decay=0.1, maximize=True)),
    ("AdamW", dict(lr=0.1)),
], ids=str)
def test_step_allocates_no_parameter_sized_temporary(name, kwargs):
    p = numtorch.nn.Parameter(numtorch.zeros(256, 256))
    p.grad = numtorch.ones(256, 256)
    opt = getattr(numtorch.optim, name)([p], **kwargs)
    opt.step()  # creates the state and the work buffers (the second step its last one)
    opt.step()
    tracemalloc.start()
    try:
        opt.step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 * 256 * 4 // 4, peak



@pytest.mark.parametrize("name,kwargs", CASES, ids=str)
def test_split_across_threads_is_bitwise_one_thread(monkeypatch, name, kwargs):
    from numtorch.ops import _intraop

    one = _run(numtorch, name, kwargs, np.float32)
    calls = []
    real = _intraop.run_split
    monkeypatch.setattr(_intraop, "run_split", lambda k, n, unit=1: calls.append(n) or
                        real(k, n, unit))
    monkeypatch.setattr(_intraop, "_MIN_PART", 8)  # the 7x5 parameter splits in 3 parts
    monkeypatch.setattr("numtorch.optim.optimizer._SPLIT_MIN", 0)
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(3)
    try:
        split = _run(numtorch, name, kwargs, np.float32)
    finally:
        numtorch.set_num_threads(old)
    if not numtorch.backend.is_device_array(numtorch.zeros(1)._array):
        assert 35 in calls
    for a, b in zip(one, split):
        np.testing.assert_array_equal(a, b)
