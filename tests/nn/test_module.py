"""nn.Module and nn.Parameter against torch: registration, traversal order, state_dict,
conversion, hooks (call sequences and gradients), reprs and error types/messages."""

import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.nn._compare import copy_state, run, same, same_warnings


def make_net(t):
    """A small model with a shared submodule, buffers (one non-persistent) and a parameter."""

    class Block(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = t.nn.Linear(3, 4)
            self.register_buffer("count", t.zeros(2))
            self.register_buffer("scratch", t.ones(1), persistent=False)

        def forward(self, x):
            return self.fc(x) * 2

    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = t.nn.Linear(4, 2)
            self.shared = self.a
            self.scale = t.nn.Parameter(t.ones(1))
            self.empty = None

        def forward(self, x):
            return self.b(self.a(x)) * self.scale

    return Net()


def make_mlp(t):
    class MLP(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = t.nn.Sequential(t.nn.Linear(5, 8), t.nn.Identity(), t.nn.Linear(8, 3))
            self.head = t.nn.Linear(3, 2, bias=False)

        def forward(self, x):
            return self.head(self.body(x).tanh())

    return MLP()


def names(pairs):
    return [n for n, _ in pairs]


# -- traversal ---------------------------------------------------------------------------------
@pytest.mark.parametrize("query", [
    lambda m: names(m.named_parameters()),
    lambda m: names(m.named_parameters(remove_duplicate=False)),
    lambda m: names(m.named_parameters(prefix="model", recurse=False)),
    lambda m: names(m.named_parameters(prefix="model")),
    lambda m: names(m.named_buffers()),
    lambda m: names(m.named_buffers(remove_duplicate=False)),
    lambda m: names(m.named_buffers(recurse=False)),
    lambda m: names(m.named_modules()),
    lambda m: names(m.named_modules(prefix="root")),
    lambda m: names(m.named_modules(remove_duplicate=False)),
    lambda m: names(m.named_children()),
    lambda m: [type(c).__name__ for c in m.children()],
    lambda m: [type(c).__name__ for c in m.modules()],
    lambda m: [tuple(p.shape) for p in m.parameters()],
    lambda m: [tuple(p.shape) for p in m.parameters(recurse=False)],
    lambda m: [tuple(b.shape) for b in m.buffers()],
    lambda m: list(m.state_dict().keys()),
    lambda m: list(m.state_dict(prefix="p.").keys()),
    lambda m: list(m.state_dict()._metadata.keys()),
    lambda m: [v["version"] for v in m.state_dict()._metadata.values()],
    lambda m: [type(v).__name__ for v in m.state_dict(keep_vars=True).values()],
    lambda m: [v.requires_grad for v in m.state_dict().values()],
])
def test_traversal_matches_torch(query):
    same(lambda t: query(make_net(t)))


def test_tied_parameters_listed_once():
    def fn(t):
        a, b = t.nn.Linear(3, 3), t.nn.Linear(3, 3)
        b.weight = a.weight
        seq = t.nn.Sequential(a, b)
        return (names(seq.named_parameters()), names(seq.named_parameters(remove_duplicate=False)),
                list(seq.state_dict()), len(list(seq.parameters())))

    same(fn)


def test_apply_visits_children_first():
    def fn(t):
        seen = []
        make_net(t).apply(lambda m: seen.append(type(m).__name__))
        return seen

    same(fn)


def test_dir_lists_registered_names_without_digits():
    def fn(t):
        m = make_net(t)
        m.add_module("0", t.nn.Identity())
        d = dir(m)
        return ([k for k in ("a", "b", "scale", "shared", "forward", "training") if k in d],
                any(k[0].isdigit() for k in d), d == sorted(d))

    same(fn)


# -- registration ------------------------------------------------------------------------------
REGISTRATION_ERRORS = [
    lambda t, m: m.register_buffer("a.b", t.ones(1)),
    lambda t, m: m.register_buffer("", t.ones(1)),
    lambda t, m: m.register_buffer(1, t.ones(1)),
    lambda t, m: m.register_buffer("x", 1),
    lambda t, m: m.register_buffer("plain", t.ones(1)),
    lambda t, m: m.register_parameter("x", t.ones(1)),
    lambda t, m: m.register_parameter("x.y", t.nn.Parameter(t.ones(1))),
    lambda t, m: m.register_parameter("", None),
    lambda t, m: m.register_parameter("plain", t.nn.Parameter(t.ones(1))),
    lambda t, m: m.register_parameter("sub", t.nn.Parameter(t.ones(1))),
    lambda t, m: m.add_module("plain", t.nn.Identity()),
    lambda t, m: m.add_module("a.b", t.nn.Identity()),
    lambda t, m: m.add_module(3, t.nn.Identity()),
    lambda t, m: m.add_module("", t.nn.Identity()),
    lambda t, m: m.add_module("q", 3),
    lambda t, m: m.register_module("q", [1]),
    lambda t, m: m.add_module("p", t.nn.Identity()),
    lambda t, m: m.register_buffer("p", t.ones(1)),
    lambda t, m: setattr(m, "p", t.ones(1)),
    lambda t, m: setattr(m, "sub", 3),
    lambda t, m: setattr(m, "buf", 3),
    lambda t, m: m.register_parameter("buf", t.nn.Parameter(t.ones(1))),
    lambda t, m: m.missing,
    lambda t, m: delattr(m, "missing"),
    lambda t, m: t.nn.Module(1),
    lambda t, m: t.nn.Module(a=1),
    lambda t, m: t.nn.Module()(1),
]


@pytest.mark.parametrize("case", REGISTRATION_ERRORS)
def test_registration_errors_match_torch(case):
    def fn(t):
        m = t.nn.Module()
        m.plain = 3
        m.p = t.nn.Parameter(t.ones(1))
        m.sub = t.nn.Identity()
        m.register_buffer("buf", t.ones(1))
        return case(t, m)

    result = same(fn)
    assert result[0] == "raise"


@pytest.mark.parametrize("attr", ["w", "l", "b"])
def test_assignment_before_init_raises(attr):
    def fn(t):
        class Early(t.nn.Module):
            def __init__(self):
                if attr == "w":
                    self.w = t.nn.Parameter(t.ones(1))
                elif attr == "l":
                    self.l = t.nn.Identity()
                else:
                    self.register_buffer("b", t.ones(1))

        return Early()

    same(fn)


def test_setattr_routes_and_replaces():
    def fn(t):
        m = t.nn.Module()
        m.x = t.nn.Parameter(t.ones(1))
        m.x = None  # a registered parameter may be set to None
        m.y = t.nn.Identity()
        m.y = t.nn.Parameter(t.zeros(2))  # a parameter replaces the module of that name
        m.register_buffer("z", t.ones(1))
        m.z = t.zeros(3)  # plain tensors go into an existing buffer slot
        m.z2 = t.nn.Buffer(t.ones(2), persistent=False)
        m.k = t.nn.Linear(1, 1)
        del m.k
        m.plain = 5
        return (list(m._parameters), list(m._buffers), list(m._modules), m.x, m.y, m.z,
                list(m.state_dict()), m.plain, isinstance(m.z2, t.nn.Buffer))

    same(fn)


def test_buffer_keeps_requires_grad_and_shares_memory():
    def fn(t):
        base = t.ones(2, requires_grad=True)
        b = t.nn.Buffer(base)
        return b.requires_grad, b is base, isinstance(b, t.nn.Buffer), \
            isinstance(t.ones(1), t.nn.Buffer)

    same(fn)


def test_plain_list_of_modules_is_stored_silently_as_in_torch():
    def fn(t):
        m = t.nn.Module()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # torch does not warn
            m.layers = [t.nn.Linear(1, 1)]
            m.params = {"w": t.nn.Parameter(t.ones(1))}
            m.numbers = [1, 2]
        return (len(list(m.parameters())), list(m.state_dict()), type(m.layers).__name__,
                type(m.params).__name__, m.numbers)

    same(fn)


def test_property_raising_attribute_error_is_explained():
    class WithProp(numtorch.nn.Module):
        @property
        def value(self):
            return self.not_there

    with pytest.raises(AttributeError, match="property 'value'"):
        WithProp().value


# -- submodule access --------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda s: s.get_submodule("1.1"),
    lambda s: s.get_submodule(""),
    lambda s: s.get_submodule("1.5"),
    lambda s: s.get_submodule("foo"),
    lambda s: s.get_submodule("0.weight"),
    lambda s: s.get_parameter("1.1.bias").shape,
    lambda s: s.get_parameter("1.1.zz"),
    lambda s: s.get_parameter("1.1"),
    lambda s: s.get_parameter("0.in_features"),
    lambda s: s.get_buffer("0.bb"),
    lambda s: s.get_buffer("0.weight"),
    lambda s: s.get_buffer("0.zz"),
    lambda s: (s.set_submodule("1.0", type(s)()), s)[1],
    lambda s: s.set_submodule("1.7.2", type(s)()),
    lambda s: s.set_submodule("", type(s)()),
    lambda s: s.set_submodule("0.in_features", type(s)()),
    lambda s: (s.set_submodule("1.9", type(s)()), s)[1],
    lambda s: s.set_submodule("5", type(s)(), strict=True),
    lambda s: s.set_submodule("1.1", 3),
])
def test_submodule_access_matches_torch(call):
    def fn(t):
        s = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.Sequential(t.nn.Identity(),
                                                                t.nn.Linear(3, 1)))
        s.foo = 3
        s[0].register_buffer("bb", t.ones(1))
        return call(s)

    same(fn)


