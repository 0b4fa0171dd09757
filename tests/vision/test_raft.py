"""raft_large / raft_small (models.optical_flow) against torchvision 0.28: names and registry,
reprs and state-dict structure, weights enums and the OpticalFlow preset, the correlation
pyramid and its lookup, the upsampling and grid helpers, eval outputs of every refinement step
after a state transfer, float64 training gradients through all steps, the random
initialisation's draws, error messages, and pretrained loading from a loopback server."""

import os
import sys
import warnings

import numpy as np
import pytest
import torch
from PIL import Image
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

TR = sys.modules["torchvision.models.optical_flow.raft"]
NR = sys.modules["numtorchvision.models.optical_flow.raft"]
TU = sys.modules["torchvision.models.optical_flow._utils"]
NU = sys.modules["numtorchvision.models.optical_flow._utils"]
NAMES = ["raft_large", "raft_small"]
# the correlation pyramid's 4 levels need 16x16 feature maps: 128x128 images at least
SIZE = 128


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_registry_and_names():
    assert nm.list_models(module=nm.optical_flow) == NAMES
    assert set(NR.__all__) == set(TR.__all__)
    public = {n for n in dir(nm.optical_flow) if not n.startswith("_")}
    assert public >= set(TR.__all__)
    for name in NAMES:
        assert nm.get_model_builder(name) is getattr(nm.optical_flow, name)
        assert nm.get_model_weights(name).__name__ == tm.get_model_weights(name).__name__


@pytest.mark.parametrize("name", NAMES)
def test_weights_enums_and_structure(name):
    ours, theirs = nm.get_model_weights(name), tm.get_model_weights(name)
    assert list(ours.__members__) == list(theirs.__members__)
    assert ours.DEFAULT.name == theirs.DEFAULT.name
    for key, t in theirs.__members__.items():
        o = ours[key]
        assert repr(o) == repr(t) and o.url == t.url
        assert {k: repr(v) for k, v in o.meta.items()} == {
            k: repr(v) for k, v in t.meta.items() if k != "_docs"}
        assert o.transforms.__name__ == t.transforms.__name__ == "OpticalFlow"
        assert repr(o.transforms()) == repr(t.transforms())
    with torch.device("meta"):
        tmodel = _quiet(getattr(tm.optical_flow, name))
    with skipped_random_init():
        nmodel = _quiet(getattr(nm.optical_flow, name))
    assert repr(nmodel) == repr(tmodel)
    assert structure(nmodel.state_dict()) == structure(tmodel.state_dict())


def test_optical_flow_preset():
    t, n = tm.optical_flow.Raft_Small_Weights.DEFAULT.transforms(), \
        nm.optical_flow.Raft_Small_Weights.DEFAULT.transforms()
    a = np.random.RandomState(0).randint(0, 256, (2, 3, 8, 16)).astype(np.uint8)
    b = np.random.RandomState(1).rand(2, 3, 8, 16).astype(np.float32)
    for x, y in zip(n(numtorch.tensor(a), numtorch.tensor(b)), t(torch.tensor(a), torch.tensor(b))):
        assert x.dtype == numtorch.float32
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6, atol=1e-6)
    pil = Image.fromarray(a[0].transpose(1, 2, 0))
    np.testing.assert_allclose(n(pil, pil)[0].numpy(), t(pil, pil)[0].numpy(), atol=1e-6)


def test_coords_grid_upsampling_and_grid_sample():
    np.testing.assert_array_equal(NU.make_coords_grid(2, 3, 5).numpy(),
                                  TU.make_coords_grid(2, 3, 5).numpy())
    flow, mask = image((2, 2, 3, 4), seed=1), image((2, 576, 3, 4), seed=2)
    for m in (None, mask):
        ft, fn = torch.tensor(flow, requires_grad=True), numtorch.tensor(flow, requires_grad=True)
        mt = None if m is None else torch.tensor(m, requires_grad=True)
        mn = None if m is None else numtorch.tensor(m, requires_grad=True)
        ot, on = TU.upsample_flow(ft, mt), NU.upsample_flow(fn, mn)
        assert_outputs_close(on, ot, rel=1e-6)
        cot = image(tuple(ot.shape), seed=3)
        (ot * torch.tensor(cot)).sum().backward()
        (on * numtorch.tensor(cot)).sum().backward()
        assert_outputs_close(fn.grad, ft.grad, rel=1e-5)
        if m is not None:
            assert_outputs_close(mn.grad, mt.grad, rel=1e-5)
    img = image((3, 1, 5, 6), seed=4)
    grid = np.random.RandomState(5).uniform(-1, 7, (3, 4, 4, 2)).astype(np.float32)
    assert_outputs_close(NU.grid_sample(numtorch.tensor(img), numtorch.tensor(grid),
                                        align_corners=True),
                         TU.grid_sample(torch.tensor(img), torch.tensor(grid),
                                        align_corners=True), rel=1e-6)


