"""Parity fixes of probe 50, tensors and ops (oracle: real torch at test time): complex
logcumsumexp (values on torch's unwrapped branch, NaN/inf edges, gradients), ..."""

import numpy as np
import pytest

import numtorch
from tests.oracle import same

# -- 1. complex logcumsumexp ------------------------------------------------------------------

_INF, _NAN = float("inf"), float("nan")
_LCSE_EDGES = {
    "tie_new_is_larger": [3j, -3j],
    "unwrapped_imag": [10j, 10j, 1000 + 1j, complex(-_INF, 0), _NAN],
    "plus_inf": [complex(_INF, 0), complex(_INF, 1), 2],
    "leading_minus_inf": [complex(-_INF, 1), complex(-_INF, 0), 1 + 2j],
    "inf_imag": [complex(1, _INF), 1 + 2j],
    "alternating": [1 + 3j, 1 - 3j, 1 + 3j, 1 - 3j, 1 + 3j, 0.5 + 3.1j],
    "single": [2 - 7j],
}


@pytest.mark.parametrize("name", sorted(_LCSE_EDGES))
def test_complex_logcumsumexp_edges(name):
    vals = _LCSE_EDGES[name]
    same(lambda t: t.logcumsumexp(t.tensor(vals), 0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_complex_logcumsumexp_random(dtype, dim):
    rng = np.random.default_rng(3)
    a = (rng.normal(size=(5, 33)) * np.array([[0.1], [1], [10], [100], [3]])
         + 1j * rng.normal(size=(5, 33)) * 4).astype(dtype)
    a = a.T if dim == 0 else a  # a transposed (non-contiguous) input along dim 0
    same(lambda t: t.logcumsumexp(t.from_numpy(a.copy()), dim), rtol=2e-5, atol=2e-5)


def test_complex_logcumsumexp_grads():
    def fn(t):
        x = t.tensor([[1 + 1j, 2 - 1j, 0.5 + 3j], [0j, -1 + 2j, 4 - 4j]], requires_grad=True)
        y = t.logcumsumexp(x, 1)
        (g,) = t.autograd.grad((y.abs() * t.tensor([1.0, 2.0, 3.0])).sum(), x,
                               create_graph=True)
        return y, g, t.autograd.grad(g.abs().sum(), x)[0]

    same(fn, rtol=1e-5, atol=1e-6)
    x = numtorch.tensor([[1 + 1j, 2 - 1j], [0.5 + 3j, 0j]], dtype=numtorch.complex128,
                        requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda v: numtorch.logcumsumexp(v, 1), (x,))
