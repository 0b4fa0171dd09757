"""Parity fixes of probe 46 (second tensor pass; oracle: real torch at test time):
logcumsumexp gradients at -inf, ..."""

import pytest

from tests.oracle import same

INF = float("inf")


# -- 1. logcumsumexp gradient at -inf ---------------------------------------------------------

def _lcse_grads(t, xs, dtype, create_graph):
    x = t.tensor(xs, dtype=getattr(t, dtype), requires_grad=True)
    y = t.logcumsumexp(x, -1)
    w = t.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)
    g, = t.autograd.grad(y, x, w, create_graph=create_graph)
    if not create_graph:
        return y, g
    gg, = t.autograd.grad(g.sum(), x)
    return y, g, gg


LCSE = {
    "leading_ninf": [-INF, 0.0, 1.0],
    "middle_ninf": [0.0, -INF, 1.0],
    "trailing_ninf": [0.0, 1.0, -INF],
    "all_ninf": [-INF, -INF],
    "two_leading_ninf": [-INF, -INF, 2.0, -INF],
    "rows": [[-INF, 0.0, -INF], [1.0, -INF, 2.0]],
    "pos_inf": [0.0, INF, 1.0],
}


@pytest.mark.parametrize("name", sorted(LCSE))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logcumsumexp_grad_at_ninf(name, dtype):
    tol = (1e-6, 1e-6) if dtype == "float32" else (1e-12, 1e-12)
    same(lambda t: _lcse_grads(t, LCSE[name], dtype, False), *tol)


@pytest.mark.parametrize("name", sorted(LCSE))
def test_logcumsumexp_double_grad_at_ninf(name):
    same(lambda t: _lcse_grads(t, LCSE[name], "float64", True), 1e-12, 1e-12)
