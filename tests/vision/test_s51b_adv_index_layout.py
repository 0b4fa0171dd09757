"""Session 51b: the memory layout of advanced-indexing results on permuted / strided inputs.
torch lays ``x[..., idx, ...]`` out from one elementwise pass whose index operands are views
with size-1 dims around the index; where the result also has size 1 there (a batch dim of 1
from ``[None]``), that view's stride ranks the dims. numtorch ranked those dims as broadcast,
so ``from_numpy(hwc).permute(2, 0, 1)[None][:, [2, 0, 1]]`` came out with strides
(1, 17, 51, 1) where torch gives row-major, and a later ``.view`` failed only in numtorch
(v2 permute_channels). Oracle: torch / torchvision at test time."""

import numpy as np
import pytest
import torch
import torchvision  # noqa: F401  (imported by conftest with register_fake patched)
from torchvision.transforms import v2 as tv_v2

import numtorch
from numtorchvision.transforms import v2 as nt_v2


def _hwc_pair(h=17, w=13, c=3):
    a = np.arange(h * w * c, dtype=np.float32).reshape(h, w, c)
    return (torch.from_numpy(a.copy()).permute(2, 0, 1)[None],
            numtorch.from_numpy(a.copy()).permute(2, 0, 1)[None])


_CASES = {
    "ellipsis_ch": lambda x, m: x[..., m([2, 0, 1]), :, :],
    "ch": lambda x, m: x[:, m([2, 0, 1])],
    "h": lambda x, m: x[:, :, m([3, 1])],
    "w": lambda x, m: x[..., m([3, 1])],
    "hw": lambda x, m: x[:, :, m([3, 1]), m([2, 2])],
    "c_w": lambda x, m: x[:, m([0, 1]), :, m([3, 1])],
    "batch": lambda x, m: x[m([0, 0])],
    "ch_2d": lambda x, m: x[:, m([[2, 0], [1, 1]])],
    "ch_none": lambda x, m: x[:, m([2, 0, 1]), None],
    "ch_slice": lambda x, m: x[:, m([2, 0, 1]), 1:9:2],
}


@pytest.mark.parametrize("kind", ["list", "tensor"])
@pytest.mark.parametrize("case", sorted(_CASES))
def test_permuted_hwc_index_strides(case, kind):
    t, n = _hwc_pair()
    tm = (lambda v: v) if kind == "list" else torch.tensor
    nm = (lambda v: v) if kind == "list" else numtorch.tensor
    want = _CASES[case](t, tm)
    got = _CASES[case](n, nm)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    assert got.is_contiguous() == want.is_contiguous()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_permuted_hwc_mask_strides():
    t, n = _hwc_pair()
    want = t[:, torch.tensor([True, False, True])]
    got = n[:, numtorch.tensor([True, False, True])]
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_permuted_hwc_index_then_view():
    t, n = _hwc_pair()
    want = t[:, [2, 0, 1]].view(3, -1)
    got = n[:, [2, 0, 1]].view(3, -1)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_v2_permute_channels_layout():
    t, n = _hwc_pair()
    want = tv_v2.functional.permute_channels(t, [2, 0, 1])
    got = nt_v2.functional.permute_channels(n, [2, 0, 1])
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def _sweep_cases():
    out = []
    for shape in [(1, 3, 4, 5), (2, 1, 4, 1), (1, 1, 3, 4)]:
        for perm in [(0, 2, 3, 1), (3, 1, 0, 2), (1, 0, 2, 3)]:
            for dims in [(0,), (1,), (2,), (3,), (1, 2), (0, 3), (1, 3)]:
                out.append((shape, perm, dims))
    return out


@pytest.mark.parametrize("shape,perm,dims", _sweep_cases(),
                         ids=lambda v: "x".join(map(str, v)))
def test_permuted_index_sweep(shape, perm, dims):
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = torch.from_numpy(base.copy()).permute(*perm)
    n = numtorch.from_numpy(base.copy()).permute(*perm)
    idx = [slice(None)] * 4
    for d in dims:
        k = t.shape[d]
        idx[d] = [k - 1, 0] if k > 1 else [0, 0]
    want = t[tuple(idx)]
    got = n[tuple(idx)]
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())




# None next to an advanced index: torch unsqueezes the input first, so the new dim's stride is
# the next dim's extent (NumPy gives 0) and it ranks the result's dims
_NONE_CASES = [
    ((4, 4, 1), (1, 2, 0), (slice(None), [0, 0, 0], None)),
    ((2, 2, 4, 3), (1, 2, 0, 3), (slice(None), None, [0, 0], None)),
    ((1, 4, 3, 2), (0, 3, 2, 1), (slice(None), slice(None), [1, 0, 0], None)),
    ((2, 4, 3), (1, 2, 0), (slice(None), [2, 0], None)),
    ((3, 4, 5), (2, 0, 1), (None, [1, 0], slice(None), None)),
    ((3, 4, 5), (2, 0, 1), ([1, 0], None, [2, 2])),
]


@pytest.mark.parametrize("shape,perm,index", _NONE_CASES, ids=[f"c{i}" for i in range(6)])
def test_none_next_to_advanced_index(shape, perm, index):
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = torch.from_numpy(base.copy()).permute(*perm)[index]
    got = numtorch.from_numpy(base.copy()).permute(*perm)[index]
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
