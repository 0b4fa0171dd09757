"""Batch norm's training forward and backward (ops/norm_channels.py), one thread and with the
channels split across the intra-op threads: values, gradients, running statistics and second
order against torch and between the two; short planes (4x4) take the row-sum reductions."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import _intraop, norm_channels


def _run(lib, x, gy, affine, make):
    m = make(lib, x.shape[1], affine)
    t = lib.from_numpy(x.copy()).requires_grad_()
    y = m(t)
    params = [t] + ([m.weight, m.bias] if affine else [])
    grads = lib.autograd.grad(y, params, lib.from_numpy(gy), create_graph=True)
    # second order: d/dx of <gx, v>
    v = lib.from_numpy(np.linspace(-1, 1, x.size, dtype=x.dtype).reshape(x.shape))
    (gg,) = lib.autograd.grad((grads[0] * v).sum(), [t])
    return [y.detach().numpy()] + [g.detach().numpy() for g in grads] + [
        gg.numpy(), m.running_mean.numpy(), m.running_var.numpy()]


def _bn2d(lib, c, affine):
    return lib.nn.BatchNorm2d(c, affine=affine)


def _bn3d(lib, c, affine):
    return lib.nn.BatchNorm3d(c, affine=affine)


def _bn1d(lib, c, affine):
    return lib.nn.BatchNorm1d(c, affine=affine)


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape,make", [((4, 6, 10, 12), _bn2d), ((3, 5, 200), _bn1d),
                                        ((5, 7, 4, 4), _bn2d), ((6, 4, 3, 2, 2), _bn3d)])
def test_channel_split_matches_torch_and_one_thread(monkeypatch, shape, make, affine):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    gy = rng.standard_normal(shape).astype(np.float32)
    one = _run(numtorch, x, gy, affine, make)
    with monkeypatch.context() as m:
        m.setattr(norm_channels, "applies", lambda *a: False)
        general = _run(numtorch, x, gy, affine, make)  # NormalizeAffine's general path
    taken = []
    real_fwd, real_bwd = norm_channels.forward, norm_channels.backward
    monkeypatch.setattr(norm_channels, "forward", lambda *a: taken.append("f") or real_fwd(*a))
    monkeypatch.setattr(norm_channels, "backward", lambda *a: taken.append("b") or real_bwd(*a))
    monkeypatch.setattr(_intraop, "_MIN_PART", 200)
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(3)
    try:
        split = _run(numtorch, x, gy, affine, make)
    finally:
        numtorch.set_num_threads(old)
    if not numtorch.backend.is_device_array(numtorch.from_numpy(x)._array):
        assert "f" in taken and "b" in taken
    ref = _run(torch, x, gy, affine, make)
    for a, b, g, c in zip(split, one, general, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(b, g, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape,threads,split", [
    ((16, 64, 10, 10), 2, True), ((16, 64, 4, 4), 2, False), ((16, 64, 10, 10), 1, False)])
def test_split_only_with_long_planes_and_two_threads(monkeypatch, shape, threads, split):
    monkeypatch.setattr(_intraop, "_cores_taken", lambda: False)
    monkeypatch.setattr(_intraop, "_MIN_PART", 200)
    calls = []
    real = _intraop.run_split
    monkeypatch.setattr(_intraop, "run_split", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float32)
    old = numtorch.get_num_threads()
    numtorch.set_num_threads(threads)
    try:
        bn = numtorch.nn.BatchNorm2d(shape[1])
        t = numtorch.from_numpy(x).requires_grad_()
        y = bn(t)
        y.backward(numtorch.ones_like(y))
    finally:
        numtorch.set_num_threads(old)
    if not numtorch.backend.is_device_array(t._array):
        assert bool(calls) == split
    ref = torch.nn.BatchNorm2d(shape[1])
    tt = torch.from_numpy(x).requires_grad_()
    ry = ref(tt)
    ry.backward(torch.ones_like(ry))
    np.testing.assert_allclose(y.detach().numpy(), ry.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-4, atol=1e-5)
