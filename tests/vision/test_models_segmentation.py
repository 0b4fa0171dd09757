"""numtorchvision.models.segmentation against torchvision 0.28: registry and names, state-dict
structure, weights enums and their preprocessing, eval outputs after a state transfer,
training-mode outputs and gradients, pretrained loading from a loopback server with the hash
check, and the builders' errors."""

import os
import warnings

import numpy as np
import PIL.Image
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
    skipped_random_init,
    structure,
    to_numtorch,
    tv_build,
)
from .test_models_api import _transform_facts

TS, NS = tm.segmentation, nm.segmentation
NAMES = tm.list_models(module=TS)
NO_DOWNLOAD = {"weights": None, "weights_backbone": None}


def test_registry_and_public_names():
    assert nm.list_models(module=NS) == NAMES
    assert len(NAMES) == 6

    def public(mod):
        return {n for n in dir(mod) if not n.startswith("_")}

    assert public(NS) == public(TS)
    for sub in ("fcn", "deeplabv3", "lraspp"):
        assert set(getattr(NS, sub).__all__) == set(getattr(TS, sub).__all__)


def _variants(name):
    return [{}] if name.startswith("lraspp") else [{}, {"aux_loss": True}]


def _build(name, seed=0, **kw):
    tmodel = tv_build(getattr(TS, name), seed, weights_backbone=None, **kw)
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        nmodel = getattr(NS, name)(**NO_DOWNLOAD, **kw)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()))
    return tmodel, nmodel


@pytest.mark.parametrize("name", NAMES)
def test_structure_and_weights_facts(name):
    for kw in _variants(name):
        with warnings.catch_warnings(), skipped_random_init():
            warnings.simplefilter("ignore")
            ours = getattr(NS, name)(**NO_DOWNLOAD, **kw)
        theirs = tv_build(getattr(TS, name), weights_backbone=None, **kw)
        assert type(ours).__name__ == type(theirs).__name__
        assert structure(ours.state_dict()) == structure(theirs.state_dict())
        assert repr(ours.classifier) == repr(theirs.classifier)
        assert ours.backbone.return_layers == theirs.backbone.return_layers
    ours, theirs = nm.get_model_weights(name), tm.get_model_weights(name)
    assert ours.__name__ == theirs.__name__ and list(ours.__members__) == list(theirs.__members__)
    for key, t in theirs.__members__.items():
        o = ours[key]
        assert repr(o) == repr(t) and o.url == t.url
        their_meta = {k: v for k, v in t.meta.items() if k != "_docs"}
        assert {k: repr(v) for k, v in o.meta.items()} == {k: repr(v)
                                                            for k, v in their_meta.items()}
        assert _transform_facts(o) == _transform_facts(t)
        assert repr(o.transforms()) == repr(t.transforms())
    # the weights' num_params is that of the model they load into (with its aux head)
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        full = getattr(NS, name)(**NO_DOWNLOAD, **_variants(name)[-1])
    assert sum(p.numel() for p in full.parameters()) == ours.DEFAULT.meta["num_params"]


