"""Gradients of selection ops with tied values against torch.

Torch spreads the gradient of ``median()``, ``nanmedian()``, ``max()`` and ``min()`` over all
elements evenly among the tied entries (NaN ties with NaN for max/min), divides ``amax``/``amin``
gradients by the tie count, and sends the gradient of the dim-wise selections to the index
they return (first for max/min, stable order for median, last occurrence for mode).
"""

import math

import numpy as np
import pytest
import torch

import numtorch

NAN = math.nan

CASES = {
    "median": (lambda t, x: x.median(), [1.0, 2.0, 2.0, 3.0]),
    "median_three_ties": (lambda t, x: x.median(), [1.0, 2.0, 2.0, 2.0, 3.0, 0.0]),
    "median_all_equal": (lambda t, x: x.median(), [2.0, 2.0, 2.0]),
    "median_nan": (lambda t, x: x.median(), [1.0, NAN, 2.0, NAN]),
    "median_2d": (lambda t, x: x.median(), [[1.0, 5.0, 5.0], [5.0, 0.0, 9.0]]),
    "nanmedian": (lambda t, x: x.nanmedian(), [1.0, 2.0, 2.0, NAN, 3.0]),
    "nanmedian_all_nan": (lambda t, x: x.nanmedian(), [NAN, NAN]),
    "median_dim": (lambda t, x: x.median(1)[0], [[3.0, 1.0, 3.0], [3.0, 0.0, 0.0]]),
    "nanmedian_dim": (lambda t, x: x.nanmedian(1)[0], [[3.0, NAN, 3.0], [1.0, 1.0, 0.0]]),
    "max": (lambda t, x: x.max(), [1.0, 3.0, 3.0, 2.0]),
    "min": (lambda t, x: x.min(), [1.0, 3.0, 1.0, 2.0]),
    "max_nan": (lambda t, x: x.max(), [1.0, NAN, NAN]),
    "min_nan": (lambda t, x: x.min(), [NAN, 1.0, NAN, 0.0]),
    "amax": (lambda t, x: x.amax(), [1.0, 3.0, 3.0, 2.0]),
    "amax_dim": (lambda t, x: x.amax(1), [[3.0, 1.0, 3.0], [3.0, 0.0, 0.0]]),
    "amin_dims": (lambda t, x: x.amin((0, 1)), [[0.0, 1.0, 0.0], [2.0, 0.0, 2.0]]),
    "max_dim": (lambda t, x: x.max(1)[0], [[3.0, 1.0, 3.0], [3.0, 0.0, 0.0]]),
    "min_dim": (lambda t, x: x.min(0)[0], [[0.0, 1.0], [0.0, 1.0]]),
    "max_dim_nan": (lambda t, x: x.max(0)[0], [1.0, NAN, NAN]),
    "aminmax": (lambda t, x: t.aminmax(x)[1], [1.0, 3.0, 3.0, 2.0]),
    "mode": (lambda t, x: x.mode(1)[0], [[3.0, 1.0, 3.0], [0.0, 0.0, 2.0]]),
    "kthvalue": (lambda t, x: x.kthvalue(2, 1)[0], [[3.0, 1.0, 2.0], [3.0, 0.0, 1.0]]),
    "sort_ties": (lambda t, x: x.sort()[0], [2.0, 1.0, 2.0, 1.0]),
    "sort_descending": (lambda t, x: x.sort(descending=True)[0], [2.0, 1.0, 2.0, 1.0]),
    "topk": (lambda t, x: x.topk(2)[0], [2.0, 1.0, 5.0, 3.0]),
    "cummax": (lambda t, x: x.cummax(0)[0], [1.0, 3.0, 3.0, 2.0, 3.0]),
    "cummin": (lambda t, x: x.cummin(0)[0], [3.0, 1.0, 1.0, 2.0, 1.0]),
}


def _grads(lib, fn, values, dtype):
    x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
    y = fn(lib, x)
    rng = np.random.default_rng(1)
    cot = lib.tensor(rng.standard_normal(tuple(y.shape)), dtype=y.dtype, requires_grad=True)
    (g,) = lib.autograd.grad(y, x, cot, create_graph=True)
    # second order: differentiate the backward pass with respect to the cotangent
    v = lib.tensor(rng.standard_normal(tuple(x.shape)), dtype=x.dtype)
    (gg,) = lib.autograd.grad((g * v).sum(), cot)
    return y.detach().numpy(), g.detach().numpy(), gg.detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_tie_gradients_match_torch(name, dtype):
    fn, values = CASES[name]
    with np.errstate(invalid="ignore"):
        got = _grads(numtorch, fn, values, dtype)
    want = _grads(torch, fn, values, dtype)
    np.testing.assert_array_equal(got[0], want[0])  # values
    np.testing.assert_array_equal(got[1], want[1])  # gradients, bit for bit
    tol = 1e-5 if dtype == "float32" else 1e-12  # second order: sums may round apart
    np.testing.assert_allclose(got[2], want[2], rtol=tol, atol=tol)


def test_median_tie_gradient_of_the_issue():
    x = numtorch.tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True)
    x.median().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]
