"""Observers, fake-quantize modules and qconfigs against torch.ao.quantization."""

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", message=".*(deprecated|reduce_range|must run observer).*")

NQ, TQ = nt.ao.quantization, torch.ao.quantization


def _batches(seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((4, 6, 5)) * s + m).astype(np.float32)
            for s, m in ((1, 0), (3, 1), (0.5, -2), (2, 0.3))]


def _same_qparams(a, b):
    sa, za = a.calculate_qparams()
    sb, zb = b.calculate_qparams()
    np.testing.assert_array_equal(sa.numpy(), sb.numpy())
    np.testing.assert_array_equal(za.numpy(), zb.numpy())
    assert repr(sa.dtype) == repr(sb.dtype) and repr(za.dtype) == repr(zb.dtype)


def _kw(lib, **kw):
    return {k: getattr(lib, v) if isinstance(v, str) and hasattr(lib, v) else v
            for k, v in kw.items()}


PER_TENSOR = [dict(), dict(qscheme="per_tensor_symmetric"), dict(dtype="qint8"),
              dict(dtype="qint8", qscheme="per_tensor_symmetric"),
              dict(quant_min=0, quant_max=127), dict(reduce_range=True),
              dict(quant_min=-16, quant_max=15, dtype="qint8")]


@pytest.mark.parametrize("name", ["MinMaxObserver", "MovingAverageMinMaxObserver",
                                  "HistogramObserver"])
@pytest.mark.parametrize("kw", range(len(PER_TENSOR)))
def test_per_tensor_observers_match_torch(name, kw):
    kwargs = PER_TENSOR[kw]
    if name == "HistogramObserver":
        kwargs = dict(kwargs, bins=256)
    a, b = getattr(NQ, name)(**_kw(nt, **kwargs)), getattr(TQ, name)(**_kw(torch, **kwargs))
    for x in _batches(kw):
        a(nt.tensor(x))
        b(torch.tensor(x))
        _same_qparams(a, b)
    assert repr(a) == repr(b)
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())


PER_CHANNEL = [dict(), dict(qscheme="per_channel_symmetric", dtype="qint8"),
               dict(qscheme="per_channel_affine_float_qparams"), dict(ch_axis=1),
               dict(ch_axis=2, qscheme="per_channel_symmetric")]


@pytest.mark.parametrize("name", ["PerChannelMinMaxObserver",
                                  "MovingAveragePerChannelMinMaxObserver"])
@pytest.mark.parametrize("kw", range(len(PER_CHANNEL)))
def test_per_channel_observers_match_torch(name, kw):
    kwargs = PER_CHANNEL[kw]
    a, b = getattr(NQ, name)(**_kw(nt, **kwargs)), getattr(TQ, name)(**_kw(torch, **kwargs))
    for x in _batches(10 + kw):
        a(nt.tensor(x))
        b(torch.tensor(x))
    _same_qparams(a, b)
    assert repr(a) == repr(b)
    fresh = getattr(NQ, name)(**_kw(nt, **kwargs))
    fresh.load_state_dict({k: nt.tensor(v.numpy()) for k, v in b.state_dict().items()})
    _same_qparams(fresh, b)


def test_histogram_observer_default_bins_and_merging():
    a, b = NQ.HistogramObserver(reduce_range=True), TQ.HistogramObserver(reduce_range=True)
    for x in _batches(3)[::-1] + _batches(4):  # ranges grow and shrink: histograms re-binned
        a(nt.tensor(x))
        b(torch.tensor(x))
    np.testing.assert_allclose(a.histogram.numpy(), b.histogram.numpy(), rtol=1e-5, atol=1e-3)
    _same_qparams(a, b)


def test_default_observers_and_unobserved():
    for name in ("default_observer", "default_weight_observer", "default_histogram_observer",
                 "default_per_channel_weight_observer", "weight_observer_range_neg_127_to_127",
                 "per_channel_weight_observer_range_neg_127_to_127",
                 "default_float_qparams_observer"):
        a, b = getattr(NQ, name)(), getattr(TQ, name)()
        for x in _batches(5):
            a(nt.tensor(x))
            b(torch.tensor(x))
        _same_qparams(a, b)
    _same_qparams(NQ.MinMaxObserver(), TQ.MinMaxObserver())  # nothing seen: (1.0, 0)
    for name in ("PlaceholderObserver", "NoopObserver", "RecordingObserver"):
        with pytest.raises(Exception, match="calculate_qparams should not be called"):
            getattr(NQ, name)().calculate_qparams()
    fixed = NQ.default_fixed_qparams_range_0to1_observer()
    assert fixed.calculate_qparams()[0].item() == 1.0 / 256.0
    assert repr(NQ.PlaceholderObserver(dtype=nt.float16)) == repr(
        TQ.PlaceholderObserver(dtype=torch.float16))


