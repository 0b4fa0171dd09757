"""Session 51b: the layout of pow results. torch keeps a permuted input's layout for
``x.pow(p)`` with any number p, and returns ``number ** x`` row-major. numtorch's float32
and general-exponent paths came back row-major (so v2 adjust_gamma of an HWC image permuted
to CHW gave (99, 11, 1) where torchvision gives (1, 33, 3)), and ``2 ** x`` kept x's layout.
Oracle: torch / torchvision at test time."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision.transforms import v2 as tv_v2

import numtorch
from numtorchvision.transforms import v2 as nt_v2

_HWC = (np.arange(9 * 11 * 3) % 251).astype(np.float32).reshape(9, 11, 3) / 251


def _pair(dtype="float32"):
    return (torch.from_numpy(_HWC.copy()).permute(2, 0, 1).to(getattr(torch, dtype)),
            numtorch.from_numpy(_HWC.copy()).permute(2, 0, 1).to(getattr(numtorch, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("p", [0.8, 0, -1, 2.5, 1, 2, 3, 0.5, -0.5, -2])
def test_pow_number_keeps_layout(p, dtype):
    t, n = _pair(dtype)
    want, got = t.pow(p), n.pow(p)
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=2e-6, atol=0)


@pytest.mark.parametrize("base", [2, 3, 2.5])
def test_number_pow_tensor_is_row_major(base):
    t, n = _pair()
    t.requires_grad_()
    n.requires_grad_()
    want, got = base ** t, base ** n
    assert got.stride() == want.stride()
    assert got.grad_fn.name() == want.grad_fn.name()
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    want.sum().backward()
    got.sum().backward()
    assert n.grad.stride() == t.grad.stride()


@pytest.mark.parametrize("gain", [1.0, 1.2])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_v2_adjust_gamma_layout(dtype, gain):
    t, n = _pair()
    if dtype == "uint8":
        t, n = (t * 255).to(torch.uint8), (n * 255).to(numtorch.uint8)
    want = tv_v2.functional.adjust_gamma(t, 0.8, gain)
    got = nt_v2.functional.adjust_gamma(n, 0.8, gain)
    assert got.stride() == want.stride()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-6)
