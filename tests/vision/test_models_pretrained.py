"""Pretrained loading and numerics against torchvision.

Checkpoints are torchvision models (random values) saved by torch and served from a loopback
HTTP server; numtorchvision downloads them through ``weights=`` / ``pretrained=True`` into
``$TORCH_HOME/hub/checkpoints`` with the hash check, and must give torchvision's outputs.
Families not downloaded here get the same check by direct state transfer; a few are also
compared in training mode (outputs and parameter gradients)."""

import os
import warnings

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401
from torchvision import models as tm

import numtorch
from numtorchvision import models as nm

from ._model_helpers import (assert_outputs_close, image, publish,
                             randomize_values, skipped_random_init, to_numtorch, tv_build)


@pytest.fixture
def torch_home(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    return tmp_path


def _forward(tmodel, nmodel, x):
    with torch.no_grad():
        t = tmodel(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x))
    return t, n


# (builder, weights member, torchvision kwargs matching what the weights imply, input size,
#  how numtorchvision is asked for the weights)
DOWNLOADED = [
    ("resnet18", "ResNet18_Weights.IMAGENET1K_V1", {}, 32, "pretrained"),
    ("squeezenet1_1", "SqueezeNet1_1_Weights.IMAGENET1K_V1", {}, 32, "string"),
    ("mobilenet_v3_small", "MobileNet_V3_Small_Weights.IMAGENET1K_V1", {}, 32, "enum"),
    ("shufflenet_v2_x1_0", "ShuffleNet_V2_X1_0_Weights.IMAGENET1K_V1", {}, 32, "enum"),
    ("efficientnet_b0", "EfficientNet_B0_Weights.IMAGENET1K_V1", {}, 32, "enum"),
    ("regnet_y_400mf", "RegNet_Y_400MF_Weights.IMAGENET1K_V2", {}, 32, "enum"),
    ("mnasnet0_75", "MNASNet0_75_Weights.IMAGENET1K_V1", {}, 32, "enum"),
    ("inception_v3", "Inception_V3_Weights.IMAGENET1K_V1",
     {"aux_logits": True, "transform_input": True, "init_weights": False}, 75, "enum"),
]


@pytest.mark.parametrize("name,member,tv_kwargs,size,how", DOWNLOADED)
def test_downloaded_weights_give_torchvisions_outputs(server, torch_home, monkeypatch, name,
                                                      member, tv_kwargs, size, how):
    tmodel = tv_build(getattr(tm, name), **tv_kwargs).eval()
    weights = nm.get_weight(member)
    stem = os.path.basename(weights.url).rsplit("-", 1)[0]
    url = publish(server, tmodel.state_dict(), stem)
    monkeypatch.setattr(weights.value, "url", url)
    with skipped_random_init():  # every value comes from the checkpoint
        if how == "pretrained":  # the legacy flag picks IMAGENET1K_V1
            with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
                nmodel = getattr(nm, name)(pretrained=True, progress=False)
        elif how == "string":
            nmodel = getattr(nm, name)(weights=member.split(".")[1], progress=False)
        else:
            nmodel = getattr(nm, name)(weights=weights, progress=False)
    cached = torch_home / "hub" / "checkpoints" / os.path.basename(url)
    assert cached.is_file()
    assert server.hits["/" + os.path.basename(url)] == 1
    t, n = _forward(tmodel, nmodel.eval(), image((2, 3, size, size)))
    assert_outputs_close(n, t)


def test_googlenet_weights_drop_the_untrained_auxiliary_heads(server, torch_home,
                                                               monkeypatch):
    # the checkpoint holds the auxiliary heads; pretrained=True drops them and re-normalises
    # the input (transform_input)
    tmodel = tv_build(tm.googlenet, aux_logits=True, transform_input=True, init_weights=False)
    w = nm.GoogLeNet_Weights.IMAGENET1K_V1
    monkeypatch.setattr(w.value, "url", publish(server, tmodel.state_dict(), "googlenet"))
    with skipped_random_init():
        with pytest.warns(UserWarning, match="'pretrained' is deprecated"):
            plain = nm.googlenet(pretrained=True, progress=False)
        with pytest.warns(UserWarning, match="auxiliary heads in the pretrained googlenet"):
            with_aux = nm.googlenet(weights=w, aux_logits=True, transform_input=False,
                                    progress=False)
    assert plain.aux1 is None and plain.aux2 is None and plain.transform_input
    assert with_aux.aux1 is not None and not with_aux.transform_input
    t, n = _forward(tmodel.eval(), plain.eval(), image((2, 3, 32, 32)))
    assert_outputs_close(n, t)


