"""Adam/AdamW's group step (session 36): the parameters of a group are gathered and updated
together, over both intra-op threads when the group is large. Checked bit for bit against the
per-parameter path (float32 and float64, split or not) and against real torch over several
steps (weight decay, amsgrad, maximize, parameter groups, parameters skipped on some steps,
state-dict round trips both ways)."""

import numpy as np
import pytest

import numtorch
from numtorch.ops import _intraop
from numtorch.optim import optimizer as _optimizer

torch = pytest.importorskip("torch")

# a small GPT's parameter shapes (embeddings, per-block attention/MLP weights, norms)
SHAPES = [(65, 16), (32, 16)] + [(16,), (48, 16), (16, 16), (16,), (64, 16), (16, 64)] * 2 + \
    [(16,), (96, 64), (64, 80)]

CONFIGS = [
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=3e-3, betas=(0.8, 0.95), eps=1e-6, amsgrad=True)),
    ("Adam", dict(lr=1e-2, decoupled_weight_decay=True, weight_decay=0.05, maximize=True)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=5e-3, weight_decay=0.2, maximize=True, betas=(0.9, 0.99))),
]


def _data(dtype, seed=0, steps=4):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return params, grads


def _skipped(step, i):
    """Some parameters have no gradient on some steps: their step counts differ."""
    return step >= 1 and i % 5 == 3 and step % 2 == 1


def _groups(lib, params, kwargs, two_groups):
    ps = [lib.nn.Parameter(lib.from_numpy(p.copy())) for p in params]
    if not two_groups:
        return ps, ps
    decay = [p for p in ps if p.dim() >= 2]
    rest = [p for p in ps if p.dim() < 2]
    return ps, [{"params": decay}, {"params": rest, "weight_decay": 0.0,
                                     "lr": kwargs["lr"] * 0.5}]


def _trajectory(lib, name, kwargs, dtype, two_groups=False, cls=None, steps=4):
    params, grads = _data(dtype, steps=steps)
    ps, spec = _groups(lib, params, kwargs, two_groups)
    opt = (cls or getattr(lib.optim, name))(spec, **kwargs)
    for s in range(steps):
        for i, p in enumerate(ps):
            p.grad = None if _skipped(s, i) else lib.from_numpy(grads[s][i].copy())
        opt.step()
    return [p.detach().numpy().copy() for p in ps], opt


def _per_parameter(name):
    """The optimizer's class with the base class's per-parameter loop (the reference)."""
    base = getattr(numtorch.optim, name)
    return type("PerParam" + name, (base,), {"_step_group": _optimizer.Optimizer._step_group})


@pytest.fixture
def two_threads(monkeypatch):
    """Make every group large enough for two threads and the cores free; count the splits."""
    calls = []
    real = _intraop.run_ranges
    monkeypatch.setattr(_intraop, "parts", lambda n, unit=1: 2 if n >= 2 else 1)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "run_ranges",
                        lambda k, bounds: calls.append(list(bounds)) or real(k, bounds))
    return calls


@pytest.mark.parametrize("two_groups", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=str)
def test_group_step_is_bitwise_the_per_parameter_step(name, kwargs, dtype, two_groups):
    got, _ = _trajectory(numtorch, name, kwargs, dtype, two_groups)
    ref, _ = _trajectory(numtorch, name, kwargs, dtype, two_groups, cls=_per_parameter(name))
    for a, b in zip(got, ref):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("two_groups", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=str)
def test_split_over_two_threads_is_bitwise_one_thread(two_threads, name, kwargs, two_groups):
    ref, _ = _trajectory(numtorch, name, kwargs, np.float32, two_groups,
                         cls=_per_parameter(name))
    got, _ = _trajectory(numtorch, name, kwargs, np.float32, two_groups)
    assert two_threads, "the group step never split"
    for bounds in two_threads:
        assert len(bounds) == 2 and bounds[0][0] == 0 and bounds[0][1] == bounds[1][0]
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)


def test_split_balances_values_not_parameter_counts(two_threads):
    shapes = [(20000,)] + [(5000,)] * 4
    ps = [numtorch.nn.Parameter(numtorch.ones(s)) for s in shapes]
    for p in ps:
        p.grad = numtorch.ones(p.shape)
    numtorch.optim.Adam(ps).step()
    assert two_threads == [[(0, 1), (1, 5)]]  # 20000 values each, not 2-3 parameters each


@pytest.mark.parametrize("amsgrad", [False, True])
def test_strided_parameters_in_the_group_step(amsgrad):
    # transposed and sliced parameters (and state laid out like them) take the group path
    def run(cls):
        rng = np.random.default_rng(3)
        base = [numtorch.from_numpy(rng.standard_normal((6, 5)).astype(np.float32))
                for _ in range(4)]
        ps = [numtorch.nn.Parameter(base[0].t()), numtorch.nn.Parameter(base[1][:, ::2]),
              numtorch.nn.Parameter(base[2]), numtorch.nn.Parameter(base[3].t()[1:])]
        opt = cls(ps, lr=0.1, weight_decay=0.1, amsgrad=amsgrad)
        for s in range(3):
            for i, p in enumerate(ps):
                p.grad = numtorch.from_numpy(
                    rng.standard_normal(tuple(p.shape)).astype(np.float32))
            opt.step()
        return [p.detach().numpy().copy() for p in ps], \
            [opt.state[p]["exp_avg_sq"].numpy().copy() for p in ps]

    got = run(numtorch.optim.Adam)
    ref = run(_per_parameter("Adam"))
    for a, b in zip(got[0] + got[1], ref[0] + ref[1]):
        np.testing.assert_array_equal(a, b)


