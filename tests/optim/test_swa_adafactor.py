"""optim.swa_utils, optim.Adafactor and the functional optimizers against torch."""

import warnings

import numpy as np
import pytest
import torch

import numtorch


def _net(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 2))


def _pair():
    th = _net(torch)
    nt = _net(numtorch)
    nt.load_state_dict({k: numtorch.from_numpy(v.numpy().copy())
                        for k, v in th.state_dict().items()})
    return nt, th


def _same_state(nt_sd, th_sd, rtol=1e-6, atol=1e-7):
    assert list(nt_sd) == list(th_sd)
    for k in th_sd:
        np.testing.assert_allclose(nt_sd[k].numpy(), th_sd[k].numpy(), rtol=rtol, atol=atol,
                                   err_msg=k)


def _perturb_and_run(lib, model, k):
    """Change the weights deterministically and run a training batch (moves BN buffers)."""
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.mul_(0.9).add_(0.05 * (k + 1) * (i + 1))
    model.train()
    model(lib.from_numpy(np.linspace(-1, 1, 15, dtype="float32").reshape(5, 3) * (k + 1)))


@pytest.mark.parametrize("kind", ["swa", "ema_avg_fn", "ema_multi", "swa_multi", "swa_buffers",
                                  "ema_multi_buffers"])
def test_averaged_model_matches_torch(kind):
    nt, th = _pair()
    avgs = []
    for lib, m in ((numtorch, nt), (torch, th)):
        su = lib.optim.swa_utils
        kwargs = {"swa": {}, "ema_avg_fn": {"avg_fn": su.get_ema_avg_fn(0.8)},
                  "ema_multi": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.7)},
                  "swa_multi": {"multi_avg_fn": su.get_swa_multi_avg_fn()},
                  "swa_buffers": {"use_buffers": True},
                  "ema_multi_buffers": {"multi_avg_fn": su.get_ema_multi_avg_fn(0.7),
                                        "use_buffers": True}}[kind]
        avg = su.AveragedModel(m, **kwargs)
        for k in range(4):
            _perturb_and_run(lib, m, k)
            avg.update_parameters(m)
        avgs.append(avg)
    _same_state(avgs[0].state_dict(), avgs[1].state_dict(), rtol=1e-5, atol=1e-6)
    assert int(avgs[0].n_averaged) == 4
    x = np.ones((2, 3), dtype="float32")
    avgs[0].eval()
    avgs[1].eval()
    np.testing.assert_allclose(avgs[0](numtorch.from_numpy(x)).detach().numpy(),
                               avgs[1](torch.from_numpy(x)).detach().numpy(), rtol=1e-5)


def test_update_bn_matches_torch():
    nt, th = _pair()
    data = [np.random.default_rng(i).standard_normal((6, 3)).astype("float32") * (i + 1)
            for i in range(3)]
    for lib, m in ((numtorch, nt), (torch, th)):
        m.eval()
        loader = [(lib.from_numpy(d), 0) for d in data[:2]] + [lib.from_numpy(data[2])]
        lib.optim.swa_utils.update_bn(loader, m)
        assert not m.training and m[1].momentum == 0.1
    _same_state(nt.state_dict(), th.state_dict(), rtol=1e-5, atol=1e-6)
    lin = numtorch.nn.Linear(2, 2)
    numtorch.optim.swa_utils.update_bn([numtorch.ones(1, 2)], lin)  # no batch norm: no-op


@pytest.mark.parametrize("strategy, epochs", [("cos", 3), ("linear", 4), ("cos", 0),
                                              ("linear", 1)])
def test_swalr_schedule_matches_torch(strategy, epochs):
    lrs = []
    for lib in (numtorch, torch):
        w = lib.nn.Parameter(lib.ones(2))
        b = lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.01], anneal_epochs=epochs,
                                          anneal_strategy=strategy)
        seq = [sched.get_last_lr()]
        for _ in range(7):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
        lrs.append((seq, sorted(sched.state_dict())))
    np.testing.assert_allclose(np.array(lrs[0][0]), np.array(lrs[1][0]), rtol=1e-12)
    assert set(lrs[1][1]) <= set(lrs[0][1])


def test_swalr_errors_match_torch():
    for lib in (numtorch, torch):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        SWALR = lib.optim.swa_utils.SWALR
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
            SWALR(opt, 0.1, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
            SWALR(opt, 0.1, anneal_epochs=-1)
        with pytest.raises(ValueError, match="swa_lr must have the same length as optimizer"):
            SWALR(opt, [0.1, 0.2])


_SHAPES = [(3, 4), (5,), (), (2, 3, 4)]


def _adafactor_run(lib, init, dtype, steps=6, **kwargs):
    ps = [lib.nn.Parameter(lib.from_numpy(a.astype(dtype))) for a in init]
    opt = lib.optim.Adafactor(ps, **kwargs)
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p * (i + 1)).sin() * p).sum() for i, p in enumerate(ps))
        loss.backward()
        opt.step()
        traj.append([p.detach().numpy().copy() for p in ps])
    return traj, opt


