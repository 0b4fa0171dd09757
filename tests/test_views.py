"""View semantics against torch: which results share memory, strides, storage offsets, version
counters, contiguity, and writes through views in both directions."""

import numpy as np
import pytest
import torch

import numtorch


def _base(lib):
    return lib.arange(24.0, dtype=lib.float64).reshape(2, 3, 4)


def _np(x):
    return np.array(x.detach().numpy(), copy=True)


# (id, view maker (lib, base) -> view of base). Each one shares memory with base in torch.
VIEWS = [
    ("basic-int", lambda t, b: b[1]),
    ("basic-int-neg", lambda t, b: b[:, -1]),
    ("basic-slice", lambda t, b: b[:, 1:, ::2]),
    ("basic-slice-step-size1", lambda t, b: b[:, ::3]),
    ("basic-slice-offset", lambda t, b: b[1, 1:3, 2:]),
    ("basic-none", lambda t, b: b[:, None, 1]),
    ("basic-none-front", lambda t, b: b[None]),
    ("basic-none-end", lambda t, b: b[..., None]),
    ("basic-none-t", lambda t, b: b[0].t()[:, None, None]),
    ("basic-ellipsis", lambda t, b: b[..., 2]),
    ("basic-zero-d", lambda t, b: b[1, 2, 3]),
    ("basic-zero-d-tensor-index", lambda t, b: b[t.tensor(1)]),
    ("view", lambda t, b: b.view(6, 4)),
    ("view-size1", lambda t, b: b.view(2, 1, 12, 1)),
    ("view-of-slice", lambda t, b: b[1].view(12)),
    ("view-of-slice-size1", lambda t, b: b[:, 1:2].view(2, 4, 1)),
    ("view-as", lambda t, b: b.view_as(t.zeros(4, 6))),
    ("reshape-contig", lambda t, b: b.reshape(4, 6)),
    ("reshape-possible", lambda t, b: b[:, 1].reshape(2, 2, 2)),
    ("reshape-split-noncontig", lambda t, b: b.transpose(1, 2).reshape(2, 2, 2, 3)),
    ("transpose", lambda t, b: b.transpose(0, 2)),
    ("transpose-neg", lambda t, b: b.transpose(-1, -2)),
    ("swapaxes", lambda t, b: b.swapaxes(0, 1)),
    ("permute", lambda t, b: b.permute(2, 0, 1)),
    ("t", lambda t, b: b[0].t()),
    ("T", lambda t, b: b[0].T),
    ("mT", lambda t, b: b.mT),
    ("movedim", lambda t, b: b.movedim(0, -1)),
    ("expand", lambda t, b: b[:, :1].expand(2, 5, 4)),
    ("expand-lead", lambda t, b: b[0, 0].expand(3, 4)),
    ("expand-same-size1", lambda t, b: b[:, :1].expand(2, 1, 4)),
    ("expand-new-size1", lambda t, b: b[0, 0].expand(1, 4)),
    ("expand-as", lambda t, b: b[0, :, :1].expand_as(b[0])),
    ("broadcast-to", lambda t, b: t.broadcast_to(b[0, 1], (2, 4))),
    ("narrow", lambda t, b: b.narrow(2, 1, 2)),
    ("narrow-dim0", lambda t, b: b.narrow(0, 1, 1)),
    ("squeeze", lambda t, b: b[:, :1].squeeze()),
    ("squeeze-dim", lambda t, b: b[:, 1:2].squeeze(1)),
    ("squeeze-noop", lambda t, b: b.squeeze(0)),
    ("squeeze-t", lambda t, b: b[:, :1].transpose(0, 2).squeeze(1)),
    ("unsqueeze", lambda t, b: b.unsqueeze(1)),
    ("unsqueeze-end", lambda t, b: b.unsqueeze(-1)),
    ("unsqueeze-t-end", lambda t, b: b.transpose(0, 2).unsqueeze(3)),
    ("unsqueeze-t-mid", lambda t, b: b.transpose(0, 2).unsqueeze(1)),
    ("flatten-contig", lambda t, b: b.flatten()),
    ("flatten-partial", lambda t, b: b[:, 1:].flatten(1)),
    ("unflatten", lambda t, b: b[:, 1:].unflatten(2, (2, 2))),
    ("select", lambda t, b: b.select(1, 2)),
    ("select-neg", lambda t, b: b.select(-1, 0)),
    ("unfold", lambda t, b: b.unfold(2, 2, 2)),
    ("unfold-overlap", lambda t, b: b.unfold(2, 3, 1)),
    ("unfold-gap", lambda t, b: b.unfold(1, 1, 2)),
    ("split-0", lambda t, b: b.split(2, 2)[0]),
    ("split-1", lambda t, b: b.split([1, 2], 1)[1]),
    ("chunk", lambda t, b: b.chunk(3, 1)[2]),
    ("chunk-uneven", lambda t, b: b.chunk(3, 2)[1]),
    ("unbind", lambda t, b: b.unbind(2)[3]),
    ("unbind-0", lambda t, b: b.unbind()[1]),
    ("diag-like", lambda t, b: b[0].t()[1:, :2]),
    ("view-dtype", lambda t, b: b.view(t.int64)),
    ("chain", lambda t, b: b.permute(1, 0, 2)[1:].unsqueeze(0).flatten(0, 1)[:, 1]),
]


