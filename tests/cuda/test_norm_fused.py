"""Batch norm on a GPU: the per-channel arithmetic and the whole-activation chains are one
kernel each (backend/_cupy_norm.py), bit for bit the xp code's results, in fewer launches
(issue 16, item 7). Compared and counted on the CuPy stand-in."""

import numpy as np
import pytest

import numtorch
from tests.cuda import standin

_NORM_KERNELS = ("norm_invstd", "norm_apply", "norm_grad", "bn_center", "bn_grad")


def _run(dtype, enabled=True):
    """``enabled=False``: the norm kernels off (their xp code), the per-channel sums still
    the kernels' (``test_channel_sums.py`` compares those with NumPy's and torch's)."""
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
        fused = [k for k in standin.STATS.get("fused", [])
                 if k.startswith(("numtorch_norm", "numtorch_sums"))]
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
    # (4, 8, 5, 5): 25 positions per channel, the column partials. Forward, each layer: the
    # sums of x, finished into the mean, the centring with the sums of squares, finished into
    # var and invstd; the affine layer's y in one more. Backward: the affine layer's two sums
    # in one pass, finished into the gradient's factors, and its input gradient; the other
    # layer (no weight) its two sums in one pass, finished, and the xp code.
    want = {"numtorch_sums_cols": 6, "numtorch_sums_finish": 3, "numtorch_sums_invstd": 2,
            "numtorch_norm_apply": 1, "numtorch_sums_grad_stats": 1,
            "numtorch_norm_grad_input": 1}
    assert {k: names.count(k) for k in set(names)} == want
    assert set(none) == {"numtorch_sums_cols", "numtorch_sums_finish"} and s_fused == 0
    assert n_fused <= n_plain - 20, (n_fused, n_plain)
