"""torch.autograd.forward_ad against torch: tangents of many ops and modules, in-place ops,
levels, and torch's errors."""

import numpy as np
import pytest
import torch

import numtorch


def _run(lib, fn, xs, ts):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(lib.from_numpy(x.copy()), lib.from_numpy(t.copy()))
                 for x, t in zip(xs, ts)]
        out = fn(lib, *duals)
        outs = out if isinstance(out, tuple) else (out,)
        res = []
        for o in outs:
            p, t = fw.unpack_dual(o)
            res.append((p.detach().numpy().copy(), None if t is None else t.detach().numpy().copy()))
        return res


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.LayerNorm(5), lib.nn.GELU(),
                             lib.nn.Linear(5, 2))


_NT_MLP, _TH_MLP = _mlp(numtorch), _mlp(torch)
_NT_MLP.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                         for k, v in _TH_MLP.state_dict().items()})

CASES = [
    ("pointwise", lambda t, x: x.sin() * x + x.exp() / (1 + x * x), [(3, 4)]),
    ("matmul", lambda t, x, w: (x @ w).tanh().sum(1), [(3, 4), (4, 2)]),
    ("softmax", lambda t, x: t.softmax(x, -1) + t.log_softmax(x, 0), [(3, 4)]),
    ("views", lambda t, x: x[1:, ::2].t().reshape(-1).exp().mean(), [(3, 4)]),
    ("conv", lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1), [(2, 2, 4, 4),
                                                                       (3, 2, 2, 2)]),
    ("max", lambda t, x: x.max(1), [(3, 4)]),
    ("norm_std", lambda t, x: (x.norm(dim=1), x.std(0)), [(3, 4)]),
    ("logcumsumexp", lambda t, x: t.logcumsumexp(x, 1), [(3, 4)]),
    ("inplace", lambda t, x: x.clone().mul_(x).add_(x, alpha=2), [(3, 4)]),
    ("copy", lambda t, x: t.zeros(3, 4, dtype=t.float64).copy_(x) * 2, [(3, 4)]),
    ("cat_stack", lambda t, x, y: t.cat([x, y]).sum(0) + t.stack([x, y]).prod(0).sum(0),
     [(3, 4), (3, 4)]),
    ("mlp", lambda t, x: (_NT_MLP if t is numtorch else _TH_MLP)(x.float()), [(3, 4)]),
    ("gather_where", lambda t, x: t.where(x > 0, x, x * x).gather(1, t.tensor([[0], [2], [1]])),
     [(3, 4)]),
    ("quantile", lambda t, x: t.quantile(x, 0.3, dim=1), [(3, 4)]),
]


@pytest.mark.parametrize("name, fn, shapes", CASES, ids=[c[0] for c in CASES])
def test_tangents_match_torch(name, fn, shapes):
    rng = np.random.default_rng(0)
    xs = [rng.uniform(0.3, 1.5, s) * rng.choice([-1, 1], s) for s in shapes]
    ts = [rng.standard_normal(s) for s in shapes]
    a, b = _run(numtorch, fn, xs, ts), _run(torch, fn, xs, ts)
    assert len(a) == len(b)
    for (pa, ta), (pb, tb) in zip(a, b):
        np.testing.assert_allclose(pa, pb, rtol=1e-5, atol=1e-6)
        assert (ta is None) == (tb is None)
        if ta is not None:
            np.testing.assert_allclose(ta, tb, rtol=1e-5, atol=1e-6)


def test_levels_and_unpacking_match_torch():
    for lib in (numtorch, torch):
        fw = lib.autograd.forward_ad
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        assert fw.unpack_dual(x).tangent is None
        with pytest.raises(RuntimeError, match="no level exists, make sure to "
                                               "enter_dual_level\\(\\) first"):
            fw.make_dual(x, lib.ones(2))
        with fw.dual_level() as level:
            assert level == 0
            with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
                with fw.dual_level():
                    pass
            with pytest.raises(RuntimeError, match="Tensor is of size \\[2\\] while the given "
                                                   "forward gradient is of size \\[3\\]"):
                fw.make_dual(x, lib.ones(3))
            with pytest.raises(ValueError, match="Expected primal to be floating point or "
                                                 "complex, but got: torch.int64"):
                fw.make_dual(lib.tensor([1, 2]), lib.ones(2))
            with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
                fw.make_dual(x, lib.ones(2), level=3)
            d = fw.make_dual(x, lib.ones(2))
            assert d._base is x
            y = (d * d).sum()
            u = fw.unpack_dual(y)
            assert isinstance(u, fw.UnpackedDualTensor) and u._fields == ("primal", "tangent")
            assert u.tangent.item() == 6.0 and fw.unpack_dual(u.primal).tangent is None
            assert fw.unpack_dual(d.detach()).tangent is None
            y.backward()  # reverse mode still works through the dual view
            assert x.grad.tolist() == [2.0, 4.0]
        assert fw.unpack_dual(y).tangent is None  # tangents end with their level
        assert fw.enter_dual_level() == 0
        fw.exit_dual_level()


def test_dropout_tangent_uses_the_primal_mask():
    fw = numtorch.autograd.forward_ad
    x = numtorch.rand(200) + 0.5
    with fw.dual_level():
        y = numtorch.nn.functional.dropout(fw.make_dual(x, numtorch.ones(200)), 0.5)
        p, t = fw.unpack_dual(y)
        np.testing.assert_allclose(t.numpy(), (p / x).numpy(), rtol=1e-6)
        assert 0 < (t == 0).sum().item() < 200


def test_decorator_form():
    fw = numtorch.autograd.forward_ad

    @fw.dual_level()
    def tangent_of_square(x):
        return fw.unpack_dual(fw.make_dual(x, numtorch.ones_like(x)) ** 2).tangent

    assert tangent_of_square(numtorch.tensor([3.0])).tolist() == [6.0]