def test_a_parameter_listed_twice_keeps_the_one_thread_order(two_threads):
    import warnings

    def run(cls):
        p = numtorch.nn.Parameter(numtorch.arange(6.0).reshape(2, 3))
        q = numtorch.nn.Parameter(numtorch.ones(4))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = cls([p, q, p], lr=0.1, weight_decay=0.1)
        for s in range(3):
            p.grad = numtorch.full((2, 3), 0.5 + s)
            q.grad = numtorch.full((4,), -1.0)
            opt.step()
        return p.detach().numpy(), q.detach().numpy(), float(opt.state[p]["step"])

    got = run(numtorch.optim.AdamW)
    ref = run(_per_parameter("AdamW"))
    assert all(len(b) == 1 for b in two_threads) or not two_threads
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])
    assert got[2] == ref[2] == 6.0


@pytest.mark.parametrize("split", [False, True], ids=["one_thread", "two_threads"])
@pytest.mark.parametrize("two_groups", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=str)
def test_trajectory_matches_torch(request, name, kwargs, two_groups, split):
    if split:
        request.getfixturevalue("two_threads")
    got, opt = _trajectory(numtorch, name, kwargs, np.float32, two_groups, steps=6)
    ref, topt = _trajectory(torch, name, kwargs, np.float32, two_groups, steps=6)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=2e-6)
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert ours["param_groups"] == [dict(g, foreach=g["foreach"]) for g in theirs["param_groups"]]
    for k, st in theirs["state"].items():
        assert set(ours["state"][k]) == set(st)
        for key, v in st.items():
            np.testing.assert_allclose(ours["state"][k][key].numpy(), v.numpy(),
                                       rtol=2e-6, atol=2e-7)  # torch lerps with an fma


@pytest.mark.parametrize("name,kwargs", [CONFIGS[2], CONFIGS[6]], ids=str)
def test_state_dict_round_trip_with_torch_continues_identically(name, kwargs):
    params, grads = _data(np.float32, seed=1, steps=6)
    nps = [numtorch.nn.Parameter(numtorch.from_numpy(p.copy())) for p in params]
    tps = [torch.nn.Parameter(torch.from_numpy(p.copy())) for p in params]
    nopt = getattr(numtorch.optim, name)(nps, **kwargs)
    topt = getattr(torch.optim, name)(tps, **kwargs)

    def step(ps, opt, lib, s):
        for i, p in enumerate(ps):
            p.grad = None if _skipped(s, i) else lib.from_numpy(grads[s][i].copy())
        opt.step()

    for s in range(3):
        step(nps, nopt, numtorch, s)
        step(tps, topt, torch, s)
    # swap: torch continues from numtorch's state and numtorch from torch's
    nsd, tsd = nopt.state_dict(), topt.state_dict()
    nps2 = [numtorch.nn.Parameter(numtorch.from_numpy(p.detach().numpy().copy())) for p in tps]
    tps2 = [torch.nn.Parameter(torch.from_numpy(p.detach().numpy().copy())) for p in nps]
    nopt2 = getattr(numtorch.optim, name)(nps2, **kwargs)
    topt2 = getattr(torch.optim, name)(tps2, **kwargs)
    nopt2.load_state_dict(tsd)
    topt2.load_state_dict({"state": {k: {n: torch.from_numpy(v.numpy().copy())
                                         for n, v in st.items()}
                                     for k, st in nsd["state"].items()},
                           "param_groups": nsd["param_groups"]})
    for s in range(3, 6):
        step(nps2, nopt2, numtorch, s)
        step(tps2, topt2, torch, s)
    for a, b in zip(nps2, tps2):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=3e-6,
                                   atol=3e-6)
    for k in range(len(params)):
        assert float(nopt2.state[nps2[k]]["step"]) == float(topt2.state[tps2[k]]["step"])


def test_parameters_outside_the_group_path_still_update_as_torch():
    # a float64 gradient on a float32 parameter is refused by torch's .grad setter, so the
    # per-parameter fallback is reached here with a non-contiguous and a 0-d parameter, which
    # the group path takes, next to a sparse gradient that Adam refuses as torch does
    p = numtorch.nn.Parameter(numtorch.ones(3, 4).t())
    s = numtorch.nn.Parameter(numtorch.tensor(2.0))
    tp = torch.nn.Parameter(torch.ones(3, 4).t())
    ts = torch.nn.Parameter(torch.tensor(2.0))
    opt = numtorch.optim.AdamW([p, s], lr=0.1)
    topt = torch.optim.AdamW([tp, ts], lr=0.1)
    g = np.arange(12, dtype=np.float32).reshape(4, 3)
    for _ in range(3):
        p.grad, s.grad = numtorch.from_numpy(g.copy()), numtorch.tensor(-1.5)
        tp.grad, ts.grad = torch.from_numpy(g.copy()), torch.tensor(-1.5)
        opt.step()
        topt.step()
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(s.detach().numpy(), ts.detach().numpy(), rtol=1e-6)
    e = numtorch.nn.Parameter(numtorch.ones(5, 2))
    e.grad = numtorch.ones(5, 2).to_sparse()
    te = torch.nn.Parameter(torch.ones(5, 2))
    te.grad = torch.ones(5, 2).to_sparse()
    with pytest.raises(RuntimeError) as theirs:
        torch.optim.Adam([te]).step()
    with pytest.raises(RuntimeError) as ours:
        numtorch.optim.Adam([e]).step()
    assert str(ours.value) == str(theirs.value)


def test_step_bumps_each_parameters_version_once():
    ps = [numtorch.nn.Parameter(numtorch.ones(3)) for _ in range(3)]
    for p in ps[:2]:
        p.grad = numtorch.ones(3)
    before = [p._version for p in ps]
    numtorch.optim.Adam(ps).step()
    assert [p._version - b for p, b in zip(ps, before)] == [1, 1, 0]