# the ResNet-101 variants differ from the ResNet-50 ones only in depth (their structure is
# compared above)
@pytest.mark.parametrize("name", [n for n in NAMES if "101" not in n])
def test_eval_outputs_after_state_transfer(name):
    kw = _variants(name)[-1]
    tmodel, nmodel = _build(name, **kw)
    x = image((2, 3, 37, 45), seed=1)  # odd sizes: the upsampling back to the input
    with torch.no_grad():
        t = tmodel.eval()(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel.eval()(numtorch.tensor(x))
    assert list(n) == list(t)
    for key in t:
        assert_outputs_close(n[key], t[key])


@pytest.mark.parametrize("name,kw", [("fcn_resnet50", {"aux_loss": True}),
                                     ("deeplabv3_mobilenet_v3_large", {"aux_loss": True}),
                                     ("lraspp_mobilenet_v3_large", {})])
def test_training_mode_outputs_and_gradients(name, kw):
    # float64 on both sides: the float32 statistics of batch norms over small maps are too
    # ill-conditioned for a close gradient comparison (both libraries agree to ~1e-14 here)
    tmodel, nmodel = _build(name, seed=2, num_classes=5, **kw)
    tmodel, nmodel = tmodel.double().train(), nmodel.double().train()
    for m in list(tmodel.modules()) + list(nmodel.modules()):
        if "Dropout" in type(m).__name__:
            m.p = 0.0
    x = image((2, 3, 32, 24), seed=3).astype(np.float64)
    t = tmodel(torch.tensor(x))
    n = nmodel(numtorch.tensor(x))
    loss_t, loss_n = 0, 0
    for i, key in enumerate(t):
        assert_outputs_close(n[key], t[key], rel=1e-10)
        g = image(tuple(t[key].shape), seed=4 + i).astype(np.float64)
        loss_t = loss_t + (t[key] * torch.tensor(g)).sum()
        loss_n = loss_n + (n[key] * numtorch.tensor(g)).sum()
    loss_t.backward()
    loss_n.backward()
    overall = max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for (key, tp), (nkey, np_) in zip(tmodel.named_parameters(), nmodel.named_parameters()):
        assert key == nkey and (tp.grad is None) == (np_.grad is None), key
        # biases before a training-mode batch norm: zero in exact arithmetic
        assert_outputs_close(np_.grad, tp.grad, rel=1e-6, floor=1e-4 * overall)
    for (key, tb), (_, nb) in zip(tmodel.named_buffers(), nmodel.named_buffers()):
        assert_outputs_close(nb, tb, rel=1e-10) if tb.dtype.is_floating_point else None


@pytest.mark.parametrize("how", ["pretrained", "enum"])
def test_pretrained_download_with_hash_check(server, tmp_path, monkeypatch, how):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    tmodel = tv_build(TS.lraspp_mobilenet_v3_large, weights_backbone=None).eval()
    w = NS.LRASPP_MobileNet_V3_Large_Weights.COCO_WITH_VOC_LABELS_V1
    stem = os.path.basename(w.url).rsplit("-", 1)[0]
    url = publish(server, tmodel.state_dict(), stem + how)
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        if how == "pretrained":
            with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
                nmodel = NS.lraspp_mobilenet_v3_large(pretrained=True, progress=False)
        else:
            nmodel = NS.lraspp_mobilenet_v3_large(weights="DEFAULT", progress=False)
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    x = image((1, 3, 40, 40), seed=5)
    with torch.no_grad():
        t = tmodel(torch.tensor(x))["out"]
    with numtorch.no_grad():
        n = nmodel.eval()(numtorch.tensor(x))["out"]
    assert_outputs_close(n, t)


def test_corrupt_checkpoint_fails_the_hash_check(server, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    w = NS.FCN_ResNet50_Weights.COCO_WITH_VOC_LABELS_V1
    bad = os.path.join(server.root, "fcn_resnet50_coco-0123456789.pth")
    torch.save({"x": torch.zeros(1)}, bad)
    monkeypatch.setattr(w.value, "url", server.url(os.path.basename(bad)))
    with pytest.raises(RuntimeError, match="invalid hash value"):
        NS.fcn_resnet50(weights=w, progress=False)


@pytest.mark.parametrize("call", [
    lambda S: S.fcn_resnet50(weights="DEFAULT", num_classes=10),
    lambda S: S.deeplabv3_resnet50(weights="DEFAULT", aux_loss=False),
    lambda S: S.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=True),
    lambda S: S.deeplabv3_mobilenet_v3_large(weights="IMAGENET1K_V1"),
    lambda S: S.fcn_resnet101(weights=None, weights_backbone="COCO_WITH_VOC_LABELS_V1"),
])
def test_builder_errors_match_torchvision(call):
    with pytest.raises(Exception) as theirs:
        call(TS)
    with pytest.raises(Exception) as ours:
        call(NS)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_preprocessing_on_pil_and_tensor():
    rng = np.random.RandomState(0)
    pil = PIL.Image.fromarray(rng.randint(0, 256, (61, 90, 3), dtype=np.uint8))
    t = TS.DeepLabV3_ResNet50_Weights.DEFAULT.transforms()
    n = NS.DeepLabV3_ResNet50_Weights.DEFAULT.transforms()
    assert_outputs_close(n(pil), t(pil), rel=1e-6)
    batch = rng.randint(0, 256, (2, 3, 30, 41), dtype=np.uint8)
    assert_outputs_close(n(numtorch.tensor(batch)), t(torch.tensor(batch)), rel=1e-6)
    from numtorchvision.transforms._presets import SemanticSegmentation
    keep = SemanticSegmentation(resize_size=None)
    assert tuple(keep(pil).shape) == (3, 61, 90)
