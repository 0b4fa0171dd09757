"""Batch norm on a GPU: the per-channel arithmetic and the whole-activation chains are one
kernel each (backend/_cupy_norm.py), bit for bit the xp code's results, in fewer launches
(issue 16, item 7). Compared and counted on the CuPy stand-in."""

import numpy as np
import pytest

import numtorch
from tests.cuda import standin


_NORM_KERNELS = ("norm_invstd", "norm_apply", "norm_grad")


def _run(dtype, enabled=True):
    """``enabled=False``: the norm kernels off (their xp code), the per-channel sums still
    the kernels' (``test_channel_sums.py`` compares those with the xp sums)."""
    from numtorch.backend import _cupy

    saved = {k: getattr(_cupy, k) for k in _NORM_KERNELS}
    if not enabled:
        for k in _NORM_KERNELS:
            setattr(_cupy, k, lambda *a, **kw: None)
    try:
        numtorch.manual_seed(0)
        nn = numtorch.nn
        m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.BatchNorm2d(8, affine=False)).cuda().to(dtype)
        x = numtorch.from_numpy(np.random.default_rng(1).standard_normal((4, 3, 7, 7)))
        x = x.to(dtype).cuda().requires_grad_(True)
        standin.reset_stats()
        y = m(x)
        (y * y).sum().backward()
        launches, syncs = standin.STATS["kernels"], standin.STATS["sync"]
        fused = [k for k in standin.STATS.get("fused", []) if k.startswith("numtorch_norm")]
    finally:
        for k, v in saved.items():
            setattr(_cupy, k, v)
    values = [y.detach().cpu().numpy(), x.grad.cpu().numpy()]
    values += [p.grad.cpu().numpy() for p in m.parameters()]
    return values + [b.cpu().numpy() for b in m.buffers()], launches, syncs, fused


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_batch_norm_is_the_xp_code_bit_for_bit(dtype):
    dt = getattr(numtorch, dtype)
    with standin.active():
        fused, n_fused, s_fused, names = _run(dt)
        plain, n_plain, _, none = _run(dt, enabled=False)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    # the affine layer: invstd + apply forward, grad stats + grad input backward; the other
    # layer's forward takes the invstd kernel
    assert sorted(names) == sorted(["numtorch_norm_invstd"] * 2 + [
        "numtorch_norm_apply", "numtorch_norm_grad_stats", "numtorch_norm_grad_input"])
    assert none == [] and s_fused == 0
    assert n_fused <= n_plain - 12, (n_fused, n_plain)
