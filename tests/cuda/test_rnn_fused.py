"""The LSTM sequence op on a GPU: each time step is one recurrent GEMM and one fused kernel
forward, one fused kernel and one GEMM backward (backend/_cupy_rnn.py), giving the xp loop's
results bit for bit (issue 16, item 7). Counted and compared on the CuPy stand-in."""

import numpy as np
import pytest

import numtorch
from numtorch.backend import _cupy_kernels
from tests.cuda import standin


def _run(steps, feat, enabled=True, **kw):
    """Outputs and gradients of a 2-layer LSTM's training pass, and its kernel launches."""
    _cupy_kernels.ENABLED[0] = enabled
    try:
        numtorch.manual_seed(0)
        m = numtorch.nn.LSTM(feat, 16, num_layers=2, **kw).cuda()
        rng = np.random.default_rng(1)
        x = numtorch.from_numpy(rng.standard_normal((steps, 3, feat)).astype(np.float32))
        x = x.cuda().requires_grad_(True)
        standin.reset_stats()
        out, (h, c) = m(x)
        (out.square().sum() + h.sum() + c.square().sum()).backward()
        launches, syncs = standin.STATS["kernels"], standin.STATS["sync"]
    finally:
        _cupy_kernels.ENABLED[0] = True
    values = [t.detach().cpu().numpy() for t in (out, h, c, x.grad)]
    return values + [p.grad.cpu().numpy() for p in m.parameters()], launches, syncs


@pytest.mark.parametrize("feat,kw", [(4, {}), (40, {}), (40, {"bidirectional": True}),
                                     (4, {"batch_first": True})])
def test_fused_lstm_loop_is_the_xp_loop_bit_for_bit(feat, kw):
    with standin.active():
        fused, n_fused, _ = _run(5, feat, **kw)
        plain, n_plain, _ = _run(5, feat, enabled=False, **kw)
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
    assert n_fused < n_plain


@pytest.mark.parametrize("feat", [4, 40])  # the input inline in the GEMM, or projected once
def test_lstm_step_costs_four_launches_and_no_sync(feat):
    """Ten more time steps in two layers add 20 steps x (GEMM + kernel) x 2 directions of
    the pass = 80 launches, whatever else the layer does once."""
    with standin.active():
        _, short, s1 = _run(5, feat)
        _, long, s2 = _run(15, feat)
    assert long - short == 80, (short, long)
    assert s1 == s2 == 0
