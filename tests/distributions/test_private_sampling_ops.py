"""torch's private sampling ops that libraries built on distributions call directly
(``torch._standard_gamma``, ``_sample_dirichlet``, ``_dirichlet_grad``, ...): the same draws
from the same seed or generator, and the reparameterised gradient flows."""

import numpy as np
import torch

import numtorch


def _draws(lib):
    lib.manual_seed(0)
    a = lib.tensor([0.5, 2.0, 5.0], dtype=lib.float64, requires_grad=True)
    x = lib._standard_gamma(a)
    x.sum().backward()
    lib.manual_seed(1)
    d = lib._sample_dirichlet(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
    g = lib.Generator().manual_seed(3)
    y = lib._standard_gamma(lib.tensor([1.5], dtype=lib.float64), generator=g)
    return x.tolist(), d.tolist(), y.tolist(), a.grad


def test_draws_match_torch():
    *ours, our_grad = _draws(numtorch)
    *theirs, their_grad = _draws(torch)
    assert ours == theirs
    # torch's gradient is its own fitted approximation of d(sample)/d(alpha); numtorch's the
    # exact derivative: equal to 1e-4
    np.testing.assert_allclose(our_grad.tolist(), their_grad.tolist(), rtol=1e-4)


def test_the_names_are_the_public_ops():
    assert numtorch._standard_gamma_grad is not None and numtorch._dirichlet_grad is not None
    x = numtorch.tensor([0.3, 0.7], dtype=numtorch.float64)
    a = numtorch.tensor([1.0, 2.0], dtype=numtorch.float64)
    t = numtorch.tensor([3.0, 3.0], dtype=numtorch.float64)
    np.testing.assert_allclose(numtorch._dirichlet_grad(x, a, t).tolist(),
                               torch._dirichlet_grad(torch.tensor(x.tolist(), dtype=torch.float64),
                                                     torch.tensor(a.tolist(), dtype=torch.float64),
                                                     torch.tensor(t.tolist(), dtype=torch.float64)
                                                     ).tolist(), rtol=1e-4)
