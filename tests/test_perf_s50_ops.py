"""Session 50 (perfops): fast paths of single ops, checked against real torch at test time
(correctness only, nothing timed).

- ``topk`` of long lines selects among the values past a threshold read off a strided
  sample of each line (ops/sorting._topk_sampled); lines with ties still take the full path
  and torch's tie rule.
"""

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import sorting


def _np(t):
    return t.detach().cpu().numpy()


def _topk_cases():
    rng = np.random.default_rng(0)
    n = 65536
    tied = rng.integers(0, 40, n).astype(np.float32)
    nan1 = rng.standard_normal(n).astype(np.float32)
    nan1[123] = np.nan
    nans = rng.standard_normal(n).astype(np.float32)
    nans[[5, 999, 40000]] = np.nan
    top_tie = rng.standard_normal(n).astype(np.float64)
    top_tie[[10, 20]] = 9.0
    return {
        "f32": rng.standard_normal(n).astype(np.float32),
        "f64": rng.standard_normal(n),
        "i64_perm": rng.permutation(n).astype(np.int64),
        "i32_perm": (rng.permutation(n) - 30000).astype(np.int32),
        "u8_ties": rng.integers(0, 255, n).astype(np.uint8),
        "f16": rng.standard_normal(n).astype(np.float16),
        "sorted": np.sort(rng.standard_normal(n).astype(np.float32)),
        "tied": tied, "nan1": nan1, "nans": nans, "top_tie": top_tie,
        "nan_many": np.where(rng.random(n) < 0.4, np.nan, rng.standard_normal(n)).astype(
            np.float32),
        "inf": np.where(rng.random(n) < 0.01, np.inf, rng.standard_normal(n)).astype(np.float32),
    }


_TOPK = _topk_cases()


@pytest.mark.parametrize("name", list(_TOPK))
@pytest.mark.parametrize("k", [1, 37, 1024])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
def test_topk_long_line_matches_torch(name, k, largest, sorted_):
    a = _TOPK[name]
    v, i = numtorch.topk(numtorch.from_numpy(a.copy()), k, largest=largest, sorted=sorted_)
    tv, ti = torch.topk(torch.from_numpy(a.copy()), k, largest=largest, sorted=sorted_)
    assert v.dtype == numtorch.from_numpy(a[:1]).dtype and i.dtype == numtorch.int64
    np.testing.assert_array_equal(_np(v), tv.numpy())
    np.testing.assert_array_equal(_np(i), ti.numpy())


@pytest.mark.parametrize("shape,dim", [((1, 65536), 1), ((65536, 1), 0), ((1, 65536, 1), -2)])
def test_topk_one_line_shapes_and_grad(shape, dim):
    a = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    x = numtorch.from_numpy(a.copy()).requires_grad_(True)
    tx = torch.from_numpy(a.copy()).requires_grad_(True)
    v, i = numtorch.topk(x, 50, dim=dim)
    tv, ti = torch.topk(tx, 50, dim=dim)
    assert tuple(v.shape) == tuple(tv.shape) and tuple(i.shape) == tuple(ti.shape)
    np.testing.assert_array_equal(_np(i), ti.numpy())
    w = np.random.default_rng(4).standard_normal(tuple(tv.shape)).astype(np.float32)
    (v * numtorch.from_numpy(w)).sum().backward()
    (tv * torch.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), tx.grad.numpy())
    assert v.grad_fn.name() == tv.grad_fn.name()


def test_topk_strided_line_and_out():
    a = np.random.default_rng(5).standard_normal(200000).astype(np.float32)
    x = numtorch.from_numpy(a.copy())[::3]
    tx = torch.from_numpy(a.copy())[::3]
    ov, oi = numtorch.empty(0), numtorch.empty(0, dtype=numtorch.int64)
    numtorch.topk(x, 64, out=(ov, oi))
    tv, ti = torch.topk(tx, 64)
    np.testing.assert_array_equal(_np(ov), tv.numpy())
    np.testing.assert_array_equal(_np(oi), ti.numpy())


def test_topk_fast_path_is_taken_and_declines_ties():
    a = np.random.default_rng(6).standard_normal(65536).astype(np.float32)
    got = sorting._topk_sampled(a, 0, 10, True)
    assert got is not None and np.array_equal(got, np.argsort(-a, kind="stable")[:10])
    b = a.copy()
    b[[1, 2]] = 50.0  # the two largest tie
    assert sorting._topk_sampled(b, 0, 10, True) is None
    assert sorting._topk_sampled(a.reshape(2, -1), 1, 10, True) is not None  # two lines


def test_topk_long_line_on_device(device):
    a = np.random.default_rng(7).standard_normal(65536).astype(np.float32)
    v, i = numtorch.topk(numtorch.from_numpy(a.copy()).to(device), 100)
    tv, ti = torch.topk(torch.from_numpy(a.copy()), 100)
    np.testing.assert_array_equal(_np(v), tv.numpy())
    np.testing.assert_array_equal(_np(i), ti.numpy())


