"""Optimizer trajectories, state dicts and errors against real torch as the oracle."""

import warnings

import numpy as np
import pytest
import torch

import numtorch

RTOL, ATOL = 1e-4, 1e-5
STEPS = 5

_rng = np.random.default_rng(0)
W0 = _rng.standard_normal((4, 3)).astype(np.float32)
B0 = _rng.standard_normal(3).astype(np.float32)
X = _rng.standard_normal((5, 4)).astype(np.float32)
X_SPARSE = X.copy()
X_SPARSE[:, 1] = 0  # the second row of W gets a zero gradient


def _loss(lib, w, b, x, reg=0.1):
    # a strong L2 term (reg=1) keeps L-BFGS's quasi-Newton steps well conditioned
    return lib.tanh(lib.from_numpy(x) @ w + b).pow(2).sum() + (w * w).sum() * reg \
        + (b * b).sum() * (reg - 0.1)


def _params(lib):
    w = lib.nn.Parameter(lib.from_numpy(W0.copy()))
    b = lib.nn.Parameter(lib.from_numpy(B0.copy()))
    return w, b


def _make_opt(lib, name, kwargs, w, b, groups):
    cls = getattr(lib.optim, name)
    if groups is None:
        return cls([w, b], **kwargs)
    return cls([dict(params=[w], **groups[0]), dict(params=[b], **groups[1])], **kwargs)


def _closure(lib, opt, w, b, x, sparse):
    reg = 1.0 if isinstance(opt, lib.optim.LBFGS) else 0.1

    def closure():
        opt.zero_grad()
        loss = _loss(lib, w, b, x, reg)
        loss.backward()
        if sparse and (lib is torch or w.device.type == "cpu"):  # (numtorch: CPU-only COO)
            for p in (w, b):
                p.grad = p.grad.to_sparse()
        return loss
    return closure


def _trajectory(lib, name, kwargs, groups=None, use_closure=False, sparse=False, steps=STEPS):
    w, b = _params(lib)
    opt = _make_opt(lib, name, kwargs, w, b, groups)
    x = X_SPARSE if sparse else X
    closure = _closure(lib, opt, w, b, x, sparse)
    out = []
    for _ in range(steps):
        if use_closure:
            loss = opt.step(closure)
            out.append(np.float32(float(loss.detach())))
        else:
            closure()
            opt.step()
        out.append(w.detach().numpy().copy())
        out.append(b.detach().numpy().copy())
    return out, opt


def _compare(a, b, atol=ATOL):
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        assert np.asarray(x).dtype == np.asarray(y).dtype, i
        np.testing.assert_allclose(x, y, rtol=RTOL, atol=atol, err_msg=f"entry {i}")


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, maximize=True, decoupled_weight_decay=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, maximize=True, foreach=False)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, maximize=True, differentiable=False)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, alpha=0.9, maximize=True)),
    ("Rprop", dict(lr=0.05)),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.08), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, momentum_decay=0.1, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.6), weight_decay=0.1, decoupled_weight_decay=True,
                   maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=lambda v: str(v))
def test_trajectory(name, kwargs):
    ours, _ = _trajectory(numtorch, name, kwargs)
    ref, _ = _trajectory(torch, name, kwargs)
    _compare(ours, ref)


@pytest.mark.parametrize("name,kwargs", CASES[::3], ids=lambda v: str(v))
def test_trajectory_closure(name, kwargs):
    ours, _ = _trajectory(numtorch, name, kwargs, use_closure=True)
    ref, _ = _trajectory(torch, name, kwargs, use_closure=True)
    _compare(ours, ref)


GROUP_CASES = [
    ("SGD", dict(lr=0.1), [dict(momentum=0.9), dict(lr=0.01)]),
    ("Adam", dict(lr=0.05), [dict(amsgrad=True), dict(lr=0.01, weight_decay=0.1)]),
    ("RMSprop", dict(), [dict(centered=True), dict(momentum=0.5)]),
    ("Rprop", dict(), [dict(etas=(0.4, 1.1)), dict(lr=0.1)]),
    ("Adagrad", dict(), [dict(lr_decay=0.5), dict(lr=0.5)]),
    ("ASGD", dict(), [dict(t0=1), dict(lr=0.2)]),
    ("NAdam", dict(), [dict(momentum_decay=0.01), dict(lr=0.2)]),
    ("RAdam", dict(), [dict(betas=(0.5, 0.6)), dict(lr=0.2)]),
    ("Adamax", dict(), [dict(betas=(0.5, 0.6)), dict(lr=0.2)]),
    ("Adadelta", dict(), [dict(rho=0.5), dict(lr=0.2)]),
]


