"""det's gradient: for single-precision matrices whose condition number is above
1/sqrt(eps32), the cofactor from a double-precision inverse (oracle: torch in float64 on the
same matrices; torch's own float32 gradient carries the inverse's kappa*eps32 error, ~1e-5
here, so it is compared with a looser tolerance); for matrices with a zero determinant,
torch's rule: a zero gradient in a first-order backward, the cofactor matrix (SVD form) when
the backward builds a graph."""

import numpy as np
import pytest
import torch

import numtorch


def _unit_det(rng, shape, complex_=False):
    """Matrices with |det| = 1 and 2-norm condition numbers 1e4 (singular values spread
    geometrically between random orthogonal factors)."""
    n = shape[-1]
    q1 = np.linalg.qr(rng.standard_normal(shape))[0]
    q2 = np.linalg.qr(rng.standard_normal(shape))[0]
    a = (q1 * np.logspace(0, -4, n)[None, :]) @ q2
    if complex_:
        a = a + 1e-3j * rng.standard_normal(shape)
    _, logabs = np.linalg.slogdet(a)
    return a / np.exp(logabs / shape[-1])[..., None, None]  # |det| = 1, no overflow


def _cond1(a):
    inv = np.linalg.inv(a)
    return np.abs(a).sum(-2).max(-1) * np.abs(inv).sum(-2).max(-1)


@pytest.mark.parametrize("shape", [(6, 64, 64), (2, 3, 24, 24), (40, 40)])
@pytest.mark.parametrize("complex_", [False, True])
def test_ill_conditioned_float32_gradient(shape, complex_):
    rng = np.random.default_rng(sum(shape) + complex_)
    a64 = _unit_det(rng, shape, complex_)
    if not complex_:
        # at least one matrix past the single-precision threshold: the double-precision path
        assert (_cond1(a64) * np.sqrt(np.finfo(np.float32).eps) > 1).any()
    a32 = a64.astype(np.complex64 if complex_ else np.float32)
    g = np.asarray(rng.standard_normal(shape[:-2]), dtype=np.float32)
    if complex_:
        g = np.asarray(g + 1j * rng.standard_normal(shape[:-2]), dtype=np.complex64)

    exact_in = torch.from_numpy(a32.astype(np.complex128 if complex_ else np.float64))
    exact_in.requires_grad_(True)
    torch.autograd.backward(torch.linalg.det(exact_in), torch.from_numpy(g).to(exact_in.dtype))
    exact = exact_in.grad.numpy()

    ours_in = numtorch.from_numpy(a32).requires_grad_(True)
    numtorch.autograd.backward(numtorch.linalg.det(ours_in), numtorch.from_numpy(g))
    ours = ours_in.grad
    assert ours.dtype == (numtorch.complex64 if complex_ else numtorch.float32)
    assert tuple(ours.shape) == shape
    scale = np.abs(exact).max(axis=(-1, -2), keepdims=True)
    theirs_in = torch.from_numpy(a32).requires_grad_(True)
    torch.autograd.backward(torch.linalg.det(theirs_in), torch.from_numpy(g))
    theirs_err = (np.abs(theirs_in.grad.numpy() - exact) / scale).max()
    # the single-precision determinant's own rounding bounds the error, torch's as ours (its
    # LU, as torch's, is in the input's precision; the GPU's LU rounds otherwise): the
    # inverse adds nothing to it where the condition number passes 1/sqrt(eps32)
    assert (np.abs(ours.numpy() - exact) / scale).max() < max(1e-4, 1.5 * theirs_err)
    assert (np.abs(ours.numpy() - theirs_in.grad.numpy()) / scale).max() < 1e-3


def test_second_order_through_the_double_precision_inverse():
    rng = np.random.default_rng(3)
    a32 = _unit_det(rng, (4, 48, 48)).astype(np.float32)
    assert (_cond1(a32.astype(np.float64)) * np.sqrt(np.finfo(np.float32).eps) > 1).any()
    v = rng.standard_normal(a32.shape).astype(np.float32)

    def hvp(lib, arr, dtype):
        x = lib.from_numpy(arr).to(dtype).requires_grad_(True)
        (gx,) = lib.autograd.grad(lib.linalg.det(x).sum(), x, create_graph=True)
        (hx,) = lib.autograd.grad((gx * lib.from_numpy(v).to(dtype)).sum(), x)
        return gx, hx

    gx, hx = hvp(numtorch, a32, numtorch.float32)
    tg, th = hvp(torch, a32, torch.float64)
    tg32, th32 = hvp(torch, a32, torch.float32)
    assert gx.dtype == numtorch.float32 and hx.dtype == numtorch.float32
    for ours, exact, theirs in ((gx, tg, tg32), (hx, th, th32)):
        exact = exact.detach().numpy()
        scale = np.abs(exact).max(axis=(-1, -2), keepdims=True)
        theirs_err = (np.abs(theirs.detach().numpy() - exact) / scale).max()
        # bounded by the single-precision determinant's rounding, as torch's float32 result
        assert (np.abs(ours.detach().numpy() - exact) / scale).max() < max(1e-4,
                                                                            1.5 * theirs_err)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_zero_determinant_follows_torch(dtype, create_graph, device):
    if device != "cpu":
        pytest.skip("a GPU's LU need not give these determinants exactly 0 (nor does torch's)")
    # a rank-deficient matrix, a diagonal one with a zero, one whose determinant underflows
    # to 0 in single precision, and an invertible one, in one batch
    a = np.array([[[1., 2., 3.], [2., 4., 6.], [0., 1., 5.]],
                  [[2., 0., 0.], [0., 3., 0.], [0., 0., 0.]],
                  [[1e-30, 0., 0.], [0., 1e-30, 0.], [0., 0., 1.]],
                  [[2., 1., 0.], [0., 3., 0.], [1., 0., 1.]]]).astype(dtype)
    results = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(a).requires_grad_(True)
        (g,) = lib.autograd.grad(lib.linalg.det(x).real.sum(), x, create_graph=create_graph)
        results.append(g.detach().numpy())
    ours, theirs = results
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


def test_second_order_at_a_zero_determinant_follows_torch(device):
    if device != "cpu":
        pytest.skip("a GPU's LU need not give these determinants exactly 0 (nor does torch's)")
    a = np.array([[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]])
    v = np.random.default_rng(5).standard_normal(a.shape)
    results = []
    for lib in (numtorch, torch):
        x = lib.from_numpy(a.copy()).requires_grad_(True)
        (g,) = lib.autograd.grad(lib.linalg.det(x), x, create_graph=True)
        (h,) = lib.autograd.grad((g * lib.from_numpy(v)).sum(), x)
        results.append((g.detach().numpy(), h.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
