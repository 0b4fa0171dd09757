"""mvit_v1_b / mvit_v2_s against torchvision 0.28: names, reprs and state-dict structure of
both builders, weights enums and presets, the fixed clip size, eval outputs of the v1 and v2
designs after a state transfer (small clips through MViT itself, square and not, a single
image), float64 training gradients, initialisation draws, and pretrained loading from a
loopback server."""

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

TM = sys.modules["torchvision.models.video.mvit"]
NM = sys.modules["numtorchvision.models.video.mvit"]
NAMES = ["mvit_v1_b", "mvit_v2_s"]
VARIANTS = {
    "v1": (NM._V1_B, dict(residual_pool=False, residual_with_cls_embed=False,
                          rel_pos_embed=False, proj_after_attn=False)),
    "v2": (NM._V2_S, dict(residual_pool=True, residual_with_cls_embed=False,
                          rel_pos_embed=True, proj_after_attn=True)),
}


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_registry_and_names():
    assert set(NAMES) <= set(nm.list_models(module=nm.video))
    assert set(NM.__all__) == set(TM.__all__)
    for name in NAMES:
        assert nm.get_model_builder(name) is getattr(nm.video, name)


@pytest.mark.parametrize("name", NAMES)
def test_builders_structure_and_weights(name):
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
        assert {k: repr(v) for k, v in o.meta.items()} == {
            k: repr(v) for k, v in t.meta.items() if k != "_docs"}
        assert _transform_facts(o) == _transform_facts(t)
        assert repr(o.transforms()) == repr(t.transforms())


def test_clip_size_is_fixed():
    with pytest.raises(TypeError) as theirs:
        _quiet(tm.video.mvit_v2_s, spatial_size=(64, 64))
    with pytest.raises(TypeError) as ours:
        _quiet(nm.video.mvit_v2_s, spatial_size=(64, 64))
    assert str(ours.value).split("()")[1] == str(theirs.value).split("()")[1]


def _pair(variant, seed, blocks=None, **kw):
    cfg, flags = VARIANTS[variant]
    cfg = cfg[:blocks]
    kw = {**flags, "stochastic_depth_prob": 0.2, **kw}
    tmodel = tv_build(lambda weights=None, **k: TM.MViT(
        block_setting=[TM.MSBlockConfig(**vars(c)) for c in cfg], **k), seed=seed, **kw)
    with skipped_random_init():
        nmodel = NM.MViT(block_setting=cfg, **kw)
    assert repr(nmodel) == repr(tmodel)
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    return tmodel, nmodel


@pytest.mark.parametrize("variant,spatial,temporal,clip,blocks", [
    ("v1", (64, 64), 4, (2, 3, 4, 64, 64), None),
    ("v2", (64, 64), 4, (2, 3, 4, 64, 64), None),
    # not square: the height's relative-position table is resized to its grid
    ("v2", (64, 96), 4, (1, 3, 4, 64, 96), 5),
    ("v2", (64, 64), 2, (2, 3, 64, 64), 5),  # an image: a one-frame clip
])
def test_eval_outputs(variant, spatial, temporal, clip, blocks):
    tmodel, nmodel = _pair(variant, seed=1, blocks=blocks, spatial_size=spatial,
                           temporal_size=temporal)
    tmodel.eval(), nmodel.eval()
    x = image(clip, seed=2)
    with torch.no_grad():
        t = tmodel(torch.tensor(x))
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x))
    assert tuple(n.shape) == (clip[0], 400)
    assert_outputs_close(n, t)


@pytest.mark.parametrize("variant", ["v1", "v2"])
def test_training_gradients_float64(variant):
    # the first 4 blocks: widening (v1 after, v2 in the attention), pooled queries and skips
    tmodel, nmodel = _pair(variant, seed=3, blocks=4, spatial_size=(32, 32), temporal_size=4,
                           stochastic_depth_prob=0.0, dropout=0.0)
    tmodel.double().train(), nmodel.double().train()
    x = image((2, 3, 4, 32, 32), seed=4).astype(np.float64)
    t, n = tmodel(torch.tensor(x)), nmodel(numtorch.tensor(x))
    assert_outputs_close(n, t, rel=1e-9)
    cot = image(tuple(t.shape), seed=5).astype(np.float64)
    (t * torch.tensor(cot)).sum().backward()
    (n * numtorch.tensor(cot)).sum().backward()
    grads = dict(tmodel.named_parameters())
    # the key projection's bias has a zero gradient in exact arithmetic (softmax ignores a
    # constant per row): rounding noise is judged against the model's largest gradient
    noise = 1e-10 * max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for key, p in nmodel.named_parameters():
        a, b = grads[key].grad.numpy(), p.grad.numpy()
        assert np.abs(a - b).max() <= 1e-8 * np.abs(a).max() + noise, key


def test_random_init_draws_equal_torchvisions():
    cfg, flags = VARIANTS["v2"]
    small = cfg[:4]
    torch.manual_seed(6)
    t = TM.MViT(spatial_size=(32, 32), temporal_size=4,
                block_setting=[TM.MSBlockConfig(**vars(c)) for c in small], **flags)
    numtorch.manual_seed(6)
    n = NM.MViT(spatial_size=(32, 32), temporal_size=4, block_setting=small, **flags)
    theirs = t.state_dict()
    # the same draws; trunc_normal_'s inverse-erf rounds a few values one float32 ulp apart
    for key, v in n.state_dict().items():
        np.testing.assert_allclose(v.numpy(), theirs[key].numpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=key)


def test_pretrained_download(server, tmp_path, monkeypatch):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    tmodel = tv_build(tm.video.mvit_v2_s, seed=7)
    w = nm.video.MViT_V2_S_Weights.KINETICS400_V1
    url = publish(server, tmodel.state_dict(), os.path.basename(w.url).rsplit("-", 1)[0])
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        nmodel = _quiet(nm.video.mvit_v2_s, pretrained=True, progress=False)
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    theirs = tmodel.state_dict()
    for key, v in nmodel.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), theirs[key].numpy(), err_msg=key)


def test_empty_block_setting():
    with pytest.raises(ValueError) as theirs:
        TM.MViT((64, 64), 4, [], False, False, False, False)
    with pytest.raises(ValueError) as ours:
        NM.MViT((64, 64), 4, [], False, False, False, False)
    assert str(ours.value) == str(theirs.value)