# -- modes, grads, conversion ------------------------------------------------------------------
def test_train_eval_propagate():
    def fn(t):
        m = make_net(t)
        m.eval()
        flags = [x.training for x in m.modules()]
        m.a.train()
        return flags, [x.training for x in m.modules()], run(lambda _: m.train("yes"), t)

    same(fn)


def test_requires_grad_and_zero_grad():
    def fn(t):
        m = make_mlp(t)
        copy_state(m, make_mlp(torch)) if t is numtorch else None
        m.requires_grad_(False)
        flags = [p.requires_grad for p in m.parameters()]
        m.requires_grad_()
        m(t.ones(4, 5)).sum().backward()
        m.zero_grad(set_to_none=False)
        zeros = [(p.grad is not None and float(p.grad.abs().sum()) == 0.0)
                 for p in m.parameters()]
        m.zero_grad()
        return flags, zeros, [p.grad is None for p in m.parameters()]

    same(fn)


def test_zero_grad_detaches_graph_grads():
    def fn(t):
        m = t.nn.Linear(2, 1)
        x = t.ones(1, 2)
        (g,) = t.autograd.grad(m(x).sum(), m.weight, create_graph=True)
        m.weight.grad = g * 1.0
        m.zero_grad(set_to_none=False)
        return m.weight.grad, m.weight.grad.requires_grad, m.weight.grad.grad_fn is None

    same(fn)


