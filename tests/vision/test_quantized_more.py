"""quantized_googlenet, quantized_inception_v3 and quantized_mobilenet_v3_large against
torchvision 0.28: registry and names, weights enums, module structure (float and int8),
float outputs and training gradients after a state transfer (quantize=False), and int8
models (quantize=True) loading torchvision-made checkpoints from a loopback server with the
hash check: bit-identical outputs on fbgemm; mobilenet_v3's QAT checkpoint (qnnpack)."""

import collections
import os
import sys
import warnings

import numpy as np
import pytest
import torch
from torchvision import models as tm

import numtorch
from numtorchvision import models as nm

from ._model_helpers import (
    assert_outputs_close,
    image,
    publish,
    randomize_values,
    skipped_random_init,
    to_numtorch,
)
from .test_models_api import _transform_facts

TQ, NQ = tm.quantization, nm.quantization
NEW = ["googlenet", "inception_v3", "mobilenet_v3_large"]
_MODULES = {"googlenet": "googlenet", "inception_v3": "inception",
            "mobilenet_v3_large": "mobilenetv3"}
# inputs just big enough for each network (inception_v3 needs 75x75)
_SIZE = {"googlenet": 40, "inception_v3": 75, "mobilenet_v3_large": 40}


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_registry_and_names():
    for name in NEW:
        assert f"quantized_{name}" in nm.list_models(module=NQ)
        assert nm.get_model_builder(f"quantized_{name}") is getattr(NQ, name)
        mod = _MODULES[name]
        theirs = sys.modules[f"torchvision.models.quantization.{mod}"]
        ours = sys.modules[f"numtorchvision.models.quantization.{mod}"]
        assert set(ours.__all__) == set(theirs.__all__)
    assert nm.list_models(module=NQ) == tm.list_models(module=TQ)


@pytest.mark.parametrize("name", NEW)
def test_weights_enums(name):
    ours = nm.get_model_weights(f"quantized_{name}")
    theirs = tm.get_model_weights(f"quantized_{name}")
    assert ours.__name__ == theirs.__name__ and list(ours.__members__) == list(theirs.__members__)
    for key, t in theirs.__members__.items():
        o = ours[key]
        assert repr(o) == repr(t) and o.url == t.url
        their_meta = {k: v for k, v in t.meta.items() if k != "_docs"}
        assert {k: repr(v) for k, v in o.meta.items()} == {k: repr(v)
                                                            for k, v in their_meta.items()}
        assert _transform_facts(o) == _transform_facts(t)


@pytest.mark.parametrize("name,kwargs", [("googlenet", {"aux_logits": False}),
                                         ("inception_v3", {}), ("mobilenet_v3_large", {})])
def test_float_structure_and_eval_outputs(name, kwargs):
    tmodel = randomize_values(_quiet(getattr(TQ, name), weights=None, **kwargs), seed=1).eval()
    with skipped_random_init():
        nmodel = _quiet(getattr(NQ, name), weights=None, **kwargs).eval()
    assert repr(nmodel) == repr(tmodel)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    x = image((2, 3, _SIZE[name], _SIZE[name]), seed=2)
    with torch.no_grad():
        t = tmodel(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x))
    assert_outputs_close(n, t)


# (the quantizable MobileNetV3's float path is MobileNetV3's with identity FloatFunctional
# sums and products, compared in eval above; GoogLeNet's has its own auxiliary-output order)
@pytest.mark.parametrize("name", ["googlenet"])
def test_training_outputs_and_gradients_float64(name):
    tmodel = randomize_values(_quiet(getattr(TQ, name), weights=None), seed=3).double().train()
    with skipped_random_init():
        nmodel = _quiet(getattr(NQ, name), weights=None).double().train()
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    for m in list(tmodel.modules()) + list(nmodel.modules()):
        if type(m).__name__ == "Dropout":
            m.p = 0.0
    x = image((2, 3, 40, 40), seed=4).astype(np.float64)
    t_out, n_out = tmodel(torch.tensor(x)), nmodel(numtorch.tensor(x))
    t_list = list(t_out) if isinstance(t_out, tuple) else [t_out]
    n_list = list(n_out) if isinstance(n_out, tuple) else [n_out]
    assert type(n_out).__name__ == type(t_out).__name__ and len(n_list) == len(t_list)
    cot = [np.random.RandomState(i).randn(*o.shape) for i, o in enumerate(t_list)]
    sum((o * torch.tensor(c)).sum() for o, c in zip(t_list, cot)).backward()
    sum((o * numtorch.tensor(c)).sum() for o, c in zip(n_list, cot)).backward()
    for a, b in zip(n_list, t_list):
        assert_outputs_close(a, b, rel=1e-9)
    t_grads = dict(tmodel.named_parameters())
    # a batch-norm bias before another training-mode batch norm has a gradient that is zero
    # in exact arithmetic: rounding noise there is judged against the model's largest one
    noise = 1e-9 * max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for key, p in nmodel.named_parameters():
        g, tg = p.grad.numpy(), t_grads[key].grad.numpy()
        assert np.abs(g - tg).max() <= 1e-7 * np.abs(tg).max() + noise, key


