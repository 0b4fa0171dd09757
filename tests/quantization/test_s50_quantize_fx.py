"""FX graph mode quantization (prepare_fx / prepare_qat_fx / convert_fx) against real torch at
test time: the same model, weights and calibration data through both; the prepared and
converted code, the quantized modules' parameters and the int8 results must agree."""

import importlib
import operator
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization.quantize_fx

import numtorch as nt
import numtorch.ao.quantization.quantize_fx

warnings.filterwarnings("ignore", message=".*deprecated.*")
warnings.filterwarnings("ignore", message=".*reduce_range.*")


def _model_classes(T):
    nn, F = T.nn, T.nn.functional

    class Full(nn.Module):
        """conv-bn-relu (functional relu), add, cat, slicing, pooling, flatten, linear-relu,
        functional linear."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(8 * 4 * 4, 10)
            self.w = nn.Parameter(T.zeros(5, 10))

        def forward(self, x):
            y = F.relu(self.bn(self.conv(x)))
            z = self.conv2(y)
            y = y + z
            y = T.cat([y, z], 1)[:, :8]
            y = self.pool(y)
            y = T.flatten(y, 1)
            y = F.relu(self.fc(y))
            return F.linear(y, self.w)

    class Scalars(nn.Module):
        """conv-bn, scalar add/mul, adaptive pooling, flatten method, sigmoid."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            x = self.bn(self.conv(x))
            x = x + 1.0
            x = x * 2
            x = F.adaptive_avg_pool2d(x, 1).flatten(1)
            return T.sigmoid(self.fc(x))

    class Block(nn.Module):
        """A residual block with ReLU modules, add+relu, tanh, mul of two tensors."""

        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(4, 4, 3, padding=1, bias=False)
            self.b1 = nn.BatchNorm2d(4)
            self.r1 = nn.ReLU()
            self.c2 = nn.Conv2d(4, 4, 1)
            self.relu = nn.ReLU()
            self.avg = nn.AdaptiveAvgPool2d((1, 1))
            self.head = nn.Linear(4, 6)

        def forward(self, x):
            y = self.r1(self.b1(self.c1(x)))
            y = self.c2(y)
            y = self.relu(y + x)
            y = y * T.tanh(y)
            y = self.avg(y).view(y.size(0), -1)
            return self.head(y)

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 3)
            self.w = nn.Parameter(T.zeros(2, 3))

        def forward(self, x):
            return F.linear(self.fc2(F.relu(self.fc(x))), self.w)

    class Sub(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 6)
            self.w = nn.Parameter(T.zeros(6, 6))
            self.b = nn.Parameter(T.zeros(6))

        def forward(self, x):
            y = self.lin(x)
            y = F.relu(F.linear(y, self.w, self.b))
            return y + x

    class Nested(nn.Module):
        """Submodules with functional ops (scopes), F.linear+relu with a bias, a scalar mul
        feeding cat, dropout, a method relu and a shape read at the output."""

        def __init__(self):
            super().__init__()
            self.a = Sub()
            self.b = Sub()
            self.head = nn.Linear(6, 2)
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            x = self.a(x)
            x = self.b(x)
            x = T.cat([x, x * 0.5], 0)
            x = self.drop(x)
            return self.head(x).relu(), x.shape

    class Mobile(nn.Module):
        """conv-bn-relu6, hardswish, a squeeze-excitation (hardsigmoid scale times input),
        identity, pixel shuffle, dropout and a linear head."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.act = nn.ReLU6()
            self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.hs = nn.Hardswish()
            self.fc1 = nn.Conv2d(8, 4, 1)
            self.fc2 = nn.Conv2d(4, 8, 1)
            self.gate = nn.Hardsigmoid()
            self.id = nn.Identity()
            self.shuffle = nn.PixelShuffle(2)
            self.drop = nn.Dropout(0.2)
            self.head = nn.Linear(2 * 8 * 8, 5)

        def forward(self, x):
            x = self.act(self.bn(self.conv(x)))
            x = self.hs(self.dw(x))
            s = F.adaptive_avg_pool2d(x, 1)
            s = self.gate(self.fc2(F.relu(self.fc1(s))))
            x = self.id(x * s)
            x = self.shuffle(x)
            x = self.drop(T.flatten(x, 1))
            return self.head(x)

    class BnRelu(nn.Module):
        """linear+bn1d (folded) then an in-place functional relu, a skip add, a method relu_,
        and a mean read from the quantized value."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.bn = nn.BatchNorm1d(4)
            self.fc2 = nn.Linear(4, 4)

        def forward(self, x):
            y = F.relu(self.bn(self.fc(x)), inplace=True)
            z = (x + y).relu_()
            return self.fc2(z).sum(1, keepdim=True), z.mean(0)

    return {"bnrelu": (BnRelu, (3, 4)), "full": (Full, (2, 3, 8, 8)), "scalars": (Scalars, (2, 3, 6, 6)),
            "block": (Block, (2, 4, 5, 5)), "mlp": (Mlp, (5, 4)), "nested": (Nested, (3, 6)),
            "mobile": (Mobile, (2, 3, 8, 8))}


