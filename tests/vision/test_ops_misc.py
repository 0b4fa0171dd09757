"""The shared building blocks of numtorchvision.ops against torchvision's: structure (state
dict keys and shapes), outputs and gradients, reprs, stochastic depth's statistics and
errors."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision import ops as tops

import numtorch
from numtorch import nn
from numtorchvision import ops


def _copy(src, dst):
    dst.load_state_dict({k: numtorch.tensor(v.detach().numpy()) for k, v in
                         src.state_dict().items()})


def _compare(tmod, nmod, x, train=False):
    assert [(k, tuple(v.shape)) for k, v in tmod.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in nmod.state_dict().items()]
    with torch.no_grad():
        for p in tmod.parameters():
            p.add_(torch.randn(p.shape) * 0.1)
    _copy(tmod, nmod)
    tmod.train(train)
    nmod.train(train)
    tx = torch.tensor(x, requires_grad=True)
    nx = numtorch.tensor(x, requires_grad=True)
    t, n = tmod(tx), nmod(nx)
    np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-5)
    g = np.random.RandomState(9).randn(*t.shape).astype(np.float32)
    t.backward(torch.tensor(g))
    n.backward(numtorch.tensor(g))
    np.testing.assert_allclose(nx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (name, tp), np_ in zip(tmod.named_parameters(), nmod.parameters()):
        np.testing.assert_allclose(np_.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=name)


X = np.random.RandomState(0).randn(2, 6, 7, 7).astype(np.float32)


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "groups": 3}, {"kernel_size": (3, 5),
                                                                  "dilation": (2, 1)},
                                {"norm_layer": None, "activation_layer": torch.nn.Hardswish},
                                {"padding": 0, "bias": True}])
def test_conv2d_norm_activation(kw):
    nkw = {k: (getattr(nn, v.__name__) if isinstance(v, type) else v) for k, v in kw.items()}
    t = tops.Conv2dNormActivation(6, 9, **kw)
    n = ops.Conv2dNormActivation(6, 9, **nkw)
    assert repr(n) == repr(t)
    assert n.out_channels == t.out_channels
    _compare(t, n, X, train=True)


def test_conv3d_norm_activation_and_plain_base_warns():
    t = tops.Conv3dNormActivation(2, 3, kernel_size=3)
    n = ops.Conv3dNormActivation(2, 3, kernel_size=3)
    _compare(t, n, np.random.RandomState(1).randn(1, 2, 4, 5, 5).astype(np.float32))
    with pytest.warns(UserWarning, match="Don't use ConvNormActivation directly"):
        ops.misc.ConvNormActivation(2, 3)


def test_squeeze_excitation_mlp_permute():
    _compare(tops.SqueezeExcitation(6, 3), ops.SqueezeExcitation(6, 3), X)
    t = tops.MLP(7, [5, 4, 3], norm_layer=torch.nn.LayerNorm, dropout=0.0)
    n = ops.MLP(7, [5, 4, 3], norm_layer=nn.LayerNorm, dropout=0.0)
    assert repr(n) == repr(t)
    _compare(t, n, X[..., 0].reshape(2, 6, 7), train=True)
    _compare(tops.Permute([0, 2, 3, 1]), ops.Permute([0, 2, 3, 1]), X)


def test_frozen_batch_norm_loads_batchnorm_state():
    bn = torch.nn.BatchNorm2d(6)
    bn.running_mean.normal_()
    bn.running_var.uniform_(0.5, 2.0)
    bn.weight.data.normal_()
    bn.bias.data.normal_()
    t = tops.FrozenBatchNorm2d(6)
    t.load_state_dict(bn.state_dict())
    n = ops.FrozenBatchNorm2d(6)
    n.load_state_dict({k: numtorch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    assert repr(n) == repr(t) and list(n.state_dict()) == list(t.state_dict())
    np.testing.assert_allclose(n(numtorch.tensor(X)).numpy(), t(torch.tensor(X)).numpy(),
                               rtol=1e-5, atol=1e-5)
    assert not list(n.parameters())


@pytest.mark.parametrize("mode", ["row", "batch"])
def test_stochastic_depth_statistics(mode):
    p = 0.3
    x = numtorch.ones(4000, 3, 2)
    numtorch.manual_seed(0)
    out = ops.stochastic_depth(x, p, mode, training=True)
    kept = out[:, 0, 0] != 0
    if mode == "row":
        assert abs(kept.float().mean().item() - (1 - p)) < 0.03
        # a sample is kept or dropped whole, and survivors are scaled by 1 / (1 - p)
        flat = out.reshape(4000, -1)
        assert (flat.amax(dim=1) == flat.amin(dim=1)).all()
    else:
        assert kept.all() or not kept.any()
    # batch mode drops the whole batch with probability p: then only zeros are left
    values = np.unique(out.numpy())
    expected = ([0.0] if not kept.all() else []) + ([1 / (1 - p)] if kept.any() else [])
    assert np.allclose(values, expected)
    assert ops.stochastic_depth(x, p, mode, training=False) is x
    assert ops.stochastic_depth(x, 0.0, mode) is x
    assert (ops.stochastic_depth(x, 1.0, mode) == 0).all()
    m = ops.StochasticDepth(p, mode)
    assert repr(m) == repr(tops.StochasticDepth(p, mode))
    assert m.eval()(x) is x


@pytest.mark.parametrize("args", [(1.5, "row"), (-0.1, "row"), (0.5, "col")])
def test_stochastic_depth_errors(args):
    with pytest.raises(ValueError) as n_err:
        ops.stochastic_depth(numtorch.ones(2, 2), *args)
    with pytest.raises(ValueError) as t_err:
        tops.stochastic_depth(torch.ones(2, 2), *args)
    assert str(n_err.value) == str(t_err.value)


def test_split_normalization_params():
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4),
                             torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.LayerNorm(2)))
    nm = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4),
                       nn.Sequential(nn.Linear(4, 2), nn.LayerNorm(2)))
    tn, to = tops._utils.split_normalization_params(tm)
    nn_, no = ops.split_normalization_params(nm)
    assert [tuple(p.shape) for p in tn] == [tuple(p.shape) for p in nn_]
    assert [tuple(p.shape) for p in to] == [tuple(p.shape) for p in no]
    with pytest.raises(ValueError, match="is not a subclass of nn.Module"):
        ops.split_normalization_params(nm, [int])


@pytest.mark.parametrize("extra", [None, "pool", "p6p7", "p6p7_c5"])
def test_feature_pyramid_network(extra):
    from collections import OrderedDict

    def blocks(lib_ops):
        if extra == "pool":
            return lib_ops.feature_pyramid_network.LastLevelMaxPool()
        if extra == "p6p7":
            return lib_ops.feature_pyramid_network.LastLevelP6P7(8, 8)
        if extra == "p6p7_c5":
            return lib_ops.feature_pyramid_network.LastLevelP6P7(12, 8)
        return None

    t = tops.FeaturePyramidNetwork([4, 6, 12], 8, extra_blocks=blocks(tops))
    n = ops.FeaturePyramidNetwork([4, 6, 12], 8, extra_blocks=blocks(ops))
    assert [(k, tuple(v.shape)) for k, v in t.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in n.state_dict().items()]
    _copy(t, n)
    rng = np.random.RandomState(2)
    shapes = {"a": (2, 4, 16, 15), "b": (2, 6, 8, 8), "c": (2, 12, 3, 4)}
    xs = {k: rng.randn(*s).astype(np.float32) for k, s in shapes.items()}
    tx = OrderedDict((k, torch.tensor(v, requires_grad=True)) for k, v in xs.items())
    nx = OrderedDict((k, numtorch.tensor(v, requires_grad=True)) for k, v in xs.items())
    tout, nout = t(tx), n(nx)
    assert list(nout) == list(tout)
    for k in tout:
        np.testing.assert_allclose(nout[k].detach().numpy(), tout[k].detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
    sum(v.sum() for v in tout.values()).backward()
    sum(v.sum() for v in nout.values()).backward()
    for k in xs:
        np.testing.assert_allclose(nx[k].grad.numpy(), tx[k].grad.numpy(), rtol=1e-4, atol=1e-4)


def test_feature_pyramid_network_loads_version_1_keys_and_checks_arguments():
    t = tops.FeaturePyramidNetwork([3, 5], 4)
    old = {k.replace(".0.weight", ".weight").replace(".0.bias", ".bias"): v
           for k, v in t.state_dict().items()}
    assert "inner_blocks.0.weight" in old
    n = ops.FeaturePyramidNetwork([3, 5], 4)
    n.load_state_dict({k: numtorch.tensor(v.numpy()) for k, v in old.items()})
    np.testing.assert_array_equal(n.inner_blocks[0][0].weight.detach().numpy(),
                                  t.inner_blocks[0][0].weight.detach().numpy())
    for args, kwargs in [(([3, 0], 4), {}), (([3], 4), {"extra_blocks": nn.ReLU()})]:
        with pytest.raises((ValueError, TypeError)) as n_err:
            ops.FeaturePyramidNetwork(*args, **kwargs)
        t_kwargs = {k: torch.nn.ReLU() for k in kwargs}
        with pytest.raises((ValueError, TypeError)) as t_err:
            tops.FeaturePyramidNetwork(*args, **t_kwargs)
        assert type(n_err.value) is type(t_err.value)
        assert str(n_err.value).split(" not ")[0] == str(t_err.value).split(" not ")[0]


@pytest.mark.parametrize("dims", [2, 3])
def test_drop_block_statistics(dims):
    fn = ops.drop_block2d if dims == 2 else ops.drop_block3d
    side = 24 if dims == 2 else 10
    x = numtorch.ones(8, 4, *([side] * dims))
    out = fn(x, 0.2, 3)
    kept = out != 0
    frac = 1 - kept.float().mean().item()
    assert 0.1 < frac < 0.3
    # survivors are scaled so that the mean is kept
    assert abs(out.mean().item() - 1.0) < 1e-4
    # dropping comes in blocks: every dropped cell has a dropped neighbour along each axis
    dropped = ~kept.numpy()
    for axis in range(2, 2 + dims):
        before = np.roll(dropped, 1, axis) | np.roll(dropped, -1, axis)
        assert (before[dropped]).mean() > 0.95
    assert fn(x, 0.2, 3, training=False) is x
    assert fn(x, 0.0, 3) is x
    y = x.clone()
    assert fn(y, 0.5, 3, inplace=True) is y


def test_drop_block_errors_and_reprs():
    for fn_name, bad in [("drop_block2d", (numtorch.ones(1, 1, 4, 4), 1.5, 3)),
                         ("drop_block2d", (numtorch.ones(1, 4, 4), 0.5, 3)),
                         ("drop_block2d", (numtorch.ones(1, 1, 6, 6), 0.5, 4)),
                         ("drop_block3d", (numtorch.ones(1, 1, 4, 4), 0.5, 3))]:
        with pytest.raises(ValueError) as n_err:
            getattr(ops, fn_name)(*bad)
        targs = (torch.ones(tuple(bad[0].shape)),) + bad[1:]
        with pytest.raises(ValueError) as t_err:
            getattr(tops, fn_name)(*targs)
        assert str(n_err.value) == str(t_err.value)
    assert repr(ops.DropBlock2d(0.1, 5)) == repr(tops.DropBlock2d(0.1, 5))
    assert repr(ops.DropBlock3d(0.1, 5, True)) == repr(tops.DropBlock3d(0.1, 5, True))
    m = ops.DropBlock2d(0.3, 3).eval()
    x = numtorch.ones(1, 1, 5, 5)
    assert m(x) is x
