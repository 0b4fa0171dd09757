"""Session 51 numerics parity: elementwise special functions against real torch at test time."""
import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _numpy as np_helpers


def _ulps(a, b):
    it = np.int32 if a.dtype == np.float32 else np.int64
    ai, bi = a.view(it).astype(np.int64), b.view(it).astype(np.int64)
    lo = np.iinfo(it).min
    ai = np.where(ai < 0, lo - ai, ai)
    bi = np.where(bi < 0, lo - bi, bi)
    return np.abs(ai - bi)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trigamma_mixed_signs_reflects_only_negatives(monkeypatch, dtype):
    # polygamma(1, x) of a tensor holding negative values reflected every element, so a
    # large positive x went to SciPy as 1 - x (time linear in |x|: seconds at 1e8, a hang
    # on a grid holding 1e10..1e300). Only the negative elements are reflected now.
    seen = []
    real = np_helpers.polygamma

    def spy(n, x):
        seen.append(float(np.min(x)))
        return real(n, x)

    monkeypatch.setattr(np_helpers, "polygamma", spy)
    vals = [-2.5, -0.5, 0.25, 1.0, 3.0, 1e8]
    got = numtorch.polygamma(1, numtorch.tensor(vals, dtype=getattr(numtorch, dtype))).numpy()
    want = torch.polygamma(1, torch.tensor(vals, dtype=getattr(torch, dtype))).numpy()
    assert min(seen) > -10, seen
    assert got.dtype == want.dtype
    u = _ulps(got, want)
    # torch's trigamma series is not correctly rounded: agreement to a few ulps relative
    assert np.allclose(got, want, rtol=1e-6 if dtype == "float32" else 1e-9, atol=0), (got, want, u)


def test_i0_float32_bits_like_torch():
    # torch's float32 I0 evaluates the Chebyshev series in float32; numtorch rounded SciPy's
    # float64 value, which differed in ~57% of values (and at 0: torch 0.99999994, +-inf: NaN)
    x = np.concatenate([np.linspace(-30, 30, 12001), [0.0, -0.0, 1e-30, 8.0, -8.0, 88.0, 100.0,
                                                     np.inf, -np.inf, np.nan]]).astype(np.float32)
    want = torch.special.i0(torch.from_numpy(x)).numpy()
    for fn in (numtorch.special.i0, numtorch.i0, lambda t: t.i0()):
        got = fn(numtorch.from_numpy(x.copy())).numpy()
        assert got.dtype == np.float32
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        same = got[~nan].view(np.int32) == want[~nan].view(np.int32)
        assert same.mean() > 0.995, same.mean()
        assert _ulps(got[~nan], want[~nan]).max() <= 2
        assert np.array_equal(got[-10:-3].view(np.int32), want[-10:-3].view(np.int32))


def test_i0_float32_grad_and_float64_unchanged():
    x = np.array([-3.0, 0.5, 9.0], np.float32)
    a = numtorch.tensor(x, requires_grad=True)
    numtorch.special.i0(a).sum().backward()
    b = torch.tensor(x, requires_grad=True)
    torch.special.i0(b).sum().backward()
    assert np.allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6)
    x64 = np.linspace(-20, 20, 401)
    got = numtorch.special.i0(numtorch.from_numpy(x64)).numpy()
    want = torch.special.i0(torch.from_numpy(x64)).numpy()
    assert got.dtype == np.float64 and np.allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("n,periodic,beta", [(101, False, 5.0), (400, True, 8.6), (1000, False, 14.0),
                                             (2, False, 12.0), (7, True, 0.0)])
def test_kaiser_window_float32_bits_like_torch(n, periodic, beta):
    # float32 Kaiser windows differed from torch in the last bit at 83-92% of points
    want = torch.kaiser_window(n, periodic, beta).numpy()
    got = numtorch.kaiser_window(n, periodic, beta).numpy()
    assert got.dtype == np.float32
    assert (got.view(np.int32) == want.view(np.int32)).mean() >= 0.99
    assert _ulps(got, want).max() <= 1
    w64 = torch.kaiser_window(n, periodic, beta, dtype=torch.float64).numpy()
    g64 = numtorch.kaiser_window(n, periodic, beta, dtype=numtorch.float64).numpy()
    assert np.allclose(g64, w64, rtol=1e-12, atol=1e-300)


def test_i0e_float32_bits_like_torch():
    # float32 i0e differed from torch in ~53% of values (SciPy's float64 value rounded)
    x = np.concatenate([np.linspace(-30, 30, 6001), np.logspace(-30, 38, 400),
                        [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)
    want = torch.special.i0e(torch.from_numpy(x)).numpy()
    got = numtorch.special.i0e(numtorch.from_numpy(x.copy())).numpy()
    assert got.dtype == np.float32
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert (got[~nan].view(np.int32) == want[~nan].view(np.int32)).mean() >= 0.999
    a = numtorch.tensor([-3.0, 0.5, 9.0], requires_grad=True)
    numtorch.special.i0e(a).sum().backward()
    b = torch.tensor([-3.0, 0.5, 9.0], requires_grad=True)
    torch.special.i0e(b).sum().backward()
    assert np.allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6)
