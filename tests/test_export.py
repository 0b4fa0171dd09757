"""numtorch.export against torch.export: the same models with the same weights exported in both
libraries, run through ``ep.module()`` on new inputs; graph signatures, state, guards, dynamic
dimensions, errors, and save/load."""

import io

import numpy as np
import pytest

import numtorch
from numtorch.nn.functional import silu as _nt_silu

torch = pytest.importorskip("torch")


def _to_nt(t):
    return numtorch.from_numpy(t.detach().numpy().copy())


def _copy_state(src, dst):
    """Load the torch module's state into the numtorch one (same structure)."""
    dst.load_state_dict({k: _to_nt(v) for k, v in src.state_dict().items()})


def _close(a, b, tol=1e-5):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, numtorch.Tensor)
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype).replace("torch.", "torch.")
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    elif isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
    elif isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            _close(a[k], b[k], tol)
    else:
        assert a == b


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the classes are compared
        return (type(e).__name__, str(e).split("\n")[0])


# ---- models, written once against either library ----

def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 3))


def _conv(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 5))


def _lstm(lib):
    class LM(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib.nn.Embedding(20, 6)
            self.rnn = lib.nn.LSTM(6, 5, num_layers=2, batch_first=True)
            self.out = lib.nn.Linear(5, 20)

        def forward(self, tokens):
            h, (hn, cn) = self.rnn(self.emb(tokens))
            return self.out(h), hn

    return LM()


def _gru(lib):
    class G(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = lib.nn.GRU(4, 3, bidirectional=True)

        def forward(self, x):
            out, h = self.gru(x)
            return out.relu(), h

    return G()


def _attention(lib):
    class A(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = lib.nn.MultiheadAttention(8, 2, batch_first=True)
            self.norm = lib.nn.LayerNorm(8)

        def forward(self, x, mask=None):
            y, w = self.mha(x, x, x, attn_mask=mask)
            return self.norm(x + y), w

    return A()


def _encoder(lib):
    layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    return lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def _gpt_block(lib):
    F = lib.nn.functional

    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = lib.nn.Linear(8, 24)
            self.proj = lib.nn.Linear(8, 8)
            self.ln = lib.nn.LayerNorm(8)
            self.register_buffer("bias", lib.tril(lib.ones(16, 16)).view(1, 1, 16, 16))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(self.ln(x)).split(8, dim=2)
            q = q.view(B, T, 2, C // 2).transpose(1, 2)
            k = k.view(B, T, 2, C // 2).transpose(1, 2)
            v = v.view(B, T, 2, C // 2).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / 2.0)
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return x + self.proj(y)

    return Block()


def _inplace_and_consts(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)
            self.k = lib.arange(4.0)   # a plain tensor attribute: a lifted constant

        def forward(self, x, scale=2.0):
            y = self.lin(x)
            y[:, 0] = 0.0
            y += self.k
            z = lib.cat([y, x * scale], dim=1).clamp(min=-1.0)
            return {"z": z, "mean": z.mean(dim=0)}

    return M()


MODELS = {
    "mlp": (_mlp, lambda lib, n: (lib.randn(n, 6),), {}),
    "conv": (_conv, lambda lib, n: (lib.randn(n, 3, 8, 8),), {}),
    "lstm": (_lstm, lambda lib, n: (lib.randint(0, 20, (n, 7)),), {}),
    "gru": (_gru, lambda lib, n: (lib.randn(5, n, 4),), {}),
    "attention": (_attention, lambda lib, n: (lib.randn(n, 6, 8),), {}),
    "encoder": (_encoder, lambda lib, n: (lib.randn(n, 6, 8),), {}),
    "gpt_block": (_gpt_block, lambda lib, n: (lib.randn(n, 10, 8),), {}),
    "inplace": (_inplace_and_consts, lambda lib, n: (lib.randn(n, 4),), {}),
}


def _pair(name, train=False):
    make, inputs, _ = MODELS[name]
    torch.manual_seed(0)
    tm = make(torch)
    nm = make(numtorch)
    _copy_state(tm, nm)
    tm.train(train)
    nm.train(train)
    return tm, nm, inputs


@pytest.mark.parametrize("name", list(MODELS))
def test_module_matches_torch(name):
    tm, nm, inputs = _pair(name)
    torch.manual_seed(1)
    t_args = inputs(torch, 3)
    n_args = tuple(_to_nt(a) for a in t_args)
    t_ep = torch.export.export(tm, t_args)
    n_ep = numtorch.export.export(nm, n_args)
    # the same inputs again, then new values of the same shapes
    _close(n_ep.module()(*n_args), t_ep.module()(*t_args))
    torch.manual_seed(2)
    fresh = inputs(torch, 3)
    _close(n_ep.module()(*(_to_nt(a) for a in fresh)), t_ep.module()(*fresh))
    # the signature: the same parameters, buffers and user inputs, in order
    def sig(ep, kinds):
        return [(s.kind.name, s.arg.name, s.target) for s in ep.graph_signature.input_specs
                if s.kind.name in kinds]

    kinds = ("PARAMETER", "BUFFER", "USER_INPUT")
    assert sig(n_ep, kinds) == sig(t_ep, kinds)
    # torch also lifts the scalars of some in-place ops as tensors; numtorch keeps them scalars
    assert set(n_ep.constants) <= set(t_ep.constants)
    assert list(n_ep.state_dict) == list(t_ep.state_dict)
    # exporting changed nothing in the model
    _close(nm(*n_args), tm(*t_args))


def test_state_is_shared_and_module_keeps_names():
    tm, nm, inputs = _pair("conv", train=True)
    x = numtorch.randn(4, 3, 8, 8)
    ep = numtorch.export.export(nm, (x,))
    assert ep.state_dict["0.weight"] is nm[0].weight
    mod = ep.module()
    assert mod.get_parameter("0.weight") is ep.state_dict["0.weight"]
    assert [n for n, _ in mod.named_parameters()] == [n for n, _ in nm.named_parameters()]
    assert list(mod.state_dict()) == list(nm.state_dict())
    # training through the exported module updates the shared parameters and buffers
    before = nm[1].running_mean.clone()
    out = mod(x)
    out.sum().backward()
    assert nm[0].weight.grad is not None
    assert not numtorch.equal(nm[1].running_mean, before)


def test_export_leaves_state_and_rng_alone():
    tm, nm, inputs = _pair("conv", train=True)
    state = {k: v.clone() for k, v in nm.state_dict().items()}
    numtorch.manual_seed(5)
    expected = numtorch.rand(3)
    numtorch.manual_seed(5)
    b = numtorch.export.Dim("b", min=2, max=9)
    numtorch.export.export(nm, (numtorch.randn(4, 3, 8, 8),), dynamic_shapes=({0: b},))
    numtorch.manual_seed(5)
    assert numtorch.equal(numtorch.rand(3), expected)
    for k, v in nm.state_dict().items():
        assert numtorch.equal(v, state[k]), k


GUARD_CASES = [(6, 3), (5, 4), (5, 3, 1)]


@pytest.mark.parametrize("shape", GUARD_CASES)
def test_static_guards(shape):
    tm, nm, inputs = _pair("mlp")
    t_ep = torch.export.export(tm, (torch.randn(5, 6),))
    n_ep = numtorch.export.export(nm, (numtorch.randn(5, 6),))
    t = _outcome(lambda: t_ep.module()(torch.randn(*shape)))
    n = _outcome(lambda: n_ep.module()(numtorch.randn(*shape)))
    assert n[0] == t[0]
    if t[0] == "AssertionError":
        assert n == t


def test_calling_the_program_directly():
    _, nm, _ = _pair("mlp")
    ep = numtorch.export.export(nm, (numtorch.randn(2, 6),))
    t_ep = torch.export.export(_pair("mlp")[0], (torch.randn(2, 6),))
    assert _outcome(lambda: ep(numtorch.randn(2, 6))) == _outcome(lambda: t_ep(
        torch.randn(2, 6)))


@pytest.mark.parametrize("name,dim,hi,sizes", [
    ("mlp", 0, 32, [2, 9, 17]), ("conv", 0, 32, [2, 7]), ("lstm", 0, 32, [2, 5]),
    ("lstm", 1, 32, [3, 11]), ("attention", 1, 32, [2, 9]), ("encoder", 0, 32, [2, 6]),
    ("gpt_block", 1, 16, [2, 16]), ("gpt_block", 1, 32, [2, 16]), ("gpt_block", 0, 32, [1, 4]),
    ("inplace", 0, 32, [2, 10]),
])
def test_dynamic_dims(name, dim, hi, sizes):
    """Where torch exports the dimension dynamic, both programs give the same results at
    other sizes; where torch refuses (it specialises the size), numtorch refuses too or its
    program gives the eager model's results."""
    tm, nm, inputs = _pair(name)
    torch.manual_seed(1)
    t_args = inputs(torch, 3)
    n_args = tuple(_to_nt(a) for a in t_args)
    spec = ({dim: torch.export.Dim("d", min=1, max=hi)},)
    n_spec = ({dim: numtorch.export.Dim("d", min=1, max=hi)},)
    t = _outcome(lambda: torch.export.export(tm, t_args, dynamic_shapes=spec))
    n = _outcome(lambda: numtorch.export.export(nm, n_args, dynamic_shapes=n_spec))
    if t[0] == "ok":
        assert n[0] == "ok", n
    elif n[0] != "ok":
        assert n[0] == "UserError" and n[1].startswith("Constraints violated (d)!")
        return
    for size in sizes:
        x = t_args[0]
        moved = x.index_select(dim, torch.arange(size) % x.shape[dim])
        expected = t[1].module()(moved) if t[0] == "ok" else tm(moved)
        _close(n[1].module()(_to_nt(moved)), expected)


@pytest.mark.parametrize("n", [3, 4, 10, 11])
def test_dynamic_range_guards(n):
    class M:
        @staticmethod
        def make(lib):
            class View(lib.nn.Module):
                def forward(self, x):
                    return x.view(x.shape[0] * 2, -1) + 1

            return View()

    t_ep = torch.export.export(M.make(torch), (torch.randn(6, 4),), dynamic_shapes=(
        {0: torch.export.Dim("b", min=4, max=10)},))
    n_ep = numtorch.export.export(M.make(numtorch), (numtorch.randn(6, 4),), dynamic_shapes=(
        {0: numtorch.export.Dim("b", min=4, max=10)},))
    x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
    t = _outcome(lambda: t_ep.module()(torch.from_numpy(x)))
    nr = _outcome(lambda: n_ep.module()(numtorch.from_numpy(x)))
    if t[0] == "ok":
        _close(nr[1], t[1])
    else:
        assert nr == t


def _brancher(lib, kind):
    class B(lib.nn.Module):
        def forward(self, x):
            if kind == "shape" and x.shape[0] > 4:
                return x * 2
            if kind == "data" and x.sum() > 0:
                return x * 2
            if kind == "item":
                return x * x.max().item()
            return x

    return B()


@pytest.mark.parametrize("kind", ["shape", "data"])
def test_branches_are_refused(kind):
    t = _outcome(lambda: torch.export.export(
        _brancher(torch, kind), (torch.randn(6, 4),),
        dynamic_shapes=({0: torch.export.Dim("b", min=4, max=10)},)))
    n = _outcome(lambda: numtorch.export.export(
        _brancher(numtorch, kind), (numtorch.randn(6, 4),),
        dynamic_shapes=({0: numtorch.export.Dim("b", min=4, max=10)},)))
    assert n[0] == t[0]
    if kind == "shape":
        assert n[1].startswith("Constraints violated (b)!")


def test_item_is_refused():
    """torch follows ``.item()`` as an unbacked symbol; numtorch refuses rather than bake the
    value into the graph."""
    with pytest.raises(numtorch.export.GuardOnDataDependentSymNode, match="item"):
        numtorch.export.export(_brancher(numtorch, "item"), (numtorch.randn(6, 4),))


@pytest.mark.parametrize("call", [
    lambda lib: lib.export.export(lambda x: x, (lib.ones(2),)),
    lambda lib: lib.export.export(lib.nn.ReLU(), lib.ones(2)),
    lambda lib: lib.export.export(lib.nn.ReLU(), [lib.ones(2)]),
    lambda lib: lib.export.export(lib.nn.ReLU(), (lib.ones(2),),
                                  dynamic_shapes={"y": {0: lib.export.Dim("b")}}),
    lambda lib: lib.export.export(lib.nn.ReLU(), (lib.ones(2, 3),),
                                  dynamic_shapes=({0: lib.export.Dim("b")}, {0: None})),
    lambda lib: lib.export.export(lib.nn.ReLU(), (lib.ones(6, 3),), dynamic_shapes=({0: 3},)),
])
def test_errors(call):
    t, n = _outcome(lambda: call(torch)), _outcome(lambda: call(numtorch))
    assert n[0] == t[0]
    assert t[1].startswith(n[1].replace("numtorch.", "torch.")[:150])


def test_non_tensor_inputs_and_nested_containers():
    def make(lib):
        class Two(lib.nn.Module):
            def forward(self, x, ys, flag=True, scale=2.0):
                return x * scale + ys[0] - ys[1], {"a": x}

        return Two()

    t_ep = torch.export.export(make(torch), (torch.ones(2), [torch.ones(2), torch.zeros(2)]),
                               {"scale": 3.0})
    n_ep = numtorch.export.export(make(numtorch), (numtorch.ones(2), [numtorch.ones(2),
                                                                       numtorch.zeros(2)]),
                                  {"scale": 3.0})
    a = (np.arange(2.0, dtype=np.float32), np.ones(2, np.float32), np.full(2, 5.0, np.float32))
    t_out = t_ep.module()(torch.from_numpy(a[0]), [torch.from_numpy(a[1]),
                                                   torch.from_numpy(a[2])], scale=3.0)
    n_out = n_ep.module()(numtorch.from_numpy(a[0]), [numtorch.from_numpy(a[1]),
                                                      numtorch.from_numpy(a[2])], scale=3.0)
    _close(n_out, t_out)
    t = _outcome(lambda: t_ep.module()(torch.ones(2), [torch.ones(2), torch.zeros(2)],
                                       scale=4.0))
    n = _outcome(lambda: n_ep.module()(numtorch.ones(2), [numtorch.ones(2),
                                                          numtorch.zeros(2)], scale=4.0))
    assert n == t
    # the Python scalar input is a USER_INPUT constant in torch's signature too
    assert [s.arg.name for s in n_ep.graph_signature.input_specs] == \
        [s.arg.name for s in t_ep.graph_signature.input_specs]


def test_dims_and_hints():
    for lib in (torch, numtorch):
        assert repr(lib.export.Dim("b", min=4, max=10)) == "Dim('b', min=4, max=10)"
    assert [repr(h) for h in (numtorch.export.Dim.AUTO, numtorch.export.Dim.DYNAMIC,
                              numtorch.export.Dim.STATIC)] == \
        [repr(h) for h in (torch.export.Dim.AUTO, torch.export.Dim.DYNAMIC,
                           torch.export.Dim.STATIC)]
    t = _outcome(lambda: torch.export.Dim("b", min=5, max=3))
    n = _outcome(lambda: numtorch.export.Dim("b", min=5, max=3))
    assert n[0] == t[0]
    a, b = numtorch.export.dims("a", "b", max=7)
    assert (a.__name__, b.__name__, a.max) == ("a", "b", 7)


def test_shared_dim_names_and_auto_hint():
    def make(lib):
        class Add(lib.nn.Module):
            def forward(self, x, y):
                return lib.cat([x, y], dim=1).sum(1)

        return Add()

    d = numtorch.export.Dim("d", max=20)
    ep = numtorch.export.export(make(numtorch), (numtorch.randn(3, 2), numtorch.randn(3, 5)),
                                dynamic_shapes={"x": {0: d}, "y": {0: d}})
    assert tuple(ep.module()(numtorch.randn(7, 2), numtorch.randn(7, 5)).shape) == (7,)
    t_ep = torch.export.export(make(torch), (torch.randn(3, 2), torch.randn(3, 5)),
                               dynamic_shapes={"x": {0: torch.export.Dim("d", max=20)},
                                               "y": {0: torch.export.Dim("d", max=20)}})
    t = _outcome(lambda: t_ep.module()(torch.randn(7, 2), torch.randn(6, 5)))
    n = _outcome(lambda: ep.module()(numtorch.randn(7, 2), numtorch.randn(6, 5)))
    assert n[0] == t[0] == "AssertionError"
    ep2 = numtorch.export.export(make(numtorch), (numtorch.randn(3, 2), numtorch.randn(3, 5)),
                                 dynamic_shapes={"x": {0: numtorch.export.Dim.AUTO,
                                                       1: numtorch.export.Dim.DYNAMIC},
                                                 "y": None})
    assert tuple(ep2.module()(numtorch.randn(3, 4), numtorch.randn(3, 5)).shape) == (3,)


def test_shapes_collection():
    sc = numtorch.export.ShapesCollection()
    x, y = numtorch.randn(3, 2), numtorch.randn(3, 5)
    sc[x] = {0: numtorch.export.Dim("b")}

    class Add(numtorch.nn.Module):
        def forward(self, x, y):
            return x.sum(1) + y.sum(1)

    shapes = sc.dynamic_shapes(Add(), (x, y))
    assert list(shapes) == ["x", "y"] and shapes["y"] is None
    # y's batch is static: x's cannot move without it
    with pytest.raises(numtorch.export.UserError, match=r"Constraints violated \(b\)!"):
        numtorch.export.export(Add(), (x, y), dynamic_shapes=shapes)
    sc[y] = {0: sc[x][0]}
    shapes = sc.dynamic_shapes(Add(), (x, y))
    ep = numtorch.export.export(Add(), (x, y), dynamic_shapes=shapes)
    assert tuple(ep.module()(numtorch.randn(6, 2), numtorch.randn(6, 5)).shape) == (6,)


@pytest.mark.parametrize("name", ["mlp", "gpt_block", "lstm", "inplace"])
def test_save_load_round_trip(name, tmp_path):
    tm, nm, inputs = _pair(name)
    numtorch.manual_seed(3)
    args = inputs(numtorch, 4)
    spec = ({0: numtorch.export.Dim("b", max=64)},)
    ep = numtorch.export.export(nm, args, dynamic_shapes=spec)
    buf = io.BytesIO()
    numtorch.export.save(ep, buf, extra_files={"note": "hi"})
    buf.seek(0)
    extra = {}
    ep2 = numtorch.export.load(buf, extra_files=extra)
    assert extra == {"note": "hi"}
    path = tmp_path / "prog.pt2"
    numtorch.export.save(ep, str(path))
    ep3 = numtorch.export.load(str(path))
    numtorch.manual_seed(4)
    other = inputs(numtorch, 6)
    _close_nt(ep2.module()(*other), ep.module()(*other))
    _close_nt(ep3.module()(*other), nm(*other))
    assert list(ep2.state_dict) == list(ep.state_dict)
    t = _outcome(lambda: ep2.module()(*inputs(numtorch, 65)))
    assert t[0] == "AssertionError" and "<= 64" in t[1]


def _close_nt(a, b):
    if isinstance(a, numtorch.Tensor):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6,
                                   atol=1e-6)
    elif isinstance(a, (tuple, list)):
        for x, y in zip(a, b):
            _close_nt(x, y)
    elif isinstance(a, dict):
        for k in a:
            _close_nt(a[k], b[k])


def test_load_refuses_foreign_code(tmp_path):
    """A crafted archive naming a function outside numtorch is refused before anything runs."""
    import json

    _, nm, inputs = _pair("mlp")
    ep = numtorch.export.export(nm, (numtorch.randn(2, 6),))
    buf = io.BytesIO()
    numtorch.export.save(ep, buf)
    buf.seek(0)
    blob = numtorch.load(buf, weights_only=True)
    program = json.loads(blob["program"])
    program["calls"][0][2] = "os:system"
    blob["program"] = json.dumps(program)
    path = tmp_path / "evil.pt2"
    numtorch.save(blob, str(path))
    with pytest.raises(RuntimeError, match="not a numtorch function"):
        numtorch.export.load(str(path))


def test_printing_and_parts():
    _, nm, _ = _pair("mlp")
    ep = numtorch.export.export(nm, (numtorch.randn(2, 6),))
    text = str(ep)
    assert text.startswith("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n"
                           "        def forward(self, p_0_weight, p_0_bias, p_3_weight, "
                           "p_3_bias, input):")
    assert "Graph signature:" in text and "# inputs" in text
    assert [n.op for n in ep.graph.nodes][:5] == ["placeholder"] * 5
    assert ep.run_decompositions() is ep
    assert [n for n, _ in ep.named_parameters()] == ["0.weight", "0.bias", "3.weight",
                                                    "3.bias"]
    assert ep.example_inputs[0][0].shape == (2, 6)
    assert numtorch.export.export_for_training(nm, (numtorch.randn(2, 6),)).module()(
        numtorch.ones(2, 6)).shape == (2, 3)


def test_functions_taken_before_export_are_seen():
    """A model holding F.gelu as an attribute, and one calling a function its file imported
    by name, export as torch's do (the mode sees those calls too)."""
    class Held(numtorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = numtorch.nn.Linear(4, 4)
            self.act = numtorch.nn.functional.gelu

        def forward(self, x):
            return _nt_silu(self.act(self.lin(x)))

    m = Held()
    ep = numtorch.export.export(m, (numtorch.randn(2, 4),))
    x = numtorch.randn(2, 4)
    _close_nt(ep.module()(x), m(x))
    names = [n.name for n in ep.graph.nodes if n.op == "call_function"]
    assert names == ["linear", "gelu", "silu"]
    assert m.act is numtorch.nn.functional.gelu and _nt_silu.__name__ == "silu"
