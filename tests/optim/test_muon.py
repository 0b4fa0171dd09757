"""torch.optim.Muon against torch's: the Newton-Schulz update in bfloat16 arithmetic, momentum,
Nesterov, the learning-rate adjustments, weight decay, argument errors and state dicts."""

import numpy as np
import pytest
import torch

import numtorch


def _run(lib, shape, steps=3, dtype="float32", **kw):
    rng = np.random.default_rng(sum(shape))
    w = lib.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    opt = lib.optim.Muon([w], lr=0.05, **kw)
    for _ in range(steps):
        w.grad = lib.tensor(rng.standard_normal(shape).astype(dtype))
        opt.step()
    return w.detach().numpy(), opt.state[w]["momentum_buffer"].numpy(), opt


_OPTIONS = [{}, {"nesterov": False}, {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0},
            {"adjust_lr_fn": "original", "momentum": 0.3}, {"ns_steps": 2, "eps": 1e-3}]


@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (5, 5), (12, 3)])
@pytest.mark.parametrize("kw", _OPTIONS)
def test_small_matrices_match_torch(shape, kw):
    a, ba, _ = _run(torch, shape, **kw)
    b, bb, _ = _run(numtorch, shape, **kw)
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-7)
    np.testing.assert_allclose(bb, ba, rtol=0, atol=3e-7)


@pytest.mark.parametrize("shape", [(64, 128), (256, 64)])
def test_large_matrices_within_bfloat16_rounding(shape):
    # torch's bfloat16 GEMMs add in another order: a few entries round to the neighbouring
    # bfloat16 value, a few 1e-4 after three steps at lr 0.05
    for kw in _OPTIONS[:3]:
        a, ba, _ = _run(torch, shape, **kw)
        b, bb, _ = _run(numtorch, shape, **kw)
        np.testing.assert_allclose(b, a, rtol=0, atol=2e-3)
        assert np.abs(b - a).mean() < 1e-4
        np.testing.assert_allclose(bb, ba, rtol=0, atol=1e-6)


def test_float64_parameters_stay_float64():
    a, _, _ = _run(torch, (8, 5), dtype="float64")
    b, _, _ = _run(numtorch, (8, 5), dtype="float64")
    assert b.dtype == np.float64
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-7)


def test_errors_match_torch():
    cases = [({"lr": -1}, (3, 4)), ({"weight_decay": -1}, (3, 4)), ({"momentum": -0.1}, (3, 4)),
             ({"adjust_lr_fn": "x"}, (3, 4)), ({}, (3,)), ({}, (2, 3, 4))]
    for kw, shape in cases:
        msgs = []
        for lib in (torch, numtorch):
            w = lib.zeros(shape, requires_grad=True)
            with pytest.raises(ValueError) as info:
                lib.optim.Muon([w], **kw)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]


def test_state_dict_repr_and_round_trip():
    _, _, t_opt = _run(torch, (4, 3))
    _, _, n_opt = _run(numtorch, (4, 3))
    assert repr(n_opt) == repr(t_opt)
    ts, ns = t_opt.state_dict(), n_opt.state_dict()
    assert ns["param_groups"] == ts["param_groups"]
    assert list(ns["state"][0]) == list(ts["state"][0])
    w = numtorch.zeros(4, 3, requires_grad=True)
    fresh = numtorch.optim.Muon([w])
    fresh.load_state_dict(ns)
    np.testing.assert_array_equal(fresh.state[w]["momentum_buffer"].numpy(),
                                  ns["state"][0]["momentum_buffer"].numpy())
    assert numtorch.optim.Muon.__module__ == torch.optim.Muon.__module__.replace("torch",
                                                                                 "numtorch")


def _train(lib):
    rng = np.random.default_rng(0)
    model = lib.nn.Sequential(lib.nn.Linear(8, 16, bias=False), lib.nn.Tanh(),
                              lib.nn.Linear(16, 1, bias=False))
    with lib.no_grad():
        for p in model.parameters():  # the same weights and data in both libraries
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype("float32") * 0.3))
    x = lib.tensor(rng.standard_normal((64, 8)).astype("float32"))
    y = lib.tensor(rng.standard_normal((64, 1)).astype("float32"))
    opt = lib.optim.Muon(model.parameters(), lr=0.02, weight_decay=0.01)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_training_loop_follows_torch():
    t, n = _train(torch), _train(numtorch)
    assert n[-1] < n[0]
    np.testing.assert_allclose(n, t, rtol=2e-3)
