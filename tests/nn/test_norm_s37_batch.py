"""Batch norm of a 2-D (N, C) input after session 37: the per-channel weight and bias go into
the fused op as (C,) arrays (no reshape nodes), which the fused op treats as constant within
each channel's group. Against torch: values, random-cotangent gradients, running statistics,
affine/bias-free/no-affine, eval mode, float64, double backward, half types, node names."""

import numpy as np
import pytest
import torch

import numtorch


def _run(lib, x, gy, dtype="float32", affine=True, bias=True, momentum=0.1, train=True,
         steps=2):
    m = lib.nn.BatchNorm1d(x.shape[1], affine=affine, bias=bias, momentum=momentum)
    m = m.to(getattr(lib, dtype))
    if affine:
        with lib.no_grad():
            rng = np.random.default_rng(1)
            m.weight.copy_(lib.from_numpy(rng.standard_normal(x.shape[1])))
            if bias:
                m.bias.copy_(lib.from_numpy(rng.standard_normal(x.shape[1])))
    m.train(train)
    if not train:
        with lib.no_grad():
            m.running_mean.copy_(lib.from_numpy(np.linspace(-1, 1, x.shape[1])))
            m.running_var.copy_(lib.from_numpy(np.linspace(0.5, 2, x.shape[1])))
    out = []
    for step in range(steps):
        xt = lib.from_numpy(x + step).to(getattr(lib, dtype)).requires_grad_()
        y = m(xt)
        y.backward(lib.from_numpy(gy).to(getattr(lib, dtype)))
        out += [y.detach().float().numpy(), xt.grad.float().numpy()]
    params = [p.grad.float().numpy() for p in m.parameters()]
    stats = [m.running_mean.float().numpy(), m.running_var.float().numpy(),
             m.num_batches_tracked.numpy()] if m.running_mean is not None else []
    return out + params + stats, y


def _data(shape, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 2 + 0.5, rng.standard_normal(shape))


@pytest.mark.parametrize("shape", [(64, 64), (5, 3), (200, 17)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("affine,bias", [(True, True), (True, False), (False, False)])
def test_batch_norm_2d_training_matches_torch(shape, dtype, affine, bias):
    x, gy = _data(shape)
    got, y = _run(numtorch, x, gy, dtype, affine, bias)
    want, ty = _run(torch, x, gy, dtype, affine, bias)
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    assert len(got) == len(want)
    for g, t in zip(got, want):
        assert g.shape == t.shape
        np.testing.assert_allclose(g, t, **tol)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__


def test_batch_norm_2d_momentum_none_and_eval():
    x, gy = _data((32, 8), seed=2)
    for kw in (dict(momentum=None), dict(train=False)):
        got, _ = _run(numtorch, x, gy, **kw)
        want, _ = _run(torch, x, gy, **kw)
        for g, t in zip(got, want):
            np.testing.assert_allclose(g, t, rtol=2e-4, atol=2e-5)


def test_batch_norm_2d_parameter_grads_keep_their_shape_and_double_backward():
    x, gy = _data((16, 6), seed=3)
    v = np.random.default_rng(4).standard_normal(x.shape)
    res = []
    for lib in (numtorch, torch):
        m = lib.nn.BatchNorm1d(6).double()
        with lib.no_grad():
            m.weight.copy_(lib.from_numpy(np.linspace(0.5, 2, 6)))
        xt = lib.from_numpy(x).requires_grad_()
        y = m(xt)
        gx, gw, gb = lib.autograd.grad(y, [xt, m.weight, m.bias], lib.from_numpy(gy),
                                       create_graph=True)
        assert tuple(gw.shape) == (6,) and tuple(gb.shape) == (6,)
        gg = lib.autograd.grad((gx * lib.from_numpy(v)).sum() + (gw * gw).sum(),
                               [xt, m.weight])
        res.append([t.detach().numpy() for t in (gx, gw, gb) + tuple(gg)])
    for g, t in zip(*res):
        np.testing.assert_allclose(g, t, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_norm_2d_half_types(dtype):
    x, gy = _data((32, 12), seed=5)
    got, _ = _run(numtorch, x, gy, dtype, steps=1)
    want, _ = _run(torch, x, gy, dtype, steps=1)
    tol = 3e-2 if dtype == "bfloat16" else 5e-3
    for g, t in zip(got, want):
        np.testing.assert_allclose(g, t, rtol=tol, atol=tol * max(1.0, np.abs(t).max()))


def test_functional_batch_norm_2d_with_1d_parameters_matches_torch():
    x, gy = _data((10, 4), seed=6)
    w = np.array([1.5, -0.5, 2.0, 0.25])
    b = np.array([0.1, 0.2, -0.3, 0.0])
    res = []
    for lib in (numtorch, torch):
        xt = lib.from_numpy(x).requires_grad_()
        wt, bt = (lib.from_numpy(a).requires_grad_() for a in (w, b))
        rm, rv = lib.zeros(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)
        y = lib.nn.functional.batch_norm(xt, rm, rv, wt, bt, training=True, momentum=0.3)
        y.backward(lib.from_numpy(gy))
        res.append([y.detach().numpy(), xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy(),
                    rm.numpy(), rv.numpy()])
    for g, t in zip(*res):
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-12)
