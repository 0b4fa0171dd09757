"""nn.ChannelShuffle / channel_shuffle and the lazy norm layers against torch."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, check_raises


@pytest.mark.parametrize("shape, groups", [((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((2, 6, 1, 2, 2), 6),
                                           ((2, 4, 0), 2)])
def test_channel_shuffle_matches_torch(shape, groups):
    check_op(lambda t, x: t.channel_shuffle(x, groups), [shape])
    check_op(lambda t, x: t.nn.functional.channel_shuffle(x, groups) * 2, [shape])
    check_op(lambda t, x: t.nn.ChannelShuffle(groups)(x), [shape], dtype="float32")


@pytest.mark.parametrize("shape, groups, match", [
    ((1, 6, 2), 4, "Number of channels must be divisible by groups. Got 6 channels and 4"),
    ((1, 6, 2), 0, "Number of groups to divide channels in must be positive. Value of groups:0"),
    ((2, 4), 2, "channel_shuffle expects input with > 2 dims, but got input with sizes [2, 4]"),
])
def test_channel_shuffle_errors_match_torch(shape, groups, match):
    check_raises(lambda t, x: t.channel_shuffle(x, groups), [np.ones(shape)], match=match)


def test_channel_shuffle_module_matches_torch():
    for lib in (numtorch, torch):
        m = lib.nn.ChannelShuffle(2)
        assert repr(m) == "ChannelShuffle(groups=2)" and m.groups == 2
        assert lib.nn.modules.channelshuffle.ChannelShuffle is lib.nn.ChannelShuffle
        assert lib.nn.functional.channel_shuffle is lib.channel_shuffle
        assert list(m.state_dict()) == []


_LAZY = [("LazyBatchNorm1d", (4, 3)), ("LazyBatchNorm1d", (4, 3, 5)),
         ("LazyBatchNorm2d", (2, 3, 4, 4)), ("LazyBatchNorm3d", (2, 3, 2, 2, 2)),
         ("LazyInstanceNorm1d", (2, 3, 5)), ("LazyInstanceNorm2d", (2, 3, 4, 4)),
         ("LazyInstanceNorm3d", (2, 3, 2, 2, 2))]


@pytest.mark.parametrize("name, shape", _LAZY)
@pytest.mark.parametrize("kwargs", [{}, {"affine": False}, {"track_running_stats": False},
                                    {"momentum": None, "eps": 1e-3}])
def test_lazy_norm_matches_torch(name, shape, kwargs):
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    res = []
    for lib in (numtorch, torch):
        m = getattr(lib.nn, name)(**kwargs)
        before = {k: type(v).__name__ for k, v in m.state_dict().items()}
        assert repr(m).startswith(f"{name}(0, ")
        assert m.has_uninitialized_params() == bool(before)
        y = m(lib.from_numpy(x.copy()))
        y2 = m(lib.from_numpy(x.copy() * 2))
        target = name.replace("Lazy", "")
        assert type(m) is getattr(lib.nn, target) and m.num_features == shape[1]
        assert not hasattr(m, "has_uninitialized_params") or not m.has_uninitialized_params()
        res.append((before, repr(m), y.detach().numpy(), y2.detach().numpy(),
                    {k: v.numpy().copy() for k, v in m.state_dict().items()}))
    nt, th = res
    assert nt[0] == th[0] and nt[1] == th[1]
    np.testing.assert_allclose(nt[2], th[2], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(nt[3], th[3], rtol=1e-5, atol=1e-5)
    assert list(nt[4]) == list(th[4])
    for k in th[4]:
        np.testing.assert_allclose(nt[4][k], th[4][k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_lazy_norm_loads_a_state_dict_and_keeps_torch_paths():
    for lib in (numtorch, torch):
        m = lib.nn.LazyBatchNorm1d()
        src = lib.nn.BatchNorm1d(5)
        with lib.no_grad():
            src.weight.fill_(2.0)
        m.load_state_dict(src.state_dict())
        assert type(m).__name__ == "LazyBatchNorm1d" and m.weight.tolist() == [2.0] * 5
        m(lib.ones(2, 5))
        assert type(m) is lib.nn.BatchNorm1d
        assert lib.nn.modules.batchnorm.LazyBatchNorm2d is lib.nn.LazyBatchNorm2d
        assert lib.nn.modules.instancenorm.LazyInstanceNorm3d is lib.nn.LazyInstanceNorm3d
        assert issubclass(lib.nn.LazyInstanceNorm2d, lib.nn.modules.lazy.LazyModuleMixin)
        with pytest.raises(IndexError):
            lib.nn.LazyBatchNorm1d()(lib.ones(4))
        # an optimizer over placeholders steps (nothing has a gradient yet) and keeps them
        lin = lib.nn.LazyLinear(3)
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        opt.step()
        lin(lib.ones(2, 4)).sum().backward()
        opt.step()
        assert opt.param_groups[0]["params"][0] is lin.weight and lin.weight.shape == (3, 4)
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
            lib.nn.LazyLinear(2).weight.numel()
