"""SGD with momentum (session 36): after the first step a group's parameters are gathered and
updated together (``optimizer.run_jobs``), over both intra-op threads when the group is large.
Bit for bit the per-parameter path (split or not), and torch's trajectory over several steps
(dampening, nesterov, weight decay, maximize, parameter groups, skipped parameters, a state
dict handed to torch and back)."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import _intraop
from numtorch.optim import optimizer as _optimizer

torch = pytest.importorskip("torch")

SHAPES = [(65, 16), (32, 16)] + [(16,), (48, 16), (16, 16), (16,), (64, 16), (16, 64)] * 2 + \
    [(16,), (96, 64)]

CONFIGS = [
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-2),
    dict(lr=0.02, momentum=0.8, dampening=0.3, weight_decay=0.1, maximize=True),
    dict(lr=0.02, momentum=0.5, nesterov=True, maximize=True),
]


def _data(dtype, steps, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES], \
        [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]


def _skipped(step, i):
    return step >= 1 and i % 5 == 3 and step % 2 == 1


def _trajectory(lib, kwargs, dtype, two_groups, cls=None, steps=5):
    params, grads = _data(dtype, steps)
    ps = [lib.nn.Parameter(lib.from_numpy(p.copy())) for p in params]
    spec = ps if not two_groups else [
        {"params": [p for p in ps if p.dim() >= 2]},
        {"params": [p for p in ps if p.dim() < 2], "weight_decay": 0.0, "momentum": 0.7}]
    opt = (cls or lib.optim.SGD)(spec, **kwargs)
    for s in range(steps):
        for i, p in enumerate(ps):
            p.grad = None if _skipped(s, i) else lib.from_numpy(grads[s][i].copy())
        opt.step()
    return [p.detach().numpy().copy() for p in ps], opt


PerParamSGD = type("PerParamSGD", (numtorch.optim.SGD,),
                   {"_step_group": _optimizer.Optimizer._step_group})


@pytest.fixture
def two_threads(monkeypatch):
    calls = []
    real = _intraop.run_ranges
    monkeypatch.setattr(_intraop, "parts", lambda n, unit=1: 2 if n >= 2 else 1)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "run_ranges",
                        lambda k, bounds: calls.append(list(bounds)) or real(k, bounds))
    return calls


@pytest.mark.parametrize("two_groups", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_group_step_is_bitwise_the_per_parameter_step(kwargs, dtype, two_groups):
    got, _ = _trajectory(numtorch, kwargs, dtype, two_groups)
    ref, _ = _trajectory(numtorch, kwargs, dtype, two_groups, cls=PerParamSGD)
    for a, b in zip(got, ref):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_split_over_two_threads_is_bitwise_one_thread(two_threads, kwargs):
    ref, _ = _trajectory(numtorch, kwargs, np.float32, True, cls=PerParamSGD)
    got, _ = _trajectory(numtorch, kwargs, np.float32, True)
    assert two_threads and all(len(b) == 2 for b in two_threads)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("split", [False, True], ids=["one_thread", "two_threads"])
@pytest.mark.parametrize("two_groups", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_trajectory_matches_torch(request, kwargs, two_groups, split):
    if split:
        request.getfixturevalue("two_threads")
    got, opt = _trajectory(numtorch, kwargs, np.float32, two_groups)
    ref, topt = _trajectory(torch, kwargs, np.float32, two_groups)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert set(ours["state"]) == set(theirs["state"])
    for k, st in theirs["state"].items():
        np.testing.assert_allclose(ours["state"][k]["momentum_buffer"].numpy(),
                                   st["momentum_buffer"].numpy(), rtol=1e-6, atol=1e-6)


def test_state_dict_from_torch_continues_identically():
    kwargs = CONFIGS[2]
    params, grads = _data(np.float32, 6, seed=2)
    tps = [torch.nn.Parameter(torch.from_numpy(p.copy())) for p in params]
    topt = torch.optim.SGD(tps, **kwargs)

    def step(ps, opt, lib, s):
        for i, p in enumerate(ps):
            p.grad = lib.from_numpy(grads[s][i].copy())
        opt.step()

    for s in range(3):
        step(tps, topt, torch, s)
    nps = [numtorch.nn.Parameter(numtorch.from_numpy(p.detach().numpy().copy())) for p in tps]
    nopt = numtorch.optim.SGD(nps, **kwargs)
    nopt.load_state_dict(topt.state_dict())
    for s in range(3, 6):
        step(tps, topt, torch, s)
        step(nps, nopt, numtorch, s)
    for a, b in zip(nps, tps):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)
