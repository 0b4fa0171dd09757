"""Batch norm's running statistics as torch updates them: the values of several training
steps, and no version bump of the running tensors (torch's kernel writes them directly, so a
module's running_mean stays at version 1, from reset_running_stats, and a functional call's
buffers at 0)."""

import numpy as np
import pytest
import torch

import numtorch


def _steps(lib, module, dtype):
    m = module(lib)
    m = m.to(getattr(lib, dtype))
    rng = np.random.default_rng(0)
    for i in range(3):
        x = rng.standard_normal((6, 4, 5, 5)).astype(dtype)[:, :, : 5 - i]
        m(lib.from_numpy(x * (1.5 + i) + 0.3))
    return m


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("momentum", [0.1, None, 0.7])
def test_module_running_stats_as_torch(dtype, momentum):
    got = []
    for lib in (numtorch, torch):
        m = _steps(lib, lambda L: L.nn.BatchNorm2d(4, momentum=momentum), dtype)
        got.append((m.running_mean.detach().cpu().numpy(), m.running_var.detach().cpu().numpy(),
                    m.running_mean._version, m.running_var._version,
                    int(m.num_batches_tracked), m.num_batches_tracked._version))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-5, atol=1e-6)
    assert got[0][2:] == got[1][2:]


def test_functional_running_buffers_keep_their_version():
    got = []
    for lib in (numtorch, torch):
        rm, rv = lib.zeros(3), lib.ones(3)
        x = lib.from_numpy(np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32))
        lib.nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.2)
        got.append((rm.tolist(), rv.tolist(), rm._version, rv._version))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6)
    assert got[0][2:] == got[1][2:]


def test_running_view_is_written_through():
    got = []
    for lib in (numtorch, torch):
        stats = lib.zeros(2, 3)
        x = lib.from_numpy(np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32))
        lib.nn.functional.batch_norm(x, stats[0], stats[1], training=True, momentum=0.5)
        got.append(stats.numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-6)
    assert np.all(got[0] != 0)  # both rows written through the views
