"""Containers against torch: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
(indexing, mutation, reprs, state_dict keys, errors)."""

from collections import OrderedDict

import numpy as np
import pytest
import torch

import numtorch
from tests.nn._compare import copy_state, run, same


def seq(t):
    return t.nn.Sequential(t.nn.Linear(2, 3), t.nn.Identity(), t.nn.Linear(3, 1))


def named_seq(t):
    return t.nn.Sequential(OrderedDict([("fc", t.nn.Linear(2, 3)), ("id", t.nn.Identity()),
                                        ("out", t.nn.Flatten())]))


def keys(m):
    return list(m._modules)


# -- Sequential --------------------------------------------------------------------------------
@pytest.mark.parametrize("op", [
    lambda t, s: s,
    lambda t, s: s[-1],
    lambda t, s: s[0],
    lambda t, s: s[1:],
    lambda t, s: s[::2],
    lambda t, s: s[5],
    lambda t, s: s[-4],
    lambda t, s: s["a"],
    lambda t, s: len(s),
    lambda t, s: [type(m).__name__ for m in s],
    lambda t, s: s + t.nn.Sequential(t.nn.Flatten()),
    lambda t, s: s + t.nn.Flatten(),
    lambda t, s: s * 2,
    lambda t, s: 2 * s,
    lambda t, s: s * 0,
    lambda t, s: s * 1.5,
    lambda t, s: (s.__iadd__(t.nn.Sequential(t.nn.Flatten())), s)[1],
    lambda t, s: s.__iadd__(t.nn.Flatten()),
    lambda t, s: (s.append(t.nn.Flatten()), s)[1],
    lambda t, s: s.append(t.nn.Flatten()) is s,
    lambda t, s: (s.insert(1, t.nn.Flatten()), s)[1],
    lambda t, s: (s.insert(-1, t.nn.Flatten()), s)[1],
    lambda t, s: (s.insert(3, t.nn.Flatten()), s)[1],
    lambda t, s: s.insert(10, t.nn.Flatten()),
    lambda t, s: s.insert(0, 3),
    lambda t, s: s.append(3),
    lambda t, s: (s.extend([t.nn.Flatten(), t.nn.Identity()]), s)[1],
    lambda t, s: s.extend(t.nn.Flatten()),
    lambda t, s: (s.pop(0), s),
    lambda t, s: (s.pop(-1), s),
    lambda t, s: s.pop(10),
    lambda t, s: (s.pop(slice(0, 2)), s),
    lambda t, s: (s.__delitem__(1), s, keys(s))[1:],
    lambda t, s: (s.__delitem__(slice(0, 2)), s, keys(s))[1:],
    lambda t, s: (s.__setitem__(0, t.nn.Linear(2, 5)), s)[1],
    lambda t, s: (s.__setitem__(-1, t.nn.Flatten()), s)[1],
    lambda t, s: s.__setitem__(0, 3),
    lambda t, s: list(s.state_dict()),
    lambda t, s: [k for k in dir(s) if k[0].isdigit()],
])
@pytest.mark.parametrize("make", [seq, named_seq])
def test_sequential_matches_torch(op, make):
    same(lambda t: op(t, make(t)))


def test_sequential_inplace_repeat():
    same(lambda t: (lambda s: (s.__imul__(2), keys(s), s.__imul__(0)))(seq(t)))