@pytest.mark.parametrize("name,kwargs,groups", GROUP_CASES, ids=lambda v: str(v))
def test_param_groups(name, kwargs, groups):
    ours, _ = _trajectory(numtorch, name, kwargs, groups)
    ref, _ = _trajectory(torch, name, kwargs, groups)
    _compare(ours, ref)


@pytest.mark.parametrize("kwargs", [dict(lr=0.01), dict(lr=0.05, betas=(0.5, 0.7), eps=1e-6),
                                    dict(lr=0.05, maximize=True)])
def test_sparse_adam(kwargs):
    ours, _ = _trajectory(numtorch, "SparseAdam", kwargs, sparse=True)
    ref, _ = _trajectory(torch, "SparseAdam", kwargs, sparse=True)
    _compare(ours, ref)


@pytest.mark.parametrize("kwargs", [
    dict(), dict(lr=0.5, max_iter=4), dict(history_size=2, max_iter=7),
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", history_size=3, max_iter=6, lr=0.8),
    dict(tolerance_grad=1e-2, tolerance_change=1e-3, lr=0.5, max_iter=6),
    dict(max_iter=6, max_eval=4, lr=0.5),
])
def test_lbfgs(kwargs):
    ours, _ = _trajectory(numtorch, "LBFGS", kwargs, use_closure=True, steps=3)
    ref, _ = _trajectory(torch, "LBFGS", kwargs, use_closure=True, steps=3)
    # float32 dot products summed in a different order; quasi-Newton steps amplify that
    _compare(ours, ref, atol=1e-4)


# -- state dicts --------------------------------------------------------------------------