def _pair(name, seed=0):
    """The torch model (random weights and batch norm statistics) and numtorch's copy."""
    cls_t, shape = _model_classes(torch)[name]
    cls_n, _ = _model_classes(nt)[name]
    torch.manual_seed(seed)
    tm = cls_t()
    with torch.no_grad():
        for mod in tm.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 2.0)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.2, 0.2)
        for pname, param in tm.named_parameters():
            if pname.endswith(("w", ".b")):
                param.normal_()
    nm = cls_n()
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, nm, shape


def _batches(shape, n=2, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def _mapping(T, kind):
    q = T.ao.quantization
    if kind in ("x86", "fbgemm", "qnnpack"):
        return q.get_default_qconfig_mapping(kind)
    if kind == "dynamic":
        return q.QConfigMapping().set_global(q.default_dynamic_qconfig)
    if kind == "fp16_dynamic":
        return q.QConfigMapping().set_global(q.float16_dynamic_qconfig)
    if kind == "no_linear":
        return q.get_default_qconfig_mapping("x86").set_object_type(T.nn.Linear, None)
    if kind == "no_conv2":
        return q.get_default_qconfig_mapping("fbgemm").set_module_name("conv2", None)
    if kind == "no_add":
        return q.get_default_qconfig_mapping("x86").set_object_type(operator.add, None)
    if kind == "global_default":
        return q.QConfigMapping().set_global(q.default_qconfig)
    if kind == "by_name_and_order":  # one submodule float, one F.linear per-tensor
        return q.get_default_qconfig_mapping("fbgemm").set_module_name("b", None) \
            .set_module_name_object_type_order("a", T.nn.functional.linear, 0,
                                               q.default_qconfig)
    raise AssertionError(kind)


def _run_ptq(T, model, mapping_kind, shape, batches):
    from_fx = T.ao.quantization.quantize_fx
    example = (T.tensor(batches[0]),)
    prepared = from_fx.prepare_fx(model.eval(), _mapping(T, mapping_kind), example)
    prepared_code = prepared.code
    for b in batches:
        prepared(T.tensor(b))
    converted = from_fx.convert_fx(prepared)
    return prepared_code, converted


def _quantized_summary(model):
    out = {}
    for name, mod in model.named_modules():
        entry = [type(mod).__name__]
        if hasattr(mod, "scale") and hasattr(mod, "zero_point") and not callable(mod.scale):
            entry += [float(mod.scale), int(mod.zero_point)]
        out[name] = entry
    return out


def _assert_same(tq, nq, batches, exact=True):
    assert nq.code == tq.code
    ts, ns = _quantized_summary(tq), _quantized_summary(nq)
    assert sorted(ns) == sorted(ts)
    for name in ts:
        assert ns[name][0] == ts[name][0], name
        if len(ts[name]) > 1:  # scales may differ in the last float32 bit (float conv sums)
            np.testing.assert_allclose(ns[name][1], ts[name][1], rtol=1e-6)
            assert ns[name][2] == ts[name][2], name
    assert sorted(nq.state_dict()) == sorted(tq.state_dict())
    for b in batches:
        t_out, n_out = tq(torch.tensor(b)), nq(nt.tensor(b))
        if isinstance(t_out, tuple):  # (values, shape)
            if isinstance(t_out[1], torch.Size):
                assert tuple(n_out[1]) == tuple(t_out[1])
            else:
                np.testing.assert_allclose(n_out[1].numpy(), t_out[1].numpy(), rtol=5e-7)
            t_out, n_out = t_out[0], n_out[0]
        t_out, n_out = t_out.detach().numpy(), n_out.detach().numpy()
        assert n_out.dtype == t_out.dtype
        if exact:  # dequantized int8 values: the same integers; the scale may differ in its
            # last float32 bit where float convs sum in another order during calibration
            np.testing.assert_allclose(n_out, t_out, rtol=5e-7, atol=0)
        else:  # float results (dynamic quantization; float convs before it)
            np.testing.assert_allclose(n_out, t_out, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,mapping", [
    ("full", "x86"), ("scalars", "fbgemm"), ("block", "qnnpack"), ("mlp", "no_linear"),
    ("full", "no_conv2"), ("full", "no_add"), ("block", "global_default"),
    ("nested", "by_name_and_order"), ("mobile", "qnnpack"), ("bnrelu", "fbgemm")])
