"""Dropout masks and scalar-probability Bernoulli draws are torch's after the same seed.

numtorch decides ``u < p`` for torch's float64 uniforms on the raw 53-bit integers of its
Mersenne Twister stream (never making the uniforms); these tests compare the masks, the
scaled outputs, the gradients and the stream position afterwards with torch for float32 and
float64, several probabilities (including ones whose threshold ``p * 2**53`` is not a whole
number) and shapes whose sizes are not multiples of 16.
"""

import numpy as np
import pytest
import torch

import numtorch

SHAPES = [(), (1,), (7,), (3, 5, 17), (2, 3, 31, 33), (64, 4, 9, 9)]
PROBS = [0.1, 0.25, 0.5, 1 / 3, 0.9, 1e-3]
DTYPES = ["float32", "float64"]


def _pair(shape, dtype, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.tensor(x, requires_grad=True), numtorch.tensor(x, requires_grad=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", PROBS)
@pytest.mark.parametrize("shape", SHAPES)
def test_dropout_equals_torch(shape, p, dtype):
    tx, nx = _pair(shape, dtype, 1)
    torch.manual_seed(11)
    numtorch.manual_seed(11)
    ty = torch.nn.functional.dropout(tx, p)
    ny = numtorch.nn.functional.dropout(nx, p)
    assert ny.dtype == getattr(numtorch, dtype) and tuple(ny.shape) == tuple(ty.shape)
    np.testing.assert_array_equal(ny.detach().numpy(), ty.detach().numpy())
    g = np.random.default_rng(2).standard_normal(shape).astype(dtype)
    ty.backward(torch.tensor(g))
    ny.backward(numtorch.tensor(g))
    np.testing.assert_array_equal(nx.grad.numpy(), tx.grad.numpy())
    # the stream stands where torch's does: the next draws agree too
    np.testing.assert_array_equal(numtorch.rand(5).numpy(), torch.rand(5).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [0.0, 0.3, 0.75, 1.0])
def test_bernoulli_scalar_equals_torch(p, dtype):
    for seed, shape in [(0, (1000,)), (5, (13, 7)), (2 ** 32 + 3, (257,))]:
        torch.manual_seed(seed)
        numtorch.manual_seed(seed)
        a = torch.empty(shape, dtype=getattr(torch, dtype)).bernoulli_(p)
        b = numtorch.empty(shape, dtype=getattr(numtorch, dtype)).bernoulli_(p)
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        a = torch.bernoulli(torch.zeros(shape, dtype=getattr(torch, dtype)), p)
        b = numtorch.bernoulli(numtorch.zeros(shape, dtype=getattr(numtorch, dtype)), p)
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        np.testing.assert_array_equal(numtorch.randn(3).numpy(), torch.randn(3).numpy())


def test_dropout_of_transposed_input_follows_its_layout():
    tx, nx = _pair((24, 40), "float32", 3)
    torch.manual_seed(4)
    numtorch.manual_seed(4)
    ty = torch.nn.functional.dropout(tx.t(), 0.2)
    ny = numtorch.nn.functional.dropout(nx.t(), 0.2)
    np.testing.assert_array_equal(ny.detach().numpy(), ty.detach().numpy())


def test_mask_threshold_is_exact():
    # u < p decided on the integers, against the float comparison of the same stream
    from numtorch._torch_rng import TorchStream

    for p in [0.1, 0.5, 1 - 2 ** -53, 2 ** -53, 0.7]:
        a, b = TorchStream(9), TorchStream(9)
        np.testing.assert_array_equal(a.below((50, 21), p), b.random((50, 21)) < p)