def _both(make):
    return make(numtorch, _base(numtorch)), make(torch, _base(torch))


@pytest.mark.parametrize("name,make", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_strides_offset_and_contiguity_match_torch(name, make):
    nb, tb = _base(numtorch), _base(torch)
    nv, tv = make(numtorch, nb), make(torch, tb)
    assert tuple(nv.shape) == tuple(tv.shape)
    assert nv.stride() == tv.stride()
    assert nv.storage_offset() == tv.storage_offset()
    assert nv.is_contiguous() == tv.is_contiguous()
    if tv.dim():
        assert [nv.stride(d) for d in range(-tv.dim(), tv.dim())] == \
            [tv.stride(d) for d in range(-tv.dim(), tv.dim())]
    np.testing.assert_array_equal(_np(nv), _np(tv))


@pytest.mark.parametrize("name,make", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_shares_memory_with_base(name, make):
    for lib in (numtorch, torch):
        b = _base(lib)
        v = make(lib, b)
        if name != "view-dtype":  # torch's dtype view is an alias outside autograd
            assert v._base is (b if b._base is None else b._base)
        if lib is numtorch:
            assert np.shares_memory(v._array, b._array)


# internal overlap: torch refuses writes
_NO_WRITE = ("expand", "expand-lead", "expand-as", "broadcast-to", "unfold-overlap")


@pytest.mark.parametrize("name,make", [v for v in VIEWS if not v[0] in _NO_WRITE],
                         ids=[v[0] for v in VIEWS if not v[0] in _NO_WRITE])
def test_write_through_view_is_seen_by_base_and_back(name, make):
    results = []
    for lib in (numtorch, torch):
        b = _base(lib)
        v = make(lib, b)
        v.add_(100)
        seen_by_base = _np(b)
        b.mul_(-1)
        seen_by_view = _np(v)
        results.append((seen_by_base, seen_by_view, b._version, v._version))
    for a, e in zip(results[0], results[1]):
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("name,make", [v for v in VIEWS if not v[0] in _NO_WRITE],
                         ids=[v[0] for v in VIEWS if not v[0] in _NO_WRITE])
def test_setitem_through_view_is_seen_by_base(name, make):
    results = []
    for lib in (numtorch, torch):
        b = _base(lib)
        v = make(lib, b)
        v[...] = 0 if v.dtype.is_floating_point else 5
        results.append((_np(b), b._version, v._version))
    for a, e in zip(results[0], results[1]):
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("name,make", [v for v in VIEWS if v[0] in _NO_WRITE],
                         ids=[v[0] for v in VIEWS if v[0] in _NO_WRITE])
def test_write_into_overlapping_view_raises(name, make):
    libs = (numtorch,) if name == "unfold-overlap" else (numtorch, torch)
    # torch only detects stride-0 overlap; numtorch also refuses overlapping windows, whose
    # in-place result in torch depends on the kernel's loop order
    for lib in libs:
        with pytest.raises(RuntimeError, match="unsupported operation: more than one element"):
            make(lib, _base(lib)).add_(1)


def test_setitem_into_expanded_view_raises():
    for lib in (numtorch, torch):
        x = lib.zeros(3, 1).expand(3, 4)
        with pytest.raises(RuntimeError, match="unsupported operation"):
            x[0] = 1.0
        with pytest.raises(RuntimeError, match="unsupported operation"):
            x.mul_(2)


# (id, maker) of results that torch copies: writes do not reach the source
COPIES = [
    ("adv-index", lambda t, b: b[[0, 1]]),
    ("adv-index-tensor", lambda t, b: b[:, t.tensor([2, 0])]),
    ("bool-mask", lambda t, b: b[b > 5]),
    ("bool-rows", lambda t, b: b[t.tensor([True, False])]),
    ("flip", lambda t, b: b.flip(0)),
    ("roll", lambda t, b: b.roll(1, 2)),
    ("reshape-copy", lambda t, b: b.transpose(0, 1).reshape(-1)),
    ("flatten-copy", lambda t, b: b.transpose(0, 2).flatten()),
    ("contiguous-of-t", lambda t, b: b.transpose(0, 1).contiguous()),
    ("clone", lambda t, b: b.clone()),
    ("repeat", lambda t, b: b.repeat(1, 1, 1)),
    ("cat", lambda t, b: t.cat([b])),
    ("index-select", lambda t, b: b.index_select(0, t.tensor([1]))),
    ("masked-select", lambda t, b: b.masked_select(b > 3)),
    ("gather", lambda t, b: b.gather(2, t.zeros(2, 3, 1, dtype=t.int64))),
    ("to-float32", lambda t, b: b.float()),
]


@pytest.mark.parametrize("name,make", COPIES, ids=[c[0] for c in COPIES])
def test_copy_results_do_not_share_memory(name, make):
    results = []
    for lib in (numtorch, torch):
        b = _base(lib)
        c = make(lib, b)
        before = _np(b)
        c.add_(1000)
        np.testing.assert_array_equal(_np(b), before)
        b.sub_(1)
        results.append((_np(c), c.stride(), c.storage_offset(), c.is_contiguous(), b._version,
                        c._version))
        if lib is numtorch:
            assert not np.shares_memory(c._array, b._array)
    for a, e in zip(results[0], results[1]):
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("make", [
    lambda t: t.zeros(3, 4),
    lambda t: t.zeros(3, 4).t(),
    lambda t: t.zeros(3, 4)[:, ::2],
    lambda t: t.zeros(3, 1),
    lambda t: t.zeros(3, 1).t(),
    lambda t: t.zeros(1, 4)[:, 1:2],
    lambda t: t.zeros(2, 3, 4).permute(0, 2, 1),
    lambda t: t.zeros(3, 1).expand(3, 4),
    lambda t: t.zeros(0, 3),
    lambda t: t.zeros(()),
], ids=["contig", "t", "step", "col", "col-t", "single", "permuted", "expanded", "empty",
        "scalar"])
def test_contiguous_matches_torch(make):
    nx, tx = make(numtorch), make(torch)
    assert nx.is_contiguous() == tx.is_contiguous()
    assert nx.stride() == tx.stride()
    nc, tc = nx.contiguous(), tx.contiguous()
    assert (nc is nx) == (tc is tx)
    assert nc.is_contiguous() and tc.is_contiguous()
    assert nc.stride() == tc.stride()
    assert nc.storage_offset() == tc.storage_offset()


# torch orders windows that overlap (equal strides) by size; NumPy's order "K" does not
_CLONE_VIEWS = [v for v in VIEWS if v[0] != "unfold-overlap"]


@pytest.mark.parametrize("name,make", _CLONE_VIEWS, ids=[v[0] for v in _CLONE_VIEWS])
def test_clone_keeps_memory_layout_like_torch(name, make):
    nc, tc = make(numtorch, _base(numtorch)).clone(), make(torch, _base(torch)).clone()
    assert nc.stride() == tc.stride()
    assert nc.is_contiguous() == tc.is_contiguous()
    assert nc.storage_offset() == tc.storage_offset() == 0
    np.testing.assert_array_equal(_np(nc), _np(tc))
    nc2 = numtorch.clone(make(numtorch, _base(numtorch)), memory_format="contiguous_format")
    assert nc2.is_contiguous()


@pytest.mark.parametrize("make", [
    lambda t: t.zeros(3, 1, 4), lambda t: t.zeros(1, 1), lambda t: t.ones(4, 1),
    lambda t: t.empty(2, 0, 3), lambda t: t.arange(6).reshape(1, 6, 1),
    lambda t: t.zeros(0), lambda t: t.tensor(2.0), lambda t: t.zeros(2, 3, 4) + 1,
], ids=["mid-1", "all-1", "end-1", "empty", "arange-1s", "empty-1d", "scalar", "op-result"])
def test_fresh_tensor_strides_match_torch(make):
    nx, tx = make(numtorch), make(torch)
    assert nx.stride() == tx.stride()
    assert nx.storage_offset() == tx.storage_offset() == 0
    assert nx.is_contiguous() == tx.is_contiguous()


def test_stride_dim_argument_and_errors_match_torch():
    nx, tx = numtorch.zeros(2, 3), torch.zeros(2, 3)
    assert nx.stride(0) == tx.stride(0) and nx.stride(-1) == tx.stride(-1)
    for lib in (numtorch, torch):
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.zeros(2, 3).stride(2)


def test_data_shares_memory_but_not_version():
    for lib in (numtorch, torch):
        x = lib.arange(6.0)
        d = x.data
        d.add_(1)
        assert x[0].item() == 1.0
        assert x._version == 0 and d._version == 1
        x.mul_(2)
        assert d[1].item() == 4.0


def test_data_of_view_keeps_strides_and_offset():
    for lib, other in ((numtorch, torch),):
        a, b = lib.arange(12.0).reshape(3, 4)[1:, ::2], other.arange(12.0).reshape(3, 4)[1:, ::2]
        assert a.data.stride() == b.data.stride()
        assert a.data.storage_offset() == b.data.storage_offset()
        assert a.detach().stride() == b.detach().stride()
        assert a.detach().storage_offset() == b.detach().storage_offset()


def test_detach_shares_memory_and_version():
    for lib in (numtorch, torch):
        x = lib.arange(6.0, requires_grad=True)
        y = x * 1
        d = y.detach()
        d.add_(1)
        assert y[0].item() == 1.0
        assert y._version == 1 == d._version
        assert not d.requires_grad
        y.mul_(2)
        assert d[1].item() == 4.0 and d._version == 2


def test_detach_of_leaf_writes_reach_leaf():
    for lib in (numtorch, torch):
        x = lib.zeros(3, requires_grad=True)
        x.detach()[1] = 5.0
        assert x[1].item() == 5.0
        assert x._version == 1


def test_from_numpy_and_numpy_share_memory():
    a = np.arange(6.0).reshape(2, 3)
    x = numtorch.from_numpy(a)
    a[0, 0] = 42.0
    assert x[0, 0].item() == 42.0
    x[1, 2] = -1.0
    assert a[1, 2] == -1.0
    n = x.numpy()
    assert np.shares_memory(n, a)
    x.add_(1)
    assert n[0, 0] == 43.0
    v = x.t()
    assert np.shares_memory(v.numpy(), a)
    v.numpy()[0, 1] = 7.0
    assert a[1, 0] == 7.0


def test_from_numpy_view_matches_torch_strides():
    a = np.arange(24.0).reshape(2, 3, 4)
    for view in (a.transpose(2, 0, 1), a[:, ::2], a[:, :1]):
        nx, tx = numtorch.from_numpy(view), torch.from_numpy(view)
        assert nx.stride() == tx.stride()
        assert nx.is_contiguous() == tx.is_contiguous()


def test_numpy_of_view_writes_base():
    for lib in (numtorch, torch):
        b = lib.zeros(3, 4)
        b[1:, ::2].numpy()[...] = 3.0
        assert b.sum().item() == 12.0


def test_version_counter_shared_by_base_and_all_views():
    res = []
    for lib in (numtorch, torch):
        b = lib.zeros(3, 4)
        v1, v2 = b[0], b.t()
        v3 = v2.unsqueeze(0)
        v1.add_(1)
        b[2] = 4.0
        v3.mul_(2)
        c = b.clone()
        c.add_(1)
        res.append((b._version, v1._version, v2._version, v3._version, c._version))
    assert res[0] == res[1]


def test_version_unchanged_by_out_of_place_ops_and_views():
    res = []
    for lib in (numtorch, torch):
        b = lib.zeros(3, 4)
        _ = b + 1, b.t(), b[0], b.view(12), b.reshape(2, 6), b.expand(2, 3, 4)
        res.append(b._version)
    assert res[0] == res[1] == 0


def test_inplace_metadata_ops_match_torch():
    res = []
    for lib in (numtorch, torch):
        x = lib.arange(12.0).reshape(3, 4)
        x.t_()
        a = (tuple(x.shape), x.stride())
        x.unsqueeze_(1)
        b = (tuple(x.shape), x.stride())
        x.squeeze_()
        x.transpose_(0, 1)
        c = (tuple(x.shape), x.stride(), x.is_contiguous())
        res.append((a, b, c))
    assert res[0] == res[1]


def test_views_of_nonleaf_propagate_gradient_after_write():
    grads = []
    for lib in (numtorch, torch):
        x = lib.arange(6.0, dtype=lib.float64, requires_grad=True)
        y = x * 2
        v = y.view(2, 3)[:, 1:]
        v.mul_(3)
        y.sum().backward()
        grads.append(x.grad.numpy().copy())
    np.testing.assert_array_equal(grads[0], grads[1])
