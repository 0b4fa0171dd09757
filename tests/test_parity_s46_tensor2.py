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


# -- 2. a first operand that is neither a Tensor nor a number ---------------------------------

def _first_bad(t, fn, bad, second, **kw):
    first = {"dtype": t.float32, "list": [1.0], "str": "a", "none": None}[bad]
    other = {"int": 1, "tensor": t.ones(2)}[second]
    return getattr(t, fn)(first, other, **kw)


@pytest.mark.parametrize("fn", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("bad", ["dtype", "list", "str"])
@pytest.mark.parametrize("second", ["int", "tensor"])
def test_binary_first_operand_error(fn, bad, second):
    same(lambda t: _first_bad(t, fn, bad, second))


@pytest.mark.parametrize("kw", ["alpha", "out"])
@pytest.mark.parametrize("fn", ["add", "sub"])
def test_binary_first_operand_error_kwargs(fn, kw):
    same(lambda t: _first_bad(t, fn, "dtype", "int",
                              **({"alpha": 2} if kw == "alpha" else {"out": t.ones(1)})))


@pytest.mark.parametrize("fn", ["add", "sub", "mul", "div"])
def test_binary_number_first_still_works(fn):
    same(lambda t: (getattr(t, fn)(2, t.ones(2)), getattr(t, fn)(2, 3)))
