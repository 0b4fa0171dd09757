"""Session 49 (half): float16/bfloat16 arithmetic with 0-d float tensors and 16-bit
optimizer steps, compared bit for bit with real torch at test time."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch

_DT = {"float16": (torch.float16, numtorch.float16), "bfloat16": (torch.bfloat16, numtorch.bfloat16)}
_SDT = {"float32": (torch.float32, numtorch.float32), "float64": (torch.float64, numtorch.float64)}


def _same(a, b):
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(a.detach().float().numpy()),
                                  np.asarray(b.detach().float().numpy()))


def _foreach_mul_(L, x, s):
    xs = [x.clone()]
    L._foreach_mul_(xs, s)
    return xs[0]


_FORMS = {
    "mul": lambda L, x, s, s2: x.mul(s),
    "rmul": lambda L, x, s, s2: s * x,
    "div": lambda L, x, s, s2: x / s2,
    "rdiv": lambda L, x, s, s2: s2 / x,
    "add": lambda L, x, s, s2: x + s2,
    "sub_alpha": lambda L, x, s, s2: x.sub(s2, alpha=0.3),
    "mul_": lambda L, x, s, s2: x.clone().mul_(s),
    "div_": lambda L, x, s, s2: x.clone().div_(s2),
    "floor_div": lambda L, x, s, s2: x.div(s2, rounding_mode="floor"),
    "trunc_div": lambda L, x, s, s2: x.div(s2, rounding_mode="trunc"),
    "foreach_mul": lambda L, x, s, s2: L._foreach_mul([x], s)[0],
    "foreach_div": lambda L, x, s, s2: L._foreach_div([x], s2)[0],
    "foreach_mul_": lambda L, x, s, s2: _foreach_mul_(L, x, s),
    "param_mul": lambda L, x, s, s2: L.nn.Parameter(x.clone()).mul(s),
    "clamp": lambda L, x, s, s2: x.clamp(min=s2 - 1.5, max=s),
    "where": lambda L, x, s, s2: L.where(x > 0, x, s2),
}


@pytest.mark.parametrize("form", sorted(_FORMS))
@pytest.mark.parametrize("sdt", sorted(_SDT))
@pytest.mark.parametrize("dt", sorted(_DT))
def test_half_with_0d_float_tensor(dt, sdt, form):
    vals = (np.random.default_rng(0).random(64) * 4 - 2).astype(np.float32)
    out = []
    for i, L in enumerate((torch, numtorch)):
        x = L.tensor(vals).to(_DT[dt][i])
        s = L.tensor(0.999, dtype=_SDT[sdt][i])
        s2 = L.tensor(1.2345678, dtype=_SDT[sdt][i])
        out.append(_FORMS[form](L, x, s, s2))
    _same(*out)


@pytest.mark.parametrize("dt", sorted(_DT))
def test_half_times_0d_grad(dt):
    vals = (np.random.default_rng(1).random(16) * 4 - 2).astype(np.float32)
    grads = []
    for i, L in enumerate((torch, numtorch)):
        x = L.tensor(vals).to(_DT[dt][i]).requires_grad_()
        y = (x * L.tensor(0.999)) / L.tensor(1.2345678, dtype=L.float64)
        y.backward(L.ones_like(y) * 0.777)
        grads.append((y, x.grad))
    _same(grads[0][0], grads[1][0])
    _same(grads[0][1], grads[1][1])


def _grad_form(L, op, x, s, x0):
    if op == "mul":
        return x * s
    if op == "rmul":
        return s * x
    if op == "div":
        return x / s
    if op == "mul_":
        y = x.clone()
        y.mul_(s)
        return y
    if op == "div_":
        y = x.clone()
        y.div_(s)
        return y
    return L.nn.Parameter(x0.clone()) * s  # a Parameter operand


@pytest.mark.parametrize("op", ["mul", "rmul", "div", "mul_", "div_", "param"])
@pytest.mark.parametrize("sdt", sorted(_SDT))
@pytest.mark.parametrize("dt", sorted(_DT))
def test_half_with_0d_float_tensor_needing_grad(dt, sdt, op):
    vals = (np.random.default_rng(2).random(16) * 4 - 2).astype(np.float32)
    res = []
    for i, L in enumerate((torch, numtorch)):
        x0 = L.tensor(vals).to(_DT[dt][i])
        x = x0.clone().requires_grad_()
        s = L.tensor(1.2345678, dtype=_SDT[sdt][i], requires_grad=True)
        y = _grad_form(L, op, x, s, x0)
        name = y.grad_fn.name()
        y.backward(L.ones_like(y) * 0.777, create_graph=True)
        g2 = L.autograd.grad(s.grad, s, allow_unused=True)[0] if s.grad.requires_grad else None
        res.append((name, y, s.grad, x.grad, g2))
    (n1, y1, s1, x1, h1), (n2, y2, s2, x2, h2) = res
    assert n1 == n2
    _same(y1, y2)
    _same(s1, s2)
    assert (x1 is None) == (x2 is None)
    if x1 is not None:
        _same(x1, x2)
    assert (h1 is None) == (h2 is None)
    if h1 is not None:
        _same(h1, h2)


@pytest.mark.parametrize("op", ["mul", "div"])
def test_half_0d_with_0d_float_promotes(op):
    out = []
    for L in (torch, numtorch):
        x = L.tensor(0.368408203125, dtype=L.float16)
        s = L.tensor(0.999)
        out.append(x * s if op == "mul" else x / s)
    _same(*out)


_OPT_CFGS = {
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd_nesterov_wd": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    "sgd_dampening": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1}),
    "sgd_maximize": ("SGD", {"lr": 0.1, "momentum": 0.8, "maximize": True}),
    "rmsprop": ("RMSprop", {"lr": 0.01}),
    "rmsprop_momentum": ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    "rmsprop_centered": ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    "rmsprop_wd_eps": ("RMSprop", {"lr": 0.01, "weight_decay": 0.01, "eps": 1e-3}),
    "adagrad": ("Adagrad", {"lr": 0.1}),
    "adagrad_decay": ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
    "adagrad_wd": ("Adagrad", {"lr": 0.05, "weight_decay": 0.01}),
    "adagrad_all": ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.01,
                                "initial_accumulator_value": 0.1}),
    "adagrad_maximize": ("Adagrad", {"lr": 0.1, "maximize": True}),
    "nadam": ("NAdam", {"lr": 0.01, "eps": 1e-3}),
    "nadam_wd": ("NAdam", {"lr": 0.01, "weight_decay": 0.01, "eps": 1e-4}),
    "nadam_decoupled": ("NAdam", {"lr": 0.01, "decoupled_weight_decay": True,
                                  "weight_decay": 0.1, "eps": 1e-3}),
    "radam": ("RAdam", {"lr": 0.01, "_steps": 9}),
    "radam_wd": ("RAdam", {"lr": 0.01, "weight_decay": 0.01, "_steps": 9}),
    "radam_decoupled_eps": ("RAdam", {"lr": 0.01, "decoupled_weight_decay": True,
                                      "weight_decay": 0.1, "eps": 1e-3, "_steps": 9}),
    "adadelta": ("Adadelta", {"lr": 1.0}),
    "adadelta_wd": ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.01}),
}


def _opt_run(L, name, kw, dt, foreach):
    kw = dict(kw)
    steps = kw.pop("_steps", 5)
    rng = np.random.default_rng(3)
    shapes = [(37,), (5, 3)]
    ps = [L.nn.Parameter(L.tensor(rng.standard_normal(s).astype(np.float32) * 0.5).to(dt))
          for s in shapes]
    opt = getattr(L.optim, name)(ps, foreach=foreach, **kw)
    for _ in range(steps):
        for p, s in zip(ps, shapes):
            p.grad = L.tensor(rng.standard_normal(s).astype(np.float32) * 0.3).to(dt)
        opt.step()
    return ps


@pytest.mark.parametrize("foreach", [True, False])
@pytest.mark.parametrize("cfg", sorted(_OPT_CFGS))
@pytest.mark.parametrize("dt", sorted(_DT))
def test_half_optimizer_steps_bitwise(dt, cfg, foreach):
    name, kw = _OPT_CFGS[cfg]
    pt = _opt_run(torch, name, kw, _DT[dt][0], foreach)
    pn = _opt_run(numtorch, name, kw, _DT[dt][1], foreach)
    for a, b in zip(pt, pn):
        _same(a, b)

