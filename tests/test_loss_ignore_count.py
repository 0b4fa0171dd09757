"""'mean' class-index losses with ignored targets and no class weights: the total weight is
the count of counted samples (exact in any order) and the sum is added in torch's order up
to 65536 samples, so nll_loss gives torch's bits; gradients as torch's."""

import numpy as np
import pytest
import torch

import numtorch


@pytest.mark.parametrize("n", [17, 100, 512, 700])
@pytest.mark.parametrize("ignored", [0.1, 0.5, 0.97, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_loss_and_gradient_bits(n, ignored, dtype, loss):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 27)).astype(dtype)
    t = rng.integers(0, 27, n)
    t[rng.random(n) < ignored] = -1
    out = {}
    for lib in (torch, numtorch):
        X = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, loss)(X, lib.tensor(t), ignore_index=-1)
        (g,) = lib.autograd.grad(y, X)
        out[lib.__name__] = (y.detach().numpy(), g.numpy())
    (y, g), (ty, tg) = out["numtorch"], out["torch"]
    if loss == "nll_loss":  # the sum in torch's order over the counted samples, / count
        np.testing.assert_array_equal(y, ty)
    else:  # (its log-softmax rounds on its own)
        np.testing.assert_allclose(y, ty, rtol=2e-7 if dtype == "float32" else 1e-15)
    np.testing.assert_allclose(g, tg, rtol=1e-5, atol=1e-7)
