"""Batch norm's running estimates on the CuPy stand-in: one launch per layer and training
forward (backend/_cupy_norm.py's running_update) where the xp code takes seven, the values bit
for bit the xp code's and torch's (the oracle, on the CPU) within float tolerance, with no
version bump of the buffers as before."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy
from tests.cuda import standin


def _train(lib, device, dtype, momentum, shape):
    lib.manual_seed(0)
    m = lib.nn.BatchNorm2d(shape[1], momentum=momentum).to(device).to(dtype)
    x = lib.from_numpy(np.random.default_rng(1).standard_normal(shape)).to(dtype).to(device)
    before = standin.STATS.get("kernels", 0)
    for k in range(3):
        m(x * (1.5 + k) + 0.25)
    launches = standin.STATS.get("kernels", 0) - before
    return [m.running_mean.cpu().numpy(), m.running_var.cpu().numpy(),
            int(m.num_batches_tracked)], m.running_mean._version, launches


@pytest.mark.parametrize("momentum", [0.1, 0.3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (2, 6, 1, 1)], ids=str)
def test_running_estimates_in_one_launch(monkeypatch, dtype, momentum, shape):
    want, _, _ = _train(torch, "cpu", getattr(torch, dtype), momentum, shape)
    with standin.active():
        standin.reset_stats()
        got, version, launches = _train(numtorch, "cuda", getattr(numtorch, dtype), momentum,
                                        shape)
        assert standin.STATS["fused"].count("numtorch_running_stats") == 3
        monkeypatch.setattr(_cupy, "running_update", lambda *a: False)
        plain, plain_version, plain_launches = _train(
            numtorch, "cuda", getattr(numtorch, dtype), momentum, shape)
    assert plain_launches - launches == 3 * 6
    assert version == plain_version
    for a, b, c in zip(got, plain, want):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-5 if dtype == "float32" else 1e-12)