@pytest.mark.parametrize("convert", [
    lambda m, t: m.double(),
    lambda m, t: m.double().float(),
    lambda m, t: m.half(),
    lambda m, t: m.to(t.float64),
    lambda m, t: m.to(dtype=t.float64),
    lambda m, t: m.to("cpu", t.float64),
    lambda m, t: m.to(t.device("cpu")),
    lambda m, t: m.to(t.zeros(1, dtype=t.float64)),
    lambda m, t: m.to(t.int64),
    lambda m, t: m.type(t.float64),
    lambda m, t: m.cpu(),
])
def test_conversions_match_torch(convert):
    def fn(t):
        m = t.nn.Linear(2, 2)
        m.register_buffer("steps", t.zeros(1, dtype=t.int64))
        m.weight.grad = t.ones(2, 2)
        w = m.weight
        out = convert(m, t)
        return (out is m, m.weight is w, str(m.weight.dtype), str(m.bias.dtype),
                str(m.steps.dtype), str(m.weight.grad.dtype))

    same(fn)


@pytest.mark.skipif(numtorch.backend.cupy_or_none() is not None,
                    reason="checks the no-CUDA error")
def test_cuda_without_cuda_raises_clearly():
    with pytest.raises(AssertionError):
        torch.nn.Linear(1, 1).cuda()
    with pytest.raises(AssertionError, match="CUDA"):  # the same class as torch's
        numtorch.nn.Linear(1, 1).cuda()


# -- state dict --------------------------------------------------------------------------------
def _lin_sd(t, **extra):
    sd = {"weight": t.ones(3, 2), "bias": t.ones(3)}
    sd.update(extra)
    return sd


