"""Batch norm's per-channel sums kernels (backend/_cupy_norm.py) run from their CUDA source on
the host (tests/cuda/_host_cuda.py) inside the real launch path: the stand-in supplies the
arrays, and the partial-sum and finishing kernels run as compiled C++ instead of their NumPy
references. The references sum pairwise in NumPy, which hid that the kernels summed each chunk
of a channel in float32 one value at a time: ~1e-5 relative on a thousand values near 1000
(LeNet's loss moved 4.2e-5 from torch's on an H200). Only the column kernel (rows shorter than
a warp) runs here: the warp kernel's shuffles need the lanes to run together. Skipped without a
C++ compiler."""

import numpy as np
import pytest

from numtorch.backend import _cupy_norm
from tests.cuda import _host_cuda

pytestmark = pytest.mark.skipif(_host_cuda.compiler() is None, reason="no C++ compiler")

_ON_HOST = ("numtorch_sums_cols", "numtorch_sums_finish", "numtorch_sums_invstd",
            "numtorch_sums_grad_stats")


@pytest.fixture
def host_sums(cuda, monkeypatch):
    """The sums kernels launched from their source on the host; the names run, in order."""
    ran, launch = [], _cupy_norm._launch

    def host_launch(name, make, *args, size=None):
        if name not in _ON_HOST:
            return launch(name, make, *args, size=size)
        ran.append(name)
        _host_cuda.launch_elementwise(
            make, [a._d if hasattr(a, "_d") else a for a in args], size=size)
        return True

    monkeypatch.setattr(_cupy_norm, "_launch", host_launch)
    return ran


def _host(a):
    return a.get()


@pytest.mark.parametrize("shape", [(65536, 2, 1), (4096, 3, 16), (5000, 2, 7)], ids=str)
def test_channel_sums_round_once_from_exact_partials(host_sums, shape):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) + 1000).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    got = _host(_cupy.channel_sums(cp.asarray(a), cp.asarray(b), *shape, both=True))
    assert host_sums == ["numtorch_sums_cols", "numtorch_sums_finish"]
    a64 = a.astype(np.float64)
    want = np.stack([a64.sum(axis=(0, 2)), (a64 * b).sum(axis=(0, 2))])
    # float64 accumulation rounded once: within half an ulp of float32 (plus float64 noise)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=0)


@pytest.mark.parametrize("shape", [(65536, 2, 1), (4096, 3, 16)], ids=str)
def test_batch_norm_statistics_from_the_host_kernels(host_sums, shape):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 0.01 + 1000).astype(np.float32)
    count = shape[0] * shape[2]
    mean, xc, var, invstd = (_host(v) for v in _cupy.bn_center(cp.asarray(x), *shape, count,
                                                                  1e-5))
    assert host_sums == ["numtorch_sums_cols", "numtorch_sums_finish", "numtorch_sums_cols",
                         "numtorch_sums_invstd"]
    x64 = x.astype(np.float64)
    want_mean = x64.mean(axis=(0, 2))
    np.testing.assert_allclose(mean, want_mean, rtol=1e-7, atol=0)
    # the variance of the centred float32 values (xc rounded to float32, as written)
    d = (x - mean.reshape(1, -1, 1)).astype(np.float64)
    np.testing.assert_array_equal(xc, d.astype(np.float32))
    np.testing.assert_allclose(var, (d * d).sum(axis=(0, 2)) / count, rtol=1e-6, atol=0)
    np.testing.assert_allclose(invstd, 1 / np.sqrt(var.astype(np.float64) + 1e-5), rtol=1e-6)


def test_batch_norm_gradient_sums_from_the_host_kernels(host_sums):
    from numtorch.backend import _cupy

    cp = _cupy.cp
    shape = (8192, 2, 8)
    rng = np.random.default_rng(2)
    h = (rng.standard_normal(shape) + 300).astype(np.float32)
    data = (rng.standard_normal(shape) + 2).astype(np.float32)
    invstd, w = np.float32([0.5, 2.0]), np.float32([1.5, -1.0])
    count = shape[0] * shape[2]
    _, sum_h, sum_hx = _cupy.bn_grad(cp.asarray(h), cp.asarray(data), cp.asarray(invstd),
                                     cp.asarray(w), *shape, count)
    assert host_sums == ["numtorch_sums_cols", "numtorch_sums_grad_stats"]
    h64 = h.astype(np.float64)
    np.testing.assert_allclose(_host(sum_h), h64.sum(axis=(0, 2)), rtol=1e-7, atol=0)
    want_hx = (h64 * data).sum(axis=(0, 2)).astype(np.float32) * invstd
    np.testing.assert_allclose(_host(sum_hx), want_hx, rtol=2e-7, atol=0)
