"""Group norm's row form (session 41, ops/norm_groups.py) against torch: values and gradients
with random cotangents on conv-net shapes (several blocks, a partial one, channel rows cut
into sub-rows), no affine / weight only, float32 and float64, second order (the
NormalizeAffineBackward route), groups whose mean is large against their spread (the general
path), small spatial sizes and channels-last inputs, float16/bfloat16 (computed in float32),
and the path actually taken."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import norm_groups

# (32, 64, 32, 32) / 8: 2M values, 16 blocks; (16, 128, 16, 16) / 32: S = 256 cut into two
# sub-rows; (3, 6, 5, 7) / 3: S = 35 (one sub-row of an odd length); (2, 4, 9, 24) / 1:
# one group a sample; (5, 12, 17, 16) / 4 with a partial last block at a small _BLOCK below
SHAPES = [((32, 64, 32, 32), 8), ((16, 128, 16, 16), 32), ((3, 6, 5, 7), 3),
          ((2, 4, 9, 24), 1), ((5, 12, 17, 16), 4)]


def _arrays(shape, dtype, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) + offset
    c = shape[1]
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    gy = rng.standard_normal(shape)
    return [a.astype(dtype) for a in (x, w, b, gy)]


def _run(lib, arrays, groups, weight=True, bias=True, dtype=None, channels_last=False):
    x, w, b, gy = arrays
    xt = lib.from_numpy(x.copy())
    if dtype is not None:
        xt = xt.to(getattr(lib, dtype))
    if channels_last:
        xt = xt.to(memory_format=lib.channels_last)
    xt.requires_grad_()
    conv = (lambda a: lib.from_numpy(a.copy()).to(xt.dtype).requires_grad_())
    wt = conv(w) if weight else None
    bt = conv(b) if bias else None
    y = lib.nn.functional.group_norm(xt, groups, wt, bt)
    y.backward(lib.from_numpy(gy.copy()).to(xt.dtype))
    out = [y, xt.grad] + [t.grad for t in (wt, bt) if t is not None]
    return [o.detach().float().numpy() if dtype else o.detach().numpy() for o in out]


def _check(got, want, rtol, atol):
    assert len(got) == len(want)
    for g, t in zip(got, want):
        assert g.dtype == t.dtype and g.shape == t.shape
        np.testing.assert_allclose(g, t, rtol=rtol, atol=atol * max(1.0, np.abs(t).max()))


@pytest.fixture
def taken(monkeypatch):
    """Counts of the row form's forward and backward calls."""
    calls = {"forward": 0, "backward": 0}
    for name in calls:
        real = getattr(norm_groups, name)

        def counted(*a, _real=real, _name=name, **k):
            calls[_name] += 1
            return _real(*a, **k)

        monkeypatch.setattr(norm_groups, name, counted)
    return calls


@pytest.mark.parametrize("shape,groups", SHAPES)
@pytest.mark.parametrize("weight,bias", [(True, True), (True, False), (False, False)])
def test_float32_values_and_grads(shape, groups, weight, bias, taken):
    arrays = _arrays(shape, np.float32)
    got = _run(numtorch, arrays, groups, weight, bias)
    want = _run(torch, arrays, groups, weight, bias)
    _check(got, want, 2e-4, 2e-5)
    # without weight and bias the groups are plain rows: layer norm's row form (norm_rows)
    assert taken == ({"forward": 1, "backward": 1} if weight else {"forward": 0, "backward": 0})


@pytest.mark.parametrize("shape,groups", SHAPES[1:])
def test_float64(shape, groups, taken):
    arrays = _arrays(shape, np.float64, seed=1)
    _check(_run(numtorch, arrays, groups), _run(torch, arrays, groups), 1e-10, 1e-12)
    assert taken["forward"] == 1


def test_partial_blocks(monkeypatch, taken):
    """Blocks of 3 channel rows of 16 (the last one partial) and sub-rows of 8 values."""
    monkeypatch.setattr(norm_groups, "_BLOCK", 48)
    monkeypatch.setattr(norm_groups, "_SUB", 8)
    for shape, groups in [((5, 12, 17, 16), 4), ((3, 6, 5, 7), 3)]:
        arrays = _arrays(shape, np.float32, seed=2)
        _check(_run(numtorch, arrays, groups), _run(torch, arrays, groups), 2e-4, 2e-5)
    assert taken == {"forward": 2, "backward": 2}


def test_sub_rows():
    assert norm_groups._split_rows(1024) == 1024 // norm_groups._SUB
    assert norm_groups._split_rows(35) == 1
    assert norm_groups._split_rows(3 * 512) == 3 * 512 // 96  # halved while even: rows of 96


@pytest.mark.parametrize("offset", [30.0, 300.0])
def test_large_means_take_the_general_path(offset, taken):
    """Groups far from zero mean: the one-pass variance would cancel, so the general
    (centred) path runs, and the values still match torch."""
    arrays = _arrays((4, 8, 6, 16), np.float32, seed=3, offset=offset)
    got = _run(numtorch, arrays, 2)
    want = _run(torch, arrays, 2)
    _check(got, want, 2e-3, 2e-4)
    assert taken["forward"] == 1 and taken["backward"] == 0


def test_one_large_group_falls_back(taken):
    x, w, b, gy = _arrays((4, 8, 6, 16), np.float32, seed=4)
    x[2, :4] += 50.0  # one group of one sample
    got = _run(numtorch, [x, w, b, gy], 2)
    want = _run(torch, [x, w, b, gy], 2)
    _check(got, want, 2e-3, 2e-4)
    assert taken["backward"] == 0