def test_cache_hash_check_and_no_second_download(server, torch_home, monkeypatch):
    tmodel = tv_build(tm.squeezenet1_0)
    w = nm.SqueezeNet1_0_Weights.IMAGENET1K_V1
    real_name = os.path.basename(w.url)  # squeezenet1_0-b66bff10.pth: not this file's hash
    torch.save(tmodel.state_dict(), os.path.join(server.root, real_name))
    monkeypatch.setattr(w.value, "url", server.url(real_name))
    with pytest.raises(RuntimeError, match="invalid hash value"):
        nm.squeezenet1_0(weights=w, progress=False)
    assert os.listdir(torch_home / "hub" / "checkpoints") == []  # nothing half-written kept
    url = publish(server, tmodel.state_dict(), "squeezenet1_0")
    monkeypatch.setattr(w.value, "url", url)
    first = nm.squeezenet1_0(weights=w, progress=False)
    second = nm.squeezenet1_0(weights=w, progress=False)
    assert server.hits["/" + os.path.basename(url)] == 1
    for a, b in zip(first.state_dict().values(), second.state_dict().values()):
        assert np.array_equal(a.numpy(), b.numpy())


def test_densenet_checkpoints_with_the_old_key_names(server, torch_home, monkeypatch):
    tmodel = tv_build(tm.densenet121).eval()
    old = {}
    for k, v in tmodel.state_dict().items():  # norm1 -> norm.1 as in the published files,
        if k.endswith("num_batches_tracked"):  # which predate the batch counter
            continue
        for part in ("norm", "relu", "conv"):
            for i in ("1", "2"):
                k = k.replace(f".{part}{i}.", f".{part}.{i}.")
        old[k] = v
    assert any(".norm.1." in k for k in old)
    w = nm.DenseNet121_Weights.IMAGENET1K_V1
    monkeypatch.setattr(w.value, "url", publish(server, old, "densenet121"))
    with skipped_random_init():
        nmodel = nm.densenet121(weights=w, progress=False).eval()
    t, n = _forward(tmodel, nmodel, image((1, 3, 32, 32)))
    assert_outputs_close(n, t)


# -- the other families: same check by direct state transfer ----------------------------------

TRANSFERRED = [
    ("alexnet", {}, 64),
    ("vgg11_bn", {}, 32),
    ("resnext50_32x4d", {}, 32),
    ("mobilenet_v2", {}, 32),
    ("mobilenet_v3_large", {}, 32),
    ("efficientnet_v2_s", {}, 32),
    ("regnet_x_400mf", {}, 32),
    ("convnext_tiny", {}, 32),
    ("swin_t", {}, 56),  # 14x14 after the stem: padded to whole windows, shifted
    ("swin_v2_t", {}, 56),
]


def _transfer(name, kwargs, seed=0):
    tmodel = tv_build(getattr(tm, name), seed, **kwargs)
    with warnings.catch_warnings(), skipped_random_init():
        warnings.simplefilter("ignore")
        nmodel = getattr(nm, name)(**kwargs)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()))
    return tmodel, nmodel


@pytest.mark.parametrize("name,kwargs,size", TRANSFERRED)
def test_eval_outputs_after_state_transfer(name, kwargs, size):
    tmodel, nmodel = _transfer(name, kwargs)
    t, n = _forward(tmodel.eval(), nmodel.eval(), image((2, 3, size, size), seed=1))
    assert_outputs_close(n, t)


# Inputs large enough that the last batch norms see more than a 1x1 map: with 4 values per
# channel their float32 statistics are too ill-conditioned to compare gradients closely.
@pytest.mark.parametrize("name,kwargs,size", [
    ("resnet18", {}, 64),
    ("mobilenet_v2", {"dropout": 0.0}, 64),
    # vit_b_16's 86M parameters cost half a minute to copy and differentiate; a narrower,
    # shallower VisionTransformer runs the same code (vit_b_16's structure is checked in
    # test_models_api)
    ("VisionTransformer", {"image_size": 32, "patch_size": 16, "num_layers": 2,
                           "num_heads": 4, "hidden_dim": 64, "mlp_dim": 128}, 32),
])
def test_training_mode_outputs_and_gradients(name, kwargs, size):
    if name[0].isupper():  # a model class rather than a builder
        tmodel = randomize_values(getattr(tm, name)(**kwargs), seed=2)
        nmodel = getattr(nm, name)(**kwargs)
        nmodel.load_state_dict(to_numtorch(tmodel.state_dict()))
    else:
        tmodel, nmodel = _transfer(name, kwargs, seed=2)
    tmodel.train()
    nmodel.train()
    x = image((4, 3, size, size), seed=3)
    t = tmodel(torch.tensor(x))
    n = nmodel(numtorch.tensor(x))
    assert_outputs_close(n, t)
    g = image(tuple(t.shape), seed=4)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    overall = max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for (key, tp), (nkey, np_) in zip(tmodel.named_parameters(), nmodel.named_parameters()):
        assert key == nkey
        # a gradient that is zero in exact arithmetic (biases before a training-mode batch
        # norm) is rounding noise in both libraries: measure it against the model's scale
        assert_outputs_close(np_.grad, tp.grad, rel=1e-3, floor=1e-3 * overall)
    # batch-norm statistics move the same way
    for (key, tb), (_, nb) in zip(tmodel.named_buffers(), nmodel.named_buffers()):
        if tb.dtype.is_floating_point:
            assert_outputs_close(nb, tb)


