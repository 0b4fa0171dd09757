"""Learning-rate schedules against torch: lr (and momentum) sequences, state dicts, warnings."""

import warnings

import numpy as np
import pytest
import torch

import numtorch

STEPS = 30
LOSSES = [1.0, 0.9, 0.95, 0.95, 0.96, 0.94, 0.97, 0.97, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49999,
          0.6, 0.7, 0.4, 0.4, 0.4, 0.41, 0.42, 0.43, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]


def _optimizer(lib, kind="SGD"):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return lib.optim.Adam(groups, lr=0.1)


def _snapshot(opt, sched):
    groups = opt.param_groups
    return ([float(v) for v in sched.get_last_lr()], [g["lr"] for g in groups],
            [g.get("momentum") for g in groups], [g.get("betas") for g in groups])


def _run(lib, make, steps=STEPS, kind="SGD", metrics=None):
    opt = _optimizer(lib, kind)
    sched = make(lib.optim.lr_scheduler, opt)
    out = [_snapshot(opt, sched)]
    for i in range(steps):
        opt.step()
        if metrics is not None:
            sched.step(metrics[i])
        else:
            sched.step()
        out.append(_snapshot(opt, sched))
    return out, opt, sched


def _compare(a, b):
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        for part_x, part_y in zip(x, y):
            assert len(part_x) == len(part_y)
            for u, v in zip(part_x, part_y):
                if v is None or u is None:
                    assert u is None and v is None, i
                else:
                    np.testing.assert_allclose(np.asarray(u, dtype=float),
                                               np.asarray(v, dtype=float),
                                               rtol=1e-10, atol=1e-14, err_msg=f"step {i}")


def _half(e):
    return 0.5 ** (e // 4)


class _Factor:
    """A callable object: its attributes travel in the scheduler's state dict."""

    def __init__(self, base):
        self.base = base

    def __call__(self, e):
        return self.base ** e


CASES = {
    "lambda": lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** e),
    "lambda_list": lambda L, o: L.LambdaLR(o, [_half, lambda e: 1.0 / (e + 1)]),
    "lambda_object": lambda L, o: L.LambdaLR(o, _Factor(0.9)),
    "multiplicative": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9),
    "multiplicative_list": lambda L, o: L.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1.01]),
    "step": lambda L, o: L.StepLR(o, step_size=3, gamma=0.5),
    "multistep": lambda L, o: L.MultiStepLR(o, milestones=[3, 7, 7, 12], gamma=0.5),
    "constant": lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=4),
    "constant_default": lambda L, o: L.ConstantLR(o),
    "linear": lambda L, o: L.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=10),
    "linear_default": lambda L, o: L.LinearLR(o),
    "exponential": lambda L, o: L.ExponentialLR(o, gamma=0.9),
    "polynomial": lambda L, o: L.PolynomialLR(o, total_iters=10, power=2.0),
    "polynomial_default": lambda L, o: L.PolynomialLR(o),
    "cosine": lambda L, o: L.CosineAnnealingLR(o, T_max=7, eta_min=0.01),
    "cosine_zero": lambda L, o: L.CosineAnnealingLR(o, T_max=5),
    "warm_restarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=4),
    "warm_restarts_mult": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2,
                                                                     eta_min=0.001),
    "cyclic": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "cyclic_tri2": lambda L, o: L.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1,
                                           step_size_up=4, step_size_down=3,
                                           mode="triangular2", base_momentum=[0.7, 0.8]),
    "cyclic_exp": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5,
                                          mode="exp_range", gamma=0.95),
    "cyclic_fn": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                         scale_fn=lambda x: 1 / (x + 1),
                                         scale_mode="iterations", cycle_momentum=False),
    "cyclic_fn_cycle": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                               scale_fn=lambda x: 0.8 ** x),
    "onecycle": lambda L, o: L.OneCycleLR(o, max_lr=0.1, total_steps=STEPS),
    "onecycle_linear": lambda L, o: L.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=STEPS + 5,
                                                 anneal_strategy="linear", pct_start=0.4),
    "onecycle_three": lambda L, o: L.OneCycleLR(o, max_lr=0.1, epochs=5, steps_per_epoch=6,
                                                three_phase=True, div_factor=10.0,
                                                final_div_factor=100.0),
    "onecycle_nomom": lambda L, o: L.OneCycleLR(o, max_lr=0.1, total_steps=STEPS,
                                                cycle_momentum=False),
    "sequential": lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, factor=0.5, total_iters=3), L.ExponentialLR(o, gamma=0.9)],
        milestones=[5]),
    "sequential3": lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, start_factor=0.1, total_iters=4), L.CosineAnnealingLR(o, T_max=6),
            L.StepLR(o, step_size=4)], milestones=[4, 12]),
    "chained": lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.5, total_iters=6), L.ExponentialLR(o, gamma=0.9)]),
    "chained_opt": lambda L, o: L.ChainedScheduler(
        [L.StepLR(o, step_size=5), L.LinearLR(o, start_factor=0.3, total_iters=8)],
        optimizer=o),
}
ADAM_CASES = ["cyclic", "cyclic_tri2", "onecycle", "onecycle_three"]


