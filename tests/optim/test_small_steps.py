"""SGD without momentum takes a per-group loop for small CPU parameters (no state, no work
buffers): its trajectories and state must stay torch's, next to parameters the loop leaves to
the general path (large ones, one without a gradient)."""

import numpy as np
import pytest
import torch

import numtorch

SHAPES = [(128, 4), (128,), (2, 128), (2,), (130, 130), (3,)]  # (130, 130): above the loop's size


@pytest.mark.parametrize("kwargs", [
    dict(lr=0.1), dict(lr=0.05, weight_decay=0.1), dict(lr=0.1, maximize=True),
    dict(lr=0.1, weight_decay=0.01, maximize=True), dict(lr=0.1, foreach=True),
    dict(lr=0.1, foreach=False),
], ids=str)
def test_sgd_without_momentum_follows_torch(kwargs, device):
    rng = np.random.default_rng(0)
    inits = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(4)]
    out = []
    for lib in (numtorch, torch):
        dev = device if lib is numtorch else "cpu"
        params = [lib.nn.Parameter(lib.from_numpy(a.copy()).to(dev)) for a in inits]
        opt = lib.optim.SGD(params, **kwargs)
        for step in grads:
            for p, g in zip(params[:-1], step):  # the last parameter never gets a gradient
                p.grad = lib.from_numpy(g.copy()).to(dev)
            opt.step()
        out.append(([p.detach().cpu().numpy().copy() for p in params], len(opt.state),
                    opt.state_dict()))
    (ours, n_ours, sd_ours), (ref, n_ref, sd_ref) = out
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert n_ours == n_ref and sd_ours["state"] == sd_ref["state"] == {}
    assert sd_ours["param_groups"] == sd_ref["param_groups"]


def test_sgd_without_momentum_bumps_the_version_and_keeps_the_array():
    p = numtorch.nn.Parameter(numtorch.ones(3))
    arr = p._array
    p.grad = numtorch.ones(3)
    v = p._version
    numtorch.optim.SGD([p], lr=0.5).step()
    assert p._version == v + 1 and p._array is arr
    np.testing.assert_array_equal(p.detach().numpy(), [0.5, 0.5, 0.5])
