"""Session 51: torch 2.13's CPU antialiased float kernels (bilinear, bicubic, lanczos) write
every output row as the first one when the output is one column wide and the height changes
(torchvision's resize to (h, 1) shows it); their gradient is that of the true resize.
numtorch computed the true resize. Oracle: torch at test time."""

import numpy as np
import pytest
import torch

import numtorch


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("shape,size", [((2, 3, 8, 10), (2, 1)), ((2, 3, 8, 1), (5, 1)),
                                        ((1, 1, 8, 10), (16, 1)), ((1, 2, 8, 10), (8, 1)),
                                        ((1, 2, 8, 10), (1, 1)), ((1, 2, 8, 10), (3, 2))])
def test_one_column_antialiased_resize_values_and_gradient(mode, shape, size):
    x = torch.rand(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    g = torch.rand(shape[0], shape[1], *size, dtype=torch.float64,
                   generator=torch.Generator().manual_seed(1))
    tx = x.clone().requires_grad_()
    want = torch.nn.functional.interpolate(tx, size=size, mode=mode, antialias=True)
    want.backward(g)
    nx = numtorch.from_numpy(x.numpy().copy()).requires_grad_()
    got = numtorch.nn.functional.interpolate(nx, size=size, mode=mode, antialias=True)
    got.backward(numtorch.from_numpy(g.numpy().copy()))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(nx.grad.numpy(), tx.grad.numpy(), rtol=0, atol=1e-12)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__


def test_float32_and_torchvision_resize_to_one_column():
    from torchvision.transforms.v2 import functional as TF

    from numtorchvision.transforms.v2 import functional as NF

    x = torch.rand(3, 8, 10, generator=torch.Generator().manual_seed(2))
    for size in ([2, 1], [7, 1]):
        want = TF.resize(x, size)
        got = NF.resize(numtorch.from_numpy(x.numpy().copy()), size)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=2e-7)
