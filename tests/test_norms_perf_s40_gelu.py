"""Exact GELU's float32 row kernel after session 40 (x / 2 formed in the output block, y made in
place) and batch norm training against torch 2.13: values and gradients with random
cotangents across block boundaries, tail and huge values inside blocks, the same bits with
and without a graph and for a strided input, tanh GELU, float64/bfloat16, second order."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _gelu_erf_f32

RNG = np.random.default_rng(40)
BLOCK = _gelu_erf_f32.BLOCK


def _gelu(lib, x, grad=None, approximate="none", dtype_name=None, strided=False):
    t = lib.from_numpy(np.repeat(x, 2)[::2] if strided else x.copy())
    if dtype_name:
        t = t.to(getattr(lib, dtype_name))
    if grad is None:
        with lib.no_grad():
            y = lib.nn.functional.gelu(t, approximate=approximate)
        return y.float().numpy() if dtype_name == "bfloat16" else y.numpy()
    t.requires_grad_()
    y = lib.nn.functional.gelu(t, approximate=approximate)
    g = lib.from_numpy(grad.copy())
    y.backward(g.to(y.dtype))
    out = (y.detach(), t.grad)
    return [o.float().numpy() if dtype_name == "bfloat16" else o.numpy() for o in out]


@pytest.mark.parametrize("n", [5, BLOCK - 3, 2 * BLOCK + 11, 12 * 64 * 512])
def test_float32_values_and_grads_across_blocks(n):
    x = (RNG.standard_normal(n) * 2.5).astype(np.float32)
    x[n // 2] = 7.0  # a tail value (|x| >= 5.54) inside a block: its doubled-argument branch
    x[n // 3] = -6.5
    g = RNG.standard_normal(n).astype(np.float32)
    y, gx = _gelu(numtorch, x, g)
    yt, gt = _gelu(torch, x, g)
    assert y.dtype == yt.dtype == np.float32
    np.testing.assert_allclose(y, yt, rtol=0, atol=1.5e-6)
    np.testing.assert_allclose(gx, gt, rtol=0, atol=1e-6 * np.abs(g).max())
    assert y[n // 3] == yt[n // 3] and np.signbit(y[n // 3]) == np.signbit(yt[n // 3])
    assert y[n // 2] == yt[n // 2] == np.float32(7.0)


@pytest.mark.parametrize("n", [7, BLOCK + 5, 3 * BLOCK + 17])
def test_graph_no_graph_and_strided_give_the_same_bits(n):
    x = (RNG.standard_normal(n) * 3).astype(np.float32)
    x[::997] = RNG.uniform(-12, 12, x[::997].size).astype(np.float32)
    g = RNG.standard_normal(n).astype(np.float32)
    y, gx = _gelu(numtorch, x, g)
    ys, gs = _gelu(numtorch, x, g, strided=True)
    np.testing.assert_array_equal(y, _gelu(numtorch, x))
    keep = np.abs(x) < 5.54  # the tails (erf = +-1) follow torch's per-layout kernels
    np.testing.assert_array_equal(y[keep], ys[keep])
    np.testing.assert_array_equal(gx[keep], gs[keep])


def test_huge_and_special_values_inside_a_block_match_torch():
    x = (RNG.standard_normal(BLOCK + 100)).astype(np.float32)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40, -1e-40, 1e7, -1e7,
                         3e38, -3e38, 5.5425944, -5.5425944], np.float32)
    x[1000:1000 + specials.size] = specials
    got = _gelu(numtorch, x)
    # torch's contiguous (oneDNN) kernel gives NaN for inf and overflows at 3e38, as numtorch
    # on a contiguous input (tests/test_transformer_perf_s39_gelu.py: the strided kernel)
    want = _gelu(torch, x)
    sl = slice(1000, 1000 + specials.size)
    np.testing.assert_array_equal(got[sl], want[sl])
    np.testing.assert_array_equal(np.signbit(got[sl]), np.signbit(want[sl]))
    ordinary = np.ones(x.size, bool)
    ordinary[sl] = False
    np.testing.assert_allclose(got[ordinary], _gelu(torch, x[ordinary]), rtol=0, atol=1.5e-6)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype_name", ["float64", "bfloat16"])
def test_other_dtypes_match_torch(approximate, dtype_name):
    # its own generator: the shared RNG's draws depend on which tests ran before in this worker
    rng = np.random.default_rng(79)
    x = (rng.standard_normal((12, 64, 96)) * 2).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    if dtype_name == "float64":
        x, g = x.astype(np.float64), g.astype(np.float64)
        got = _gelu(numtorch, x, g, approximate)
        want = _gelu(torch, x, g, approximate)
        for a, b in zip(got, want):
            # values near a zero of the gradient differ by ~1.4e-14 absolute (30 seeds)
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
        return
    got = _gelu(numtorch, x, g, approximate, dtype_name)
    want = _gelu(torch, x, g, approximate, dtype_name)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=2 ** -7, atol=1e-2)


def test_tanh_float32_values_and_grads():
    x = (RNG.standard_normal((12, 64, 3072 // 8)) * 3).astype(np.float32)
    g = RNG.standard_normal(x.shape).astype(np.float32)
    got, want = _gelu(numtorch, x, g, "tanh"), _gelu(torch, x, g, "tanh")
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=0, atol=2e-6 * max(1.0, np.abs(b).max()))


def test_second_order_matches_torch():
    x = (RNG.standard_normal(BLOCK + 9) * 2).astype(np.float32)
    g = RNG.standard_normal(x.size).astype(np.float32)
    outs = []
    for lib in (numtorch, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        y = lib.nn.functional.gelu(t)
        (gx,) = lib.autograd.grad(y, t, lib.from_numpy(g.copy()), create_graph=True)
        (gg,) = lib.autograd.grad((gx * gx).sum(), t)
        outs.append((gx.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=0, atol=1e-6 * np.abs(g).max())
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-4,
                               atol=1e-5 * np.abs(outs[1][1]).max())


@pytest.mark.parametrize("shape", [(8, 32, 16, 16), (16, 16, 8, 8), (3, 5, 7, 9)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm2d_training_matches_torch(shape, affine):
    x = (RNG.standard_normal(shape) * 2 + 0.5).astype(np.float32)
    g = RNG.standard_normal(shape).astype(np.float32)
    outs = []
    for lib in (numtorch, torch):
        m = lib.nn.BatchNorm2d(shape[1], affine=affine)
        if affine:
            with lib.no_grad():
                m.weight.copy_(lib.linspace(-1.5, 2.0, shape[1]))
                m.bias.copy_(lib.linspace(0.5, -0.5, shape[1]))
        t = lib.from_numpy(x.copy()).requires_grad_()
        y = m(t)
        y.backward(lib.from_numpy(g.copy()))
        got = [y.detach().numpy(), t.grad.numpy(), m.running_mean.numpy(),
               m.running_var.numpy()]
        if affine:
            got += [m.weight.grad.numpy(), m.bias.grad.numpy()]
        outs.append(got)
    for a, b in zip(*outs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(b).max()))