@pytest.mark.parametrize("dtype, kwargs", [
    ("float32", {}),
    ("float32", {"lr": 0.05, "d": 2.0, "eps": (1e-6, 1e-2)}),
    ("float64", {"lr": 0.5, "weight_decay": 0.1, "maximize": True, "beta2_decay": -0.5}),
    ("float64", {"lr": numtorch.tensor(0.02)}),
])
def test_adafactor_trajectory_matches_torch(dtype, kwargs):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s) for s in _SHAPES]
    th_kwargs = {k: (torch.tensor(v.item()) if isinstance(v, numtorch.Tensor) else v)
                 for k, v in kwargs.items()}
    nt_traj, nt_opt = _adafactor_run(numtorch, init, dtype, **kwargs)
    th_traj, th_opt = _adafactor_run(torch, init, dtype, **th_kwargs)
    # a float32 tensor lr enters torch's float64 arithmetic through float32 steps
    tol = 1e-5 if dtype == "float32" else 1e-7 if "lr" in kwargs else 1e-10
    for a, b in zip(nt_traj, th_traj):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol)
    nt_sd, th_sd = nt_opt.state_dict(), th_opt.state_dict()
    for i in range(len(_SHAPES)):
        assert sorted(nt_sd["state"][i]) == sorted(th_sd["state"][i])
        for k, v in th_sd["state"][i].items():
            assert nt_sd["state"][i][k].dtype == getattr(numtorch, str(v.dtype)[6:])
            np.testing.assert_allclose(nt_sd["state"][i][k].numpy(), v.numpy(), rtol=tol,
                                       atol=tol)
    # numtorch's state dict resumes torch's optimizer (and the other way round)
    nt_traj2, nt_opt2 = _adafactor_run(numtorch, init, dtype, steps=0, **kwargs)
    nt_opt2.load_state_dict(th_sd)
    assert nt_opt2.state_dict()["param_groups"][0]["eps"] == th_sd["param_groups"][0]["eps"]


def test_adafactor_errors_match_torch():
    for lib in (numtorch, torch):
        p = [lib.nn.Parameter(lib.ones(2))]
        for kwargs, msg in [({"lr": -1}, "Learning rate should be >= 0 but is: -1"),
                            ({"beta2_decay": 0.5}, "beta2_decay should be <= 0 but is: 0.5"),
                            ({"eps": (-1, 1e-3)}, "epsilon1 should be >= 0 but is: -1"),
                            ({"eps": (None, -1)}, "epsilon2 should be >= 0 but is: -1"),
                            ({"d": 0.5}, "Clipping threshold d should be >= 1 but is: 0.5"),
                            ({"weight_decay": -1}, "weight_decay should be >= 0 but is: -1")]:
            with pytest.raises(ValueError, match=msg):
                lib.optim.Adafactor(p, **kwargs)
        q = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))
        opt = lib.optim.Adafactor([q])
        q.grad = lib.ones(2, dtype=lib.complex64)
        with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
            opt.step()


def test_swa_multi_avg_fn_refuses_integer_buffers_like_torch():
    for lib in (numtorch, torch):
        su = lib.optim.swa_utils
        avg = su.AveragedModel(_net(lib), multi_avg_fn=su.get_swa_multi_avg_fn(),
                               use_buffers=True)
        avg.update_parameters(avg.module)
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            avg.update_parameters(avg.module)


def test_functional_optimizers_match_torch():
    import importlib

    rng = np.random.default_rng(3)
    p0 = rng.standard_normal((3, 2)).astype("float32")
    g0 = rng.standard_normal((3, 2)).astype("float32")
    out = []
    for lib in (numtorch, torch):
        res = []
        p, g = lib.from_numpy(p0.copy()), lib.from_numpy(g0.copy())
        bufs = [None]
        for _ in range(2):
            importlib.import_module(lib.__name__ + ".optim.sgd").sgd([p], [g], bufs, weight_decay=0.1, momentum=0.9, lr=0.1,
                              dampening=0.0, nesterov=True, maximize=False)
        res += [p.numpy().copy(), bufs[0].numpy().copy()]
        mods = [importlib.import_module(f"{lib.__name__}.optim.{n}") for n in ("adam", "adamw")]
        for fn, extra in ((mods[0].adam, {"amsgrad": True}), (mods[1].adamw, {"amsgrad": False})):
            p = lib.from_numpy(p0.copy())
            m, v, vmax = lib.zeros(3, 2), lib.zeros(3, 2), lib.zeros(3, 2)
            step = lib.tensor(0.0)
            for _ in range(3):
                fn([p], [g], [m], [v], [vmax], [step], beta1=0.9, beta2=0.99, lr=0.01,
                   weight_decay=0.1, eps=1e-8, maximize=False, **extra)
            res += [p.numpy().copy(), m.numpy().copy(), v.numpy().copy(), step.numpy().copy()]
        p = lib.from_numpy(p0.copy())
        row, col, step = lib.zeros(3, 1), lib.zeros(1, 2), lib.tensor(0.0)
        for _ in range(3):
            importlib.import_module(lib.__name__ + ".optim._adafactor").adafactor([p], [g], [row], [col], [None], [step], d=1.0,
                                           lr=0.01, beta2_decay=-0.8, weight_decay=0.0,
                                           eps1=None, eps2=1e-3, maximize=False)
        res += [p.numpy().copy(), row.numpy().copy()]
        out.append(res)
    with warnings.catch_warnings():
        for a, b in zip(*out):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
