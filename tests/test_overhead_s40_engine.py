"""Overhead (s40): the engine's chain shortcut (a node's one new child runs next without the
heap) and the scalar-first promotion fast case give torch's gradients, hook order and dtypes.

Compared with torch 2.13 at test time on chains, fan-outs, diamonds, two leaves, repeated
backward with retain_graph, tensor hooks (their call order) and ``-lr * p.grad``-style updates.
"""

import numpy as np
import pytest
import torch

import numtorch


def _diamond(T, x, w):
    h = x.tanh()
    return (h.exp() + h.sigmoid() * h).mean()


GRAPHS = {
    "chain": lambda T, x, w: (x * 1.0001 + 0.5).tanh().sum(),
    "fan_out": lambda T, x, w: ((x * 2).sin() * (x * 3).cos()).sum(),
    "diamond": _diamond,
    "two_leaves": lambda T, x, w: ((x @ w).relu() * 0.5 + x.sum(1, keepdim=True)).sum(),
    "reuse": lambda T, x, w: (x * x * x - x).sum() + (w * w).sum(),
    "scalar_first": lambda T, x, w: (1.0 - x).mul(-0.1).sum() + (2.5 * w).pow(2).sum(),
}


def _leaves(T, seed, dtype):
    rng = np.random.default_rng(seed)
    x = T.tensor(rng.standard_normal((4, 5)).astype(dtype), requires_grad=True)
    w = T.tensor(rng.standard_normal((5, 5)).astype(dtype), requires_grad=True)
    return x, w


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_match(name, dtype):
    for seed in range(3):
        got, want = [], []
        for T, out in ((numtorch, got), (torch, want)):
            x, w = _leaves(T, seed, dtype)
            loss = GRAPHS[name](T, x, w)
            loss.backward(retain_graph=True)
            loss.backward()  # accumulates a second time
            out.extend([loss.detach().numpy(), None if x.grad is None else x.grad.numpy(),
                        None if w.grad is None else w.grad.numpy()])
        for a, b in zip(got, want):
            if b is None:
                assert a is None
                continue
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=2e-6 if dtype == np.float32 else 1e-13,
                                       atol=1e-6 if dtype == np.float32 else 1e-13)


def test_hook_order_on_chain_and_branches():
    def run(T):
        calls = []
        x = T.ones(3, requires_grad=True)
        a = x * 2
        b = a.exp()
        c = a.sin()
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: calls.append(name))
        (b.sum() + c.sum()).backward()
        return calls, x.grad.numpy()

    (got, gx), (want, tx) = run(numtorch), run(torch)
    assert got == want
    np.testing.assert_allclose(gx, tx, rtol=1e-6)


def test_scalar_first_update_dtypes():
    for dt in ("float32", "float64", "float16", "bfloat16"):
        p = numtorch.ones(2, 3, dtype=getattr(numtorch, dt))
        q = torch.ones(2, 3, dtype=getattr(torch, dt))
        for s in (-0.1, 3.0, 1e300):
            a, b = s * p, s * q
            assert str(a.dtype) == str(b.dtype)
            np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())
            a, b = s - p, s - q
            np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())
