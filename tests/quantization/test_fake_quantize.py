"""Fake quantization against torch: forward values bit for bit, straight-through gradients,
the learnable scale/zero-point gradients, node names and argument errors."""

import numpy as np
import pytest
import torch

import numtorch as nt


def _data(seed, shape=(3, 64), ties=True):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * rng.uniform(0.5, 8)).astype(np.float32)
    if ties:
        x[..., :16] = ((np.round(x[..., :16] / 0.05) + 0.5) * np.float32(0.05)).astype(np.float32)
    return rng, x, rng.standard_normal(shape).astype(np.float32)


def _run(fn, x, g, params):
    out = []
    for m in (nt, torch):
        ts = [m.tensor(x, requires_grad=True)] + [m.tensor(p, requires_grad=True)
                                                  for p in params]
        y = fn(m, *ts)
        grads = m.autograd.grad(y, ts, m.tensor(g))
        out.append((y.detach().numpy(), [a.numpy() for a in grads], type(y.grad_fn).__name__))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_fake_quantize_per_tensor_and_channel(seed):
    rng, x, g = _data(seed)
    zp = int(rng.integers(0, 256))
    for fn in (lambda m, t: m.fake_quantize_per_tensor_affine(t, 0.05, zp, 0, 255),
               lambda m, t: m.fake_quantize_per_tensor_affine(t, 0.05, zp - 128, -128, 127),
               lambda m, t: m.fake_quantize_per_tensor_affine(
                   t, m.tensor(0.05), m.tensor(zp, dtype=m.int32), 0, 255)):
        (ya, ga, na), (yb, gb, nb) = _run(fn, x, g, [])
        np.testing.assert_array_equal(ya, yb)
        np.testing.assert_array_equal(ga[0], gb[0])
        assert na == nb
    s = rng.uniform(0.01, 0.2, 3).astype(np.float32)
    zi = rng.integers(0, 50, 3).astype(np.int32)
    zf = rng.uniform(0, 50, 3).astype(np.float32)
    for z in (zi, zf):
        fn = lambda m, t: m.fake_quantize_per_channel_affine(t, m.tensor(s), m.tensor(z), 0,
                                                             0, 255)
        (ya, ga, na), (yb, gb, nb) = _run(fn, x, g, [])
        assert (ya != yb).sum() <= 1  # torch's float-zero-point kernel is not all float64
        assert (ga[0] != gb[0]).sum() <= 1
        assert na == nb


@pytest.mark.parametrize("seed", range(3))
def test_learnable_fake_quantize_gradients(seed):
    rng, x, g = _data(seed)
    s = np.array([0.05], np.float32)
    z = np.array([rng.uniform(0, 40)], np.float32)
    fn = lambda m, t, sc, zp: m._fake_quantize_learnable_per_tensor_affine(t, sc, zp, 0, 255,
                                                                          0.7)
    (ya, ga, na), (yb, gb, nb) = _run(fn, x, g, [s, z])
    np.testing.assert_array_equal(ya, yb)
    np.testing.assert_array_equal(ga[0], gb[0])
    for a, b in zip(ga[1:], gb[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert na == nb
    sc = rng.uniform(0.01, 0.1, 3).astype(np.float32)
    zc = rng.uniform(-20, 20, 3).astype(np.float32)
    fn = lambda m, t, a, b: m._fake_quantize_learnable_per_channel_affine(t, a, b, 0, -128, 127)
    (ya, ga, na), (yb, gb, nb) = _run(fn, x, g, [sc, zc])
    np.testing.assert_array_equal(ya, yb)
    for a, b in zip(ga, gb):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)
    assert na == nb


def test_cachemask_tensor_qparams_and_errors():
    _, x, _ = _data(9)
    for on in (1, 0):
        ra = nt._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            nt.tensor(x), nt.tensor([0.05]), nt.tensor([3], dtype=nt.int32),
            nt.tensor([on], dtype=nt.uint8), 0, 255)
        rb = torch._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(
            torch.tensor(x), torch.tensor([0.05]), torch.tensor([3], dtype=torch.int32),
            torch.tensor([on], dtype=torch.uint8), 0, 255)
        for a, b in zip(ra, rb):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    xa, xb = nt.tensor(x), torch.tensor(x)
    for fn in (lambda m, t: m.fake_quantize_per_tensor_affine(t, 0.1, 300, 0, 255),
               lambda m, t: m.fake_quantize_per_tensor_affine(t, 0.1, 3, 10, 5),
               lambda m, t: m.fake_quantize_per_channel_affine(
                   t, m.tensor([0.1, 0.2, 0.3]), m.tensor([1, 2, 3]), 0, 0, 255),
               lambda m, t: m.fake_quantize_per_channel_affine(
                   t, m.tensor([0.1, 0.2]), m.tensor([1, 2], dtype=m.int32), 0, 0, 255)):
        with pytest.raises(RuntimeError) as ea:
            fn(nt, xa)
        with pytest.raises(RuntimeError) as eb:
            fn(torch, xb)
        assert str(ea.value) == str(eb.value)