def test_ptq_matches_torch(name, mapping):
    tm, nm, shape = _pair(name)
    batches = _batches(shape)
    t_code, tq = _run_ptq(torch, tm, mapping, shape, batches)
    n_code, nq = _run_ptq(nt, nm, mapping, shape, batches)
    assert n_code == t_code
    _assert_same(tq, nq, _batches(shape, 2, seed=7))


@pytest.mark.parametrize("name,mapping", [("mlp", "dynamic"), ("full", "dynamic"),
                                          ("mlp", "fp16_dynamic")])
def test_dynamic_matches_torch(name, mapping):
    tm, nm, shape = _pair(name)
    batches = _batches(shape)
    t_code, tq = _run_ptq(torch, tm, mapping, shape, batches)
    n_code, nq = _run_ptq(nt, nm, mapping, shape, batches)
    assert n_code == t_code
    _assert_same(tq, nq, _batches(shape, 2, seed=7), exact=False)


def _run_qat(T, model, backend, batches):
    q = T.ao.quantization
    example = (T.tensor(batches[0]),)
    T.manual_seed(0)  # dropout masks in the training passes
    prepared = q.quantize_fx.prepare_qat_fx(model.train(), q.get_default_qat_qconfig_mapping(
        backend), example)
    code = prepared.code
    for b in batches:  # training-mode passes: batch norm statistics, fake-quant ranges
        prepared(T.tensor(b))
    prepared.eval()
    return code, q.quantize_fx.convert_fx(prepared)


@pytest.mark.parametrize("name,backend", [("scalars", "x86"), ("nested", "x86"),
                                          ("mobile", "qnnpack")])
def test_qat_matches_torch(name, backend):
    tm, nm, shape = _pair(name)
    batches = _batches(shape)
    t_code, tq = _run_qat(torch, tm, backend, batches)
    n_code, nq = _run_qat(nt, nm, backend, batches)
    assert n_code == t_code
    _assert_same(tq, nq, _batches(shape, 2, seed=7))