def _tv_ptq(name, seed):
    """torchvision's int8 model with seeded float values, quantized by its own recipe
    (fbgemm, per-channel weights) but calibrated on a small batch."""
    tq = torch.ao.quantization
    # as the published files: googlenet's keeps its auxiliary heads, inception_v3's not
    aux = name == "googlenet"
    model = randomize_values(_quiet(getattr(TQ, name), weights=None, aux_logits=aux),
                             seed=seed).eval()
    torch.backends.quantized.engine = "fbgemm"
    model.qconfig = tq.QConfig(activation=tq.default_observer,
                               weight=tq.default_per_channel_weight_observer)
    model.fuse_model()
    tq.prepare(model, inplace=True)
    model(torch.tensor(image((2, 3, _SIZE[name], _SIZE[name]), seed=seed)))
    tq.convert(model, inplace=True)
    return model


@pytest.fixture
def hub(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    utils = sys.modules["numtorchvision.models.quantization.utils"]
    # every scale and zero point comes from the checkpoint: a small calibration batch will do
    monkeypatch.setattr(utils, "_CALIBRATION_SHAPE", (1, 3, 80, 80))
    return tmp_path


def _serve(server, monkeypatch, weights, state):
    stem = os.path.basename(weights.url).rsplit("-", 1)[0]
    url = publish(server, state, stem)
    monkeypatch.setattr(weights.value, "url", url)
    return url


@pytest.mark.parametrize("name,how", [("googlenet", "pretrained"), ("inception_v3", "enum")])
def test_ptq_checkpoint_gives_torchvisions_int8_outputs(server, hub, monkeypatch, name, how):
    w = list(nm.get_model_weights(f"quantized_{name}"))[0]
    tmodel = _tv_ptq(name, seed=5)
    url = _serve(server, monkeypatch, w, tmodel.state_dict())
    if how == "pretrained":
        nmodel = _quiet(getattr(NQ, name), pretrained=True, quantize=True, progress=False)
    else:
        nmodel = _quiet(getattr(NQ, name), weights=w, quantize=True, progress=False)
    assert (hub / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    assert nmodel.aux_logits is False and nmodel.transform_input is True
    assert not nmodel.training
    # the checkpoint's model expects [-1, 1] inputs: torchvision's builder would set
    # transform_input too, so compare with that switched on
    tmodel.transform_input = True
    x = image((2, 3, _SIZE[name], _SIZE[name]), seed=6)
    t = tmodel(torch.tensor(x)).numpy()
    n = nmodel(numtorch.tensor(x)).numpy()
    np.testing.assert_array_equal(n, t)


def test_mobilenet_v3_qat_checkpoint(server, hub, monkeypatch):
    tq = torch.ao.quantization
    tmodel = randomize_values(_quiet(TQ.mobilenet_v3_large, weights=None), seed=7)
    tmodel.fuse_model(is_qat=True)
    tmodel.qconfig = tq.get_default_qat_qconfig("qnnpack")
    tq.prepare_qat(tmodel, inplace=True)
    tmodel.train()
    with torch.no_grad():
        for s in range(2):  # observers and fake quantizers see some activations
            tmodel(torch.tensor(image((2, 3, 40, 40), seed=20 + s)))
    w = NQ.MobileNet_V3_Large_QuantizedWeights.IMAGENET1K_QNNPACK_V1
    _serve(server, monkeypatch, w, tmodel.state_dict())
    nmodel = _quiet(NQ.mobilenet_v3_large, weights="DEFAULT", quantize=True, progress=False)
    tq.convert(tmodel.eval(), inplace=True)
    assert repr(nmodel) == repr(tmodel)
    torch.backends.quantized.engine = numtorch.backends.quantized.engine = "qnnpack"
    x = image((2, 3, 40, 40), seed=8)
    t = tmodel(torch.tensor(x)).numpy()
    n = nmodel(numtorch.tensor(x)).numpy()
    # qnnpack: numtorch's depthwise int8 convolution rounds a few values one step
    # differently from torch's qnnpack kernel (see test_models_quantization); allow a few
    # output steps after 15 blocks
    step = float(nmodel.classifier[3].scale)
    assert np.abs(n - t).max() <= 4 * step * 1.0001
    assert np.abs(n - t).mean() < 0.5 * step


def test_old_qat_checkpoint_without_gate_quantizer_loads():
    tq = numtorch.ao.quantization
    model = _quiet(NQ.mobilenet_v3_large, weights=None)
    model.fuse_model(is_qat=True)
    model.qconfig = tq.get_default_qat_qconfig("qnnpack")
    tq.prepare_qat(model, inplace=True)
    state = model.state_dict()
    old = collections.OrderedDict((k, v) for k, v in state.items() if "scale_activation" not in k)
    old._metadata = {k: dict(v, version=1) if k.endswith("block.2") else v
                     for k, v in state._metadata.items()}
    gate = model.features[4].block[2].scale_activation.activation_post_process
    gate.scale.fill_(3.0)
    model.load_state_dict(old, strict=True)
    assert float(gate.scale) == 1.0 and int(gate.fake_quant_enabled) == 1


@pytest.mark.parametrize("call", [
    lambda Q: Q.googlenet(weights="IMAGENET1K_FBGEMM_V1", quantize=False),
    lambda Q: Q.googlenet(weights="IMAGENET1K_V1", aux_logits=False),
    lambda Q: Q.inception_v3(weights="IMAGENET1K_V1", quantize=True),
    lambda Q: Q.inception_v3(weights="DEFAULT", quantize=True, num_classes=10),
    lambda Q: Q.mobilenet_v3_large(weights="IMAGENET1K_QNNPACK_V1"),
    lambda Q: Q.mobilenet_v3_large(weights="DEFAULT", quantize=True, backend="fbgemm"),
])
def test_builder_errors_match_torchvision(call):
    with pytest.raises(Exception) as theirs:
        _quiet(call, TQ)
    with pytest.raises(Exception) as ours:
        _quiet(call, NQ)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name,kwargs", [
    # (inception_v3 with quantize=True: the int8 checkpoint test loads strictly into it)
    ("googlenet", {"quantize": True, "aux_logits": True}), ("inception_v3", {"quantize": False}),
    ("mobilenet_v3_large", {"quantize": True})])