@pytest.mark.parametrize("name", list(CASES))
def test_sequence(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, _, _ = _run(numtorch, CASES[name])
        ref, _, _ = _run(torch, CASES[name])
    _compare(ours, ref)


@pytest.mark.parametrize("name", ADAM_CASES)
def test_sequence_adam_betas(name):
    ours, _, _ = _run(numtorch, CASES[name], kind="Adam")
    ref, _, _ = _run(torch, CASES[name], kind="Adam")
    _compare(ours, ref)


PLATEAU = {
    "default": dict(patience=2),
    "max": dict(mode="max", patience=1, factor=0.5),
    "abs": dict(threshold_mode="abs", threshold=0.05, patience=1),
    "cooldown": dict(patience=0, cooldown=2, factor=0.5),
    "min_lr": dict(patience=0, min_lr=[0.01, 0.02], factor=0.3),
    "eps": dict(patience=0, factor=0.9, eps=0.004),
    "max_abs": dict(mode="max", threshold_mode="abs", threshold=0.01, patience=0),
}


@pytest.mark.parametrize("name", list(PLATEAU))
def test_reduce_on_plateau(name):
    make = lambda L, o: L.ReduceLROnPlateau(o, **PLATEAU[name])  # noqa: E731
    ours, _, s1 = _run(numtorch, make, metrics=LOSSES)
    ref, _, s2 = _run(torch, make, metrics=LOSSES)
    _compare(ours, ref)
    assert s1.best == s2.best and s1.num_bad_epochs == s2.num_bad_epochs
    assert s1.last_epoch == s2.last_epoch


@pytest.mark.parametrize("name", ["step", "multistep", "constant", "linear", "exponential",
                                  "cosine", "polynomial", "lambda"])
def test_deprecated_epoch_argument(name):
    res = []
    for lib in (numtorch, torch):
        opt = _optimizer(lib)
        sched = CASES[name](lib.optim.lr_scheduler, opt)
        seq = []
        for e in [1, 2, 5, 5, 9, 3, 12]:
            opt.step()
            with pytest.warns(UserWarning, match="epoch parameter"):
                sched.step(e)
            seq.append(([float(v) for v in sched.get_last_lr()], [], [], []))
            sched.step()
            seq.append(([float(v) for v in sched.get_last_lr()], [], [], []))
        res.append(seq)
    _compare(*res)


@pytest.mark.parametrize("t_mult", [1, 2])
def test_warm_restarts_fractional_epochs(t_mult):
    res = []
    for lib in (numtorch, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=t_mult,
                                                                    eta_min=0.002)
        seq = []
        for epoch in range(12):
            for i in range(4):
                opt.step()
                sched.step(epoch + i / 4)
                seq.append((sched.get_last_lr(), [sched.T_cur], [sched.T_i],
                            [sched.last_epoch]))
        res.append(seq)
    _compare(*res)


@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_round_trip(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full, _, _ = _run(numtorch, CASES[name])
        part, opt, sched = _run(numtorch, CASES[name], steps=12)
        opt_sd, sched_sd = opt.state_dict(), sched.state_dict()
        opt2 = _optimizer(numtorch)
        sched2 = CASES[name](numtorch.optim.lr_scheduler, opt2)
        opt2.load_state_dict(opt_sd)
        sched2.load_state_dict(sched_sd)
        rest = []
        for _ in range(STEPS - 12):
            opt2.step()
            sched2.step()
            rest.append(_snapshot(opt2, sched2))
    _compare(part + rest, full)


@pytest.mark.parametrize("name", ["step", "cosine", "cyclic", "onecycle", "lambda",
                                  "warm_restarts", "sequential", "chained"])
def test_state_dict_keys_match_torch(name):
    keys = []
    for lib in (numtorch, torch):
        _, _, sched = _run(lib, CASES[name], steps=3)
        keys.append(sorted(sched.state_dict()))
    assert keys[0] == keys[1]


def test_plateau_state_dict_keys_match_torch():
    make = lambda L, o: L.ReduceLROnPlateau(o, patience=1)  # noqa: E731
    sds = [_run(lib, make, steps=5, metrics=LOSSES)[2].state_dict()
           for lib in (numtorch, torch)]
    assert sds[0] == sds[1]


def test_plateau_state_dict_round_trip():
    make = lambda L, o: L.ReduceLROnPlateau(o, patience=1, cooldown=1)  # noqa: E731
    full, _, _ = _run(numtorch, make, metrics=LOSSES)
    part, opt, sched = _run(numtorch, make, steps=10, metrics=LOSSES)
    opt2 = _optimizer(numtorch)
    sched2 = make(numtorch.optim.lr_scheduler, opt2)
    opt2.load_state_dict(opt.state_dict())
    sched2.load_state_dict(sched.state_dict())
    rest = []
    for i in range(10, STEPS):
        sched2.step(LOSSES[i])
        rest.append(_snapshot(opt2, sched2))
    _compare(part + rest, full)


@pytest.mark.parametrize("lib", [numtorch, torch], ids=["numtorch", "torch"])
def test_warning_step_order(lib):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):
        sched.step()
    opt2 = _optimizer(lib)
    sched2 = lib.optim.lr_scheduler.StepLR(opt2, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2.step()
        sched2.step()
        sched2.step()


@pytest.mark.parametrize("lib", [numtorch, torch], ids=["numtorch", "torch"])
def test_get_lr_outside_step_warns(lib):
    opt = _optimizer(lib)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()


def test_legacy_names_and_paths():
    from numtorch.optim.lr_scheduler import _LRScheduler, LRScheduler
    assert _LRScheduler is LRScheduler
    L = numtorch.optim.lr_scheduler
    assert issubclass(L.ReduceLROnPlateau, LRScheduler)
    for name in torch.optim.lr_scheduler.__all__:
        assert hasattr(L, name), name


def test_resume_with_last_epoch():
    res = []
    for lib in (numtorch, torch):
        opt = _optimizer(lib)
        lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=4)
        seq = [(sched.get_last_lr(), [], [], [])]
        for _ in range(8):
            opt.step()
            sched.step()
            seq.append((sched.get_last_lr(), [], [], []))
        res.append(seq)
    _compare(*res)


def _raises_like_torch(fn):
    kinds = []
    for lib in (numtorch, torch):
        opt = _optimizer(lib)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(lib.optim.lr_scheduler, opt)
        except Exception as e:  # noqa: BLE001 - the kind is what is compared
            kinds.append(type(e))
        else:
            kinds.append(None)
    assert kinds[1] is not None
    assert kinds[0] is kinds[1]


BAD = {
    "not_optimizer": lambda L, o: L.StepLR(object(), 3),
    "resume_without_initial_lr": lambda L, o: L.StepLR(o, 3, last_epoch=4),
    "lambda_count": lambda L, o: L.LambdaLR(o, [lambda e: 1.0]),
    "constant_factor": lambda L, o: L.ConstantLR(o, factor=1.5),
    "linear_start": lambda L, o: L.LinearLR(o, start_factor=0),
    "linear_end": lambda L, o: L.LinearLR(o, end_factor=1.5),
    "warm_t0": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=0),
    "warm_tmult": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
    "warm_negative_epoch": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    "cyclic_mode": lambda L, o: L.CyclicLR(o, 0.01, 0.1, mode="sine"),
    "cyclic_len": lambda L, o: L.CyclicLR(o, [0.01], 0.1),
    "cyclic_no_momentum": lambda L, o: L.CyclicLR(
        numtorch.optim.Adagrad([numtorch.zeros(1, requires_grad=True)])
        if isinstance(o, numtorch.optim.Optimizer)
        else torch.optim.Adagrad([torch.zeros(1, requires_grad=True)]), 0.01, 0.1),
    "onecycle_steps": lambda L, o: L.OneCycleLR(o, 0.1),
    "onecycle_total": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=0),
    "onecycle_pct": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
    "onecycle_anneal": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10,
                                                 anneal_strategy="step"),
    "onecycle_overrun": lambda L, o: [s.step() for s in [L.OneCycleLR(o, 0.1, total_steps=3)]
                                      for _ in range(5)],
    "plateau_factor": lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    "plateau_mode": lambda L, o: L.ReduceLROnPlateau(o, mode="middle"),
    "plateau_threshold_mode": lambda L, o: L.ReduceLROnPlateau(o, threshold_mode="x"),
    "plateau_min_lrs": lambda L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
    "sequential_empty": lambda L, o: L.SequentialLR(o, [], milestones=[]),
    "sequential_milestones": lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2)], milestones=[3]),
    "sequential_other_opt": lambda L, o: L.SequentialLR(
        o, [L.StepLR(o, 2), L.StepLR(_optimizer(numtorch if isinstance(
            o, numtorch.optim.Optimizer) else torch), 2)], milestones=[3]),
    "chained_empty": lambda L, o: L.ChainedScheduler([]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input(name):
    _raises_like_torch(BAD[name])


RESUME = {
    "step": lambda L, o: L.StepLR(o, 2, last_epoch=3),
    "multistep": lambda L, o: L.MultiStepLR(o, [4, 6], last_epoch=3),
    "exponential": lambda L, o: L.ExponentialLR(o, 0.5, last_epoch=3),
    "lambda": lambda L, o: L.LambdaLR(o, lambda e: 0.5 ** e, last_epoch=3),
    "multiplicative": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.5, last_epoch=2),
    "constant": lambda L, o: L.ConstantLR(o, total_iters=3, last_epoch=2),
    "linear": lambda L, o: L.LinearLR(o, total_iters=6, last_epoch=2),
    "polynomial": lambda L, o: L.PolynomialLR(o, total_iters=8, last_epoch=2),
    "cosine": lambda L, o: L.CosineAnnealingLR(o, 10, last_epoch=3),
    "warm_restarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, last_epoch=3),
    "cyclic": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3, last_epoch=3),
    "onecycle": lambda L, o: L.OneCycleLR(o, 0.1, total_steps=20, last_epoch=3),
}


@pytest.mark.parametrize("name", list(RESUME))
def test_resume_from_last_epoch(name):
    res = []
    for lib in (numtorch, torch):
        opt = _optimizer(lib)
        for g, lr in zip(opt.param_groups, (0.2, 0.3)):
            g.update(initial_lr=lr, max_lr=0.3, min_lr=0.001, max_momentum=0.9,
                     base_momentum=0.8)
        sched = RESUME[name](lib.optim.lr_scheduler, opt)
        seq = [_snapshot(opt, sched)]
        for _ in range(10):
            opt.step()
            sched.step()
            seq.append(_snapshot(opt, sched))
        res.append(seq)
    _compare(*res)