@pytest.mark.parametrize("load", [
    lambda t, m: m.load_state_dict({"weight": t.ones(3, 2)}, strict=False),
    lambda t, m: m.load_state_dict(_lin_sd(t)),
    lambda t, m: m.load_state_dict(_lin_sd(t, x=t.ones(1), **{"y.z": t.ones(1)}), strict=False),
    lambda t, m: m.load_state_dict({"weight": t.ones(3, 2), "x": t.ones(1)}),
    lambda t, m: m.load_state_dict({"weight": t.ones(2, 2), "bias": t.ones(4)}),
    lambda t, m: m.load_state_dict({"weight": t.ones(2, 2), "bias": 1.0}, strict=False),
    lambda t, m: m.load_state_dict({"weight": t.ones(3, 2, dtype=t.float64),
                                    "bias": t.ones(3, dtype=t.int64)}),
    lambda t, m: m.load_state_dict([1, 2]),
    lambda t, m: m.load_state_dict(_lin_sd(t, _extra_state=1)),
    lambda t, m: (m.load_state_dict(_lin_sd(t)), m.weight, m.bias)[1:],
    lambda t, m: str(m.load_state_dict(_lin_sd(t))),
    lambda t, m: repr(m.load_state_dict({"weight": t.ones(3, 2)}, strict=False)),
])
def test_load_state_dict_matches_torch(load):
    same(lambda t: load(t, t.nn.Linear(2, 3)))


@pytest.mark.parametrize("edit", [
    lambda t, sd: sd,
    lambda t, sd: {**sd, "a.scratch": t.ones(1)},
    lambda t, sd: {k: v for k, v in sd.items() if k != "a.count"},
    lambda t, sd: {**sd, "a.fc.extra": t.ones(1), "zzz.w": t.ones(1), "a.nope.x": t.ones(1)},
    lambda t, sd: {**sd, "b.weight": t.ones(3, 3)},
])
@pytest.mark.parametrize("strict", [True, False])
def test_nested_load_state_dict_matches_torch(edit, strict):
    def fn(t):
        src = make_net(t)
        with t.no_grad():
            for i, p in enumerate(src.parameters()):
                p.fill_(i + 1.0)
        dst = make_net(t)
        res = dst.load_state_dict(edit(t, src.state_dict()), strict=strict)
        return res, dst.state_dict()

    same(fn)


def test_load_state_dict_assign_and_scalar_compat():
    def fn(t):
        m = t.nn.Linear(2, 3)
        w = m.weight
        m.load_state_dict(_lin_sd(t), assign=True)
        z = t.nn.Module()
        z.s = t.nn.Parameter(t.tensor(1.0))
        z.load_state_dict({"s": t.tensor([5.0])})  # 0.3-era 1-element vector for a scalar
        return (m.weight is w, type(m.weight).__name__, m.weight.requires_grad, z.s,
                run(lambda _: z.load_state_dict({"s": t.tensor([5.0, 6.0])}), t))

    same(fn)


def test_extra_state_round_trip():
    def fn(t):
        class X(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.got = None

            def get_extra_state(self):
                return {"a": 1}

            def set_extra_state(self, state):
                self.got = state

        x = X()
        return (x.state_dict(), run(lambda _: x.load_state_dict({}), t),
                (x.load_state_dict({"_extra_state": 5}), x.got)[1])

    same(fn)


def test_state_dict_hooks():
    def fn(t):
        log = []
        m = t.nn.Linear(2, 2)
        m.register_state_dict_pre_hook(lambda mod, prefix, keep: log.append(("pre", prefix)))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(
            ("post", prefix, list(sd), meta)))
        m.state_dict(prefix="a.")
        m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *rest: log.append(
            ("lpre", type(mod).__name__, prefix, len(rest))))
        m._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: log.append(
            ("old_lpre", len(rest))))
        m.register_load_state_dict_post_hook(lambda mod, keys: log.append(("lpost", keys)))
        m.load_state_dict(m.state_dict())
        m2 = t.nn.Linear(2, 2)
        m2.register_state_dict_post_hook(lambda *a: {})
        m3 = t.nn.Linear(2, 2)
        m3._register_state_dict_hook(lambda *a: {"x": 1})
        m4 = t.nn.Linear(2, 2)
        m4.register_load_state_dict_post_hook(lambda mod, keys: 1)
        return (log, run(lambda _: m2.state_dict(), t), m3.state_dict(),
                run(lambda _: m4.load_state_dict(m4.state_dict()), t))

    same(fn)


