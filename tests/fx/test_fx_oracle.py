"""numtorch.fx against real torch.fx: the same modules traced by both give graphs that print
the same (node names, opcodes, targets, arguments), the same generated code, and
GraphModules whose outputs and gradients (random cotangent) match the original module's."""

import copy
import operator

import numpy as np
import pytest
import torch

import numtorch
import numtorch.fx


def _modules(lib):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(12, 16)
            self.fc2 = nn.Linear(16, 5)

        def forward(self, x):
            x = lib.flatten(x, 1)
            return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.head = nn.Sequential(nn.Linear(16, 6), nn.Tanh())

        def forward(self, x):
            y = F.max_pool2d(self.bn(self.conv(x)).relu(), 2)
            return self.head(y.view(y.size(0), -1))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(4)
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(4)

        def forward(self, x):
            out = lib.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return lib.relu(out + x)

    class Attrs(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.scale = nn.Parameter(lib.linspace(0.5, 1.5, 3))
            self.register_buffer("shift", lib.full((3,), 0.25))
            self.plain = lib.ones(3) * 2

        def forward(self, x, n: int = 2):
            h = self.lin(x) * self.scale + self.shift - self.lin.weight.sum()
            h = h + self.plain + lib.tensor([1.0, 2.0, 3.0])
            a, b = h.chunk(2, dim=0)
            return {"out": lib.cat([b, a], dim=0) ** n, "mean": h.mean(dim=-1, keepdim=True),
                    "shape": h.shape[0], "t": h.T[0, 1:]}

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                                    batch_first=True)

        def forward(self, x):
            return self.layer(x).sum(-1)

    return {"mlp": (MLP, [(4, 3, 4)]), "convnet": (ConvNet, [(2, 3, 4, 4)]),
            "block": (Block, [(2, 4, 5, 5)]), "attrs": (Attrs, [(4, 3)]),
            "encoder": (Encoder, [(2, 3, 8)])}


def _pair(name):
    torch.manual_seed(0)
    cls_t, shapes = _modules(torch)[name]
    cls_n, _ = _modules(numtorch)[name]
    mt = cls_t()
    mn = cls_n()
    mn.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    return mt, mn, shapes


def _flat(out):
    if isinstance(out, dict):
        return [v for k, v in sorted(out.items())]
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


@pytest.mark.parametrize("name", ["mlp", "convnet", "block", "attrs", "encoder"])
def test_traced_module_matches_torch(name):
    mt, mn, shapes = _pair(name)
    gt = torch.fx.symbolic_trace(mt)
    gn = numtorch.fx.symbolic_trace(mn)
    assert str(gn.graph) == str(gt.graph)
    assert gn.code == gt.code
    assert [(n.op, n.name) for n in gn.graph.nodes] == [(n.op, n.name) for n in gt.graph.nodes]
    assert type(gn).__name__ == type(gt).__name__
    assert sorted(gn.state_dict()) == sorted(gt.state_dict())

    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    xt = [torch.tensor(x, requires_grad=True) for x in xs]
    xn = [numtorch.tensor(x, requires_grad=True) for x in xs]
    out_t, out_n = _flat(gt(*xt)), _flat(gn(*xn))
    ref_n = _flat(mn(*[numtorch.tensor(x) for x in xs]))
    loss_t, loss_n = 0, 0
    for a, b, r in zip(out_t, out_n, ref_n):
        if isinstance(a, torch.Tensor):
            np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-4,
                                       atol=1e-5)
            np.testing.assert_allclose(b.detach().numpy(), r.detach().numpy(), rtol=1e-6)
            cot = rng.standard_normal(tuple(a.shape)).astype(np.float32)
            loss_t = loss_t + (a * torch.tensor(cot)).sum()
            loss_n = loss_n + (b * numtorch.tensor(cot)).sum()
        else:
            assert a == b
    loss_t.backward()
    loss_n.backward()
    for a, b in zip(xt, xn):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-5)
    grads_t = {k: p.grad for k, p in gt.named_parameters()}
    for k, p in gn.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), grads_t[k].numpy(), rtol=1e-4, atol=1e-5)


def _both(fn):
    return fn(torch), fn(numtorch)


