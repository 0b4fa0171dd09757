"""2-norms summed in torch's CPU order (lanes of 32 bytes, then lanes and tail one by one):
``x.norm().item()`` and clip_grad_norm_'s total print torch's last digit. Bits compared with
torch at test time."""

import numpy as np
import pytest
import torch

import numtorch


def _pair(arr):
    return torch.from_numpy(arr.copy()), numtorch.from_numpy(arr.copy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_and_row_norms_match_torch_bits(dtype):
    rng = np.random.default_rng(41)
    for _ in range(40):
        n = int(rng.integers(1, 3000))
        t, u = _pair((rng.standard_normal((3, n)) * 10).astype(dtype))
        for fn in (lambda lib, x: lib.linalg.vector_norm(x), lambda lib, x: x.norm(dim=1),
                   lambda lib, x: lib.linalg.vector_norm(x, dim=-1, keepdim=True),
                   lambda lib, x: x[0].norm(), lambda lib, x: x.t().norm(),
                   lambda lib, x: lib.linalg.norm(x), lambda lib, x: x.norm(dim=0)):
            want, got = fn(torch, t), fn(numtorch, u)
            assert got.shape == want.shape
            assert got.tolist() == want.tolist()


def test_permuted_and_zero_d_inputs():
    rng = np.random.default_rng(7)
    t, u = _pair(rng.standard_normal((4, 5, 37)).astype(np.float32))
    assert u.permute(2, 0, 1).norm().item() == t.permute(2, 0, 1).norm().item()
    assert numtorch.linalg.vector_norm(u.permute(2, 0, 1), dim=(1, 2)).tolist() == \
        torch.linalg.vector_norm(t.permute(2, 0, 1), dim=(1, 2)).tolist()
    assert str(numtorch.tensor(-3.0).norm()) == str(torch.tensor(-3.0).norm())
    assert str(numtorch.zeros(0, 3).norm(dim=1)) == str(torch.zeros(0, 3).norm(dim=1))


def test_norm_grad_unchanged():
    a = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    t, u = _pair(a)
    t.requires_grad_(), u.requires_grad_()
    t.norm(dim=1).sum().backward()
    u.norm(dim=1).sum().backward()
    np.testing.assert_allclose(u.grad.numpy(), t.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_grad_norm_total_matches_torch_bits(dtype):
    rng = np.random.default_rng(3)
    for _ in range(30):
        shapes = [tuple(int(s) for s in rng.integers(1, 40, rng.integers(1, 3)))
                  for _ in range(int(rng.integers(1, 5)))]
        grads = [(rng.standard_normal(s) * 10.0 ** rng.integers(-3, 4)).astype(dtype)
                 for s in shapes]
        totals = []
        for lib in (torch, numtorch):
            params = [lib.nn.Parameter(lib.zeros(s, dtype=getattr(lib, np.dtype(dtype).name)))
                      for s in shapes]
            for p, g in zip(params, grads):
                p.grad = lib.from_numpy(g.copy())
            total = lib.nn.utils.clip_grad_norm_(params, 1.0)
            totals.append((total.item(), [p.grad.tolist() for p in params],
                           lib.nn.utils.get_total_norm([lib.from_numpy(g) for g in grads]).item()))
        assert totals[1] == totals[0]
