"""prod of float16/bfloat16 tensors against torch, bitwise: torch rounds every product to the
half type in a blocked order (ops/half_prod.py). Thread counts set equal in both libraries."""

import numpy as np
import pytest
import torch

import numtorch

CASES = [  # shape, dim (None: all), keepdim
    ((5000,), None, False), ((4, 1000), 1, False), ((3, 97), 1, True), ((3, 97), -1, False),
    ((64, 300), 0, False), ((300, 5), 0, True), ((3, 40, 50), 2, False), ((3, 40, 50), 1, False),
    ((3, 40, 50), 0, False), ((7, 3), None, False), ((40000,), None, False),
    ((70001,), None, False), ((100000,), 0, False), ((6, 130), None, False), ((2, 63), 1, False),
    ((1,), 0, False), ((0, 5), 1, False), ((0, 5), 0, False),
]


@pytest.fixture(params=[1, 2, 4])
def threads(request):
    before = (torch.get_num_threads(), numtorch.get_num_threads())
    torch.set_num_threads(request.param)
    numtorch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before[0])
    numtorch.set_num_threads(before[1])


def _prod(L, x, dt, dim, keepdim, transpose=False):
    t = L.from_numpy(x).to(getattr(L, dt))
    if transpose:
        t = t.t()
    y = t.prod() if dim is None else t.prod(dim, keepdim=keepdim)
    return str(y.dtype), tuple(y.shape), y.float().numpy()


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape,dim,keepdim", CASES)
def test_half_prod_bitwise(shape, dim, keepdim, dt, threads):
    rng = np.random.default_rng(sum(shape) + (dim or 0))
    scale = 0.001 if np.prod(shape) > 10000 else 0.01
    x = (1 + rng.standard_normal(shape) * scale).astype(np.float32)
    a, b = _prod(torch, x, dt, dim, keepdim), _prod(numtorch, x, dt, dim, keepdim)
    assert b[:2] == a[:2]
    np.testing.assert_array_equal(b[2], a[2])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("dim", [0, 1])
def test_half_prod_transposed_input(dt, dim, threads):
    x = (1 + np.random.default_rng(dim).standard_normal((150, 70)) * 0.01).astype(np.float32)
    a = _prod(torch, x, dt, dim, False, transpose=True)
    b = _prod(numtorch, x, dt, dim, False, transpose=True)
    assert b[:2] == a[:2]
    np.testing.assert_array_equal(b[2], a[2])


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_prod_grad(dt):
    x = (1 + np.random.default_rng(1).standard_normal((4, 200)) * 0.01).astype(np.float32)
    out = []
    for L in (torch, numtorch):
        t = L.from_numpy(x).to(getattr(L, dt)).requires_grad_()
        t.prod(1).sum().backward()
        out.append(t.grad.float().numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=2.0 ** -7, atol=0)
