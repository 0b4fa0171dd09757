"""softmax over the last dim on the CuPy stand-in through the whole-row kernels
(backend/_cupy_attention.py softmax_rows / softmax_rows_grad): one launch forward and one
backward, values and gradients (also second order) against torch on the CPU, and the xp
path (kernels off) for the same inputs."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin


def _run(lib, device, a, dim, transpose=False, second=False):
    x = lib.from_numpy(a.copy()).to(device)
    if transpose:
        x = x.transpose(0, 1)
    x.requires_grad_(True)
    y = lib.nn.functional.softmax(x, dim)
    g = lib.from_numpy(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)).astype(a.dtype))
    (gx,) = lib.autograd.grad(y, x, g.to(device), create_graph=second)
    out = [y, gx]
    if second:
        out += list(lib.autograd.grad((gx * gx).sum(), x))
    return [t.detach().cpu().numpy() for t in out]


_TOL = {np.float32: {"rtol": 1e-5, "atol": 1e-6}, np.float64: {"rtol": 1e-12, "atol": 1e-14}}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,transpose", [((6, 7), False), ((3, 4, 64), False),
                                             ((5, 1), False), ((8, 6), True)], ids=str)
def test_softmax_last_dim_in_one_launch_each_way(cuda, dtype, shape, transpose):
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype) * 4
    a.reshape(-1)[3] = -np.inf  # a masked score
    want = _run(torch, "cpu", a, -1, transpose)
    standin.reset_stats()
    got = _run(numtorch, "cuda", a, -1, transpose)
    fused = standin.STATS.get("fused", [])
    assert fused.count("numtorch_softmax_rows") == 1
    assert fused.count("numtorch_softmax_rows_grad") == 1
    _cupy_kernels.ENABLED[0] = False
    plain = _run(numtorch, "cuda", a, -1, transpose)
    for x, y, z in zip(got, want, plain):
        np.testing.assert_allclose(x, y, **_TOL[dtype])
        np.testing.assert_allclose(x, z, **_TOL[dtype])
    assert got[0].flags.c_contiguous


def test_other_dims_and_second_order(cuda):
    a = np.random.default_rng(1).standard_normal((4, 5, 6))
    standin.reset_stats()
    got = _run(numtorch, "cuda", a, 1)
    assert "numtorch_softmax_rows" not in standin.STATS.get("fused", [])
    for x, y in zip(got, _run(torch, "cpu", a, 1)):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14)
    got = _run(numtorch, "cuda", a, -1, second=True)
    for x, y in zip(got, _run(torch, "cpu", a, -1, second=True)):
        np.testing.assert_allclose(x, y, rtol=1e-11, atol=1e-13)


def test_nan_row_stays_nan(cuda):
    a = np.ones((3, 4), np.float32)
    a[1, 2] = np.nan
    y = numtorch.nn.functional.softmax(numtorch.from_numpy(a).cuda(), -1).cpu().numpy()
    want = torch.softmax(torch.from_numpy(a), -1).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    np.testing.assert_allclose(y[~np.isnan(y)], want[~np.isnan(want)], rtol=1e-6)