def test_state_dict_positional_form_warns_like_torch():
    same_warnings(lambda t: t.nn.Linear(1, 1).state_dict(None, "p."))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_state_dict_loads_and_outputs_match(dtype):
    th = make_mlp(torch)
    nt = make_mlp(numtorch)
    if dtype == "float64":
        th, nt = th.double(), nt.double()
    res = nt.load_state_dict({k: numtorch.from_numpy(v.numpy()) for k, v in
                              th.state_dict().items()})
    assert res.missing_keys == [] and res.unexpected_keys == []
    x = np.random.default_rng(0).standard_normal((7, 5)).astype(dtype)
    np.testing.assert_allclose(nt(numtorch.from_numpy(x)).detach().numpy(),
                               th(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_numtorch_state_dict_loads_into_torch():
    nt = make_mlp(numtorch)
    th = make_mlp(torch)
    res = th.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in
                              nt.state_dict().items()})
    assert res.missing_keys == [] and res.unexpected_keys == []
    x = np.random.default_rng(1).standard_normal((4, 5)).astype("float32")
    np.testing.assert_allclose(nt(numtorch.from_numpy(x)).detach().numpy(),
                               th(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_state_dict_tensors_share_memory_with_parameters():
    m = numtorch.nn.Linear(2, 2)
    sd = m.state_dict()
    with numtorch.no_grad():
        m.weight.fill_(3.0)
    assert float(sd["weight"].sum()) == 12.0
    assert sd["weight"].requires_grad is False


# -- repr --------------------------------------------------------------------------------------
def test_repr_tree_matches_torch():
    def fn(t):
        class Multi(t.nn.Module):
            def extra_repr(self):
                return "first=1,\nsecond=2"

        m = make_net(t)
        m.multi = Multi()
        m.nested = t.nn.Sequential(Multi(), t.nn.Linear(1, 1, bias=False))
        m.add_module("none_child", None)
        return repr(m), repr(Multi()), repr(t.nn.Module())

    same(fn)


# -- forward hooks -----------------------------------------------------------------------------
def test_forward_hook_sequence_matches_torch():
    def fn(t):
        m = t.nn.Linear(2, 2)
        seq = []
        h1 = m.register_forward_pre_hook(lambda mod, a: seq.append("pre1"))
        m.register_forward_pre_hook(lambda mod, a: seq.append("pre0"), prepend=True)
        m.register_forward_hook(lambda mod, a, o: seq.append("post1"))
        m.register_forward_hook(lambda mod, a, k, o: seq.append(("post_kw", k)),
                                with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, a, k: seq.append(("pre_kw", k)),
                                    with_kwargs=True)
        m.register_forward_hook(lambda mod, a, o: seq.append("post0"), prepend=True)
        g = t.nn.modules.module.register_module_forward_pre_hook(
            lambda mod, a: seq.append("gpre"))
        g2 = t.nn.modules.module.register_module_forward_hook(
            lambda mod, a, o: seq.append("gpost"))
        try:
            m(t.ones(2))
        finally:
            g.remove()
            g2.remove()
        h1.remove()
        h1.remove()  # removing twice is harmless
        m(t.ones(2))
        return seq

    same(fn)


def test_forward_hooks_replace_inputs_and_outputs():
    def fn(t):
        m = t.nn.Linear(2, 2)
        with t.no_grad():
            m.weight.copy_(t.eye(2))
            m.bias.zero_()
        seen = []
        m.register_forward_pre_hook(lambda mod, a: a[0] * 2)
        m.register_forward_hook(lambda mod, a, o: seen.append(a[0]))
        m.register_forward_hook(lambda mod, a, o: o + 100)
        m.register_forward_pre_hook(lambda mod, a, k: ((a[0] + 1,), k), with_kwargs=True)
        out = m(t.ones(2))
        bad = t.nn.Linear(2, 2)
        bad.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
        return out, seen, run(lambda _: bad(t.ones(2)), t)

    same(fn)


def test_always_call_forward_hook_runs_on_error():
    def fn(t):
        log = []

        class Bad(t.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        b = Bad()
        b.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
        b.register_forward_hook(lambda mod, a, o: log.append("normal"))
        return run(lambda _: b(1), t), log

    same(fn)


def test_handle_context_manager_removes_hook():
    def fn(t):
        m = t.nn.Linear(1, 1)
        log = []
        with m.register_forward_hook(lambda *a: log.append(1)):
            m(t.ones(1))
        m(t.ones(1))
        return log

    same(fn)


# -- backward hooks ----------------------------------------------------------------------------
def two_output_module(t):
    class M(t.nn.Module):
        def forward(self, x, k, y):
            return x * y * k, x + 1

    return M()


def shapes(grads):
    return tuple(None if g is None else g for g in grads)


def _inputs(t):
    x = t.tensor([0.5, -1.5], requires_grad=True)
    y = t.tensor([2.0, 3.0])
    return x, y


@pytest.mark.parametrize("use", ["both", "second", "none_requires_grad"])
def test_full_backward_hooks_match_torch(use):
    def fn(t):
        m = two_output_module(t)
        log = []
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", shapes(go))))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", shapes(gi),
                                                                      shapes(go))))
        x, y = _inputs(t)
        if use == "none_requires_grad":
            x = x.detach()
            w = t.tensor([1.0, 2.0], requires_grad=True)
            a, b = m(x, 3, y)
            ((a * w).sum() + b.sum()).backward()
            return log, w.grad
        a, b = m(x, 3, y)
        loss = b.sum() if use == "second" else (a.sum() + (b * b).sum())
        loss.backward()
        return log, x.grad

    same(fn)