# Inception v3's auxiliary classifier needs the full 299x299 input; GoogLeNet's pools
# adaptively
@pytest.mark.parametrize("name,size", [("inception_v3", 299), ("googlenet", 64)])
def test_auxiliary_outputs_in_training_mode(name, size):
    kwargs = {"aux_logits": True, "init_weights": False, "dropout": 0.0}
    if name == "googlenet":
        kwargs["dropout_aux"] = 0.0
    tmodel, nmodel = _transfer(name, kwargs, seed=5)
    x = image((2, 3, size, size), seed=6)
    t = tmodel.train()(torch.tensor(x))
    n = nmodel.train()(numtorch.tensor(x))
    assert type(n).__name__ == type(t).__name__ and n._fields == t._fields
    for a, b in zip(n, t):
        assert_outputs_close(a, b)
    n_eval = nmodel.eval()(numtorch.tensor(x))
    assert isinstance(n_eval, numtorch.Tensor)


def test_mnasnet_loads_version_1_checkpoints_like_torchvision():
    # a version-1 checkpoint (first 0.5 release) has an unscaled 32/16-channel stem
    old = tm.MNASNet(0.5)
    old._version = 1
    depths = tm.mnasnet._get_depths(0.5)
    stem = [torch.nn.Conv2d(3, 32, 3, padding=1, stride=2, bias=False),
            torch.nn.BatchNorm2d(32), torch.nn.ReLU(inplace=True),
            torch.nn.Conv2d(32, 32, 3, padding=1, stride=1, groups=32, bias=False),
            torch.nn.BatchNorm2d(32), torch.nn.ReLU(inplace=True),
            torch.nn.Conv2d(32, 16, 1, padding=0, stride=1, bias=False),
            torch.nn.BatchNorm2d(16), tm.mnasnet._stack(16, depths[2], 3, 2, 3, 3, 0.0003)]
    for i, layer in enumerate(stem):
        old.layers[i] = layer
    state = old.state_dict()
    assert state._metadata[""]["version"] == 1
    theirs = tm.MNASNet(0.5)
    with pytest.warns(UserWarning, match="A new version of MNASNet") as t_warn:
        theirs.load_state_dict(state)
    with skipped_random_init():
        ours = nm.MNASNet(0.5)
    with pytest.warns(UserWarning, match="A new version of MNASNet") as n_warn:
        ours.load_state_dict(to_numtorch(state))
    assert [str(w.message) for w in n_warn] == [str(w.message) for w in t_warn]
    t, n = _forward(theirs.eval(), ours.eval(), image((2, 3, 32, 32)))
    assert_outputs_close(n, t)
    with pytest.raises(ValueError, match="version should be set to 1 or 2 instead of None"):
        nm.MNASNet(0.5).load_state_dict(dict(to_numtorch(state)))


def test_vit_loads_checkpoints_with_the_old_mlp_names():
    # before MLPBlock became an MLP, its layers were linear_1 / linear_2 (module version 1)
    kwargs = dict(image_size=32, patch_size=16, num_layers=2, num_heads=2, hidden_dim=32,
                  mlp_dim=64)
    tmodel = randomize_values(tm.VisionTransformer(**kwargs)).eval()
    renamed = {k.replace("mlp.0.", "mlp.linear_1.").replace("mlp.3.", "mlp.linear_2."): v
               for k, v in tmodel.state_dict().items()}
    assert any("linear_1" in k for k in renamed)
    theirs = tm.VisionTransformer(**kwargs).eval()
    theirs.load_state_dict(renamed)
    ours = nm.VisionTransformer(**kwargs).eval()
    ours.load_state_dict(to_numtorch(renamed))
    t, n = _forward(theirs, ours, image((2, 3, 32, 32)))
    assert_outputs_close(n, t)


def test_maxvit_outputs_and_gradients():
    # maxvit_t's 7x7 windows need 224x224 inputs; a small MaxVit runs the same code
    kwargs = dict(input_size=(32, 32), stem_channels=8, partition_size=2,
                  block_channels=[8, 16, 16], block_layers=[1, 2, 1], head_dim=4,
                  stochastic_depth_prob=0.0)
    tmodel = randomize_values(tm.MaxVit(**kwargs))
    nmodel = nm.MaxVit(**kwargs)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()))
    x = image((2, 3, 32, 32), seed=7)
    t, n = _forward(tmodel.eval(), nmodel.eval(), x)
    assert_outputs_close(n, t)
    t = tmodel.train()(torch.tensor(x))
    n = nmodel.train()(numtorch.tensor(x))
    assert_outputs_close(n, t)
    t.sum().backward()
    n.sum().backward()
    overall = max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for (key, tp), np_ in zip(tmodel.named_parameters(), nmodel.parameters()):
        assert_outputs_close(np_.grad, tp.grad, rel=1e-3, floor=1e-3 * overall)
