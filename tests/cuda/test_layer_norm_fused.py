"""Layer norm on the CuPy stand-in through the fused row kernels (backend/_cupy_norm.py,
ops/norm_device.py): forward 4 launches and input gradient 4 instead of 8 and 9, the values
bit for bit those of the xp code and torch's (the oracle, on the CPU) within float
tolerance; the gradients of the gradient go through the composed backward as before.

From 64 rows of at most 1024 values, the whole-row kernels (backend/_cupy_rows.py) take
over: one launch forward, one for the input gradient and two for the weight and bias
gradients together, torch-close (their float64 sums round differently from the xp code's)."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin


def _run(lib, device, dtype, shape, ns, bias, second=False):
    rng = np.random.default_rng(0)
    mk = lambda s: lib.tensor(rng.standard_normal(s).astype(dtype), device=device,
                              requires_grad=True)
    x, w = mk(shape), mk(ns)
    b = mk(ns) if bias else None
    y = lib.nn.functional.layer_norm(x, ns, w, b)
    gy = lib.tensor(rng.standard_normal(shape).astype(dtype), device=device)
    leaves = [x, w] + ([b] if bias else [])
    grads = list(lib.autograd.grad(y, leaves, gy, create_graph=second))
    if second:
        # b's gradient (gy) does not depend on the leaves: x and w only
        grads = list(lib.autograd.grad(sum((g * g).sum() for g in grads), leaves[:2]))
    return [t.detach().cpu().numpy() for t in [y] + grads]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,ns,bias", [((4, 6, 16), (16,), True), ((3, 5, 8), (5, 8), False),
                                           ((1, 7), (7,), True)], ids=str)
def test_layer_norm_rows_in_fused_kernels(cuda, dtype, shape, ns, bias):
    standin.reset_stats()
    got = _run(numtorch, "cuda", dtype, shape, ns, bias)
    fused = standin.STATS.get("fused", [])
    assert [fused.count(k) for k in ("numtorch_rows_center", "numtorch_rows_affine",
                                     "numtorch_rows_grad")] == [1, 1, 1]
    launches = standin.STATS["kernels"]
    _cupy_kernels.ENABLED[0] = False
    standin.reset_stats()
    plain = _run(numtorch, "cuda", dtype, shape, ns, bias)
    assert launches <= standin.STATS["kernels"] - 9
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for a, p, t in zip(got, plain, _run(torch, "cpu", dtype, shape, ns, bias)):
        np.testing.assert_array_equal(a, p)
        np.testing.assert_allclose(a, t, **tol)


def test_second_order_through_the_fused_forward(cuda):
    got = _run(numtorch, "cuda", np.float64, (3, 4, 6), (6,), True, second=True)
    for a, t in zip(got, _run(torch, "cpu", np.float64, (3, 4, 6), (6,), True, second=True)):
        np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-11)


_WHOLE_ROWS = ("numtorch_ln_forward", "numtorch_ln_grad_rows", "numtorch_ln_grad_cols_part",
               "numtorch_ln_grad_cols")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,ns,bias", [((8, 16, 32), (32,), True),
                                           ((16, 5, 4, 8), (4, 8), False),
                                           ((70, 129), (129,), True)], ids=str)
def test_layer_norm_in_whole_row_kernels(cuda, dtype, shape, ns, bias):
    standin.reset_stats()
    got = _run(numtorch, "cuda", dtype, shape, ns, bias)
    fused = standin.STATS.get("fused", [])
    assert [fused.count(k) for k in _WHOLE_ROWS] == [1, 1, 1, 1]
    assert "numtorch_rows_center" not in fused and "numtorch_rows_grad" not in fused
    assert standin.STATS["kernels"] <= 6  # + the output gradient's ones and the weights' adds
    _cupy_kernels.ENABLED[0] = False
    standin.reset_stats()
    plain = _run(numtorch, "cuda", dtype, shape, ns, bias)
    assert standin.STATS["kernels"] >= 14
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-12}
    for a, p, t in zip(got, plain, _run(torch, "cpu", dtype, shape, ns, bias)):
        np.testing.assert_allclose(a, p, **tol)
        np.testing.assert_allclose(a, t, **tol)


def test_whole_row_kernels_only_the_requested_gradients(cuda):
    rng = np.random.default_rng(1)
    x = numtorch.tensor(rng.standard_normal((96, 16)).astype(np.float32), device="cuda")
    w = numtorch.tensor(rng.standard_normal(16).astype(np.float32), device="cuda",
                        requires_grad=True)
    standin.reset_stats()
    (gw,) = numtorch.autograd.grad(numtorch.nn.functional.layer_norm(x, (16,), w).sum(), w)
    fused = standin.STATS.get("fused", [])
    assert [fused.count(k) for k in _WHOLE_ROWS] == [1, 0, 1, 1]
    tx, tw = torch.from_numpy(x.cpu().numpy()), torch.from_numpy(w.detach().cpu().numpy())
    tw.requires_grad_(True)
    (want,) = torch.autograd.grad(torch.nn.functional.layer_norm(tx, (16,), tw).sum(), tw)
    np.testing.assert_allclose(gw.cpu().numpy(), want.numpy(), rtol=1e-4, atol=1e-5)


def test_second_order_through_the_whole_row_kernels(cuda):
    standin.reset_stats()
    got = _run(numtorch, "cuda", np.float64, (8, 9, 6), (6,), True, second=True)
    assert "numtorch_ln_grad_rows" in standin.STATS.get("fused", [])
    for a, t in zip(got, _run(torch, "cpu", np.float64, (8, 9, 6), (6,), True, second=True)):
        np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-11)
