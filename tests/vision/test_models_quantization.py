"""numtorchvision.models.quantization (the quantizable ResNets) against torchvision 0.28:
names and registry, module structure, weights enums, float outputs (quantize=False) after a
state transfer, and int8 models (quantize=True) loading torchvision's quantized checkpoints
from a loopback server with the hash check and giving bit-identical outputs."""

import os
import sys
import warnings

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401
from torchvision import models as tm

import numtorch
from numtorchvision import models as nm

from ._model_helpers import (
    assert_outputs_close,
    image,
    publish,
    randomize_values,
    skipped_random_init,
    structure,
    to_numtorch,
)
from .test_models_api import _transform_facts

TQ, NQ = tm.quantization, nm.quantization
BUILDERS = ["mobilenet_v2", "resnet18", "resnet50", "resnext101_32x8d", "resnext101_64x4d",
            "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
            "shufflenet_v2_x2_0"]


def test_registry_and_names():
    # (GoogLeNet, Inception v3 and MobileNetV3 are in test_quantized_more.py)
    assert set(nm.list_models(module=NQ)) >= {f"quantized_{b}" for b in BUILDERS}
    assert nm.get_model_builder("quantized_resnet18") is NQ.resnet18
    for mod in ("mobilenetv2", "resnet", "shufflenetv2"):
        theirs = sys.modules[f"torchvision.models.quantization.{mod}"]
        ours = sys.modules[f"numtorchvision.models.quantization.{mod}"]
        assert set(ours.__all__) == set(theirs.__all__)
    assert nm.get_model_weights("quantized_resnet50") is NQ.ResNet50_QuantizedWeights


@pytest.mark.parametrize("name", BUILDERS)
def test_weights_enums_and_structure(name):
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
    if name.startswith("resnext"):
        return  # 85-90M parameters: the blocks are resnet50's, checked below
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        mine = getattr(NQ, name)(weights=None)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        tv = getattr(TQ, name)(weights=None)
    assert repr(mine) == repr(tv)
    assert structure(mine.state_dict()) == structure(tv.state_dict())


@pytest.mark.parametrize("name", ["resnet18", "resnet50", "shufflenet_v2_x1_0",
                                  "mobilenet_v2"])
def test_float_outputs_after_state_transfer(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmodel = randomize_values(getattr(TQ, name)(weights=None), seed=1).eval()
        with skipped_random_init():
            nmodel = getattr(NQ, name)(weights=None).eval()
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()))
    x = image((2, 3, 48, 48), seed=2)
    with torch.no_grad():
        t = tmodel(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x))
    assert_outputs_close(n, t)


def _tv_quantized(name, seed, backend="fbgemm"):
    """torchvision's int8 model with seeded float values, quantized by torchvision's recipe
    (per-channel weights on fbgemm) but calibrated on a small batch."""
    tq = torch.ao.quantization
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = randomize_values(getattr(TQ, name)(weights=None), seed=seed).eval()
        torch.backends.quantized.engine = backend
        weight = (tq.default_per_channel_weight_observer if backend == "fbgemm"
                  else tq.default_weight_observer)
        model.qconfig = tq.QConfig(activation=tq.default_observer, weight=weight)
        model.fuse_model()
        tq.prepare(model, inplace=True)
        model(torch.tensor(image((2, 3, 48, 48), seed=seed)))
        tq.convert(model, inplace=True)
    return model


@pytest.mark.parametrize("name,how", [("resnet18", "pretrained"), ("resnet50", "enum"),
                                      ("shufflenet_v2_x0_5", "enum"),
                                      ("mobilenet_v2", "pretrained")])
def test_quantized_checkpoint_gives_torchvisions_int8_outputs(server, tmp_path, monkeypatch,
                                                              name, how):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    enum = nm.get_model_weights(f"quantized_{name}")
    w = list(enum)[0]
    tmodel = _tv_quantized(name, seed=3, backend=w.meta["backend"])
    stem = os.path.basename(w.url).rsplit("-", 1)[0].rsplit("_", 1)[0]
    url = publish(server, tmodel.state_dict(), stem)
    monkeypatch.setattr(w.value, "url", url)
    # every scale and zero point comes from the checkpoint: a small calibration batch will do
    utils = sys.modules["numtorchvision.models.quantization.utils"]
    monkeypatch.setattr(utils, "_CALIBRATION_SHAPE", (1, 3, 32, 32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "pretrained":
            nmodel = getattr(NQ, name)(pretrained=True, quantize=True, progress=False)
        else:
            nmodel = getattr(NQ, name)(weights=w, quantize=True, progress=False)
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    x = image((2, 3, 40, 40), seed=4)
    t = tmodel(torch.tensor(x)).numpy()
    n = nmodel(numtorch.tensor(x)).numpy()
    if w.meta["backend"] == "fbgemm":
        np.testing.assert_array_equal(n, t)  # same int8 arithmetic: bit-identical
    else:
        # qnnpack: numtorch's depthwise int8 convolution rounds a few values (about 0.1%)
        # one step differently from torch's qnnpack kernel; allow one output step
        step = float(nmodel.classifier[1].scale)
        assert np.abs(n - t).max() <= step * 1.0001
        assert (n != t).mean() < 0.1


def test_float_weights_when_not_quantized(monkeypatch, tmp_path):
    # pretrained=True without quantize picks the float ImageNet checkpoint
    picked = []
    monkeypatch.setattr(nm.ResNet18_Weights, "get_state_dict",
                        lambda self, *a, **k: picked.append(self) or {}, raising=False)
    with warnings.catch_warnings(), pytest.raises(RuntimeError):
        warnings.simplefilter("ignore")
        NQ.resnet18(pretrained=True, progress=False)
    assert picked == [nm.ResNet18_Weights.IMAGENET1K_V1]


@pytest.mark.parametrize("call", [
    lambda Q: Q.resnet18(weights="IMAGENET1K_FBGEMM_V1", quantize=False),
    lambda Q: Q.resnet18(weights="IMAGENET1K_V1", quantize=True),
    lambda Q: Q.resnet18(weights=None, quantize=True, backend="nope"),
    lambda Q: Q.resnet50(weights="IMAGENET1K_FBGEMM_V2", quantize=True, backend="qnnpack"),
    lambda Q: Q.resnet18(weights="IMAGENET1K_FBGEMM_V1", quantize=True, num_classes=10),
])
def test_builder_errors_match_torchvision(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            call(TQ)
        with pytest.raises(Exception) as ours:
            call(NQ)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)
