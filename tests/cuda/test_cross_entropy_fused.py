"""Cross-entropy with class-index targets on the CuPy stand-in through the fused kernels
(backend/_cupy_loss.py, ops/loss_device.py): forward and backward in 8 launches instead of 36
('mean'), no host synchronisation, the values and gradients bit for bit those of the xp code
and torch's (the oracle, on the CPU) within float tolerance; second order goes through the
composed backward as before."""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin


def _run(lib, device, dtype, reduction, weight, ignore, second=False):
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((12, 5)).astype(dtype)
    ta = rng.integers(0, 5, 12)
    ta[[2, 7]] = ignore if ignore is not None else ta[[2, 7]]
    x = lib.tensor(xa, device=device, requires_grad=True)
    t = lib.tensor(ta, device=device)
    w = None if weight is None else lib.tensor(np.asarray(weight, dtype=dtype), device=device)
    kw = {} if ignore is None else {"ignore_index": ignore}
    g = lib.tensor(rng.standard_normal(12 if reduction == "none" else ()).astype(dtype),
                   device=device)
    before = standin.STATS.get("kernels", 0), standin.STATS.get("sync", 0)
    loss = lib.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction, **kw)
    (gx,) = lib.autograd.grad(loss, x, g, create_graph=second)
    launches = standin.STATS.get("kernels", 0) - before[0]
    syncs = standin.STATS.get("sync", 0) - before[1]
    out = [loss, gx]
    if second:
        out.append(lib.autograd.grad((gx * gx).sum(), x)[0])
    return [a.detach().cpu().numpy() for a in out], launches, syncs


CASES = [("mean", None, None), ("mean", [0.5, 1.0, 2.0, 1.5, 0.25], None), ("mean", None, 3),
         ("mean", [0.5, 1.0, 2.0, 1.5, 0.25], 1), ("sum", None, 3), ("none", None, None),
         ("none", [0.5, 1.0, 2.0, 1.5, 0.25], 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction,weight,ignore", CASES, ids=str)
def test_cross_entropy_in_fused_kernels(dtype, reduction, weight, ignore):
    want, _, _ = _run(torch, "cpu", dtype, reduction, weight, ignore)
    with standin.active():
        standin.reset_stats()
        got, launches, syncs = _run(numtorch, "cuda", dtype, reduction, weight, ignore)
        fused = list(standin.STATS["fused"])
        _cupy_kernels.ENABLED[0] = False
        try:
            plain, plain_launches, _ = _run(numtorch, "cuda", dtype, reduction, weight, ignore)
        finally:
            _cupy_kernels.ENABLED[0] = True
    assert fused == ["numtorch_ce_exp", "numtorch_ce_rows"] + (
        ["numtorch_loss_mean"] if reduction == "mean" else []) + ["numtorch_ce_grad"]
    # max, exp, row sums, rows, [loss sum, weight sum, mean] | [loss sum]; the gradient
    assert launches == {"mean": 8, "sum": 6, "none": 5}[reduction]
    assert plain_launches >= 20 and syncs == 0
    for a, b, c in zip(got, plain, want):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, c, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("reduction,weight,ignore", CASES[:4], ids=str)
def test_second_order_through_the_fused_forward(reduction, weight, ignore):
    want, _, _ = _run(torch, "cpu", np.float64, reduction, weight, ignore, second=True)
    with standin.active():
        got, _, _ = _run(numtorch, "cuda", np.float64, reduction, weight, ignore, second=True)
    for a, c in zip(got, want):
        np.testing.assert_allclose(a, c, rtol=1e-10, atol=1e-12)


def test_out_of_the_kernels_reach_the_xp_path():
    """Label smoothing and 4-d scores keep the general code."""
    with standin.active():
        standin.reset_stats()
        x = numtorch.randn(3, 4, 2, 2, device="cuda", requires_grad=True)
        t = numtorch.randint(0, 4, (3, 2, 2), device="cuda")
        numtorch.nn.functional.cross_entropy(x, t).backward()
        y = numtorch.randn(3, 4, device="cuda", requires_grad=True)
        numtorch.nn.functional.cross_entropy(y, t[:, 0, 0], label_smoothing=0.1).backward()
        assert not any(k.startswith("numtorch_ce") for k in standin.STATS.get("fused", []))
