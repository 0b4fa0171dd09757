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