def test_functions_proxies_and_names_match_torch():
    def make(lib):
        F = lib.nn.functional

        def f(x, y):
            a = x.float()
            b = a.float()
            c = lib.max(b) + x.max()
            d = x[0, 1:2, ..., None] + x.view(-1, x.size(1)).sum()
            e = lib.cat([x, y], dim=1) @ lib.cat([y, x]) - (2 ** x).abs()
            g = F.relu(x) + F.softmax(x, dim=-1) + F.dropout(x, 0.1, training=False)
            h = F.linear(x, y) + F.max_pool1d(x[None], 1)[0] + F.layer_norm(x, (x.shape[-1],))
            k = lib.arctan(x) + lib.atan(x) + lib.sigmoid(-x) + F.sigmoid(x) + ~(x > 0)
            return a, b, c, d, e, g, h, k, {"dtype": x.dtype}, [x.T, 3]
        return lib.fx.symbolic_trace(f)

    gt, gn = _both(make)
    assert gn.code == gt.code
    assert str(gn.graph) == str(gt.graph)
    x = np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3)
    for a, b in zip(gt(torch.tensor(x), torch.tensor(x)), gn(numtorch.tensor(x),
                                                            numtorch.tensor(x))):
        if isinstance(a, torch.Tensor):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


def test_graph_editing_matches_torch():
    def edit(lib):
        class M(lib.nn.Module):
            def forward(self, x, y):
                return x + y, lib.add(x, y), x.add(y), lib.neg(x).relu()

        gm = lib.fx.symbolic_trace(M())
        for n in gm.graph.nodes:
            if n.target in (operator.add, lib.add, "add"):
                with gm.graph.inserting_after(n):
                    new = gm.graph.call_function(lib.mul, n.args, n.kwargs)
                    n.replace_all_uses_with(new)
                gm.graph.erase_node(n)
        g = gm.graph
        relu = next(n for n in g.nodes if n.target == "relu")
        with g.inserting_before(relu):
            extra = g.create_node("call_function", lib.sin, (relu.args[0],), name="my_sin")
            g.call_method("cos", (extra,))  # dead
        relu.replace_input_with(relu.args[0], extra)
        g.lint()
        before = gm.graph.python_code("self").src
        removed = g.eliminate_dead_code()
        gm.recompile()
        out = gm(lib.ones(2) * 3, lib.ones(2) * 2)
        erase_err = None
        try:
            g.erase_node(next(iter(g.nodes)))
        except RuntimeError as e:
            erase_err = str(e)
        return before, removed, gm.code, str(g), [o.tolist() for o in out], erase_err, \
            [n.format_node() for n in g.nodes]

    assert _both(edit)[0] == _both(edit)[1]


def test_interpreter_transformer_shapeprop_match_torch():
    def run(lib):
        from importlib import import_module

        ShapeProp = import_module(lib.__name__ + ".fx.passes.shape_prop").ShapeProp

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(3, 2)

            def forward(self, x):
                return lib.sigmoid(self.lin(x)).transpose(0, 1) * 2

        m = M()
        with lib.no_grad():
            m.lin.weight.copy_(lib.arange(6.0).reshape(2, 3) / 10)
            m.lin.bias.fill_(0.1)
        gm = lib.fx.symbolic_trace(m)
        x = lib.arange(12.0).reshape(4, 3) / 7
        seen = []

        class Tracing(lib.fx.Interpreter):
            def run_node(self, n):
                seen.append(n.name)
                return super().run_node(n)

            def call_function(self, target, args, kwargs):
                if target is lib.sigmoid:
                    return lib.tanh(*args)
                return super().call_function(target, args, kwargs)

        y = Tracing(gm).run(x)

        class Swap(lib.fx.Transformer):
            def call_function(self, target, args, kwargs):
                if target == lib.sigmoid:  # as torch's Transformer example compares
                    return lib.neg(lib.relu(*args, **kwargs))
                return super().call_function(target, args, kwargs)

        new = Swap(gm).transform()
        ShapeProp(gm).propagate(x)
        metas = [(n.name, tuple(n.meta["tensor_meta"].shape), str(n.meta["tensor_meta"].dtype),
                  n.meta["tensor_meta"].stride, n.meta["tensor_meta"].requires_grad)
                 for n in gm.graph.nodes if "tensor_meta" in n.meta]
        err = None
        try:
            lib.fx.Interpreter(gm).run()
        except RuntimeError as e:
            err = str(e).split("\n")[0]
        return (seen, np.round(y.detach().numpy(), 5).tolist(), new.code,
                np.round(new(x).detach().numpy(), 5).tolist(), metas, err)

    rt, rn = _both(run)
    assert rn == rt


