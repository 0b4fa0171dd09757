"""Session 49 quantization parity: numtorch against real torch at test time (int8 results
compared exactly)."""

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore", message=".*deprecated.*")


def _pair(ints, zp, dt):
    x = ((ints - zp) * 0.5).astype(np.float32)
    return (nt.quantize_per_tensor(nt.tensor(x), 0.5, zp, getattr(nt, dt)),
            torch.quantize_per_tensor(torch.tensor(x), 0.5, zp, getattr(torch, dt)))


_POOLS = {
    "ada_half": lambda F, t: F.adaptive_avg_pool2d(t, 3),
    "ada_odd": lambda F, t: F.adaptive_avg_pool2d(t, (4, 5)),
    "ada_one": lambda F, t: F.adaptive_avg_pool2d(t, 1),
    "avg2": lambda F, t: F.avg_pool2d(t, 2),
    "avg_pad": lambda F, t: F.avg_pool2d(t, 3, stride=2, padding=1),
    "avg_pad_nc": lambda F, t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
    "avg_ceil": lambda F, t: F.avg_pool2d(t, 2, 2, ceil_mode=True),
    "avg_div": lambda F, t: F.avg_pool2d(t, 2, divisor_override=3),
    "avg1d": lambda F, t: F.avg_pool1d(t[0], 3),
    "ada3d": lambda F, t: F.adaptive_avg_pool3d(t, (1, 2, 2)),
}


@pytest.mark.parametrize("name", sorted(_POOLS))
@pytest.mark.parametrize("zp,dt", [(0, "quint8"), (1, "quint8"), (3, "qint8"), (-5, "qint8"),
                                   (100, "quint8")])
def test_average_pools_round_the_stored_integers(name, zp, dt):
    # torch rounds the average of the stored integers (ties to even), so an odd zero point
    # moved ties by one quantum when the centred average was rounded
    rng = np.random.RandomState(abs(zp) + len(name))
    lo, hi = (0, 255) if dt == "quint8" else (-128, 127)
    a, b = _pair(rng.randint(lo, hi + 1, size=(2, 3, 6, 6)), zp, dt)
    fn = _POOLS[name]
    got = fn(nt.nn.functional, a)
    want = fn(torch.nn.functional, b)
    assert got.q_scale() == want.q_scale() and got.q_zero_point() == want.q_zero_point()
    np.testing.assert_array_equal(got.int_repr().numpy(), want.int_repr().numpy())


@pytest.mark.parametrize("dt", ["quint8", "qint8"])
def test_channels_last_quantized(dt):
    rng = np.random.RandomState(0)
    a, b = _pair(rng.randint(0, 100, size=(2, 3, 4, 5)), 7, dt)
    ga = a.contiguous(memory_format=nt.channels_last)
    gb = b.contiguous(memory_format=torch.channels_last)
    assert ga.stride() == gb.stride()
    assert ga.is_contiguous(memory_format=nt.channels_last)
    np.testing.assert_array_equal(ga.int_repr().numpy(), gb.int_repr().numpy())
    ta, tb = a.to(memory_format=nt.channels_last), b.to(memory_format=torch.channels_last)
    assert ta.stride() == tb.stride()
    pa = nt.nn.functional.adaptive_avg_pool2d(ga, (3, 2))
    pb = torch.nn.functional.adaptive_avg_pool2d(gb, (3, 2))
    np.testing.assert_array_equal(pa.int_repr().numpy(), pb.int_repr().numpy())
    ma = nt.nn.functional.max_pool2d(ga, 2)
    mb = torch.nn.functional.max_pool2d(gb, 2)
    np.testing.assert_array_equal(ma.int_repr().numpy(), mb.int_repr().numpy())


@pytest.fixture
def qnnpack_engine():
    if "qnnpack" not in torch.backends.quantized.supported_engines:
        pytest.skip("torch has no qnnpack engine on this CPU")
    old_t, old_n = torch.backends.quantized.engine, nt.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    nt.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    nt.backends.quantized.engine = old_n