def test_what_the_builder_loads_into(monkeypatch, name, kwargs):
    # the checkpoint's keys at load time, and the model given back, as torchvision's builder
    import torchvision

    seen = {}

    def record(tag):
        def load(self, state_dict, *a, **k):
            seen[tag] = (list(self.state_dict()), self.training)
        return load

    for api, tag in ((torchvision.models._api, "t"), (nm._api, "n")):
        monkeypatch.setattr(api.WeightsEnum, "get_state_dict", lambda self, *a, **k: {})
    monkeypatch.setattr(torch.nn.Module, "load_state_dict", record("t"))
    monkeypatch.setattr(numtorch.nn.Module, "load_state_dict", record("n"))
    enum = tm.get_model_weights(f"quantized_{name}")
    nenum = nm.get_model_weights(f"quantized_{name}")
    float_key = list(tm.get_model_weights(name).__members__)[0]
    key = list(enum.__members__)[0] if kwargs["quantize"] else float_key
    # calibration batches as small as each network takes (only the structure matters here)
    small = torch.zeros(1, 3, _SIZE[name], _SIZE[name])
    monkeypatch.setattr(sys.modules["torchvision.models.quantization.utils"].torch, "rand",
                        lambda *a, **k: small)
    monkeypatch.setattr(sys.modules["numtorchvision.models.quantization.utils"],
                        "_CALIBRATION_SHAPE", tuple(small.shape))
    tmodel = _quiet(getattr(TQ, name), weights=key, **kwargs)
    if name == "mobilenet_v3_large":  # QAT convert reads the weights: keep them finite
        nmodel = _quiet(getattr(NQ, name), weights=key, **kwargs)
    else:
        with skipped_random_init():
            nmodel = _quiet(getattr(NQ, name), weights=key, **kwargs)
    assert seen["n"] == seen["t"]
    assert [n for n, _ in nmodel.named_children()] == [n for n, _ in tmodel.named_children()]
    for attr in ("aux_logits", "transform_input", "training"):
        assert getattr(nmodel, attr, None) == getattr(tmodel, attr, None)
    assert nenum.__name__ == enum.__name__