def test_fuse_fx_matches_torch():
    tm, nm, shape = _pair("block")
    tf = torch.ao.quantization.quantize_fx.fuse_fx(tm.eval())
    nf = nt.ao.quantization.quantize_fx.fuse_fx(nm.eval())
    assert nf.code == tf.code
    assert [type(m).__name__ for m in nf.modules()] == [type(m).__name__ for m in tf.modules()]
    x = _batches(shape, 1)[0]
    np.testing.assert_allclose(nf(nt.tensor(x)).detach().numpy(),
                               tf(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_prepared_model_shares_observers_like_torch():
    tm, nm, shape = _pair("full")
    ex = _batches(shape, 1)
    tp = torch.ao.quantization.quantize_fx.prepare_fx(
        tm.eval(), _mapping(torch, "x86"), (torch.tensor(ex[0]),))
    np_ = nt.ao.quantization.quantize_fx.prepare_fx(
        nm.eval(), _mapping(nt, "x86"), (nt.tensor(ex[0]),))

    def groups(model):
        mods = dict(model.named_children())
        names = sorted(n for n in mods if n.startswith("activation_post_process_"))
        return [[m for m in names if mods[m] is mods[n]] for n in names]

    assert groups(np_) == groups(tp)
    assert [type(m).__name__ for _, m in np_.named_children()] == \
        [type(m).__name__ for _, m in tp.named_children()]


def _errors(T):
    nn = T.nn
    q = T.ao.quantization

    class Branchy(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x

    class ConvBn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 1, 1)
            self.bn = nn.BatchNorm2d(1)

        def forward(self, x):
            return self.bn(self.conv(x))

    x = T.ones(1, 1, 2, 2)
    cases = {
        "control_flow": lambda: q.quantize_fx.prepare_fx(
            Branchy(), q.get_default_qconfig_mapping(), (x,)),
        "train_mode_bn": lambda: q.quantize_fx.prepare_fx(
            ConvBn(), q.get_default_qconfig_mapping(), (x,)),
        "convert_plain_module": lambda: q.quantize_fx.convert_fx(ConvBn()),
    }
    return cases


@pytest.mark.parametrize("case", ["control_flow", "train_mode_bn", "convert_plain_module"])
def test_errors_match_torch(case):
    with pytest.raises(Exception) as t_err:
        _errors(torch)[case]()
    with pytest.raises(Exception) as n_err:
        _errors(nt)[case]()
    assert type(n_err.value).__name__ == type(t_err.value).__name__
    assert str(n_err.value).replace("numtorch", "torch") == str(t_err.value)


def test_ops_outside_the_implemented_set_raise_rather_than_differ():
    nn = nt.nn

    class Mm(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            y = self.fc(x)
            return nt.matmul(y, y.t())

    q = nt.ao.quantization
    with pytest.raises(NotImplementedError, match="matmul"):
        q.quantize_fx.prepare_fx(Mm().eval(), q.get_default_qconfig_mapping(),
                                 (nt.ones(2, 4),))
    # with a None qconfig for it, the rest is quantized and the matmul stays float
    mapping = q.get_default_qconfig_mapping().set_object_type(nt.matmul, None)
    prepared = q.quantize_fx.prepare_fx(Mm().eval(), mapping, (nt.ones(2, 4),))
    prepared(nt.ones(2, 4))
    converted = q.quantize_fx.convert_fx(prepared)
    assert "torch.matmul" in converted.code
    assert type(converted.fc).__name__ == "Linear"  # quantized Linear
    assert "quantized" in type(converted.fc).__module__


@pytest.mark.parametrize("name,mapping", [("block", "qnnpack"),
                                          ("nested", "by_name_and_order"),
                                          ("mlp", "dynamic"), ("mlp", "fp16_dynamic")])
def test_convert_to_reference_fx_matches_torch(name, mapping):
    tm, nm, shape = _pair(name)
    batches = _batches(shape)
    refs = []
    for T, model in ((torch, tm), (nt, nm)):
        q = T.ao.quantization
        prepared = q.quantize_fx.prepare_fx(model.eval(), _mapping(T, mapping),
                                            (T.tensor(batches[0]),))
        for b in batches:
            prepared(T.tensor(b))
        refs.append(q.quantize_fx.convert_to_reference_fx(prepared))
    tr, nr = refs
    assert nr.code == tr.code
    assert [(n, type(m).__name__) for n, m in nr.named_modules()] == \
        [(n, type(m).__name__) for n, m in tr.named_modules()]
    assert str(nr).replace("numtorch", "torch") == str(tr)
    assert sorted(nr.state_dict()) == sorted(tr.state_dict())
    for b in _batches(shape, 2, seed=7):
        t_out, n_out = tr(torch.tensor(b)), nr(nt.tensor(b))
        if isinstance(t_out, tuple):
            t_out, n_out = t_out[0], n_out[0]
        np.testing.assert_allclose(n_out.detach().numpy(), t_out.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_dequantize_of_a_plain_tensor_gives_float32():
    for dt in ("float16", "bfloat16", "float64", "float32", "int32"):
        t = torch.ones(2, dtype=getattr(torch, dt)).dequantize()
        n = nt.ones(2, dtype=getattr(nt, dt)).dequantize()
        assert str(n.dtype) == str(t.dtype)


@pytest.mark.parametrize("op", ["add", "add_relu", "mul", "mul_relu"])
@pytest.mark.parametrize("c", [1.0, -2.5, 0.3, 40.0, 2])
def test_quantized_binary_ops_take_a_scalar(op, c):
    # the converted graph calls torch.ops.quantized.add(q, 1.0) for `x + 1.0`
    x = (np.random.default_rng(3).standard_normal(50) * 3).astype(np.float32)
    tq = torch.quantize_per_tensor(torch.tensor(x), 0.05, 60, torch.quint8)
    nq = nt.quantize_per_tensor(nt.tensor(x), 0.05, 60, nt.quint8)
    t = getattr(torch.ops.quantized, op)(tq, c)
    n = getattr(nt.ops.quantized, op)(nq, c)
    assert (n.q_scale(), n.q_zero_point()) == (t.q_scale(), t.q_zero_point())
    np.testing.assert_array_equal(n.int_repr().numpy(), t.int_repr().numpy())


def test_convert_without_calibration_and_random_stream_match_torch():
    # torch observes F.linear weights again at convert (an uncalibrated model still gets
    # weight parameters) and draws random numbers while building reference modules
    results = []
    for T in (torch, nt):
        T.manual_seed(0)
        cls, shape = _model_classes(T)["nested"]
        model = cls().eval()
        q = T.ao.quantization
        prepared = q.quantize_fx.prepare_fx(model, _mapping(T, "by_name_and_order"),
                                            (T.ones(*shape),))
        converted = q.quantize_fx.convert_fx(prepared)
        after = T.randn(4).numpy()
        x = T.tensor(_batches(shape, 1)[0])
        results.append((converted.code, after, converted(x)[0].numpy()))
    assert results[1][0] == results[0][0]
    np.testing.assert_array_equal(results[1][1], results[0][1])
    np.testing.assert_array_equal(results[1][2], results[0][2])


def test_converted_model_saves_and_loads(tmp_path):
    # torch.save of the whole converted model (packed F.linear weights included)
    _, nm, shape = _pair("nested")
    batches = _batches(shape)
    _, nq = _run_ptq(nt, nm, "by_name_and_order", shape, batches)
    path = tmp_path / "q.pt"
    nt.save(nq, path)
    loaded = nt.load(path, weights_only=False)
    x = nt.tensor(batches[1])
    np.testing.assert_array_equal(loaded(x)[0].numpy(), nq(x)[0].numpy())
    assert loaded.code == nq.code


@pytest.mark.parametrize("name,mapping", [("mlp", "x86"), ("nested", "by_name_and_order")])
def test_converted_state_dict_round_trip_like_torch(name, mapping):
    # a root-level packed weight (_packed_weight_0) loads back; one inside a submodule's
    # prefix (a_packed_weight_0) is an unexpected key for torch too
    outcomes = []
    for T, idx in ((torch, 0), (nt, 1)):
        _, shape = _model_classes(T)[name]
        batches = _batches(shape)
        first = _run_ptq(T, _pair(name)[idx], mapping, shape, batches)[1]
        second = _run_ptq(T, _pair(name, seed=3)[idx], mapping, shape, batches)[1]
        try:
            second.load_state_dict(first.state_dict())
        except RuntimeError as e:
            outcomes.append(("error", str(e)))
            continue
        x = T.tensor(batches[1])
        out = second(x)
        out = out[0] if isinstance(out, tuple) else out
        ref = first(x)
        ref = ref[0] if isinstance(ref, tuple) else ref
        outcomes.append(("ok", bool((out == ref).all())))
    assert outcomes[1] == outcomes[0]


def _custom_config_run(T):
    nn = T.nn
    from_fx = T.ao.quantization.quantize_fx
    custom = importlib.import_module(T.__name__ + ".ao.quantization.fx.custom_config")

    class Weird(nn.Module):  # data-dependent control flow: not traceable
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return x

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.w = Weird()
            self.fc2 = nn.Linear(4, 2)
            self.version = 3

        def forward(self, x):
            return self.fc2(self.w(self.fc(x)))

    T.manual_seed(0)
    config = custom.PrepareCustomConfig().set_non_traceable_module_classes([Weird]) \
        .set_preserved_attributes(["version"])
    batches = _batches((2, 4))
    prepared = from_fx.prepare_fx(M().eval(), T.ao.quantization.get_default_qconfig_mapping(),
                                  (T.tensor(batches[0]),), prepare_custom_config=config)
    for b in batches:
        prepared(T.tensor(b))
    converted = from_fx.convert_fx(prepared, convert_custom_config=custom.ConvertCustomConfig()
                                   .set_preserved_attributes(["version"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        by_name = from_fx.prepare_fx(M().eval(), T.ao.quantization.get_default_qconfig_mapping(),
                                     (T.tensor(batches[0]),),
                                     prepare_custom_config={"non_traceable_module_name": ["w"]})
    future = [str(w.message) for w in caught if w.category is FutureWarning]
    return (prepared.code, converted.code, converted.version, config.to_dict()["preserved_attributes"],
            converted(T.tensor(batches[1])).numpy(), by_name.code, future)


def test_custom_configs_match_torch():
    t, n = _custom_config_run(torch), _custom_config_run(nt)
    assert n[:4] == t[:4]
    np.testing.assert_allclose(n[4], t[4], rtol=5e-7, atol=0)
    assert n[5:] == t[5:]


@pytest.mark.parametrize("op", ["add", "add_relu", "mul"])
def test_quantized_scalar_ops_match_torch_when_the_range_moves(op):
    # a scalar that moves the zero point out of range rescales the integers with torch's
    # float32 multiplier (the earlier float requantization was a unit off on some values);
    # op(number, q) is op(q, number)
    rng = np.random.default_rng(0)
    for trial in range(40):
        dtype = ("quint8", "qint8")[trial % 2]
        scale = float(rng.uniform(0.001, 0.2))
        zp = int(rng.integers(0, 256)) if dtype == "quint8" else int(rng.integers(-128, 128))
        c = float(rng.normal() * 5)
        x = rng.normal(size=64).astype(np.float32) * 3
        tq = torch.quantize_per_tensor(torch.tensor(x), scale, zp, getattr(torch, dtype))
        nq = nt.quantize_per_tensor(nt.tensor(x), scale, zp, getattr(nt, dtype))
        args = ((tq, c), (nq, c)) if trial % 3 else ((c, tq), (c, nq))
        t = getattr(torch.ops.quantized, op)(*args[0])
        n = getattr(nt.ops.quantized, op)(*args[1])
        assert (n.q_scale(), n.q_zero_point()) == (t.q_scale(), t.q_zero_point())
        np.testing.assert_array_equal(n.int_repr().numpy(), t.int_repr().numpy())