def _multi_cases():
    rng = np.random.default_rng(8)
    tied_row = rng.standard_normal((4, 9000)).astype(np.float32)
    tied_row[2, [3, 4]] = 7.0
    nan_rows = rng.standard_normal((3, 20000)).astype(np.float32)
    nan_rows[1, ::5] = np.nan
    return {
        "logits": (rng.standard_normal((16, 50257)).astype(np.float32), -1),
        "vocab_dim0": (rng.standard_normal((32000, 3)).astype(np.float32), 0),
        "f64_3d": (rng.standard_normal((2, 3, 10000)), 2),
        "i64": (rng.integers(-10**9, 10**9, (5, 40000)), 1),
        "tied_row": (tied_row, 1),
        "nan_rows": (nan_rows, 1),
        "transposed": (rng.standard_normal((9000, 6)).astype(np.float32).T, 1),
    }


_MULTI = _multi_cases()


@pytest.mark.parametrize("name", list(_MULTI))
@pytest.mark.parametrize("k", [1, 50])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_many_long_lines_matches_torch(name, k, largest):
    a, dim = _MULTI[name]
    v, i = numtorch.topk(numtorch.from_numpy(a.copy(order="K")), k, dim=dim, largest=largest)
    tv, ti = torch.topk(torch.from_numpy(a.copy(order="K")), k, dim=dim, largest=largest)
    assert tuple(i.shape) == tuple(ti.shape) and i.stride() == ti.stride()
    np.testing.assert_array_equal(_np(v), tv.numpy())
    np.testing.assert_array_equal(_np(i), ti.numpy())


# -- grid_sample: bilinear weights built as arrays when no gradient reaches the grid ----------

@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sample_fixed_grid_matches_torch(padding_mode, align_corners, dims):
    rng = np.random.default_rng(dims * 10 + align_corners)
    shape = (2, 3, 6, 7) if dims == 2 else (2, 2, 4, 5, 6)
    gshape = (2, 5, 4, 2) if dims == 2 else (2, 3, 4, 2, 3)
    x = rng.standard_normal(shape).astype(np.float32)
    grid = (rng.random(gshape) * 2.4 - 1.2).astype(np.float32)
    nx = numtorch.from_numpy(x.copy()).requires_grad_(True)
    tx = torch.from_numpy(x.copy()).requires_grad_(True)
    out = numtorch.nn.functional.grid_sample(nx, numtorch.from_numpy(grid.copy()),
                                             padding_mode=padding_mode,
                                             align_corners=align_corners)
    tout = torch.nn.functional.grid_sample(tx, torch.from_numpy(grid.copy()),
                                           padding_mode=padding_mode,
                                           align_corners=align_corners)
    np.testing.assert_allclose(_np(out), tout.detach().numpy(), rtol=2e-5, atol=2e-6)
    w = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
    (out * numtorch.from_numpy(w)).sum().backward()
    (tout * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(_np(nx.grad), tx.grad.numpy(), rtol=2e-5, atol=2e-6)
    assert out.grad_fn.name() == tout.grad_fn.name()


def test_grid_sample_fixed_grid_on_device(device):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    grid = (rng.random((2, 4, 4, 2)) * 2 - 1).astype(np.float32)
    grid[0, 0, 0] = [1.0, -1.0]  # an edge
    nx = numtorch.from_numpy(x.copy()).to(device).requires_grad_(True)
    tx = torch.from_numpy(x.copy()).requires_grad_(True)
    out = numtorch.nn.functional.grid_sample(nx, numtorch.from_numpy(grid.copy()).to(device),
                                             align_corners=False)
    tout = torch.nn.functional.grid_sample(tx, torch.from_numpy(grid.copy()),
                                           align_corners=False)
    np.testing.assert_allclose(_np(out), tout.detach().numpy(), rtol=2e-5, atol=2e-6)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(_np(nx.grad), tx.grad.numpy(), rtol=2e-5, atol=2e-6)


def test_grid_sample_grid_grad_and_forward_ad_keep_the_graph():
    """A grid that requires grad, or carries a forward-AD tangent, keeps the differentiable
    weights (the array weights are only for a fixed grid)."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((1, 2, 5, 6))
    grid = rng.random((1, 3, 4, 2)) * 2 - 1
    tan = rng.standard_normal(grid.shape)
    ng = numtorch.from_numpy(grid.copy()).requires_grad_(True)
    tg = torch.from_numpy(grid.copy()).requires_grad_(True)
    numtorch.nn.functional.grid_sample(numtorch.from_numpy(x), ng, align_corners=True).sum(
        ).backward()
    torch.nn.functional.grid_sample(torch.from_numpy(x), tg, align_corners=True).sum().backward()
    np.testing.assert_allclose(_np(ng.grad), tg.grad.numpy(), rtol=1e-9, atol=1e-9)
    # torch has no forward AD for grid_sample: its central difference (bilinear sampling is
    # linear inside a cell) is the oracle for numtorch's tangent
    fwAD = numtorch.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(numtorch.from_numpy(grid.copy()), numtorch.from_numpy(tan.copy()))
        y = numtorch.nn.functional.grid_sample(numtorch.from_numpy(x.copy()), dual,
                                               align_corners=True)
        got = fwAD.unpack_dual(y).tangent
    eps = 1e-7
    f = [torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid + s * tan),
                                         align_corners=True) for s in (eps, -eps)]
    np.testing.assert_allclose(_np(got), ((f[0] - f[1]) / (2 * eps)).numpy(), rtol=1e-5,
                               atol=1e-6)
