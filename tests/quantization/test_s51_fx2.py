"""FX graph mode quantization of more patterns (LayerNorm, ConvTranspose, ...) against real
torch at test time: the same model, weights and calibration data through both; the prepared
and converted code, the quantized modules, state_dict keys and int8 results must agree."""

import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization.quantize_fx

import numtorch as nt
import numtorch.ao.quantization.quantize_fx

warnings.filterwarnings("ignore", message=".*deprecated.*")
warnings.filterwarnings("ignore", message=".*reduce_range.*")
warnings.filterwarnings("ignore", message=".*quant_min.*")


def _models(T):
    nn = T.nn

    class LnMid(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
            self.ln = nn.LayerNorm(8)
            self.fc2 = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc2(self.ln(self.fc(x)))

    class LnFirst(nn.Module):
        """LayerNorm on the float input, without affine parameters, over two dims."""

        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm([3, 4], elementwise_affine=False)
            self.fc = nn.Linear(4, 5)

        def forward(self, x):
            return self.fc(self.ln(x)).relu()

    class LnOut(nn.Module):
        """LayerNorm whose output leaves the model (dequantized), and a residual add."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 6)
            self.ln = nn.LayerNorm(6, eps=1e-3)

        def forward(self, x):
            y = self.fc(x)
            return self.ln(y + x)

    class Norms2d(nn.Module):
        """conv -> InstanceNorm2d -> softmax module, and a GroupNorm torch leaves float."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.inorm = nn.InstanceNorm2d(4, affine=True)
            self.softmax = nn.Softmax(dim=1)
            self.conv2 = nn.Conv2d(4, 4, 1)
            self.gn = nn.GroupNorm(2, 4)

        def forward(self, x):
            y = self.softmax(self.inorm(self.conv(x)))
            return self.gn(self.conv2(y))

    class Norms1d(nn.Module):
        """InstanceNorm1d on the float input, then conv, Softmax over the last dim."""

        def __init__(self):
            super().__init__()
            self.inorm = nn.InstanceNorm1d(3)
            self.conv = nn.Conv1d(3, 5, 2)
            self.softmax = nn.Softmax(-1)

        def forward(self, x):
            return self.softmax(self.conv(self.inorm(x)))

    class Decoder(nn.Module):
        """conv -> ConvTranspose2d (stride, padding, output_padding) -> ReLU ->
        ConvTranspose2d with other channel counts, groups and dilation -> add."""

        def __init__(self, channels=(4, 4, 2)):
            super().__init__()
            a, b, c = channels
            self.conv = nn.Conv2d(3, a, 3, padding=1)
            self.up = nn.ConvTranspose2d(a, b, 3, stride=2, padding=1, output_padding=1)
            self.relu = nn.ReLU()
            self.up2 = nn.ConvTranspose2d(b, c, 3, padding=2, groups=2, dilation=2)

        def forward(self, x):
            y = self.up2(self.relu(self.up(self.conv(x))))
            return y + y

    class Decoder1d(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.ConvTranspose1d(3, 5, 4, stride=2, bias=False)
            self.up2 = nn.ConvTranspose1d(5, 2, 2)

        def forward(self, x):
            return self.up2(self.up(x))

    F = T.nn.functional

    class Functional(nn.Module):
        """F.hardswish, F.leaky_relu (slope given positionally), F.elu, F.layer_norm with
        parameter weight/bias, mixed with add and a float F.softmax at the end."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 6)
            self.fc2 = nn.Linear(6, 6)
            self.w = nn.Parameter(T.ones(6))
            self.b = nn.Parameter(T.zeros(6))

        def forward(self, x):
            y = F.hardswish(self.fc(x))
            z = F.leaky_relu(self.fc2(y), 0.2) + F.elu(y, alpha=0.5)
            z = F.layer_norm(F.dropout(z, 0.3, self.training), (6,), self.w, self.b, 1e-3)
            return F.softmax(F.hardswish(z), -1)

    return {"decoder": (Decoder, (2, 3, 4, 4)), "functional": (Functional, (4, 6)),
            "decoder_wide": (lambda: Decoder((4, 6, 2)), (2, 3, 4, 4)),
            "decoder1d": (Decoder1d, (2, 3, 6)),
            "ln_mid": (LnMid, (3, 8)), "ln_first": (LnFirst, (2, 3, 4)),
            "ln_out": (LnOut, (4, 6)), "norms2d": (Norms2d, (2, 3, 5, 5)),
            "norms1d": (Norms1d, (2, 3, 7))}


def _pair(name, seed=0):
    cls_t, shape = _models(torch)[name]
    cls_n, _ = _models(nt)[name]
    torch.manual_seed(seed)
    tm = cls_t()
    with torch.no_grad():
        for pname, p in tm.named_parameters():
            if pname.startswith(("ln", "inorm", "gn", "w", "b")):
                p.uniform_(-1.0, 1.5)
    nm = cls_n()
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, nm, shape


def _batches(shape, n=2, seed=1):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def _run(T, model, mapping, batches):
    fx = T.ao.quantization.quantize_fx
    prepared = fx.prepare_fx(model.eval(), mapping, (T.tensor(batches[0]),))
    code = prepared.code
    for b in batches:
        prepared(T.tensor(b))
    return code, fx.convert_fx(prepared)


def _summary(model):
    out = {}
    for name, mod in model.named_modules():
        entry = [type(mod).__name__]
        if hasattr(mod, "scale") and hasattr(mod, "zero_point") and not callable(mod.scale):
            entry += [float(mod.scale), int(mod.zero_point)]
        out[name] = entry
    return out


def _check(name, kind="x86", float_out=False, engine=None):
    if engine is not None:
        saved = torch.backends.quantized.engine, nt.backends.quantized.engine
        torch.backends.quantized.engine = nt.backends.quantized.engine = engine
        try:
            return _check(name, kind, float_out)
        finally:
            torch.backends.quantized.engine, nt.backends.quantized.engine = saved
    tm, nm, shape = _pair(name)
    batches = _batches(shape)
    t_code, tq = _run(torch, tm, torch.ao.quantization.get_default_qconfig_mapping(kind),
                      batches)
    n_code, nq = _run(nt, nm, nt.ao.quantization.get_default_qconfig_mapping(kind), batches)
    assert n_code == t_code
    assert nq.code == tq.code
    ts, ns = _summary(tq), _summary(nq)
    assert sorted(ns) == sorted(ts)
    for key in ts:
        assert ns[key][0] == ts[key][0], key
        if len(ts[key]) > 1:  # the scale may differ in its last float32 bit (float sums)
            np.testing.assert_allclose(ns[key][1], ts[key][1], rtol=1e-6)
            assert ns[key][2] == ts[key][2], key
    assert list(nq.state_dict()) == list(tq.state_dict())
    for b in _batches(shape, 2, seed=7):
        t_out = tq(torch.tensor(b)).detach().numpy()
        n_out = nq(nt.tensor(b)).detach().numpy()
        assert n_out.dtype == t_out.dtype
        if float_out:  # a float op after the dequantize (float32 sums in another order)
            np.testing.assert_allclose(n_out, t_out, rtol=1e-4, atol=1e-5)
        else:  # the same integers (a scale may differ in its last float32 bit)
            np.testing.assert_allclose(n_out, t_out, rtol=5e-7, atol=0)
    return tq, nq


@pytest.mark.parametrize("name,kind", [("ln_mid", "x86"), ("ln_first", "x86"),
                                       ("ln_out", "fbgemm"), ("ln_mid", "qnnpack")])
def test_layer_norm_module_matches_torch(name, kind):
    tq, nq = _check(name, kind)
    assert type(nq.ln).__module__.replace("numtorch", "torch") == type(tq.ln).__module__


@pytest.mark.parametrize("name,kind", [("norms2d", "x86"), ("norms1d", "fbgemm"),
                                       ("norms2d", "qnnpack")])
def test_instance_norm_softmax_group_norm_match_torch(name, kind):
    """InstanceNorm and Softmax modules are lowered to their quantized modules; GroupNorm
    stays float after a dequantize, as torch's native backend does."""
    _check(name, kind, float_out=name == "norms2d")


@pytest.mark.parametrize("name,kind,engine", [
    ("decoder", "x86", None), ("decoder_wide", "fbgemm", "fbgemm"),
    ("decoder_wide", "qnnpack", "qnnpack"), ("decoder1d", "fbgemm", "fbgemm"),
    ("decoder1d", "qnnpack", "qnnpack")])
def test_conv_transpose_modules_match_torch(name, kind, engine):
    """ConvTranspose1d/2d become quantized ConvTranspose modules with a per-tensor weight
    (the mapping's transpose qconfig). torch's x86 engine computes a quantized transposed
    conv with in_channels != out_channels wrongly, so the wide models run on fbgemm/qnnpack."""
    tq, nq = _check(name, kind, engine=engine)
    assert type(nq.up).__name__ == type(tq.up).__name__
    assert nq.up.weight().q_scale() == tq.up.weight().q_scale()


def test_conv_transpose_reference_conversion_says_it_is_missing():
    """No reference ConvTranspose module yet: a clear NotImplementedError, not a KeyError."""
    q = nt.ao.quantization
    model = nt.nn.Sequential(nt.nn.ConvTranspose2d(2, 2, 2)).eval()
    x = nt.randn(1, 2, 3, 3)
    prepared = q.quantize_fx.prepare_fx(model, q.get_default_qconfig_mapping(), (x,))
    prepared(x)
    with pytest.raises(NotImplementedError, match="ConvTranspose2d"):
        q.quantize_fx.convert_to_reference_fx(prepared)


@pytest.mark.parametrize("kind", ["x86", "qnnpack"])
def test_functional_hardswish_elu_leaky_relu_layer_norm_match_torch(kind):
    """Each becomes its torch.ops.quantized op with the output grid as keywords."""
    _, nq = _check("functional", kind, float_out=True)
    assert "torch.ops.quantized.hardswish" in nq.code


def test_quantized_dropout_op_matches_torch():
    """torch.ops.quantized.dropout returns its quantized input; a float input gets the
    dispatcher's error."""
    x = np.random.default_rng(0).standard_normal(5).astype(np.float32)
    for training in (False, True):
        tq = torch.quantize_per_tensor(torch.tensor(x), 0.05, 10, torch.quint8)
        nq = nt.quantize_per_tensor(nt.tensor(x), 0.05, 10, nt.quint8)
        ty = torch.ops.quantized.dropout(tq, 0.5, training, 0.1, 3)
        ny = nt.ops.quantized.dropout(nq, 0.5, training, 0.1, 3)
        assert (ny is nq) == (ty is tq)
        assert (ny.q_scale(), ny.q_zero_point()) == (ty.q_scale(), ty.q_zero_point())
        np.testing.assert_array_equal(ny.int_repr().numpy(), ty.int_repr().numpy())
    with pytest.raises(NotImplementedError) as t_err:
        torch.ops.quantized.dropout(torch.ones(3), 0.5, False, 0.1, 3)
    with pytest.raises(NotImplementedError) as n_err:
        nt.ops.quantized.dropout(nt.ones(3), 0.5, False, 0.1, 3)
    # (the backend list after this sentence differs: torch also registers a Meta kernel)
    cut = " 'quantized::dropout' is only available"
    assert str(n_err.value).split(cut)[0] == str(t_err.value).split(cut)[0]
