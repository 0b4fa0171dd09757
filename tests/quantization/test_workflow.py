"""Eager-mode workflows against torch: fuse + prepare + calibrate + convert (static), QAT,
dynamic quantization, embedding quantization; quantized modules and their state dicts."""

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", message=".*(deprecated|reduce_range|poor numerical).*")


@pytest.fixture(autouse=True, scope="module")
def _x86_engine():
    old = torch.backends.quantized.engine
    torch.backends.quantized.engine = "x86"
    yield
    torch.backends.quantized.engine = old


def _net(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            q = m.ao.quantization
            self.quant, self.dequant = q.QuantStub(), q.DeQuantStub()
            self.conv, self.bn, self.relu = m.nn.Conv2d(3, 8, 3, padding=1), \
                m.nn.BatchNorm2d(8), m.nn.ReLU()
            self.conv2, self.relu2 = m.nn.Conv2d(8, 8, 3, stride=2), m.nn.ReLU()
            self.pool = m.nn.AdaptiveAvgPool2d(1)
            self.fc, self.relu3, self.fc2 = m.nn.Linear(8, 6), m.nn.ReLU(), m.nn.Linear(6, 4)
            self.skip = m.ao.nn.quantized.FloatFunctional()

        def forward(self, x):
            x = self.relu(self.bn(self.conv(self.quant(x))))
            y = self.pool(self.relu2(self.conv2(x))).flatten(1)
            z = self.fc2(self.relu3(self.fc(y)))
            return self.dequant(self.skip.add(z, z))
    return Net()


FUSE = [["conv", "bn", "relu"], ["conv2", "relu2"], ["fc", "relu3"]]


def _pair_models(seed=0):
    tm, nm = _net(torch), _net(nt)
    torch.manual_seed(seed)
    for p in tm.parameters():
        p.data.uniform_(-0.5, 0.5)
    tm.bn.running_mean.uniform_(-0.2, 0.2)
    tm.bn.running_var.uniform_(0.5, 1.5)
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, nm


def _data(seed, n=3):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((4, 3, 10, 10)).astype(np.float32) for _ in range(n)]


def _load_from_torch(nm, sd):
    from collections import OrderedDict
    out = OrderedDict((k, _to_nt(v)) for k, v in sd.items())
    out._metadata = getattr(sd, "_metadata", None)  # carries the modules' versions
    return nm.load_state_dict(out)


def _to_nt(v):
    if isinstance(v, torch.Tensor):
        if v.is_quantized:
            if v.qscheme() == torch.per_tensor_affine:
                return nt._make_per_tensor_quantized_tensor(nt.tensor(v.int_repr().numpy()),
                                                            v.q_scale(), v.q_zero_point())
            return nt._make_per_channel_quantized_tensor(
                nt.tensor(v.int_repr().numpy()), nt.tensor(v.q_per_channel_scales().numpy()),
                nt.tensor(v.q_per_channel_zero_points().numpy()), v.q_per_channel_axis())
        return nt.tensor(v.detach().numpy())
    if isinstance(v, tuple):
        return tuple(_to_nt(e) for e in v)
    if isinstance(v, torch.dtype):
        return getattr(nt, str(v).split(".")[1])
    return v


@pytest.mark.parametrize("backend", ["x86", "qnnpack"])
def test_static_post_training_quantization(backend):
    tm, nm = _pair_models()
    for lib, m in ((torch, tm), (nt, nm)):
        m.eval()
        m.qconfig = lib.ao.quantization.get_default_qconfig(backend)
    ft = torch.ao.quantization.fuse_modules(tm, FUSE)
    fn = nt.ao.quantization.fuse_modules(nm, FUSE)
    assert [type(m).__name__ for m in fn.children()] == [type(m).__name__ for m in
                                                           ft.children()]
    pt, pn = torch.ao.quantization.prepare(ft), nt.ao.quantization.prepare(fn)
    for x in _data(1):
        pt(torch.tensor(x))
        pn(nt.tensor(x))
    ct, cn = torch.ao.quantization.convert(pt), nt.ao.quantization.convert(pn)
    assert [type(m).__name__ for m in cn.modules()] == [type(m).__name__ for m in ct.modules()]
    assert list(cn.state_dict()) == list(ct.state_dict())
    # calibration runs float convolutions, which round differently: parameters agree to ulps
    for (k, a), b in zip(cn.state_dict().items(), ct.state_dict().values()):
        if k.endswith("scale") and not isinstance(b, torch.dtype):
            np.testing.assert_allclose(float(a), float(b), rtol=1e-5)
    # torch's converted weights and parameters in numtorch's model: the same integers out
    assert not _load_from_torch(cn, ct.state_dict()).missing_keys
    x = _data(2, 1)[0]
    np.testing.assert_allclose(cn(nt.tensor(x)).numpy(), ct(torch.tensor(x)).numpy(),
                               atol=float(ct.skip.scale) * 1.01)
    yn = cn(nt.tensor(x)).numpy()
    assert np.abs(yn - ct(torch.tensor(x)).numpy()).max() <= float(ct.skip.scale) * 1.01