@pytest.mark.parametrize("shape", [(4, 8, 3, 5), (6, 4)])
def test_small_spatial_general_path(shape, taken):
    arrays = _arrays(shape, np.float32, seed=5)
    _check(_run(numtorch, arrays, 2), _run(torch, arrays, 2), 2e-4, 2e-5)
    assert taken["forward"] == 0


def test_channels_last():
    arrays = _arrays((4, 8, 6, 16), np.float32, seed=6)
    got = _run(numtorch, arrays, 4, channels_last=True)
    want = _run(torch, arrays, 4, channels_last=True)
    _check(got, want, 2e-4, 2e-5)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_dtypes_unchanged(dtype, taken):
    arrays = _arrays((4, 8, 6, 16), np.float32, seed=7)
    got = _run(numtorch, arrays, 4, dtype=dtype)
    want = _run(torch, arrays, 4, dtype=dtype)
    _check(got, want, 5e-2, 2e-2)
    assert taken["forward"] == 1  # group_norm computes a half input in float32


def _second_order(lib, arrays, groups, dtype):
    x, w, b, gy = arrays
    xt = lib.from_numpy(x.copy()).requires_grad_()
    wt = lib.from_numpy(w.copy()).requires_grad_()
    bt = lib.from_numpy(b.copy()).requires_grad_()
    y = lib.nn.functional.group_norm(xt, groups, wt, bt)
    g = lib.from_numpy(gy.copy())
    gx, gw = lib.autograd.grad(y, (xt, wt), g, create_graph=True)
    rng = np.random.default_rng(8)
    v1 = lib.from_numpy(rng.standard_normal(x.shape).astype(dtype))
    v2 = lib.from_numpy(rng.standard_normal(w.shape).astype(dtype))
    s = (gx * v1).sum() + (gw * v2).sum()
    return [a.detach().numpy() for a in lib.autograd.grad(s, (xt, wt, bt), allow_unused=True)
            if a is not None] + [gx.detach().numpy(), gw.detach().numpy()]


@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-4), (np.float64, 1e-10)])
def test_second_order(dtype, tol):
    arrays = _arrays((3, 8, 5, 16), dtype, seed=9)
    got = _second_order(numtorch, arrays, 4, dtype)
    want = _second_order(torch, arrays, 4, dtype)
    _check(got, want, tol, tol / 10)


def test_module_and_no_grad():
    arrays = _arrays((8, 32, 16, 16), np.float32, seed=10)
    x = arrays[0]
    outs = []
    for lib in (numtorch, torch):
        m = lib.nn.GroupNorm(8, 32)
        with lib.no_grad():
            m.weight.copy_(lib.from_numpy(arrays[1][:32].copy()))
            m.bias.copy_(lib.from_numpy(arrays[2][:32].copy()))
            outs.append(m(lib.from_numpy(x.copy())).numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=2e-4, atol=2e-5)


def test_input_grad_only():
    """Weight and bias without grad: only the input gradient is formed."""
    x, w, b, gy = _arrays((4, 16, 8, 16), np.float32, seed=11)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        y = lib.nn.functional.group_norm(xt, 4, lib.from_numpy(w[:16].copy()),
                                         lib.from_numpy(b[:16].copy()))
        y.backward(lib.from_numpy(gy.copy()))
        res.append(xt.grad.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=2e-4, atol=2e-5)


def test_bias_without_weight(taken):
    """A bias with no weight (torch 2.13's own backward raises "tensor does not have a
    device" here): the gradients equal torch's with a constant weight of ones; numtorch's
    layer-norm backward took the per-channel bias for a per-row one (a reshape error)."""
    x, _, b, gy = _arrays((5, 12, 17, 16), np.float32, seed=12)
    xt = numtorch.from_numpy(x.copy()).requires_grad_()
    bt = numtorch.from_numpy(b.copy()).requires_grad_()
    y = numtorch.nn.functional.group_norm(xt, 4, None, bt)
    y.backward(numtorch.from_numpy(gy.copy()))
    got = [y.detach().numpy(), xt.grad.numpy(), bt.grad.numpy()]
    xr = torch.from_numpy(x.copy()).requires_grad_()
    br = torch.from_numpy(b.copy()).requires_grad_()
    yr = torch.nn.functional.group_norm(xr, 4, torch.ones(12), br)
    yr.backward(torch.from_numpy(gy.copy()))
    _check(got, [yr.detach().numpy(), xr.grad.numpy(), br.grad.numpy()], 2e-4, 2e-5)
    assert taken == {"forward": 1, "backward": 1}
    with torch.no_grad():  # the forward alone: torch without a weight
        want = torch.nn.functional.group_norm(torch.from_numpy(x), 4, None,
                                              torch.from_numpy(b)).numpy()
    np.testing.assert_allclose(got[0], want, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("shape", [(3, 4, 5, 6), (2, 3, 40)])
def test_instance_norm_bias_without_weight(shape):
    """instance_norm with a bias and no weight: the normalised dims are trailing, but the
    (C,) bias is not elementwise over them (was a reshape error in the layer-norm backward)."""
    x, _, _, gy = _arrays(shape, np.float32, seed=13)
    b = np.linspace(-1, 1, shape[1]).astype(np.float32)
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        bt = lib.from_numpy(b.copy()).requires_grad_()
        y = lib.nn.functional.instance_norm(xt, bias=bt)
        y.backward(lib.from_numpy(gy.copy()))
        res.append([y.detach().numpy(), xt.grad.numpy(), bt.grad.numpy()])
    _check(res[0], res[1], 2e-4, 2e-5)
