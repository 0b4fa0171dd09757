"""Layer norm on the CuPy stand-in through the fused row kernels (backend/_cupy_norm.py,
ops/norm_device.py): forward 4 launches and input gradient 4 instead of 8 and 9, the values
bit for bit those of the xp code and torch's (the oracle, on the CPU) within float
tolerance; the gradients of the gradient go through the composed backward as before."""

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
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for a, p, t in zip(got, plain, _run(torch, "cpu", dtype, shape, ns, bias)):
        np.testing.assert_array_equal(a, p)
        np.testing.assert_allclose(a, t, **tol)


def test_second_order_through_the_fused_forward(cuda):
    got = _run(numtorch, "cuda", np.float64, (3, 4, 6), (6,), True, second=True)
    for a, t in zip(got, _run(torch, "cpu", np.float64, (3, 4, 6), (6,), True, second=True)):
        np.testing.assert_allclose(a, t, rtol=1e-9, atol=1e-11)
