"""numtorchvision.models.video (the video ResNets) against torchvision 0.28: registry and
names, module structure, weights enums and the VideoClassification preset, eval outputs after
a state transfer, float64 training outputs and gradients, pretrained loading from a loopback
server with the hash check."""

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
    skipped_random_init,
    structure,
    to_numtorch,
    tv_build,
)
from .test_models_api import _transform_facts

TV, NV = tm.video, nm.video
NAMES = ["mc3_18", "r2plus1d_18", "r3d_18"]


def test_registry_and_names():
    # (Swin3D and MViT have their own test files)
    assert set(nm.list_models(module=NV)) >= set(NAMES + ["s3d"])
    assert set(NV.resnet.__all__) == set(TV.resnet.__all__)
    tv_s3d = sys.modules["torchvision.models.video.s3d"]
    assert set(sys.modules["numtorchvision.models.video.s3d"].__all__) == set(tv_s3d.__all__)
    public = {n for n in dir(NV) if not n.startswith("_")}
    assert public >= set(TV.resnet.__all__) | set(tv_s3d.__all__)


def _pair(name, seed=0, **kw):
    tmodel = tv_build(getattr(TV, name), seed, **kw)
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        nmodel = getattr(NV, name)(**kw)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()))
    return tmodel, nmodel


@pytest.mark.parametrize("name", NAMES + ["s3d"])
def test_structure_weights_and_eval_outputs(name):
    tmodel, nmodel = _pair(name)
    assert repr(nmodel) == repr(tmodel)
    assert structure(nmodel.state_dict()) == structure(tmodel.state_dict())
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
    assert sum(p.numel() for p in nmodel.parameters()) == ours.DEFAULT.meta["num_params"]
    tmodel.eval()
    nmodel.eval()
    if name == "s3d":
        # the whole network needs 14 x 224 x 224 clips (tens of seconds): the features on a
        # small clip, then the pooling and classifier on a feature map of the final size
        _eval_close(tmodel.features, nmodel.features, image((1, 3, 6, 40, 36), seed=1))
        head = image((2, 1024, 2, 7, 7), seed=2)
        t = tmodel.classifier(tmodel.avgpool(torch.tensor(head))).mean(dim=(2, 3, 4))
        with numtorch.no_grad():
            n = nmodel.forward.__func__(_HeadOnly(nmodel), numtorch.tensor(head))
        assert_outputs_close(n, t.detach())
    else:
        _eval_close(tmodel, nmodel, image((2, 3, 4, 24, 20), seed=1))


class _HeadOnly:
    """An S3D whose features are the identity (runs S3D.forward on a feature map)."""

    def __init__(self, model):
        self.features = lambda x: x
        self.avgpool, self.classifier = model.avgpool, model.classifier


def _eval_close(tmodel, nmodel, x):
    with torch.no_grad():
        t = tmodel(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x))
    assert_outputs_close(n, t)


@pytest.mark.parametrize("name", ["r2plus1d_18"])  # mc3_18: same blocks, eval-checked
def test_training_mode_outputs_and_gradients(name):
    # float64: batch norms over a few values per channel are ill-conditioned in float32
    tmodel, nmodel = _pair(name, seed=2, num_classes=7)
    tmodel, nmodel = tmodel.double().train(), nmodel.double().train()
    x = image((2, 3, 4, 16, 16), seed=3).astype(np.float64)
    t = tmodel(torch.tensor(x))
    n = nmodel(numtorch.tensor(x))
    assert_outputs_close(n, t, rel=1e-10)
    g = image(tuple(t.shape), seed=4).astype(np.float64)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    overall = max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for (key, tp), (nkey, np_) in zip(tmodel.named_parameters(), nmodel.named_parameters()):
        assert key == nkey
        assert_outputs_close(np_.grad, tp.grad, rel=1e-6, floor=1e-4 * overall)
    for (_, tb), (_, nb) in zip(tmodel.named_buffers(), nmodel.named_buffers()):
        if tb.dtype.is_floating_point:
            assert_outputs_close(nb, tb, rel=1e-10)


def test_zero_init_residual_and_random_init_statistics():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = NV.r3d_18(zero_init_residual=True)
    assert not m.layer1[0].conv2[1].weight.any()
    assert float(m.fc.weight.detach().std()) == pytest.approx(0.01, rel=0.05)
    # kaiming normal, fan_out: std sqrt(2 / (out * k))
    w = m.layer3[0].conv1[0].weight
    assert float(w.detach().std()) == pytest.approx((2 / (256 * 27)) ** 0.5, rel=0.05)


@pytest.mark.parametrize("how", ["pretrained", "enum"])
def test_pretrained_download_with_hash_check(server, tmp_path, monkeypatch, how):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    tmodel = tv_build(TV.mc3_18).eval()
    w = NV.MC3_18_Weights.KINETICS400_V1
    stem = os.path.basename(w.url).rsplit("-", 1)[0]
    url = publish(server, tmodel.state_dict(), stem + how)
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        if how == "pretrained":
            with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
                nmodel = NV.mc3_18(pretrained=True, progress=False)
        else:
            nmodel = NV.mc3_18(weights=w, progress=False)
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    # the whole path a user takes: the weights' preprocessing, then the model
    clip = np.random.RandomState(6).randint(0, 256, (4, 3, 30, 40), dtype=np.uint8)
    tx = TV.MC3_18_Weights.DEFAULT.transforms()(torch.tensor(clip))
    nx = w.transforms()(numtorch.tensor(clip))
    assert_outputs_close(nx, tx, rel=1e-5)
    with torch.no_grad():
        t = tmodel(tx.unsqueeze(0))
    with numtorch.no_grad():
        n = nmodel.eval()(nx.unsqueeze(0))
    assert_outputs_close(n, t)
    with pytest.raises(ValueError) as theirs:
        TV.mc3_18(weights="DEFAULT", num_classes=10)
    with pytest.raises(ValueError) as ours:
        NV.mc3_18(weights="DEFAULT", num_classes=10)
    assert str(ours.value) == str(theirs.value)


def test_preprocessing_batched_clip():
    clip = np.random.RandomState(7).randint(0, 256, (2, 3, 3, 50, 61), dtype=np.uint8)
    t = TV.R3D_18_Weights.DEFAULT.transforms()(torch.tensor(clip))
    n = NV.R3D_18_Weights.DEFAULT.transforms()(numtorch.tensor(clip))
    assert tuple(n.shape) == tuple(t.shape) == (2, 3, 3, 112, 112)
    assert_outputs_close(n, t, rel=1e-5)


def test_s3d_features_training_gradients():
    tmodel, nmodel = _pair("s3d", seed=5)
    tf, nf = tmodel.features.double().train(), nmodel.features.double().train()
    x = image((2, 3, 6, 40, 36), seed=8).astype(np.float64)
    t, n = tf(torch.tensor(x)), nf(numtorch.tensor(x))
    assert_outputs_close(n, t, rel=1e-10)
    g = image(tuple(t.shape), seed=9).astype(np.float64)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    overall = max(float(p.grad.abs().max()) for p in tf.parameters())
    for (key, tp), (nkey, np_) in zip(tf.named_parameters(), nf.named_parameters()):
        assert key == nkey
        assert_outputs_close(np_.grad, tp.grad, rel=1e-6, floor=1e-4 * overall)