@pytest.mark.parametrize("levels,radius", [(4, 4), (2, 1)])
def test_correlation_pyramid_and_lookup(levels, radius):
    f1, f2 = image((2, 8, 16, 20), seed=6), image((2, 8, 16, 20), seed=7)
    # centres off the pixel grid and partly outside the map
    centres = np.random.RandomState(8).uniform(-3, 22, (2, 2, 16, 20)).astype(np.float32)
    t, n = TR.CorrBlock(num_levels=levels, radius=radius), NR.CorrBlock(num_levels=levels,
                                                                        radius=radius)
    assert n.out_channels == t.out_channels
    a1, a2 = torch.tensor(f1, requires_grad=True), torch.tensor(f2, requires_grad=True)
    b1, b2 = numtorch.tensor(f1, requires_grad=True), numtorch.tensor(f2, requires_grad=True)
    t.build_pyramid(a1, a2)
    n.build_pyramid(b1, b2)
    for pt, pn in zip(t.corr_pyramid, n.corr_pyramid):
        assert_outputs_close(pn, pt, rel=1e-5)
    ot = t.index_pyramid(torch.tensor(centres))
    on = n.index_pyramid(numtorch.tensor(centres))
    assert_outputs_close(on, ot, rel=1e-5)
    cot = image(tuple(ot.shape), seed=9)
    (ot * torch.tensor(cot)).sum().backward()
    (on * numtorch.tensor(cot)).sum().backward()
    assert_outputs_close(b1.grad, a1.grad, rel=1e-5)
    assert_outputs_close(b2.grad, a2.grad, rel=1e-5)


def _pair(name, seed):
    tmodel = tv_build(getattr(tm.optical_flow, name), seed=seed)
    with skipped_random_init():
        nmodel = _quiet(getattr(nm.optical_flow, name))
    nmodel.load_state_dict(to_numtorch(tmodel.state_dict()), strict=True)
    return tmodel, nmodel


@pytest.mark.parametrize("name", NAMES)
def test_eval_outputs_of_every_step(name):
    tmodel, nmodel = _pair(name, seed=10)
    tmodel.eval(), nmodel.eval()
    x1, x2 = image((2, 3, SIZE, SIZE + 16), seed=11), image((2, 3, SIZE, SIZE + 16), seed=12)
    with torch.no_grad():
        theirs = tmodel(torch.tensor(x1), torch.tensor(x2), num_flow_updates=3)
    with numtorch.no_grad():
        ours = nmodel(numtorch.tensor(x1), numtorch.tensor(x2), num_flow_updates=3)
    assert isinstance(ours, list) and len(ours) == len(theirs) == 3
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == (2, 2, SIZE, SIZE + 16)
        assert_outputs_close(o, t)


def test_training_gradients_through_the_steps_float64(monkeypatch):
    # the feature encoder's instance norms make float32 gradients ill-conditioned; both
    # models run in float64 with float64 coordinate grids (theirs are float32 only)
    for mod in (TR, NR):
        monkeypatch.setattr(mod, "make_coords_grid", lambda *a, _f=mod.make_coords_grid, **k:
                            _f(*a, **k).double())
    tmodel, nmodel = _pair("raft_small", seed=13)
    tmodel.double().train(), nmodel.double().train()
    x1, x2 = (image((1, 3, SIZE, SIZE), seed=s).astype(np.float64) for s in (14, 15))
    theirs = tmodel(torch.tensor(x1), torch.tensor(x2), num_flow_updates=2)
    ours = nmodel(numtorch.tensor(x1), numtorch.tensor(x2), num_flow_updates=2)
    cots = [image(tuple(t.shape), seed=16 + i).astype(np.float64) for i, t in enumerate(theirs)]
    sum((t * torch.tensor(c)).sum() for t, c in zip(theirs, cots)).backward()
    sum((o * numtorch.tensor(c)).sum() for o, c in zip(ours, cots)).backward()
    for o, t in zip(ours, theirs):
        assert o.dtype == numtorch.float64
        assert_outputs_close(o, t, rel=1e-9)
    grads = dict(tmodel.named_parameters())
    # biases before an instance norm have a zero gradient in exact arithmetic: their
    # rounding noise is judged against the model's largest gradient
    noise = 1e-10 * max(float(p.grad.abs().max()) for p in tmodel.parameters())
    for key, p in nmodel.named_parameters():
        a, b = grads[key].grad.numpy(), p.grad.numpy()
        assert np.abs(a - b).max() <= 1e-7 * np.abs(a).max() + noise, key


