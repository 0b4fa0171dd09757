"""linalg.det rounds as torch's (U's diagonal from its LAPACK's LU, in order): integral
determinants print as ``tensor(18.)``; bits compared with torch at test time."""

import numpy as np
import pytest
import torch

import numtorch


def _both(arr, fn=lambda lib, t: lib.linalg.det(t)):
    want = fn(torch, torch.from_numpy(arr.copy()))
    got = fn(numtorch, numtorch.from_numpy(arr.copy()))
    return want, got


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("kind", ["randn", "int", "singular"])
def test_det_bits_match_torch(dtype, n, kind):
    rng = np.random.default_rng(n)
    if kind == "randn":
        a = rng.standard_normal((40, n, n))
    else:
        a = rng.integers(-3, 4, (40, n, n)).astype(np.float64)
        if kind == "singular" and n > 1:
            a[:, -1] = a[:, 0] * 2  # a repeated row: exact zeros with torch's signs
    a = a.astype(dtype)
    want, got = _both(a)
    assert got.dtype == numtorch.float32 if dtype == np.float32 else numtorch.float64
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert (np.signbit(got.numpy()) == np.signbit(want.numpy())).all()
    for one in a[:12]:  # single matrices take a scalar path
        w, g = _both(one)
        assert g.item() == w.item() and np.signbit(g.item()) == np.signbit(w.item())
        assert str(g) == str(w)


def test_det_prints_integral_results_as_torch():
    a = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    for arr in (a, a.astype(np.float32), a.T, np.stack([a, a * 2]), a[None, ::-1]):
        want, got = _both(np.ascontiguousarray(arr) if arr.ndim == 2 else arr)
        assert str(got) == str(want)
    want, got = _both(a, lambda lib, t: lib.det(t.t()))  # a column-major operand
    assert str(got) == str(want)


def test_det_grad_unchanged_by_the_forward_rounding():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    t = torch.tensor(a, requires_grad=True)
    torch.linalg.det(t).backward()
    u = numtorch.tensor(a, requires_grad=True)
    numtorch.linalg.det(u).backward()
    np.testing.assert_allclose(u.grad.numpy(), t.grad.numpy(), rtol=1e-12)
