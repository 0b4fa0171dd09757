"""The small ops of a ``get_batch`` loop, against torch: iterating a tensor, ``i + n`` on a
0-d long tensor, slices with tensor bounds, ``stack`` of many small rows, ``concatenate``.

Each has a fast path (see ops/indexing.py, ops/join.py, autograd/graph.py's _promote); these
tests pin that the fast paths give torch's values, dtypes, strides, views and errors.
"""

import operator

import numpy as np
import pytest
import torch

import numtorch
from numtorch.ops import indexing

LIBS = (numtorch, torch)


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("bound", ["float", "float_tensor", "np_float", "bool_tensor",
                                   "np_int", "one_elem_tensor", "uint8_tensor", "bool"])
@pytest.mark.parametrize("where", ["start", "stop", "step"])
def test_slice_bounds_as_torch(bound, where):
    def make(lib):
        return {"float": 1.0, "float_tensor": lib.tensor(1.), "np_float": np.float64(1.0),
                "bool_tensor": lib.tensor(True), "np_int": np.int64(2),
                "one_elem_tensor": lib.tensor([2]), "uint8_tensor": lib.tensor(2, dtype=lib.uint8),
                "bool": True}[bound]

    results = []
    for lib in LIBS:
        d = lib.arange(10)
        b = make(lib)
        sl = {"start": slice(b, 7), "stop": slice(1, b), "step": slice(1, 9, b)}[where]
        err = _raised(lambda: d[sl])
        results.append(err if err else d[sl].tolist())
        d2 = lib.zeros(10, dtype=lib.long)
        err = _raised(lambda: d2.__setitem__(sl, 5))
        results.append(err if err else d2.tolist())
    assert results[:2] == results[2:]


def test_tensor_bounds_give_views_like_torch():
    for lib in LIBS:
        d = lib.arange(20.)
        ix = lib.tensor([3, 9])
        v = d[ix[0]:ix[0] + 4]
        v[0] = -1.0
        assert d[3].item() == -1.0 and v._base is d
        assert d[ix[1]:].shape == (11,) and d[:ix[0]].tolist() == [0., 1., 2.]


def test_index_of_bool_tensor():
    assert operator.index(numtorch.tensor(True)) == operator.index(torch.tensor(True)) == 1
    for lib in LIBS:
        assert _raised(lambda: operator.index(lib.tensor(1.5)))[0] == "TypeError"


def _describe(r):
    return (r.tolist(), tuple(r.shape), r.stride(), str(r.dtype).replace("numtorch", "torch"),
            r.requires_grad)


@pytest.mark.parametrize("shape", [(8,), (2, 3), (0,), (), (2, 0), (3, 1, 2)])
def test_stack_of_rows_as_torch(shape):
    n = int(np.prod(shape))
    for dim in range(-len(shape) - 1, len(shape) + 1):
        got = [_describe(lib.stack([lib.arange(n).reshape(shape) + i for i in range(5)], dim))
               for lib in LIBS]
        assert got[0] == got[1], (shape, dim)


def test_stack_of_non_contiguous_inputs_is_row_major():
    for dim in (0, 1, 2):
        got = [_describe(lib.stack([lib.arange(6.).reshape(2, 3).t()] * 3, dim)) for lib in LIBS]
        assert got[0] == got[1]


def test_stack_records_grad_through_views():
    for lib in LIBS:
        w = lib.arange(6.).requires_grad_()
        rows = [w[i:i + 2] for i in range(3)]
        s = lib.stack(rows)
        assert s.requires_grad and type(s.grad_fn).__name__ == "StackBackward0"
    wn = numtorch.arange(6.).requires_grad_()
    wt = torch.arange(6.).requires_grad_()
    g = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    numtorch.stack([wn[i:i + 2] for i in range(3)]).backward(numtorch.from_numpy(g))
    torch.stack([wt[i:i + 2] for i in range(3)]).backward(torch.from_numpy(g))
    np.testing.assert_allclose(wn.grad.numpy(), wt.grad.numpy(), rtol=1e-6)


def _view_record(r):
    chain, v = [], r._view_fn
    while v is not None:
        chain.append((v[0].__name__, v[1].get("index")))
        v = v[2]
    return (r.tolist(), id(r._base), id(r._vc), chain, getattr(r, "_view_src", "unset"),
            r._extra, r._requires_grad, r._grad_fn, r.stride(), r.storage_offset())