def _convert(obj, fn):
    if isinstance(obj, dict):
        return {k: _convert(v, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_convert(v, fn) for v in obj)
    if isinstance(obj, (torch.Tensor, numtorch.Tensor)):
        return fn(obj)
    return obj


def _to_ours(t):
    return numtorch.from_numpy(t.detach().numpy().copy())


def _to_torch(t):
    return torch.from_numpy(t.detach().numpy().copy())


def _continue(lib, opt, w, b, steps=3, use_closure=False):
    sparse = isinstance(opt, lib.optim.SparseAdam)
    closure = _closure(lib, opt, w, b, X_SPARSE if sparse else X, sparse)
    out = []
    for _ in range(steps):
        if use_closure:
            opt.step(closure)
        else:
            closure()
            opt.step()
        out += [w.detach().numpy().copy(), b.detach().numpy().copy()]
    return out


SD_CASES = CASES[1::2] + [("LBFGS", dict(history_size=3, max_iter=4, lr=0.5)),
                          ("LBFGS", dict(line_search_fn="strong_wolfe", max_iter=4)),
                          ("SparseAdam", dict(lr=0.05))]


def _state_keys(sd):
    return {i: sorted(s) for i, s in sd["state"].items()}


@pytest.mark.parametrize("convert", [True, False], ids=["from_numpy", "torch_tensors"])
@pytest.mark.parametrize("name,kwargs", SD_CASES, ids=lambda v: str(v))
def test_state_dict_torch_to_numtorch(name, kwargs, convert):
    closure = name == "LBFGS"
    _, t_opt = _trajectory(torch, name, kwargs, use_closure=closure, steps=3,
                           sparse=name == "SparseAdam")
    sd = t_opt.state_dict()
    tw, tb = t_opt.param_groups[0]["params"][0], t_opt.param_groups[0]["params"][1]
    w = numtorch.nn.Parameter(_to_ours(tw))
    b = numtorch.nn.Parameter(_to_ours(tb))
    opt = getattr(numtorch.optim, name)([w, b], **kwargs)
    opt.load_state_dict(_convert(sd, _to_ours) if convert else sd)
    ours_sd = opt.state_dict()
    assert _state_keys(ours_sd) == _state_keys(sd)
    assert ours_sd["param_groups"] == sd["param_groups"]
    _compare(_continue(numtorch, opt, w, b, use_closure=closure),
             _continue(torch, t_opt, tw, tb, use_closure=closure))


@pytest.mark.parametrize("name,kwargs", SD_CASES, ids=lambda v: str(v))
def test_state_dict_numtorch_to_torch(name, kwargs):
    closure = name == "LBFGS"
    _, opt = _trajectory(numtorch, name, kwargs, use_closure=closure, steps=3,
                         sparse=name == "SparseAdam")
    w, b = opt.param_groups[0]["params"]
    tw = torch.nn.Parameter(_to_torch(w))
    tb = torch.nn.Parameter(_to_torch(b))
    t_opt = getattr(torch.optim, name)([tw, tb], **kwargs)
    t_opt.load_state_dict(_convert(opt.state_dict(), _to_torch))
    _compare(_continue(numtorch, opt, w, b, use_closure=closure),
             _continue(torch, t_opt, tw, tb, use_closure=closure))


def test_state_dict_same_keys_after_step():
    for name, kwargs in CASES:
        _, ours = _trajectory(numtorch, name, kwargs, steps=1)
        _, ref = _trajectory(torch, name, kwargs, steps=1)
        a, r = ours.state_dict(), ref.state_dict()
        assert _state_keys(a) == _state_keys(r), name
        assert a["param_groups"] == r["param_groups"], name
        for i in r["state"]:
            for k, v in r["state"][i].items():
                if isinstance(v, torch.Tensor):
                    assert str(a["state"][i][k].dtype) == str(v.dtype), (name, k)
                    assert tuple(a["state"][i][k].shape) == tuple(v.shape), (name, k)


def test_adagrad_state_before_step():
    for lib in (numtorch, torch):
        w, b = _params(lib)
        sd = lib.optim.Adagrad([w, b], initial_accumulator_value=0.3).state_dict()
        assert sorted(sd["state"]) == [0, 1]
        np.testing.assert_allclose(sd["state"][0]["sum"].numpy(), np.full((4, 3), 0.3))


# -- misc API -----------------------------------------------------------------------------

def test_add_param_group():
    outs = []
    for lib in (numtorch, torch):
        w, b = _params(lib)
        opt = lib.optim.Adam([w], lr=0.05)
        closure = _closure(lib, opt, w, b, X, False)
        closure()
        opt.step()
        opt.add_param_group({"params": b, "lr": 0.1, "amsgrad": True})
        assert len(opt.param_groups) == 2
        assert opt.param_groups[1]["betas"] == (0.9, 0.999)
        for _ in range(3):
            closure()
            opt.step()
        outs.append([w.detach().numpy().copy(), b.detach().numpy().copy()])
    _compare(*outs)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    res = []
    for lib in (numtorch, torch):
        w, b = _params(lib)
        opt = lib.optim.SGD([w, b], lr=0.1)
        _loss(lib, w, b, X).backward()
        opt.zero_grad(set_to_none=set_to_none)
        res.append([None if p.grad is None else p.grad.numpy().copy() for p in (w, b)])
    assert [g is None for g in res[0]] == [g is None for g in res[1]]
    for a, r in zip(*res):
        if r is not None:
            np.testing.assert_array_equal(a, r)


@pytest.mark.parametrize("name,kwargs", CASES[::4] + [("LBFGS", {}), ("SparseAdam", {})],
                         ids=lambda v: str(v))
def test_repr(name, kwargs):
    ours = getattr(numtorch.optim, name)(_params(numtorch), **kwargs)
    ref = getattr(torch.optim, name)(_params(torch), **kwargs)
    assert repr(ours) == repr(ref)


def _both_raise(fn):
    kinds = []
    for lib in (numtorch, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                fn(lib)
            except Exception as e:  # noqa: BLE001 - the kind is what is compared
                kinds.append(type(e))
            else:
                kinds.append(None)
    assert kinds[1] is not None
    assert kinds[0] is kinds[1]


BAD = [
    ("non_leaf", lambda lib: lib.optim.SGD([lib.ones(3, requires_grad=True) * 2], lr=0.1)),
    ("empty", lambda lib: lib.optim.Adam([])),
    ("tensor", lambda lib: lib.optim.Adam(lib.ones(3, requires_grad=True))),
    ("duplicate", lambda lib: lib.optim.SGD([_params(lib)[0]] * 2, lr=0.1)),
    ("two_groups", lambda lib: (lambda w: lib.optim.SGD([{"params": [w]}, {"params": [w]}],
                                                        lr=0.1))(_params(lib)[0])),
    ("lbfgs_groups", lambda lib: lib.optim.LBFGS([{"params": [p]} for p in _params(lib)])),
    ("lbfgs_search", lambda lib: (lambda o, p: o.step(_closure(lib, o, *p, X, False)))(
        *(lambda p: (lib.optim.LBFGS(list(p), line_search_fn="wolfe"), p))(_params(lib)))),
    ("sgd_nesterov", lambda lib: lib.optim.SGD(_params(lib), lr=0.1, nesterov=True)),
]
for _name in ["SGD", "Adam", "AdamW", "Adamax", "Adadelta", "Adagrad", "RMSprop", "Rprop",
              "ASGD", "NAdam", "RAdam", "SparseAdam", "LBFGS"]:
    BAD.append((f"{_name}_negative_lr", (lambda n: lambda lib: getattr(lib.optim, n)(
        _params(lib), lr=-0.1))(_name)))
for _name in ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "SparseAdam"]:
    for _betas in [(1.0, 0.9), (0.9, -0.1), (0.5, 1.5)]:
        BAD.append((f"{_name}_betas_{_betas}", (lambda n, bt: lambda lib: getattr(
            lib.optim, n)(_params(lib), betas=bt))(_name, _betas)))
for _name, _kw in [("Adadelta", dict(rho=1.5)), ("Adagrad", dict(lr_decay=-1)),
                   ("Adagrad", dict(initial_accumulator_value=-1)), ("Adagrad", dict(eps=-1)),
                   ("RMSprop", dict(alpha=-1)), ("RMSprop", dict(momentum=-1)),
                   ("Rprop", dict(etas=(1.1, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
                   ("ASGD", dict(weight_decay=-1)), ("NAdam", dict(momentum_decay=-1)),
                   ("RAdam", dict(eps=-1)), ("Adamax", dict(weight_decay=-1)),
                   ("SparseAdam", dict(eps=0)), ("SGD", dict(lr=0.1, momentum=-1))]:
    BAD.append((f"{_name}_{_kw}", (lambda n, k: lambda lib: getattr(lib.optim, n)(
        _params(lib), **k))(_name, _kw)))


@pytest.mark.parametrize("fn", [f for _, f in BAD], ids=[n for n, _ in BAD])
def test_bad_input(fn):
    _both_raise(fn)


def test_non_leaf_message():
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        numtorch.optim.Adam([numtorch.ones(3, requires_grad=True) * 2])


def test_float32_stays_float32():
    for name, kwargs in CASES:
        _, opt = _trajectory(numtorch, name, kwargs, steps=2)
        for p in opt.param_groups[0]["params"]:
            assert p.dtype == numtorch.float32
            for v in opt.state[p].values():
                if isinstance(v, numtorch.Tensor):
                    assert v.dtype == numtorch.float32, name


@pytest.mark.parametrize("how", ["retain_grad", "differentiable"])
def test_non_leaf_allowed(how):
    for lib in (numtorch, torch):
        x = lib.ones(3, requires_grad=True) * 2
        if how == "retain_grad":
            x.retain_grad()
            lib.optim.SGD([x], lr=0.1)
        else:
            lib.optim.SGD([x], lr=0.1, differentiable=True)


@pytest.mark.parametrize("name,kwargs", [("Adam", {}), ("NAdam", {}), ("RMSprop",
                                         dict(centered=True)), ("ASGD", dict(t0=1)),
                                         ("LBFGS", {}), ("LBFGS",
                                                         dict(line_search_fn="strong_wolfe"))])
def test_float64_trajectory(name, kwargs):
    res = []
    for lib in (numtorch, torch):
        w = lib.nn.Parameter(lib.from_numpy(W0.astype(np.float64)))
        b = lib.nn.Parameter(lib.from_numpy(B0.astype(np.float64)))
        opt = getattr(lib.optim, name)([w, b], **kwargs)
        closure = _closure(lib, opt, w, b, X.astype(np.float64), False)
        out = []
        for _ in range(3):
            opt.step(closure)
            out += [w.detach().numpy().copy(), b.detach().numpy().copy()]
        res.append(out)
    for x, y in zip(*res):
        assert x.dtype == y.dtype == np.float64
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)