def test_random_init_draws_equal_torchvisions():
    torch.manual_seed(17)
    t = _quiet(tm.optical_flow.raft_small)
    numtorch.manual_seed(17)
    n = _quiet(nm.optical_flow.raft_small)
    theirs = t.state_dict()
    for key, v in n.state_dict().items():
        np.testing.assert_allclose(v.numpy(), theirs[key].numpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=key)


@pytest.mark.parametrize("call", [
    lambda M, R: M.raft_small()(torch_or(M, (1, 3, 64, 64)), torch_or(M, (1, 3, 64, 72))),
    lambda M, R: M.raft_small()(torch_or(M, (1, 3, 60, 64)), torch_or(M, (1, 3, 60, 64))),
    lambda M, R: M.raft_small()(torch_or(M, (1, 3, 64, 64)), torch_or(M, (1, 3, 64, 64))),
    lambda M, R: M.raft_small(corr_block_radius=2),
    lambda M, R: R.CorrBlock().build_pyramid(torch_or(M, (1, 4, 16, 16)),
                                             torch_or(M, (1, 4, 16, 17))),
    lambda M, R: R.FeatureEncoder(layers=(1, 2, 3)),
    lambda M, R: R.MotionEncoder(in_channels_corr=4, corr_layers=(1, 2, 3)),
    lambda M, R: R.MotionEncoder(in_channels_corr=4, flow_layers=(1,)),
    lambda M, R: R.RecurrentBlock(input_size=4, hidden_size=4, kernel_size=(3,), padding=(1, 1)),
    lambda M, R: R.RecurrentBlock(input_size=4, hidden_size=4, kernel_size=(3, 3, 3),
                                  padding=(1, 1, 1)),
    lambda M, R: M.raft_small(context_encoder=R.FeatureEncoder(
        block=R.BottleneckBlock, layers=(32, 32, 64, 96, 96), norm_layer=None))(
            torch_or(M, (1, 3, 128, 128)), torch_or(M, (1, 3, 128, 128)), num_flow_updates=1),
])
def test_errors_match_torchvision(call):
    with pytest.raises(Exception) as theirs:
        _quiet(call, tm.optical_flow, TR)
    with pytest.raises(Exception) as ours:
        _quiet(call, nm.optical_flow, NR)
    assert type(ours.value) is type(theirs.value)
    if type(theirs.value) is TypeError:  # Python's own message names the module
        assert str(ours.value).split("()")[1] == str(theirs.value).split("()")[1]
    else:
        assert str(ours.value) == str(theirs.value)


def torch_or(models, shape):
    lib = torch if models is tm.optical_flow else numtorch
    return lib.zeros(shape)


def test_pretrained_download(server, tmp_path, monkeypatch):
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    tmodel = tv_build(tm.optical_flow.raft_small, seed=18).eval()
    w = nm.optical_flow.Raft_Small_Weights.C_T_V2
    url = publish(server, tmodel.state_dict(), os.path.basename(w.url).rsplit("-", 1)[0])
    monkeypatch.setattr(w.value, "url", url)
    with skipped_random_init():
        nmodel = _quiet(nm.optical_flow.raft_small, pretrained=True, progress=False).eval()
    assert (tmp_path / "hub" / "checkpoints" / os.path.basename(url)).is_file()
    x1, x2 = image((1, 3, SIZE, SIZE), seed=19), image((1, 3, SIZE, SIZE), seed=20)
    with torch.no_grad():
        t = tmodel(torch.tensor(x1), torch.tensor(x2), num_flow_updates=1)[-1]
    with numtorch.no_grad():
        n = nmodel(numtorch.tensor(x1), numtorch.tensor(x2), num_flow_updates=1)[-1]
    assert_outputs_close(n, t)