def test_full_backward_hook_replaces_grad_input():
    def fn(t):
        m = two_output_module(t)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10, None, None))
        x, y = _inputs(t)
        a, b = m(x, 3, y)
        (a.sum() + b.sum()).backward()
        bad = two_output_module(t)
        bad.register_full_backward_hook(lambda mod, gi, go: (gi[0],))
        x2, _ = _inputs(t)
        return x.grad, run(lambda _: bad(x2, 3, y)[1].sum().backward(), t)

    same(fn)


def test_backward_pre_hook_replaces_grad_output():
    def fn(t):
        m = two_output_module(t)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[1] * 100))
        x, y = _inputs(t)
        a, b = m(x, 3, y)
        (a.sum() + b.sum()).backward()
        return x.grad

    same(fn)


def test_full_backward_hook_on_linear_gradients():
    def fn(t):
        t.manual_seed(0)
        lin = t.nn.Linear(3, 2)
        with t.no_grad():
            lin.weight.copy_(t.tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]]))
            lin.bias.copy_(t.tensor([0.1, -0.1]))
        log = []
        lin.register_full_backward_hook(lambda mod, gi, go: log.append((gi, go)))
        x = t.tensor([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]], requires_grad=True)
        (lin(x) * t.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return log, x.grad, lin.weight.grad

    same(fn)


def test_mixing_regular_and_full_backward_hooks_raises():
    def fn(t):
        q = t.nn.Linear(1, 1)
        q.register_backward_hook(lambda *a: None)
        r = t.nn.Linear(1, 1)
        r.register_full_backward_hook(lambda *a: None)
        return (run(lambda _: q.register_full_backward_hook(lambda *a: None), t),
                run(lambda _: r.register_backward_hook(lambda *a: None), t))

    same(fn)


def test_legacy_backward_hook_on_single_op_module():
    def fn(t):
        class Exp(t.nn.Module):
            def forward(self, x):
                return x.exp()

        m = Exp()
        log = []
        m.register_backward_hook(lambda mod, gi, go: log.append((gi, go)))
        m.register_backward_hook(lambda mod, gi, go: (gi[0] * 2,))
        x = t.tensor([0.0, 1.0], requires_grad=True)
        (m(x) * t.tensor([1.0, 3.0])).sum().backward()
        return log, x.grad

    same(fn)


def test_hooks_do_not_break_double_backward():
    def fn(t):
        m = t.nn.Linear(2, 1)
        with t.no_grad():
            m.weight.copy_(t.tensor([[1.5, -0.5]]))
            m.bias.zero_()
        m.register_full_backward_hook(lambda *a: None)
        x = t.tensor([[1.0, 2.0]], requires_grad=True)
        y = (m(x) ** 3).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x)
        return g, gg

    same(fn)