@pytest.mark.parametrize("args", [
    lambda t: (1,),
    lambda t: (OrderedDict([("a", t.nn.Identity())]), t.nn.Identity()),
    lambda t: (),
])
def test_sequential_construction(args):
    same(lambda t: (lambda s: (s, list(s._modules), s(t.ones(2))))(t.nn.Sequential(*args(t))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sequential_forward_and_gradients(dtype):
    th = seq(torch)
    nt = seq(numtorch)
    if dtype == "float64":
        th, nt = th.double(), nt.double()
    copy_state(nt, th)
    x = np.random.default_rng(0).standard_normal((6, 2)).astype(dtype)
    xt, xn = torch.from_numpy(x).requires_grad_(), numtorch.from_numpy(x).requires_grad_()
    yt, yn = th(xt), nt(xn)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    u = np.random.default_rng(1).standard_normal((6, 1)).astype(dtype)
    yt.backward(torch.from_numpy(u))
    yn.backward(numtorch.from_numpy(u))
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (name, pn), (_, pt) in zip(nt.named_parameters(), th.named_parameters()):
        np.testing.assert_allclose(pn.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=name)


# -- ModuleList --------------------------------------------------------------------------------
def mlist(t):
    return t.nn.ModuleList([t.nn.Identity(), t.nn.Linear(2, 2)])


@pytest.mark.parametrize("op", [
    lambda t, m: m,
    lambda t, m: m[-1],
    lambda t, m: m[0:1],
    lambda t, m: m[5],
    lambda t, m: m["a"],
    lambda t, m: (m.append(t.nn.Flatten()), m.extend([t.nn.Identity()]),
                  m.insert(1, t.nn.Flatten()), m)[-1],
    lambda t, m: m.append(t.nn.Identity()) is m,
    lambda t, m: (m.__iadd__([t.nn.Identity(), t.nn.Identity()]), m, len(m))[1:],
    lambda t, m: (lambda r: (type(r).__name__, r, m))(m + t.nn.ModuleList([t.nn.Flatten()])),
    lambda t, m: m + [t.nn.Flatten()],
    lambda t, m: m.extend(t.nn.Identity()),
    lambda t, m: m.append(3),
    lambda t, m: (m.pop(0), m, keys(m)),
    lambda t, m: (m.__delitem__(0), m, keys(m))[1:],
    lambda t, m: (m.extend([t.nn.Identity()] * 3), m.__delitem__(slice(0, 2)), m, keys(m))[2:],
    lambda t, m: (m.__setitem__(0, t.nn.Flatten()), m)[1],
    lambda t, m: (m.__setitem__(-1, t.nn.Flatten()), m)[1],
    lambda t, m: m.__setitem__(9, t.nn.Identity()),
    lambda t, m: m.__setitem__(0, 3),
    lambda t, m: m(t.ones(1)),
    lambda t, m: list(m.state_dict()),
    lambda t, m: [type(x).__name__ for x in m],
])
def test_module_list_matches_torch(op):
    same(lambda t: op(t, mlist(t)))


@pytest.mark.parametrize("make", [
    lambda t: t.nn.ModuleList([t.nn.Linear(1, 1)] * 3),
    lambda t: t.nn.ModuleList([t.nn.Identity(), t.nn.Identity(), t.nn.Flatten(),
                               t.nn.Identity(), t.nn.Identity(), t.nn.Identity()]),
    lambda t: t.nn.ModuleList([t.nn.Linear(1, 1) for _ in range(3)]),
    lambda t: t.nn.ModuleList([t.nn.Sequential(t.nn.Identity(), t.nn.Flatten())] * 2),
    lambda t: t.nn.ModuleList(),
    lambda t: t.nn.Sequential(t.nn.Linear(1, 2), t.nn.Linear(1, 2)),
    lambda t: t.nn.Sequential(),
])
def test_repeated_children_reprs(make):
    same(lambda t: repr(make(t)))


def test_module_list_insert_rejects_non_module():
    with pytest.raises(TypeError, match="not a Module subclass"):
        numtorch.nn.ModuleList().insert(0, 3)


# -- ModuleDict --------------------------------------------------------------------------------
def mdict(t):
    return t.nn.ModuleDict({"b": t.nn.Identity(), "a": t.nn.Flatten()})


@pytest.mark.parametrize("op", [
    lambda t, d: (d, list(d.keys())),
    lambda t, d: (d.__setitem__("c", t.nn.Linear(1, 2)), d["c"], list(d))[1:],
    lambda t, d: d["z"],
    lambda t, d: ("a" in d, "z" in d, len(d)),
    lambda t, d: (d.__delitem__("a"), list(d))[1],
    lambda t, d: (d.pop("b"), list(d.items()), list(d.values())),
    lambda t, d: (d.update({"x": t.nn.Identity()}), d.update([("y", t.nn.Flatten())]),
                  d.update(OrderedDict([("w", t.nn.Identity())])), list(d))[-1],
    lambda t, d: (d.update(t.nn.ModuleDict({"q": t.nn.Identity()})), list(d))[-1],
    lambda t, d: d.update(3),
    lambda t, d: d.update([1]),
    lambda t, d: d.update([(1, 2, 3)]),
    lambda t, d: (d.clear(), d, len(d))[1:],
    lambda t, d: d(1),
    lambda t, d: list(t.nn.ModuleDict({"l": t.nn.Linear(1, 1)}).state_dict()),
    lambda t, d: d.__setitem__("bad.key", t.nn.Identity()),
])
def test_module_dict_matches_torch(op):
    same(lambda t: op(t, mdict(t)))


# -- ParameterList -----------------------------------------------------------------------------
def plist(t):
    return t.nn.ParameterList([t.nn.Parameter(t.ones(2)),
                               t.nn.Parameter(t.zeros(3, dtype=t.float64))])


@pytest.mark.parametrize("op", [
    lambda t, p: p,
    lambda t, p: (p.append(t.ones(4)), type(p[2]).__name__, p[2].requires_grad, p)[1:],
    lambda t, p: (p.extend([t.nn.Parameter(t.ones(1))]), len(p), list(p.state_dict()))[1:],
    lambda t, p: (p.append(3), p, type(p[-1]).__name__)[1:],
    lambda t, p: (p.append(t.nn.Identity()), p, list(dict(p.named_parameters())))[1:],
    lambda t, p: p[10],
    lambda t, p: p[1:2],
    lambda t, p: p[-1],
    lambda t, p: (p.__iadd__([t.nn.Parameter(t.ones(2, 3))]), p)[1],
    lambda t, p: p.extend(t.ones(3)),
    lambda t, p: (p.__setitem__(0, t.ones(3)), p)[1],
    lambda t, p: p.__setitem__(3, t.ones(1)),
    lambda t, p: p(1),
    lambda t, p: [tuple(x.shape) for x in p],
    lambda t, p: t.nn.ParameterList([t.ones(())]),
    lambda t, p: t.nn.ParameterList([t.nn.Parameter(t.ones(2, 3, dtype=t.float16))]),
    lambda t, p: t.nn.ParameterList([t.nn.Parameter(t.ones(2, dtype=t.int64),
                                                    requires_grad=False)]),
    lambda t, p: t.nn.ParameterList(),
    lambda t, p: (lambda m: (m, list(m.state_dict())))(t.nn.Sequential(p)),
])
def test_parameter_list_matches_torch(op):
    same(lambda t: op(t, plist(t)))


# -- ParameterDict -----------------------------------------------------------------------------
def pdict(t):
    return t.nn.ParameterDict({"b": t.zeros(2),
                               "a": t.nn.Parameter(t.ones(1), requires_grad=False)})


@pytest.mark.parametrize("op", [
    lambda t, d: (d, list(d), d["b"].requires_grad, d["a"].requires_grad),
    lambda t, d: d.__setitem__("x.y", t.ones(1)),
    lambda t, d: d.__setitem__(1, t.ones(1)),
    lambda t, d: d.update(3),
    lambda t, d: d.update([1]),
    lambda t, d: d.update([(1, 2, 3)]),
    lambda t, d: list(d.state_dict()),
    lambda t, d: (d.__setitem__("c", 5), d, d["c"])[1:],
    lambda t, d: (d.update({"z": t.nn.Parameter(t.ones(1))}), list(d.keys()))[1],
    lambda t, d: (d.update([("z", t.ones(1)), ("y", t.ones(1))]), list(d.keys()))[1],
    lambda t, d: (d.pop("a"), list(d)),
    lambda t, d: ("a" in d, d.get("zz", 7), d.get("a"), len(d)),
    lambda t, d: (lambda c: (type(c).__name__, list(c), c["a"] is d["a"]))(d.copy()),
    lambda t, d: d | {"q": t.nn.Parameter(t.ones(1))},
    lambda t, d: d.__ror__(t.nn.ParameterDict({"q": t.nn.Parameter(t.ones(1))})),
    lambda t, d: (d.__ior__({"r": t.ones(2)}), list(d))[1],
    lambda t, d: d["nope"],
    lambda t, d: (d.setdefault("s", t.nn.Parameter(t.ones(1))), d.setdefault("a"), list(d)),
    lambda t, d: d.fromkeys(["u", "v"]),
    lambda t, d: (d.popitem(), list(d)),
    lambda t, d: (d.clear(), d, len(d))[1:],
    lambda t, d: list(reversed(d)),
    lambda t, d: (list(d.items()), list(d.values())),
    lambda t, d: d(1),
    lambda t, d: t.nn.ParameterDict(),
])
def test_parameter_dict_matches_torch(op):
    same(lambda t: op(t, pdict(t)))


def test_containers_register_parameters_for_optimisation():
    def fn(t):
        class Net(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = t.nn.ModuleList([t.nn.Linear(2, 2) for _ in range(2)])
                self.heads = t.nn.ModuleDict({"x": t.nn.Linear(2, 1)})
                self.extra = t.nn.ParameterList([t.nn.Parameter(t.ones(2))])
                self.named = t.nn.ParameterDict({"s": t.nn.Parameter(t.ones(1))})

        net = Net()
        return [n for n, _ in net.named_parameters()], list(net.state_dict()), \
            run(lambda _: net.double().extra[0].dtype, t)

    same(fn)


def test_container_deprecated_warns():
    with pytest.warns(FutureWarning, match="deprecated"):
        c = numtorch.nn.Container(a=numtorch.nn.Identity())
    assert list(c._modules) == ["a"]