def _linear_pair(rng, n_in, n_out):
    w = rng.randn(n_out, n_in).astype(np.float32)
    b = rng.randn(n_out).astype(np.float32)
    tm, nm = torch.nn.Sequential(torch.nn.Linear(n_in, n_out)), nt.nn.Sequential(
        nt.nn.Linear(n_in, n_out))
    tm.load_state_dict({"0.weight": torch.tensor(w), "0.bias": torch.tensor(b)})
    nm.load_state_dict({"0.weight": nt.tensor(w), "0.bias": nt.tensor(b)})
    return nm, tm


def test_dynamic_linear_qnnpack_ignores_reduce_range(qnnpack_engine):
    # torch's qnnpack dynamic linear quantizes the input with the full uint8 range even when
    # reduce_range is set (the default dynamic qconfig sets it): numtorch halved the range
    rng = np.random.RandomState(0)
    nm, tm = _linear_pair(rng, 5, 4)
    nq = nt.ao.quantization.quantize_dynamic(nm, {nt.nn.Linear})
    tq = torch.ao.quantization.quantize_dynamic(tm, {torch.nn.Linear})
    x = rng.randn(3, 5).astype(np.float32)
    np.testing.assert_array_equal(nq(nt.tensor(x)).numpy(), tq(torch.tensor(x)).numpy())
    w = rng.randn(4, 5).astype(np.float32)
    wn = nt.quantize_per_tensor(nt.tensor(w), 0.02, 0, nt.qint8)
    wt = torch.quantize_per_tensor(torch.tensor(w), 0.02, 0, torch.qint8)
    pn = nt.ops.quantized.linear_prepack(wn, None)
    pt = torch.ops.quantized.linear_prepack(wt, None)
    for rr in (True, False):
        np.testing.assert_array_equal(
            nt.ops.quantized.linear_dynamic(nt.tensor(x), pn, rr).numpy(),
            torch.ops.quantized.linear_dynamic(torch.tensor(x), pt, rr).numpy())


def test_dynamic_lstm_qnnpack(qnnpack_engine):
    rng = np.random.RandomState(1)
    tm, nm = torch.nn.LSTM(5, 6, batch_first=True), nt.nn.LSTM(5, 6, batch_first=True)
    sd = {k: rng.randn(*v.shape).astype(np.float32) * 0.5 for k, v in tm.state_dict().items()}
    tm.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    nm.load_state_dict({k: nt.tensor(v) for k, v in sd.items()})
    # (the root module itself is never swapped: wrap it)
    tm, nm = torch.nn.Sequential(tm), nt.nn.Sequential(nm)
    tq = torch.ao.quantization.quantize_dynamic(tm, {torch.nn.LSTM})
    nq = nt.ao.quantization.quantize_dynamic(nm, {nt.nn.LSTM})
    x = rng.randn(2, 4, 5).astype(np.float32)
    (yt, (_, ct)), (yn, (_, cn)) = tq(torch.tensor(x)), nq(nt.tensor(x))
    np.testing.assert_allclose(yn.numpy(), yt.numpy(), rtol=0, atol=2e-6)
    np.testing.assert_allclose(cn.numpy(), ct.numpy(), rtol=0, atol=2e-6)


def test_fp16_prepack_qnnpack_raises(qnnpack_engine):
    w = np.ones((2, 3), np.float32)
    with pytest.raises(RuntimeError) as et:
        torch.ops.quantized.linear_prepack_fp16(torch.tensor(w), None)
    with pytest.raises(RuntimeError) as en:
        nt.ops.quantized.linear_prepack_fp16(nt.tensor(w), None)
    assert str(en.value) == str(et.value)


def test_packed_params_not_subscriptable():
    w = np.ones((2, 3), np.float32)
    pt = torch.ops.quantized.linear_prepack(
        torch.quantize_per_tensor(torch.tensor(w), 0.1, 0, torch.qint8), None)
    pn = nt.ops.quantized.linear_prepack(
        nt.quantize_per_tensor(nt.tensor(w), 0.1, 0, nt.qint8), None)
    with pytest.raises(NotImplementedError) as et:
        pt[0]
    with pytest.raises(NotImplementedError) as en:
        pn[0]
    assert str(en.value) == str(et.value)


@pytest.mark.parametrize("dt,hi", [("quint4x2", 15), ("quint2x4", 3), ("qint32", 2 ** 20),
                                   ("quint8", 255), ("qint8", 127)])