def test_tracer_subclass_wrap_concrete_args_match_torch():
    def run(lib):
        class Leafless(lib.fx.Tracer):
            def is_leaf_module(self, m, qualname):
                return False if isinstance(m, lib.nn.ReLU) else super().is_leaf_module(m, qualname)

        class Tagging(lib.fx.Tracer):
            def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
                n = super().create_node(kind, target, args, kwargs, name, type_expr)
                n.tag = "t"
                return n

        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.act = lib.nn.ReLU()

            def forward(self, x, flag=None):
                if flag is None:
                    return self.act(x) + 1
                return x

        g1 = Leafless().trace(M())
        g2 = Tagging().trace(M())
        gm = lib.fx.symbolic_trace(M(), concrete_args={"flag": None})
        return (str(g1), [getattr(n, "tag", None) for n in g2.nodes], gm.code,
                gm(lib.tensor([-1.0, 2.0])).tolist())

    rt, rn = _both(run)
    assert rn == rt


def _double_then_add(x, y):
    return x * 2 + y


torch.fx.wrap("_double_then_add")
numtorch.fx.wrap("_double_then_add")


def test_wrapped_function_is_a_leaf_like_torch():
    def run(lib):
        def f(x):
            return _double_then_add(x, x).relu()

        gm = lib.fx.symbolic_trace(f)
        mod = __name__.replace(".", "_")
        return (gm.code.replace(mod, "MOD"), gm(lib.ones(2)).tolist(),
                gm.print_readable(print_output=False).replace(mod, "MOD"))

    rt, rn = _both(run)
    assert rn == rt


def test_replace_pattern_and_proxies_match_torch():
    def run(lib):
        class M(lib.nn.Module):
            def forward(self, x, w1, w2):
                m1 = lib.cat([lib.neg(w1), w2]).sum()
                m2 = lib.cat([lib.neg(w1), w2]).sum()
                return x + lib.max(m1) + lib.max(m2)

        def pattern(a1, a2):
            return lib.cat([lib.neg(a1), a2]).sum()

        def replacement(a1, a2):
            return lib.stack([a1, a2])

        gm = lib.fx.symbolic_trace(M())
        matches = lib.fx.replace_pattern(gm, pattern, replacement)
        graph = lib.fx.Graph()
        tracer = lib.fx.proxy.GraphAppendingTracer(graph)
        x = lib.fx.Proxy(graph.placeholder("x"), tracer)
        y = lib.fx.Proxy(graph.placeholder("y"), tracer)
        out = lib.neg(lib.tanh(lib.cat([x, y]))) + x[0] * 2
        graph.output(out.node)
        built = lib.fx.GraphModule(lib.nn.Module(), graph)
        t = lib.ones(2, 2)
        return (len(matches), [m.anchor.name for m in matches], gm.code,
                gm(t, t, t).tolist(), built.code, built(t, t).tolist())

    rt, rn = _both(run)
    numtorch.fx._patching.reset()
    assert rn == rt


def test_graph_module_copy_save_load_like_torch(tmp_path):
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
        gm = lib.fx.symbolic_trace(m)
        dup = copy.deepcopy(gm)
        path = tmp_path / f"{lib.__name__}.pt"
        lib.save(gm, path)
        loaded = lib.load(path, weights_only=False)
        sd_path = tmp_path / f"{lib.__name__}_sd.pt"
        lib.save(gm.state_dict(), sd_path)
        fresh = lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(),
                                                        lib.nn.Linear(3, 1)))
        fresh.load_state_dict(lib.load(sd_path))
        x = lib.ones(4, 2)
        ref = gm(x)
        return (type(dup).__name__, dup.code == gm.code, type(loaded).__name__,
                str(loaded.graph), lib.equal(loaded(x), ref), lib.equal(dup(x), ref),
                lib.equal(fresh(x), ref),
                dup.get_submodule("0").weight is not gm.get_submodule("0").weight)

    rt, rn = _both(run)
    assert rn == rt


