"""swin3d_t / swin3d_s / swin3d_b against torchvision 0.28: names, module structure and
reprs, weights enums and preprocessing, the 3-D shifted-window attention on clips smaller and
larger than a window, eval outputs after a state transfer, training-mode gradients, the
random initialisation's draws, and pretrained loading from a loopback server."""

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
    skipped_random_init,
    structure,
    to_numtorch,
    tv_build,
)
from .test_models_api import _transform_facts

TS = sys.modules["torchvision.models.video.swin_transformer"]
NS = sys.modules["numtorchvision.models.video.swin_transformer"]
NAMES = ["swin3d_b", "swin3d_s", "swin3d_t"]


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_registry_and_names():
    assert set(NAMES) <= set(nm.list_models(module=nm.video))
    assert set(NS.__all__) == set(TS.__all__)
    for name in NAMES:
        assert nm.get_model_builder(name) is getattr(nm.video, name)


@pytest.mark.parametrize("name", NAMES)
def test_structure_and_weights(name):
    with torch.device("meta"):
        theirs = _quiet(getattr(tm.video, name))
    with skipped_random_init():
        ours = _quiet(getattr(nm.video, name))
    assert repr(ours) == repr(theirs)
    assert structure(ours.state_dict()) == structure(theirs.state_dict())
    o_enum, t_enum = nm.get_model_weights(name), tm.get_model_weights(name)
    assert o_enum.__name__ == t_enum.__name__
    assert list(o_enum.__members__) == list(t_enum.__members__)
    for key, t in t_enum.__members__.items():
        o = o_enum[key]
        assert repr(o) == repr(t) and o.url == t.url
        their_meta = {k: v for k, v in t.meta.items() if k != "_docs"}
        assert {k: repr(v) for k, v in o.meta.items()} == {k: repr(v)
                                                            for k, v in their_meta.items()}
        assert _transform_facts(o) == _transform_facts(t)
        assert repr(o.transforms()) == repr(t.transforms())


@pytest.mark.parametrize("shape,window,shift", [
    ((2, 5, 9, 10, 8), [8, 7, 7], [4, 3, 3]),    # smaller than a window along time
    ((1, 4, 6, 6, 8), [2, 3, 3], [1, 1, 1]),     # whole windows, shifted
    ((1, 3, 7, 8, 8), [2, 3, 3], [1, 1, 1]),     # padded on every axis
    ((1, 9, 9, 15, 8), [8, 7, 7], [4, 3, 3]),
    ((1, 2, 3, 4, 8), [8, 7, 7], [0, 0, 0])])
def test_window_attention_3d(shape, window, shift):
    g = torch.Generator().manual_seed(1)
    t = TS.ShiftedWindowAttention3d(8, window, shift, 2)
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    n = NS.ShiftedWindowAttention3d(8, window, shift, 2)
    n.load_state_dict(to_numtorch(t.state_dict()), strict=True)
    x = image(shape, seed=2)
    xt, xn = torch.tensor(x, requires_grad=True), numtorch.tensor(x, requires_grad=True)
    ot, on = t(xt), n(xn)
    assert_outputs_close(on, ot, rel=1e-5)
    cot = image(shape, seed=3)
    (ot * torch.tensor(cot)).sum().backward()
    (on * numtorch.tensor(cot)).sum().backward()
    assert_outputs_close(xn.grad, xt.grad, rel=1e-5)
    table = n.relative_position_bias_table.grad
    assert_outputs_close(table, t.relative_position_bias_table.grad, rel=1e-5)


def test_window_attention_3d_wrong_geometry():
    with pytest.raises(ValueError) as theirs:
        TS.ShiftedWindowAttention3d(8, [2, 3], [1, 1], 2)
    with pytest.raises(ValueError) as ours:
        NS.ShiftedWindowAttention3d(8, [2, 3], [1, 1], 2)
    assert str(ours.value) == str(theirs.value)


def test_eval_outputs_through_pretrained_download(server, tmp_path, monkeypatch):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    tmodel = tv_build(tm.video.swin3d_t, seed=4).eval()
    w = nm.video.Swin3D_T_Weights.KINETICS400_V1
    url = publish(server, tmodel.state_dict(), os.path.basename(w.url).rsplit("-", 1)[0])
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        nmodel = _quiet(nm.video.swin3d_t, pretrained=True, progress=False).eval()
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    # 5 frames of 36x40: padded to whole patches, a time window smaller than 8
    x = image((2, 3, 5, 36, 40), seed=5)
    with torch.no_grad():
        t = tmodel(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x))
    assert tuple(n.shape) == (2, 400)
    assert_outputs_close(n, t)


def _small(lib, **kw):
    return lib.SwinTransformer3d(patch_size=[2, 4, 4], embed_dim=16, depths=[2, 2],
                                 num_heads=[2, 4], window_size=[2, 3, 3], num_classes=7, **kw)


def test_training_gradients():
    kw = {"stochastic_depth_prob": 0.0}
    tmodel = tv_build(lambda weights=None, **k: _small(TS, **k), seed=6, **kw).train()
    nmodel = _small(NS, **kw).train()
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    x = image((2, 3, 6, 28, 28), seed=7)
    ot, on = tmodel(torch.tensor(x)), nmodel(numtorch.tensor(x))
    assert_outputs_close(on, ot, rel=1e-5)
    cot = image(tuple(ot.shape), seed=8)
    (ot * torch.tensor(cot)).sum().backward()
    (on * numtorch.tensor(cot)).sum().backward()
    grads = dict(tmodel.named_parameters())
    for key, p in nmodel.named_parameters():
        assert_outputs_close(p.grad, grads[key].grad, rel=1e-4, floor=1e-5)


def test_random_init_draws_equal_torchvisions():
    torch.manual_seed(9)
    t = _small(TS)
    numtorch.manual_seed(9)
    n = _small(NS)
    theirs = t.state_dict()
    # the same draws; trunc_normal_'s inverse-erf rounds a few values one float32 ulp apart
    for key, v in n.state_dict().items():
        np.testing.assert_allclose(v.numpy(), theirs[key].numpy(), rtol=1e-6, atol=1e-8,
                                   err_msg=key)