def test_quantization_aware_training_step():
    tm, nm = _pair_models(3)
    for lib, m in ((torch, tm), (nt, nm)):
        m.train()
        m.qconfig = lib.ao.quantization.get_default_qat_qconfig("x86")
    ft = torch.ao.quantization.fuse_modules_qat(tm, FUSE)
    fn = nt.ao.quantization.fuse_modules_qat(nm, FUSE)
    pt, pn = torch.ao.quantization.prepare_qat(ft), nt.ao.quantization.prepare_qat(fn)
    assert [type(m).__name__ for m in pn.modules()] == [type(m).__name__ for m in pt.modules()]
    ot = torch.optim.SGD(pt.parameters(), lr=0.1)
    on = nt.optim.SGD(pn.parameters(), lr=0.1)
    for x in _data(4, 2):
        ot.zero_grad()
        on.zero_grad()
        lt, ln = pt(torch.tensor(x)).square().mean(), pn(nt.tensor(x)).square().mean()
        np.testing.assert_allclose(ln.item(), lt.item(), rtol=1e-4)
        lt.backward()
        ln.backward()
        np.testing.assert_allclose(pn.conv.weight.grad.numpy(), pt.conv.weight.grad.numpy(),
                                   rtol=1e-3, atol=1e-4)
        ot.step()
        on.step()
    pt.eval()
    pn.eval()
    ct, cn = torch.ao.quantization.convert(pt), nt.ao.quantization.convert(pn)
    assert [type(m).__name__ for m in cn.modules()] == [type(m).__name__ for m in ct.modules()]
    assert not _load_from_torch(cn, ct.state_dict()).missing_keys
    x = _data(5, 1)[0]
    assert np.abs(cn(nt.tensor(x)).numpy() - ct(torch.tensor(x)).numpy()).max() <= \
        float(ct.skip.scale) * 1.01


def _rnn_model(m):
    return m.nn.ModuleDict({"fc": m.nn.Linear(6, 5), "lstm": m.nn.LSTM(5, 4, num_layers=2,
                                                                       bidirectional=True),
                            "gru": m.nn.GRU(8, 3, batch_first=True), "cell": m.nn.LSTMCell(5, 4),
                            "gcell": m.nn.GRUCell(5, 4), "rcell": m.nn.RNNCell(5, 4)})


@pytest.mark.parametrize("dtype", ["qint8", "float16"])
def test_quantize_dynamic_linear_and_recurrent(dtype):
    tm, nm = _rnn_model(torch), _rnn_model(nt)
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    qt = torch.ao.quantization.quantize_dynamic(tm, dtype=getattr(torch, dtype))
    qn = nt.ao.quantization.quantize_dynamic(nm, dtype=getattr(nt, dtype))
    assert repr(qn) == repr(qt)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((7, 3, 6)).astype(np.float32)
    h = {}
    for lib, q, out in ((torch, qt, h.setdefault("t", [])), (nt, qn, h.setdefault("n", []))):
        y = q["fc"](lib.tensor(x))
        seq, (hn, cn) = q["lstm"](y)
        g, gh = q["gru"](seq[:, :, :8].transpose(0, 1).contiguous())
        c = q["cell"](y[0])
        out += [y, seq, hn, cn, g, gh, c[0], c[1], q["gcell"](y[0]), q["rcell"](y[0])]
    for a, b in zip(h["n"], h["t"]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=2e-6)