def test_observer_errors():
    for fn in (lambda m, q: q.MinMaxObserver(qscheme=m.per_channel_affine),
               lambda m, q: q.PerChannelMinMaxObserver(qscheme=m.per_tensor_affine),
               lambda m, q: q.HistogramObserver(is_dynamic=True),
               lambda m, q: q.MinMaxObserver(quant_min=3, quant_max=10),
               lambda m, q: q.FakeQuantize(quant_min=0, quant_max=300)):
        with pytest.raises(Exception) as ea:
            fn(nt, NQ)
        with pytest.raises(Exception) as eb:
            fn(torch, TQ)
        assert type(ea.value) is type(eb.value)
        assert " ".join(str(ea.value).split()) == " ".join(str(eb.value).split())


@pytest.mark.parametrize("which", ["default_fake_quant", "default_weight_fake_quant",
                                   "default_per_channel_weight_fake_quant",
                                   "default_fused_act_fake_quant",
                                   "default_fused_per_channel_wt_fake_quant",
                                   "default_histogram_fake_quant",
                                   "default_embedding_fake_quant"])
def test_fake_quantize_modules_forward_backward(which):
    a, b = getattr(NQ, which)(), getattr(TQ, which)()
    rng = np.random.default_rng(7)
    for step in range(3):
        x = (rng.standard_normal((6, 5)) * (step + 1)).astype(np.float32)
        g = rng.standard_normal((6, 5)).astype(np.float32)
        xa, xb = nt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ya, yb = a(xa), b(xb)
        np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), atol=1e-6)
        ya.backward(nt.tensor(g))
        yb.backward(torch.tensor(g))
        np.testing.assert_array_equal(xa.grad.numpy(), xb.grad.numpy())
        if step == 1:
            a.disable_observer()
            b.disable_observer()
    np.testing.assert_array_equal(a.scale.numpy(), b.scale.numpy())
    np.testing.assert_array_equal(a.zero_point.numpy(), b.zero_point.numpy())
    assert " ".join(repr(a).split()) == " ".join(repr(b).split())
    a.apply(NQ.disable_fake_quant)
    x = nt.tensor(rng.standard_normal(4).astype(np.float32))
    np.testing.assert_array_equal(a(x).numpy(), x.numpy())


def test_qconfigs():
    for backend in ("x86", "fbgemm", "qnnpack", "onednn"):
        for fn in ("get_default_qconfig", "get_default_qat_qconfig"):
            qa, qb = getattr(NQ, fn)(backend), getattr(TQ, fn)(backend)
            for part in ("activation", "weight"):
                oa, ob = getattr(qa, part)(), getattr(qb, part)()
                assert type(oa).__name__ == type(ob).__name__
                assert " ".join(repr(oa).split()) == " ".join(repr(ob).split())
    assert NQ.qconfig_equals(NQ.get_default_qconfig("x86"), NQ.get_default_qconfig("fbgemm"))
    assert not NQ.qconfig_equals(NQ.get_default_qconfig("x86"), NQ.default_qconfig)
    with pytest.raises(ValueError, match="observer instance"):
        NQ.QConfig(activation=NQ.MinMaxObserver(), weight=NQ.default_weight_observer)
    with pytest.raises(AssertionError, match="not supported"):
        NQ.get_default_qconfig("tpu")
    mapping = NQ.get_default_qconfig_mapping("x86")
    assert list(mapping.to_dict()) == list(TQ.get_default_qconfig_mapping("x86").to_dict())
    assert len(mapping.object_type_qconfigs) == len(
        TQ.get_default_qconfig_mapping("x86").object_type_qconfigs)


def test_public_names_and_alias_paths():
    missing = sorted(n for n in TQ.__all__ if not hasattr(NQ, n))
    jit = {"convert_jit", "convert_dynamic_jit", "fuse_conv_bn_jit", "prepare_jit",
           "prepare_dynamic_jit", "quantize_jit", "quantize_dynamic_jit", "script_qconfig",
           "script_qconfig_dict"}  # TorchScript graph mode: no scripted graphs in numtorch
    assert set(missing) <= jit, missing
    assert nt.quantization.MinMaxObserver is NQ.MinMaxObserver
    assert nt.quantization.fuse_modules is NQ.fuse_modules
    assert nt.nn.quantized.Linear is nt.ao.nn.quantized.Linear
    assert nt.nn.intrinsic.ConvReLU2d is nt.ao.nn.intrinsic.ConvReLU2d
    assert NQ.MinMaxObserver.__module__.replace("numtorch", "torch") == \
        TQ.MinMaxObserver.__module__
    assert NQ.observer.PlaceholderObserver.__module__.replace("numtorch", "torch") == \
        TQ.observer.PlaceholderObserver.__module__
