"""Batch norm's per-channel sums on a GPU (backend/_cupy_norm.py ``channel_sums``): two
kernels (chunk partials, then a fixed-order sum of them) instead of ``cupy.einsum``, whose
Python parsing cost ~250 us of host time per call (120 calls in a ResNet-18 step). Checked on
the CuPy stand-in against NumPy's float64 sums and torch (the oracle, on the CPU)."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from numtorch.ops import norm_ops
from tests.cuda import standin


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


# (P, C, L): warp kernel (L >= 32: L a multiple of 32, not one, one sample per warp, chunks
# that do not divide P) and the column kernel (L < 32, L = 1)
SHAPES = [(128, 3, 1024), (5, 4, 32), (7, 3, 49), (300, 2, 40), (9, 5, 16), (40, 6, 1),
          (1, 3, 7), (33, 513, 4)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_channel_sums_match_float64_sums(cuda, shape, dtype):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    da, db = cp.asarray(a), cp.asarray(b)
    tol = {"rtol": 1e-5, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-12,
                                                                 "atol": 1e-10}
    want_a = a.astype(np.float64).sum(axis=(0, 2))
    want_ab = (a.astype(np.float64) * b).sum(axis=(0, 2))
    one = _cupy.channel_sums(da, None, *shape)
    two = _cupy.channel_sums(da, db, *shape)
    both = _cupy.channel_sums(da, db, *shape, both=True)
    assert one.dtype == dtype and one.shape == (shape[1],) and both.shape == (2, shape[1])
    np.testing.assert_allclose(_host(one), want_a, **tol)
    np.testing.assert_allclose(_host(two), want_ab, **tol)
    np.testing.assert_array_equal(_host(both[0]), _host(one))
    np.testing.assert_array_equal(_host(both[1]), _host(two))
    names = standin.STATS["fused"]
    kind = "numtorch_sums_warp" if shape[2] >= 32 else "numtorch_sums_cols"
    assert names.count(kind) == 3 and names.count("numtorch_sums_finish") == 3


def test_channel_sums_fall_back_off_the_kernels_domain(cuda):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    a = cp.asarray(np.ones((4, 3, 5), dtype=np.float32))
    assert _cupy.channel_sums(a.astype(cp.float16), None, 4, 3, 5) is None
    assert _cupy.channel_sums(a.transpose(1, 0, 2), None, 3, 4, 5) is None
    assert _cupy.channel_sums(a, a[:, :, :1], 4, 3, 5) is None
    _cupy_kernels.ENABLED[0] = False
    assert _cupy.channel_sums(a, None, 4, 3, 5) is None


@pytest.mark.parametrize("shape,dims", [((6, 4, 5, 7), (0, 2, 3)), ((6, 4, 40), (0, 2)),
                                        ((2, 1, 3, 1, 33), (0, 2, 4)), ((6, 4), (0,)),
                                        ((3, 5, 8), (2,)), ((3, 5, 8), (1, 2)),
                                        ((4, 3, 2, 5), (1, 3))], ids=str)
def test_sum_keepdim_on_a_gpu_needs_no_einsum(cuda, shape, dims, monkeypatch):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    monkeypatch.setattr(cp, "einsum", lambda *a, **k: pytest.fail("einsum on a device array"))
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    da, db = cp.asarray(a), cp.asarray(b)
    for got, want in ((norm_ops._sum_keepdim(cp, da, dims), norm_ops._sum_keepdim(np, a, dims)),
                      (norm_ops._sum_keepdim(cp, da, dims, db),
                       norm_ops._sum_keepdim(np, a, dims, b))):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(_host(got), want, rtol=1e-5, atol=1e-5)
    s1, s2 = norm_ops._sum_pair(cp, da, dims, db)
    np.testing.assert_allclose(_host(s1), norm_ops._sum_keepdim(np, a, dims), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(_host(s2), norm_ops._sum_keepdim(np, a, dims, b), rtol=1e-5,
                               atol=1e-5)


def _bn_step(lib, device, x, gy):
    m = lib.nn.BatchNorm2d(x.shape[1]).to(device)
    xt = lib.tensor(x, device=device, requires_grad=True)
    y = m(xt)
    y.backward(lib.tensor(gy, device=device))
    return [t.detach().cpu().numpy() for t in (y, xt.grad, m.weight.grad, m.bias.grad,
                                                m.running_mean, m.running_var)]


@pytest.mark.parametrize("shape", [(8, 5, 6, 6), (3, 4, 2, 3), (5, 3, 1, 1)], ids=str)
def test_batch_norm_through_the_sums_kernels_is_torch(cuda, shape):
    """Batch norm's training step on a GPU in the sums kernels: torch's values."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    gy = rng.standard_normal(shape).astype(np.float32)
    standin.reset_stats()
    got = _bn_step(numtorch, "cuda", x, gy)
    names = standin.STATS["fused"]
    # forward: sum(x) finished into the mean, xc with sum(xc * xc) finished into var and
    # invstd; backward: sum(h) and sum(h * xhat) in one pass, finished into the factors
    kinds = ("numtorch_sums_finish", "numtorch_sums_invstd", "numtorch_sums_grad_stats",
             "numtorch_norm_grad_input")
    # (a 1x1 map is (N, C): CuPy's sums over the batch and the norm kernels' path)
    fused = shape[2] * shape[3] > 1
    assert [names.count(k) for k in kinds] == [int(fused)] * 3 + [1]
    partials = "numtorch_sums_warp" if shape[2] * shape[3] >= 32 else "numtorch_sums_cols"
    assert names.count(partials) == 3 * fused
    for a, t in zip(got, _bn_step(torch, "cpu", x, gy)):
        np.testing.assert_allclose(a, t, rtol=1e-4, atol=1e-5)