def test_global_registration_hooks():
    def fn(t):
        mm = t.nn.modules.module
        log = []
        hs = [mm.register_module_parameter_registration_hook(
                  lambda m, n, p: log.append(("param", n))),
              mm.register_module_buffer_registration_hook(
                  lambda m, n, b: log.append(("buffer", n))),
              mm.register_module_module_registration_hook(
                  lambda m, n, c: log.append(("module", n)))]
        try:
            t.nn.Linear(1, 1).register_buffer("b", t.ones(1))
            s = t.nn.Sequential(t.nn.Identity())
            s.extra = t.nn.Identity()
        finally:
            for h in hs:
                h.remove()
        return log

    same(fn)


# -- Parameter ---------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda t: repr(t.nn.Parameter(t.ones(2))),
    lambda t: str(t.nn.Parameter(t.ones(2))),
    lambda t: repr(t.nn.Parameter(t.ones(2, dtype=t.int64), requires_grad=False)),
    lambda t: t.nn.Parameter(t.ones(2, dtype=t.int64)),
    lambda t: repr(t.nn.Parameter()),
    lambda t: t.nn.Parameter([1.0, 2.0]),
    lambda t: [type(x).__name__ for x in (t.nn.Parameter(t.ones(1)) * 2,
                                          t.nn.Parameter(t.ones(1)).detach(),
                                          t.nn.Parameter(t.ones(1)).data)],
    lambda t: (lambda p: (p.is_leaf, p.grad_fn is None, p.requires_grad))(
        t.nn.Parameter(t.ones(2, requires_grad=True) * 2)),
    lambda t: isinstance(t.nn.Parameter(t.ones(1)), t.Tensor),
])
def test_parameter_matches_torch(make):
    same(make, messages=False)


def test_parameter_shares_memory_and_deepcopies_without_grad():
    def fn(t):
        base = t.ones(3)
        p = t.nn.Parameter(base)
        p.data[0] = 5
        p.grad = t.ones(3)
        d = copy.deepcopy(p)
        return base, type(d).__name__, d is p, d.requires_grad, d.grad is None, d

    same(fn)


def test_parameter_and_module_pickle_round_trip():
    p = numtorch.nn.Parameter(numtorch.arange(3.0))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is numtorch.nn.Parameter and q.requires_grad
    assert q.tolist() == [0.0, 1.0, 2.0]
    net = numtorch.nn.Sequential(numtorch.nn.Linear(5, 3), numtorch.nn.Flatten())
    net.register_buffer("steps", numtorch.zeros(1, dtype=numtorch.int64))
    net2 = pickle.loads(pickle.dumps(net))
    x = numtorch.ones(2, 5)
    assert numtorch.equal(net(x), net2(x))
    assert list(net2.state_dict()) == list(net.state_dict())
    assert repr(net2) == repr(net)


def test_deepcopy_module_keeps_sharing():
    def fn(t):
        m = make_net(t)
        c = copy.deepcopy(m)
        return (c.a is c.shared, c.a.fc.weight is m.a.fc.weight,
                names(c.named_parameters()), list(c.state_dict()))

    same(fn)


@pytest.mark.parametrize("use", [
    lambda p: p.numel(),
    lambda p: p + 1,
    lambda p: p.detach(),
    lambda p: p.shape,
    lambda p: repr(p),
    lambda p: (p.requires_grad, str(p.dtype)),
    lambda p: (p.materialize((2, 3)), type(p).__name__, tuple(p.shape), p.requires_grad)[1:],
])
def test_uninitialized_parameter_matches_torch(use):
    same(lambda t: use(t.nn.UninitializedParameter(dtype=t.float64)), messages=False)


def test_uninitialized_buffer_materializes_to_tensor():
    def fn(t):
        b = t.nn.parameter.UninitializedBuffer()
        r = repr(b)
        b.materialize(3)
        return r, type(b).__name__, tuple(b.shape), t.nn.parameter.is_lazy(b)

    same(fn)


# -- docstring examples ------------------------------------------------------------------------
@pytest.mark.parametrize("module", [
    "numtorch.nn.modules.module", "numtorch.nn.modules._state_dict", "numtorch.nn.parameter",
    "numtorch.nn.modules.container", "numtorch.nn.init", "numtorch.nn.modules.linear",
    "numtorch.nn.modules.flatten", "numtorch.nn.functional",
])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)
    tests = doctest.DocTestFinder().find(mod, globs={"torch": numtorch, "np": np})
    assert any(t.examples for t in tests)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0