def test_print_tabular_rows_like_torch(monkeypatch, capsys):
    import sys
    import types

    calls = []
    fake = types.ModuleType("tabulate")
    fake.tabulate = lambda rows, headers: calls.append(
        (headers, [[str(c) for c in r] for r in rows])) or "TABLE"
    monkeypatch.setitem(sys.modules, "tabulate", fake)
    for lib in (torch, numtorch):
        lib.fx.symbolic_trace(lib.nn.Sequential(lib.nn.ReLU())).graph.print_tabular()
    assert calls[0] == calls[1]
    assert capsys.readouterr().out == "TABLE\nTABLE\n"
    monkeypatch.setitem(sys.modules, "tabulate", None)
    errors = []
    for lib in (torch, numtorch):
        with pytest.raises(ImportError) as info:
            lib.fx.symbolic_trace(lib.nn.ReLU()).graph.print_tabular()
        errors.append(type(info.value))
    assert errors[0] is errors[1]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == out[1]


def test_trace_errors_match_torch():
    def run(lib):
        msgs = []
        for f in (lambda x: x if x.sum() > 0 else -x, lambda x: [i for i in x],
                  lambda x: len(x)):
            try:
                lib.fx.symbolic_trace(f)
            except Exception as e:  # noqa: BLE001 - the class and message are compared
                msgs.append((type(e).__name__, str(e)))
        g = lib.fx.Graph()
        a = g.placeholder("a")
        g.output(g.call_function(operator.add, (a, a)))
        try:
            g.erase_node(a)
        except RuntimeError as e:
            msgs.append(str(e))
        return msgs

    rt, rn = _both(run)
    assert rn == rt


def test_signatures_constants_and_named_tuples_match_torch():
    import collections
    import math

    def run(lib):
        pair = collections.namedtuple("PairOut", ["a", "b"])

        def f(x: lib.Tensor, n: int = 2):
            w = x.view(n, -1).to(lib.float16).new_zeros(3, dtype=lib.float32,
                                                      device=lib.device("cpu"))
            return pair(lib.relu(x) + math.sqrt(4) + float("inf"),
                        w + lib.zeros(x.shape) + lib.ones_like(x) + x.size()[0])

        def h(x, flag):
            return x + 1 if flag else x - 1

        def annotated(x: lib.Tensor) -> lib.Tensor:
            return x.relu()

        class VarArgs(lib.nn.Module):
            def forward(self, x, *args, scale=2.0):
                return x * scale

        gm = lib.fx.symbolic_trace(f)
        out = gm(lib.ones(2, 3))
        spec = lib.fx.symbolic_trace(h, concrete_args={"flag": True})
        checks = [spec(lib.ones(1), True).tolist()]
        try:
            spec(lib.ones(1), False)
        except AssertionError as e:
            checks.append(str(e))
        g = lib.fx.Graph()
        a = g.placeholder("a")
        b = g.call_function(lib.add, (a, 1), {"alpha": 2})
        g.output((b, g.call_method("clamp", (b,), {"min": 0})))
        from_dict = lib.fx.GraphModule({}, g)
        added = from_dict.add_submodule("foo.bar", lib.nn.ReLU())
        return (gm.code, str(gm.graph), type(out).__name__, [o.tolist() for o in out],
                spec.code, checks, lib.fx.symbolic_trace(VarArgs()).code, from_dict.code,
                added, str(from_dict), str(lib.fx.symbolic_trace(annotated).graph),
                lib.fx.symbolic_trace(annotated).code)

    rt, rn = _both(run)
    assert rn == rt


def test_tensor_methods_with_traced_arguments_match_torch():
    def run(lib):
        class PE(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("pe", lib.arange(20.0).reshape(1, 10, 2))
                self.w = lib.ones(4, 2)

            def forward(self, x):
                y = x + self.pe.narrow(1, 0, x.size(1)) + self.pe[0, x.size(1)]
                z = self.w.view(x.size(0), -1).masked_fill(x.sum(1) > 0, 1.0)
                return y, z

        gm = lib.fx.symbolic_trace(PE())
        return gm.code, [t.tolist() for t in gm(lib.ones(4, 3, 2))]

    rt, rn = _both(run)
    assert rn == rt


def test_torch_assert_is_recorded_like_torch():
    def run(lib):
        def f(x):
            lib._assert(x.dim() == 2, "need 2d")
            return x + 1

        gm = lib.fx.symbolic_trace(f)
        out = gm(lib.ones(2, 2)).tolist()
        with pytest.raises(AssertionError) as info:
            gm(lib.ones(2))
        with pytest.raises(AssertionError) as plain:
            lib._assert(lib.tensor(False), "boom")
        return gm.code, str(gm.graph), out, str(info.value), str(plain.value)

    rt, rn = _both(run)
    assert rn == rt