def test_quantize_per_tensor_ties_with_zero_point(dt, hi):
    # sub-byte dtypes round x / scale first and add the zero point after (numtorch rounded
    # the sum, so a tie moved by an odd zero point)
    rng = np.random.RandomState(hi % 97)
    for _ in range(20):
        s = float(np.float32(rng.uniform(0.01, 2)))
        zp = int(rng.randint(0, min(hi, 200) + 1))
        x = (rng.randint(-40, 40, size=64) * np.float32(s) / np.float32(2)).astype(np.float32)
        x[:8] = rng.randn(8).astype(np.float32)
        a = nt.quantize_per_tensor(nt.tensor(x), s, zp, getattr(nt, dt))
        b = torch.quantize_per_tensor(torch.tensor(x), s, zp, getattr(torch, dt))
        np.testing.assert_array_equal(a.int_repr().numpy(), b.int_repr().numpy())
        np.testing.assert_array_equal(a.dequantize().numpy(), b.dequantize().numpy())


@pytest.mark.parametrize("seed", range(12))
def test_bilinear_interpolate_quantized(seed):
    # torch weights the stored integers in float32 and rounds (value - zp) + zp once;
    # numtorch resampled the centred integers with the float kernel (ties one step off)
    rng = np.random.RandomState(seed)
    zp = int(rng.randint(0, 256))
    s = float(np.float32(rng.uniform(0.01, 0.2)))
    h, w = (int(v) for v in rng.randint(1, 8, 2))
    ints = rng.randint(0, 256, size=(2, 2, h, w))
    a, b = _pair(ints, zp, "quint8")
    a = nt.quantize_per_tensor(a.dequantize() / 0.5 * s, s, zp, nt.quint8)
    b = torch.quantize_per_tensor(b.dequantize() / 0.5 * s, s, zp, torch.quint8)
    align = bool(seed % 2)
    kw = [{"size": tuple(int(v) for v in rng.randint(1, 12, 2))}, {"scale_factor": 1.7},
          {"scale_factor": 2.0}, {"scale_factor": (0.6, 1.3)}][seed % 4]
    got = nt.nn.functional.interpolate(a, mode="bilinear", align_corners=align, **kw)
    want = torch.nn.functional.interpolate(b, mode="bilinear", align_corners=align, **kw)
    np.testing.assert_array_equal(got.int_repr().numpy(), want.int_repr().numpy())
    assert got.q_scale() == want.q_scale() and got.q_zero_point() == want.q_zero_point()
    qa = nt.ao.nn.quantized.functional.interpolate(a, mode="bilinear", align_corners=align,
                                                   **kw)
    np.testing.assert_array_equal(qa.int_repr().numpy(), want.int_repr().numpy())


def _lsq_run(lib, kw):
    from importlib import import_module

    mod = import_module(lib.__name__ + ".ao.quantization._learnable_fake_quantize")
    tq = lib.ao.quantization
    kw = dict(kw)
    kw["observer"] = getattr(tq, kw["observer"])
    if "dtype" in kw:
        kw["dtype"], kw["qscheme"] = getattr(lib, kw["dtype"]), getattr(lib, kw["qscheme"])
    lq = mod._LearnableFakeQuantize(**kw)
    rng = np.random.RandomState(0)
    out = {"repr": repr(lq), "keys": list(lq.state_dict()), "bitwidth": lq.bitwidth,
           "ch_axis": lq.ch_axis, "steps": []}
    for step in range(3):
        if step == 1:
            lq.enable_param_learning()
        x = lib.tensor(rng.randn(5, 3).astype(np.float32) * (step + 1), requires_grad=True)
        y = lq(x)
        (y * lib.arange(15.0).reshape(5, 3)).sum().backward()
        out["steps"].append((y.detach().numpy().copy(), x.grad.numpy().copy(),
                             lq.scale.detach().numpy().copy(),
                             lq.zero_point.detach().numpy().copy(),
                             lq.scale.grad.numpy().copy(), lq.zero_point.grad.numpy().copy()))
        lq.scale.grad = None
        lq.zero_point.grad = None
    s, z = lq.calculate_qparams()
    out["qparams"] = (s.numpy().tolist(), z.numpy().tolist(), str(z.dtype).split(".")[-1])
    lq.enable_static_observation()
    out["flags"] = (int(lq.static_enabled[0]), int(lq.learning_enabled[0]),
                    int(lq.fake_quant_enabled[0]), lq.scale.requires_grad)
    return out