def _rows_through_apply(x, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(indexing, "_APPLY", None)  # the general path: GetItem.apply per row
        return indexing.rows(x)


@pytest.mark.parametrize("grad", [True, False])
def test_iteration_rows_equal_the_general_path(grad, monkeypatch):
    with numtorch.no_grad():
        made_without_grad = numtorch.arange(4.).view(2, 2)
    makers = [lambda: numtorch.arange(5), lambda: numtorch.arange(6.).reshape(3, 2),
              lambda: numtorch.arange(24).reshape(2, 3, 4)[1],
              lambda: numtorch.arange(6).reshape(2, 3).t(), lambda: made_without_grad]
    for make in makers:
        with numtorch.set_grad_enabled(grad):
            x = make()
            slow = [_view_record(r) for r in _rows_through_apply(x, monkeypatch)]
            fast = [_view_record(r) for r in indexing.rows(x)]
        assert slow == fast


def test_iteration_as_torch():
    for lib in LIBS:
        x = lib.arange(6.).reshape(3, 2)
        rows = list(x)
        x.add_(1)
        assert rows[1].tolist() == [3., 4.] and rows[1]._version == 1
        ix = lib.tensor([4, 7])
        assert [int(i) for i in ix] == [4, 7] and [(i + 8).item() for i in ix] == [12, 15]
        w = lib.arange(4.).requires_grad_()
        assert type(list(w)[0].grad_fn).__name__ == "UnbindBackward0"


@pytest.mark.parametrize("other", [8, -3, 1 << 62, (1 << 63) - 1, -(1 << 63), 1 << 63,
                                   1 << 64, -(1 << 63) - 1, True])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
def test_long_tensor_plus_int_as_torch(other, dtype):
    got = []
    for lib in LIBS:
        x = lib.tensor([5, -2], dtype=getattr(lib, dtype))
        for fn in (lambda: x + other, lambda: other + x, lambda: x - other, lambda: x * other,
                   lambda: x[0] + other):
            err = _raised(fn)
            got.append(err if err else (fn().tolist(), str(fn().dtype).split(".")[-1]))
    half = len(got) // 2
    assert got[:half] == got[half:]


def test_concatenate_takes_dim_and_axis():
    for lib in LIBS:
        i = lib.tensor([1, 2])
        assert lib.concatenate([i, i], dim=0).tolist() == [1, 2, 1, 2]
        assert lib.concatenate([i, i], axis=0).tolist() == [1, 2, 1, 2]
    errs = [_raised(lambda: lib.concatenate([lib.ones(1)] * 2, axis=0, dim=0)) for lib in LIBS]
    assert errs[0] == errs[1]
    errs = [_raised(lambda: lib.concatenate([lib.ones(1)] * 2, 0, lib.ones(2))) for lib in LIBS]
    assert errs[0] == errs[1]


def test_cat_layout_as_torch():
    def layouts(lib):
        t = lib.randn(3, 4).t()
        x = lib.randn(2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
        y = lib.randn(2, 3, 4, 5)
        u = lib.randn(2, 3, 4, 5).permute(0, 2, 3, 1)
        return [lib.cat([t, t]).stride(), lib.cat([t, t], 1).stride(), lib.cat([x, x]).stride(),
                lib.cat([x, x], 1).stride(), lib.cat([x, y]).stride(), lib.cat([y, x]).stride(),
                lib.cat([u, u]).stride(), lib.cat([t[:0], t]).stride(),
                lib.stack([x, x]).stride(), lib.cat([t, t]).view(-1).shape]

    assert layouts(numtorch) == layouts(torch)


def test_stack_of_meta_and_quantized_payloads():
    m = numtorch.stack([numtorch.empty(2, 3, device="meta")] * 4)
    assert m.device.type == "meta" and m.shape == (4, 2, 3)
    got = []
    for lib in LIBS:
        q = lib.quantize_per_tensor(lib.tensor([-1.0, 0.5]), 0.5, 0, lib.quint8)
        s = lib.stack([q, q])
        got.append((s.is_quantized, s.dequantize().tolist(), s.q_scale(), s.q_zero_point()))
    assert got[0] == got[1]


def test_broadcast_tensors_takes_tensors_not_a_list():
    def outcomes(lib):
        a, b = lib.ones(2, 1), lib.ones(3)
        calls = [lambda: lib.broadcast_tensors([a, b]), lambda: lib.broadcast_tensors((a, b)),
                 lambda: lib.broadcast_tensors(a), lambda: lib.broadcast_tensors(),
                 lambda: lib.broadcast_tensors(a, 3), lambda: lib.broadcast_tensors(a, b)]
        out = []
        for call in calls:
            err = _raised(call)
            out.append(err if err else [tuple(x.shape) for x in call()])
        return out

    assert outcomes(numtorch) == outcomes(torch)