def test_embedding_quantization():
    rng = np.random.default_rng(8)
    w = rng.standard_normal((12, 6)).astype(np.float32)
    idx = np.array([1, 4, 4, 7, 0, 11, 3])
    offsets = np.array([0, 3, 3, 5])
    psw = rng.uniform(0.5, 2, 7).astype(np.float32)
    for dt, qc in (("quint8", "float_qparams_weight_only_qconfig"),
                   ("quint4x2", "float_qparams_weight_only_qconfig_4bit")):
        outs = []
        for lib in (torch, nt):
            bag = lib.nn.EmbeddingBag(12, 6, mode="sum")
            emb = lib.nn.Embedding(12, 6)
            with lib.no_grad():
                bag.weight.copy_(lib.tensor(w))
                emb.weight.copy_(lib.tensor(w))
            q = getattr(lib.ao.quantization, qc)
            bag.qconfig = emb.qconfig = q
            qbag = lib.ao.nn.quantized.EmbeddingBag.from_float(bag)
            res = [qbag(lib.tensor(idx), lib.tensor(offsets)),
                   qbag(lib.tensor(idx), lib.tensor(offsets), per_sample_weights=lib.tensor(psw))]
            if dt == "quint8":
                res.append(lib.ao.nn.quantized.Embedding.from_float(emb)(lib.tensor(idx)))
            # repr now: torch's unpacked weight aliases the packed buffer and reads freed
            # memory once the module is collected (torch bug)
            outs.append((res, repr(qbag.weight())))
        for a, b in zip(outs[1][0], outs[0][0]):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
        assert outs[1][1] == outs[0][1]


def test_quantized_modules_state_dict_and_forward():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    mods = [("Conv2d", (4, 5, 3), dict(stride=2, padding=1)), ("Conv1d", (4, 5, 3), {}),
            ("ConvTranspose2d", (4, 3, 3), dict(stride=2)), ("BatchNorm2d", (4,), {}),
            ("ReLU6", (), {}), ("Hardswish", (0.05, 7), {}), ("LeakyReLU", (0.05, 7), {}),
            ("ELU", (0.05, 7), {}), ("Sigmoid", (1 / 256, 0), {}), ("Dropout", (), {})]
    for name, args, kw in mods:
        # torch's x86 (oneDNN) quantized deconvolution is wrong on this build; fbgemm and
        # qnnpack agree with the float reference, so compare against fbgemm there
        torch.backends.quantized.engine = "fbgemm" if "Transpose" in name else "x86"
        tm = getattr(torch.ao.nn.quantized, name)(*args, **kw)
        nm = getattr(nt.ao.nn.quantized, name)(*args, **kw)
        sd = tm.state_dict()
        for k, v in sd.items():  # fill the layer with real values (weights are empty)
            if isinstance(v, torch.Tensor) and v.is_quantized and k.endswith("weight"):
                w = torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                sd[k] = torch.quantize_per_tensor(w, 0.02, 0, torch.qint8)
            elif isinstance(v, torch.Tensor) and v.dtype == torch.float32 and v.dim() == 1:
                sd[k] = torch.tensor(rng.uniform(0.5, 1.5, tuple(v.shape)).astype(np.float32))
        tm.load_state_dict(sd)
        assert not _load_from_torch(nm, tm.state_dict()).missing_keys
        assert list(nm.state_dict()) == list(tm.state_dict())
        assert repr(nm) == repr(tm)
        inp = x if name != "Conv1d" else x.reshape(2, 4, 36)
        qa = nt.quantize_per_tensor(nt.tensor(inp), 0.03, 100, nt.quint8)
        qb = torch.quantize_per_tensor(torch.tensor(inp), 0.03, 100, torch.quint8)
        ya, yb = nm(qa), tm(qb)
        assert ya.q_scale() == yb.q_scale() and ya.q_zero_point() == yb.q_zero_point()
        d = np.abs(ya.int_repr().numpy().astype(int) - yb.int_repr().numpy().astype(int))
        assert d.max() <= 1
    torch.backends.quantized.engine = "x86"
    q = nt.ao.nn.quantized.QFunctional()
    q.scale, q.zero_point = 0.1, 5
    assert list(q.state_dict()) == list(torch.ao.nn.quantized.QFunctional().state_dict())
