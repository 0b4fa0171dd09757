"""legacy.optim on fixed problems: step for step against real torch.optim where the
algorithms coincide, Lua's own formulas where they differ, convergence for cg/lbfgs."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.legacy import optim

RNG = np.random.default_rng(4)
M = RNG.standard_normal((6, 6))
A = M @ M.T + 6 * np.eye(6)  # symmetric positive definite
B = RNG.standard_normal(6)
X0 = RNG.standard_normal(6)


def quad_nt(x):
    a, b = numtorch.tensor(A), numtorch.tensor(B)
    return float(0.5 * x @ (a @ x) - b @ x), a @ x - b


def quad_torch(x):
    a, b = torch.tensor(A), torch.tensor(B)
    return 0.5 * x @ (a @ x) - b @ x


def rosen_nt(x):
    a, b = x[:-1], x[1:]
    f = ((1 - a) ** 2 + 100 * (b - a * a) ** 2).sum()
    g = numtorch.zeros_like(x)
    g[:-1] += -2 * (1 - a) - 400 * a * (b - a * a)
    g[1:] += 200 * (b - a * a)
    return float(f), g


def rosen_torch(x):
    a, b = x[:-1], x[1:]
    return ((1 - a) ** 2 + 100 * (b - a * a) ** 2).sum()


def run_legacy(method, config, steps, fn=quad_nt, x0=X0):
    x = numtorch.tensor(x0.copy())
    state = {}
    fs = []
    for _ in range(steps):
        out = method(fn, x, config, state)
        assert out[0] is x
        fs.extend(out[1])
    return x, fs, state


def run_torch(make_opt, steps, fn=quad_torch, x0=X0):
    p = torch.tensor(x0.copy(), requires_grad=True)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # ASGD keeps eta/mu in default-dtype tensors
    try:
        opt = make_opt([p])
        fs = _steps(opt, p, fn, steps)
    finally:
        torch.set_default_dtype(old)
    return p.detach().numpy(), fs


def _steps(opt, p, fn, steps):
    fs = []

    def closure():
        opt.zero_grad()
        loss = fn(p)
        loss.backward()
        return loss

    for _ in range(steps):
        fs.append(float(opt.step(closure).detach()))
    return fs


PAIRS = {
    "sgd": (optim.sgd, {"learningRate": 0.05},
            lambda p: torch.optim.SGD(p, lr=0.05)),
    "sgd-momentum": (optim.sgd, {"learningRate": 0.05, "momentum": 0.8},
                     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, dampening=0.8)),
    "sgd-momentum-nodamp-wd": (
        optim.sgd, {"learningRate": 0.03, "momentum": 0.9, "dampening": 0, "weightDecay": 0.1},
        lambda p: torch.optim.SGD(p, lr=0.03, momentum=0.9, weight_decay=0.1)),
    "sgd-nesterov": (optim.sgd, {"learningRate": 0.03, "momentum": 0.9, "dampening": 0,
                                 "nesterov": True},
                     lambda p: torch.optim.SGD(p, lr=0.03, momentum=0.9, nesterov=True)),
    "adam-eps0": (optim.adam, {"learningRate": 0.1, "epsilon": 0, "beta1": 0.8},
                  lambda p: torch.optim.Adam(p, lr=0.1, betas=(0.8, 0.999), eps=0)),
    "adamax": (optim.adamax, {"learningRate": 0.1, "weightDecay": 0.05},
               lambda p: torch.optim.Adamax(p, lr=0.1, eps=1e-38, weight_decay=0.05)),
    "adagrad": (optim.adagrad, {"learningRate": 0.5, "learningRateDecay": 0.1},
                lambda p: torch.optim.Adagrad(p, lr=0.5, lr_decay=0.1, eps=1e-10)),
    "adadelta": (optim.adadelta, {"rho": 0.8, "eps": 1e-4, "weightDecay": 0.01},
                 lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.8, eps=1e-4,
                                                weight_decay=0.01)),
    "rmsprop": (optim.rmsprop, {"learningRate": 0.01, "alpha": 0.9},
                lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, eps=1e-8)),
    "rprop": (optim.rprop, {"stepsize": 0.05, "etaplus": 1.3, "etaminus": 0.4},
              lambda p: torch.optim.Rprop(p, lr=0.05, etas=(0.4, 1.3), step_sizes=(1e-6, 50))),
    "asgd": (optim.asgd, {"eta0": 0.02, "lambda": 0.01, "alpha": 0.75, "t0": 5},
             lambda p: torch.optim.ASGD(p, lr=0.02, lambd=0.01, alpha=0.75, t0=5)),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_matches_torch_optim(name):
    method, config, make_opt = PAIRS[name]
    x, fs, _ = run_legacy(method, dict(config), 15)
    want_x, want_fs = run_torch(make_opt, 15)
    np.testing.assert_allclose(fs, want_fs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.numpy(), want_x, rtol=1e-10, atol=1e-12)


def test_asgd_average_matches_torch():
    x = numtorch.tensor(X0.copy())
    state = {}
    p = torch.tensor(X0.copy(), requires_grad=True)
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # torch keeps eta/mu in default-dtype tensors
    try:
        opt = torch.optim.ASGD([p], lr=0.02, lambd=0.01, t0=3)
        for _ in range(8):
            _, _, ax = optim.asgd(quad_nt, x, {"eta0": 0.02, "lambda": 0.01, "t0": 3}, state)
            opt.zero_grad()
            quad_torch(p).backward()
            opt.step()
    finally:
        torch.set_default_dtype(old)
    np.testing.assert_allclose(ax.numpy(), opt.state[p]["ax"].numpy(), rtol=1e-10)


def test_nag_is_torch_nesterov_at_the_lookahead_point():
    # Sutskever's NAG evaluates f at x + mom * v; torch's nesterov SGD keeps that point
    x, fs, state = run_legacy(optim.nag, {"learningRate": 0.03, "momentum": 0.9}, 12)
    want_x, want_fs = run_torch(lambda p: torch.optim.SGD(p, lr=0.03, momentum=0.9,
                                                          nesterov=True), 12)
    np.testing.assert_allclose(fs, want_fs, rtol=1e-10)
    lookahead = x + 0.9 * state["dfdx"]
    np.testing.assert_allclose(lookahead.numpy(), want_x, rtol=1e-10)
    with pytest.raises(ValueError, match="Momentum must be positive"):
        optim.nag(quad_nt, numtorch.tensor(X0.copy()), {"momentum": 0})


def test_adam_lua_epsilon_placement():
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-3
    x, _, _ = run_legacy(optim.adam, {"learningRate": lr, "epsilon": eps}, 5)
    xr = X0.copy()
    m = v = np.zeros(6)
    for t in range(1, 6):
        g = A @ xr - B
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        xr = xr - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
    np.testing.assert_allclose(x.numpy(), xr, rtol=1e-12)


def test_sgd_learning_rate_decay_and_per_element_rates():
    lrs = RNG.uniform(0.5, 1.5, 6)
    wds = RNG.uniform(0, 0.2, 6)
    config = {"learningRate": 0.05, "learningRateDecay": 0.3,
              "learningRates": numtorch.tensor(lrs), "weightDecays": numtorch.tensor(wds)}
    x, _, state = run_legacy(optim.sgd, config, 4)
    xr = X0.copy()
    for n in range(4):
        g = A @ xr - B + wds * xr
        xr = xr - 0.05 / (1 + n * 0.3) * lrs * g
    np.testing.assert_allclose(x.numpy(), xr, rtol=1e-12)
    assert state["evalCounter"] == 4


def test_state_defaults_to_config():
    config = {"learningRate": 0.1, "momentum": 0.5}
    x = numtorch.tensor(X0.copy())
    optim.sgd(quad_nt, x, config)
    assert config["evalCounter"] == 1 and "dfdx" in config
    with pytest.raises(ValueError, match="Nesterov"):
        optim.sgd(quad_nt, x, {"nesterov": True, "momentum": 0.5})


def test_lbfgs_matches_torch_lbfgs():
    cfg = {"maxIter": 15, "tolFun": 1e-14, "tolX": 1e-14, "nCorrection": 4,
           "learningRate": 0.5}
    x0 = np.array([-1.2, 1.0, -0.5, 0.7])
    x, fs, evals = optim.lbfgs(rosen_nt, numtorch.tensor(x0.copy()), cfg)
    p = torch.tensor(x0.copy(), requires_grad=True)
    opt = torch.optim.LBFGS([p], lr=0.5, max_iter=15, tolerance_grad=1e-14,
                            tolerance_change=1e-14, history_size=4)

    def closure():
        opt.zero_grad()
        loss = rosen_torch(p)
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.numpy(), p.detach().numpy(), rtol=1e-9)
    assert evals == opt.state[p]["func_evals"] == len(fs)


def test_lbfgs_with_lswolfe_converges_on_rosenbrock():
    x = numtorch.tensor([-1.2, 1.0, -0.5, 0.7, 0.3], dtype=numtorch.float64)
    state = {}
    for _ in range(10):
        x, fs, _ = optim.lbfgs(rosen_nt, x, {"maxIter": 50, "lineSearch": optim.lswolfe},
                               state)
    np.testing.assert_allclose(x.numpy(), np.ones(5), atol=1e-5)
    assert fs[-1] < 1e-9


def test_lswolfe_satisfies_strong_wolfe():
    x = numtorch.tensor([-1.2, 1.0], dtype=numtorch.float64)
    f, g = rosen_nt(x)
    d = -g
    gtd = float(g @ d)
    f_new, g_new, x_new, t, evals = optim.lswolfe(rosen_nt, x, 1.0, d, f, g, gtd)
    assert x_new is x
    np.testing.assert_allclose(x.numpy(), np.array([-1.2, 1.0]) + t * d.numpy())
    assert f_new <= f + 1e-4 * t * gtd  # sufficient decrease
    assert abs(float(g_new @ d)) <= 0.9 * abs(gtd)  # curvature
    assert 1 <= evals <= 20
    assert abs(rosen_nt(x)[0] - f_new) < 1e-12


def test_cg_converges():
    x = numtorch.tensor(X0.copy())
    x, fs, evals = optim.cg(quad_nt, x, {"maxIter": 50, "maxEval": 200})
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A, B), rtol=1e-6, atol=1e-8)
    assert all(a >= b for a, b in zip(fs, fs[1:]))
    assert evals <= 200
    y = numtorch.tensor([-1.2, 1.0, 0.5], dtype=numtorch.float64)
    for _ in range(5):
        y, fs, _ = optim.cg(rosen_nt, y, {"maxIter": 100, "maxEval": 300})
    np.testing.assert_allclose(y.numpy(), np.ones(3), atol=1e-5)


def test_cg_respects_max_eval():
    calls = []

    def counted(x):
        calls.append(1)
        return rosen_nt(x)

    _, _, evals = optim.cg(counted, numtorch.tensor([-1.2, 1.0], dtype=numtorch.float64),
                           {"maxEval": 10})
    assert evals == len(calls) and evals <= 10 + 20  # a started line search may finish


def test_flat_parameters_with_optim_train_like_numtorch_nn():
    from numtorch.legacy import nn

    numtorch.manual_seed(7)
    legacy = nn.Sequential().add(nn.Linear(4, 5)).add(nn.Tanh()).add(nn.Linear(5, 1)).double()
    crit = nn.MSECriterion()
    modern = numtorch.nn.Sequential(numtorch.nn.Linear(4, 5), numtorch.nn.Tanh(),
                                    numtorch.nn.Linear(5, 1)).double()
    with numtorch.no_grad():
        for p, q in zip(legacy.parameters()[0], modern.parameters()):
            q.copy_(p)
    params, grads = legacy.flattenParameters()
    x, y = numtorch.randn(8, 4, dtype=numtorch.float64), numtorch.randn(8, 1,
                                                                        dtype=numtorch.float64)

    def feval(_):
        legacy.zeroGradParameters()
        loss = crit.forward(legacy.forward(x), y)
        legacy.backward(x, crit.backward(legacy.output, y))
        return loss, grads

    opt = numtorch.optim.SGD(modern.parameters(), lr=0.1, momentum=0.9, dampening=0.9)
    config = {"learningRate": 0.1, "momentum": 0.9}
    for _ in range(6):
        _, fs = optim.sgd(feval, params, config)
        opt.zero_grad()
        loss = numtorch.nn.functional.mse_loss(modern(x), y)
        loss.backward()
        opt.step()
        assert abs(fs[0] - loss.item()) < 1e-12
    for p, q in zip(legacy.parameters()[0], modern.parameters()):
        np.testing.assert_allclose(p.numpy(), q.detach().numpy(), rtol=1e-10)
