"""Small float32 transcendental results against torch's bits (backend/_libm_f32.py).

torch's CPU float32 exp/log/tanh/... round (almost) correctly; NumPy's own float32 kernels do
not (10-45% of values an ulp off). Arrays up to ``SMALL`` values now compute in float64 and
round once, so scalars and small tensors print torch's digits. Each bound below is the
measured rate with a margin; the NumPy float32 kernel this replaced misses every one of them.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _libm_f32

# name -> (low, high, largest share of values allowed to differ from torch)
CASES = {
    "exp": (-20, 20, 0.02), "exp2": (-20, 20, 0.10), "expm1": (-3, 3, 0.01),
    "log": (1e-3, 100, 0.045), "log2": (1e-3, 100, 0.005), "log10": (1e-3, 100, 0.005),
    "log1p": (0, 10, 0.01), "sin": (-10, 10, 0.08), "cos": (-10, 10, 0.08),
    "asin": (-1, 1, 0.1), "acos": (-1, 1, 0.13), "atan": (-10, 10, 0.1),
    "tanh": (-5, 5, 0.01), "sigmoid": (-10, 10, 0.06),
}
# what NumPy's float32 kernels gave (measured): each far above its bound
_NUMPY_F32_RATE = {"exp": 0.39, "exp2": 0.21, "expm1": 0.11, "log": 0.05, "log2": 0.02,
                   "log10": 0.45, "log1p": 0.08, "sin": 0.15, "cos": 0.18, "asin": 0.29,
                   "acos": 0.35, "atan": 0.27, "tanh": 0.32, "sigmoid": 0.17}


def _call(lib, name, a):
    return getattr(lib, name)(lib.from_numpy(a.copy())).numpy()


def _rates(name, n, seed):
    lo, hi, _ = CASES[name]
    rows = np.random.default_rng(seed).uniform(lo, hi, (max(3, 1200 // n), n)).astype(np.float32)
    theirs = np.stack([_call(torch, name, r) for r in rows])
    ours = np.stack([_call(numtorch, name, r) for r in rows])
    assert ours.dtype == np.float32
    return (ours != theirs).mean(), theirs, ours


@pytest.mark.parametrize("n", [1, 7, 15, 16, 64, 1000])
@pytest.mark.parametrize("name", sorted(CASES))
def test_small_float32_rounds_as_torch(name, n):
    rate, theirs, ours = _rates(name, n, 7 + n)
    assert rate <= CASES[name][2], (name, n, rate)
    assert rate < _NUMPY_F32_RATE[name] or _NUMPY_F32_RATE[name] <= CASES[name][2]
    # where they differ, by one ulp (sigmoid's three roundings: two)
    d = np.abs(ours.view(np.int32).astype(np.int64) - theirs.view(np.int32).astype(np.int64))
    assert d.max() <= (2 if name == "sigmoid" else 1)


@pytest.mark.parametrize("name", ["exp", "log10", "tanh", "sigmoid", "expm1", "log1p"])
def test_scalar_item_equals_torch(name):
    lo, hi, _ = CASES[name]
    xs = np.random.default_rng(3).uniform(lo, hi, 300).astype(np.float32)
    same = sum(getattr(numtorch.tensor(float(v)), name)().item() ==
               getattr(torch.tensor(float(v)), name)().item() for v in xs)
    assert same >= 0.98 * len(xs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_special_values_equal_torch(name):
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.8, -104.0, 1e-30, -1e-30], np.float32)
    np.testing.assert_array_equal(_call(numtorch, name, a), _call(torch, name, a))
    b = np.array([1.0, -1.0, 0.5, 1e38, -1e38], np.float32)
    np.testing.assert_allclose(_call(numtorch, name, b), _call(torch, name, b), rtol=2.5e-7)


def test_large_arrays_keep_numpy_kernel_and_values_close():
    # above SMALL values NumPy's float32 kernel runs (speed); still within an ulp of torch
    a = np.random.default_rng(1).uniform(-20, 20, _libm_f32.SMALL * 4 + 3).astype(np.float32)
    ours, theirs = _call(numtorch, "exp", a), _call(torch, "exp", a)
    np.testing.assert_allclose(ours, theirs, rtol=3e-7, atol=0)


@pytest.mark.parametrize("name", ["exp", "tanh", "sin", "log1p", "sigmoid"])
def test_gradients_and_non_contiguous_inputs(name):
    rng = np.random.default_rng(11)
    base = rng.uniform(0.1, 2, (6, 5)).astype(np.float32)
    cot = rng.standard_normal((5, 6)).astype(np.float32)
    out = []
    for lib in (torch, numtorch):
        x = lib.from_numpy(base.copy()).requires_grad_(True)
        y = getattr(lib, name)(x.t())  # a transposed view
        (g,) = lib.autograd.grad(y, x, lib.from_numpy(cot), create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        out.append((y.detach().numpy(), g.detach().numpy(), gg.numpy(), y.is_contiguous()))
    (ty, tg, tgg, tc), (ny, ng, ngg, nc) = out
    np.testing.assert_allclose(ny, ty, rtol=2.5e-7, atol=0)
    np.testing.assert_allclose(ng, tg, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ngg, tgg, rtol=1e-5, atol=1e-6)
    assert nc == tc


def test_silu_small_equals_torch_bits():
    a = np.random.default_rng(2).uniform(-10, 10, (300, 15)).astype(np.float32)
    f = [np.stack([lib.nn.functional.silu(lib.from_numpy(r)).numpy() for r in a])
         for lib in (torch, numtorch)]
    assert (f[0] != f[1]).mean() <= 0.005
    x = numtorch.from_numpy(a[0].copy()).requires_grad_(True)
    xt = torch.from_numpy(a[0].copy()).requires_grad_(True)
    numtorch.nn.functional.silu(x).sum().backward()
    torch.nn.functional.silu(xt).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_other_dtypes_unchanged_and_close(dtype):
    a = np.random.default_rng(4).uniform(-3, 3, 40).astype(np.float32)
    for name in ("exp", "tanh", "sigmoid"):
        ours = getattr(numtorch, name)(numtorch.from_numpy(a).to(getattr(numtorch, dtype)))
        theirs = getattr(torch, name)(torch.from_numpy(a).to(getattr(torch, dtype)))
        assert str(ours.dtype) == str(theirs.dtype)
        tol = 1e-12 if dtype == "float64" else 1e-2
        np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=tol,
                                   atol=tol)


@pytest.mark.parametrize("p", [4, 5, 7, 1.5, 2.5, 2.2, 0.1, -1.7, 1 / 3, -2, -3])
@pytest.mark.parametrize("n", [1, 8, 31, 32, 45, 100, 1000])
def test_float32_scalar_power_rounds_as_torch(p, n):
    # torch's pow: 32-value blocks through its vector kernel (exponent as float32), the rest
    # through its scalar one (exponent as double); NumPy's float32 kernel was 10-40% off
    a = np.random.default_rng(n).uniform(0.01, 3, (max(2, 600 // n), n)).astype(np.float32)
    a[:, 1::3] *= -1
    theirs = np.stack([(torch.from_numpy(r) ** p).numpy() for r in a])
    ours = np.stack([(numtorch.from_numpy(r) ** p).numpy() for r in a])
    valid = ~np.isnan(theirs)
    np.testing.assert_array_equal(np.isnan(ours), ~valid)
    rate = (ours != theirs)[valid].mean()
    assert rate <= (0.0 if n < 32 or p == -2 else 0.07), rate


def test_float32_power_grad_and_large_arrays():
    rng = np.random.default_rng(9)
    base = rng.uniform(0.5, 2, (40, 30)).astype(np.float32)
    cot = rng.standard_normal((30, 40)).astype(np.float32)
    res = []
    for lib in (torch, numtorch):
        x = lib.from_numpy(base.copy()).requires_grad_(True)
        y = x.t() ** 2.2
        (g,) = lib.autograd.grad(y, x, lib.from_numpy(cot))
        res.append((y.detach().numpy(), g.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=2.5e-7)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-5, atol=1e-6)
    big = rng.uniform(0.1, 3, 5000).astype(np.float32)  # NumPy's float32 kernel: close
    np.testing.assert_allclose((numtorch.from_numpy(big) ** 1.7).numpy(),
                               (torch.from_numpy(big) ** 1.7).numpy(), rtol=5e-7)