@pytest.mark.parametrize("kw", [
    {"observer": "MovingAverageMinMaxObserver", "quant_min": 0, "quant_max": 255, "scale": 0.1,
         "zero_point": 0.0, "use_grad_scaling": True},
    {"observer": "MovingAveragePerChannelMinMaxObserver", "quant_min": -128, "quant_max": 127,
         "channel_len": 3, "dtype": "qint8", "qscheme": "per_channel_symmetric", "ch_axis": 1}],
    ids=["per_tensor", "per_channel"])
def test_learnable_fake_quantize(kw):
    # torch.ao.quantization._learnable_fake_quantize._LearnableFakeQuantize (LSQ QAT) was
    # missing
    got, want = _lsq_run(nt, kw), _lsq_run(torch, kw)
    for k in ("repr", "keys", "bitwidth", "ch_axis", "qparams", "flags"):
        assert got[k] == want[k], k
    for g, w in zip(got["steps"], want["steps"]):
        for a, b in zip(g[:4], w[:4]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(g[4:], w[4:]):  # parameter gradients: float32 sums
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dt", ["quint8", "qint8", "qint32", "quint4x2", "quint2x4"])
def test_iinfo_of_quantized_dtype(dt):
    # torch gives the storage's limits and refuses the dtype name (numtorch raised a NumPy
    # ValueError from the constructor)
    it, im = torch.iinfo(getattr(torch, dt)), nt.iinfo(getattr(nt, dt))
    assert (im.min, im.max, im.bits) == (it.min, it.max, it.bits)
    for get in (lambda i: i.dtype, repr):
        with pytest.raises(NotImplementedError) as et:
            get(it)
        with pytest.raises(NotImplementedError) as en:
            get(im)
        assert str(en.value) == str(et.value)


def _quantized_bag(lib, table, mode, four_bit):
    tq = lib.ao.quantization
    bag = lib.nn.EmbeddingBag(table.shape[0], table.shape[1], mode=mode)
    bag.load_state_dict({"weight": lib.tensor(table)})
    m = lib.nn.Sequential(bag)
    m[0].qconfig = (tq.float_qparams_weight_only_qconfig_4bit if four_bit
                    else tq.float_qparams_weight_only_qconfig)
    tq.prepare(m, inplace=True)
    return tq.convert(m)[0]


@pytest.mark.parametrize("four_bit", [False, True], ids=["byte", "4bit"])
@pytest.mark.parametrize("mode,weighted", [("sum", False), ("mean", False), ("sum", True)],
                         ids=["sum", "mean", "weighted_sum"])
def test_quantized_embedding_bag_accumulates_like_torch(four_bit, mode, weighted):
    # torch accumulates rows with fma(scale, q, acc + bias); numtorch rounded each row and
    # summed afterwards (last-bit differences). (torch takes per-sample weights with sum only)
    rng = np.random.RandomState(int(four_bit) * 2 + int(weighted))
    table = rng.randn(12, 8).astype(np.float32)
    nb, tb = _quantized_bag(nt, table, mode, four_bit), _quantized_bag(torch, table, mode,
                                                                      four_bit)
    idx = rng.randint(0, 12, size=15)
    for off in ([0, 3, 3, 9], [0, 2, 7, 14]):  # an empty bag; a one-row last bag
        if weighted:
            w = rng.randn(15).astype(np.float32)
            kw_n, kw_t = {"per_sample_weights": nt.tensor(w)}, {
                "per_sample_weights": torch.tensor(w)}
        else:
            kw_n = kw_t = {}
        got = nb(nt.tensor(idx), nt.tensor(off), **kw_n)
        want = tb(torch.tensor(idx), torch.tensor(off), **kw_t)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    n2 = nb(nt.tensor(idx.reshape(3, 5)))
    t2 = tb(torch.tensor(idx.reshape(3, 5)))
    np.testing.assert_array_equal(n2.numpy(), t2.numpy())


@pytest.fixture
def fbgemm_engine(request):
    eng = request.param
    if eng not in torch.backends.quantized.supported_engines:
        pytest.skip(f"torch has no {eng} engine on this CPU")
    old_t, old_n = torch.backends.quantized.engine, nt.backends.quantized.engine
    torch.backends.quantized.engine = eng
    nt.backends.quantized.engine = eng
    yield eng
    torch.backends.quantized.engine = old_t
    nt.backends.quantized.engine = old_n


@pytest.mark.parametrize("fbgemm_engine", ["x86", "fbgemm"], indirect=True)
def test_dynamic_linear_bias_fused_like_fbgemm(fbgemm_engine):
    # fbgemm adds the bias to acc * (s_x * s_w) in one fused multiply-add; numtorch rounded
    # twice (last-bit differences, which then moved the next layer's quantization)
    rng = np.random.RandomState(3)
    x = (rng.randn(6, 37) * 3).astype(np.float32)
    w = rng.randn(23, 37).astype(np.float32)
    b = rng.randn(23).astype(np.float32)
    s = (rng.rand(23) * 0.05 + 0.01).astype(np.float32)
    wn = [nt.quantize_per_tensor(nt.tensor(w), 0.05, 0, nt.qint8),
          nt.quantize_per_channel(nt.tensor(w), nt.tensor(s), nt.zeros(23, dtype=nt.long), 0,
                                  nt.qint8)]
    wt = [torch.quantize_per_tensor(torch.tensor(w), 0.05, 0, torch.qint8),
          torch.quantize_per_channel(torch.tensor(w), torch.tensor(s),
                                     torch.zeros(23, dtype=torch.long), 0, torch.qint8)]
    for a, c in zip(wn, wt):
        pn = nt.ops.quantized.linear_prepack(a, nt.tensor(b))
        pt = torch.ops.quantized.linear_prepack(c, torch.tensor(b))
        for rr in (True, False):
            np.testing.assert_array_equal(
                nt.ops.quantized.linear_dynamic(nt.tensor(x), pn, rr).numpy(),
                torch.ops.quantized.linear_dynamic(torch.tensor(x), pt, rr).numpy())
    # a dynamically quantized MLP end to end
    layers = {"0.weight": rng.randn(23, 37), "0.bias": rng.randn(23),
              "2.weight": rng.randn(5, 23), "2.bias": rng.randn(5)}
    mn = nt.nn.Sequential(nt.nn.Linear(37, 23), nt.nn.ReLU(), nt.nn.Linear(23, 5))
    mt = torch.nn.Sequential(torch.nn.Linear(37, 23), torch.nn.ReLU(), torch.nn.Linear(23, 5))
    mn.load_state_dict({k: nt.tensor(v.astype(np.float32)) for k, v in layers.items()})
    mt.load_state_dict({k: torch.tensor(v.astype(np.float32)) for k, v in layers.items()})
    for qc in ("default_dynamic_qconfig", "per_channel_dynamic_qconfig"):
        qn = nt.ao.quantization.quantize_dynamic(
            mn, {nt.nn.Linear: getattr(nt.ao.quantization, qc)})
        qt = torch.ao.quantization.quantize_dynamic(
            mt, {torch.nn.Linear: getattr(torch.ao.quantization, qc)})
        np.testing.assert_array_equal(qn(nt.tensor(x)).numpy(), qt(torch.tensor(x)).numpy())


def test_static_linear_conv_qnnpack_requantization(qnnpack_engine):
    # qnnpack quantizes the bias to int32 (scale s_x * s_w) and adds it to the integer
    # accumulators before one float32 rescale; numtorch used fbgemm's float bias (one step
    # off on some outputs)
    rng = np.random.RandomState(0)
    f = np.float32
    for _ in range(10):
        k, n = int(rng.randint(3, 40)), int(rng.randint(2, 20))
        xs, ws, ys = (float(f(rng.uniform(lo, hi))) for lo, hi in
                      ((0.01, 0.1), (0.001, 0.03), (0.05, 0.3)))
        xz, yz = int(rng.randint(0, 255)), int(rng.randint(0, 255))
        cases = [(rng.randn(5, k), rng.randn(n, k), rng.randn(n) * 2, "linear"),
                 (rng.randn(1, 3, 6, 6), rng.randn(4, 3, 3, 3), rng.randn(4) * 2, "conv")]
        for xv, wv, bv, kind in cases:
            outs = []
            for lib in (torch, nt):
                x = lib.quantize_per_tensor(lib.tensor(xv.astype(f)), xs, xz, lib.quint8)
                w = lib.quantize_per_tensor(lib.tensor(wv.astype(f)), ws, 0, lib.qint8)
                b = lib.tensor(bv.astype(f))
                if kind == "linear":
                    p = lib.ops.quantized.linear_prepack(w, b)
                    y = lib.ops.quantized.linear(x, p, ys, yz)
                else:
                    c = lib.ao.nn.quantized.Conv2d(3, 4, 3, padding=1)
                    c.set_weight_bias(w, b)
                    c.scale, c.zero_point = ys, yz
                    y = c(x)
                outs.append(y.int_repr().numpy())
            np.testing.assert_array_equal(outs[1], outs[0])


_QNNPACK_POOLS = {
    "k2": lambda F, t: F.avg_pool2d(t, 2),
    "k3s1": lambda F, t: F.avg_pool2d(t, 3, stride=1),
    "k3s2p1": lambda F, t: F.avg_pool2d(t, 3, 2, 1),
    "k3s2p1_nc": lambda F, t: F.avg_pool2d(t, 3, 2, 1, count_include_pad=False),
    "ceil": lambda F, t: F.avg_pool2d(t, 2, 2, ceil_mode=True),
    "global": lambda F, t: F.adaptive_avg_pool2d(t, 1),
    "global_none": lambda F, t: F.adaptive_avg_pool2d(t, (1, None)),
    "ada22": lambda F, t: F.adaptive_avg_pool2d(t, 2),
    "module": lambda F, t: F.adaptive_avg_pool2d(t, (1, 1)),
}


@pytest.mark.parametrize("name", sorted(_QNNPACK_POOLS))
def test_average_pool_qnnpack(qnnpack_engine, name):
    # under qnnpack torch's quint8 average pools scale the centred window sum by the float32
    # s / (s * area) (numtorch used the generic kernel's rounded mean: a step off)
    rng = np.random.RandomState(len(name))
    fn = _QNNPACK_POOLS[name]
    for _ in range(6):
        zp = int(rng.randint(0, 256))
        s = float(np.float32(rng.uniform(0.01, 0.2)))
        ints = rng.randint(0, 256, size=(2, 3, 7, 6))
        x = ((ints - zp) * s).astype(np.float32)
        a = nt.quantize_per_tensor(nt.tensor(x), s, zp, nt.quint8)
        b = torch.quantize_per_tensor(torch.tensor(x), s, zp, torch.quint8)
        np.testing.assert_array_equal(a.int_repr().numpy(), b.int_repr().numpy())
        got, want = fn(nt.nn.functional, a), fn(torch.nn.functional, b)
        np.testing.assert_array_equal(got.int_repr().numpy(), want.int_repr().numpy())


def test_storage_of_quantized_tensor():
    # q.storage() raised KeyError: torch.quint8
    x = (np.arange(12, dtype=np.float32).reshape(3, 4) / 10).astype(np.float32)
    res = []
    for lib in (nt, torch):
        q = lib.quantize_per_tensor(lib.tensor(x), 0.1, 10, lib.quint8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = q.storage()
            res.append((s.size(), str(s.dtype).split(".")[-1], type(s).__name__, s.tolist(),
                        s.element_size(), q.untyped_storage().nbytes(),
                        q[1:].storage().size(), q.t().storage().size()))
    assert res[0] == res[1]


def test_quantize_run_fn_warnings_not_swallowed():
    # numtorch's quantize() silenced its nested deprecation warnings by ignoring every
    # DeprecationWarning around run_fn (the user's own were lost, and the filter change made
    # the once-per-location warnings repeat on every call)
    got = []
    for lib in (nt, torch):
        def run_fn(model, x, _lib=lib):
            warnings.warn("user calibration warning", DeprecationWarning, stacklevel=1)
            model(x)

        m = lib.nn.Sequential(lib.ao.quantization.QuantStub(), lib.nn.Linear(3, 2),
                              lib.ao.quantization.DeQuantStub())
        m.qconfig = lib.ao.quantization.default_qconfig
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            lib.ao.quantization.quantize(m, run_fn, [lib.ones(2, 3)])
        got.append(sum("user calibration warning" in str(w.message) for w in rec))
    assert got[0] == got[1] == 1
