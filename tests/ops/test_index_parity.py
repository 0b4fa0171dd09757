"""Indexing and in-place writes where torch's rules are not NumPy's, against torch.

Lists that torch reads as a tuple of indices (with its deprecation warning), ``range`` and
float lists as indices, which values ``x[i] = v`` accepts, the overflow checks of numbers written
into a dtype, and the writes torch lets through to an expanded tensor's shared memory.
"""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_raises, same


def _x(t):
    return t.arange(12).reshape(3, 4)


GET = [
    ("tensor-item", lambda t: _x(t)[[t.tensor(0), 2]]),
    ("slice-item", lambda t: _x(t)[[0, slice(1, 3)]]),
    ("nested", lambda t: _x(t)[[[0, 1], [2, 3]]]),
    ("none-item", lambda t: _x(t)[[0, None]]),
    ("ellipsis-item", lambda t: _x(t)[[0, ...]]),
    ("two-tensors", lambda t: _x(t)[[t.tensor([0, 1]), t.tensor([1, 2])]]),
    ("one-tensor", lambda t: _x(t)[[t.tensor([0, 1])]]),
    ("zero-d-bool", lambda t: _x(t)[[t.tensor(True)]]),
    ("ndarrays", lambda t: _x(t)[[np.array([0, 1]), np.array([1, 2])]]),
    ("tuples", lambda t: _x(t)[[(0, 1), (1, 2)]]),
    ("ranges", lambda t: _x(t)[[range(2), range(2)]]),
    ("empty-nested", lambda t: _x(t)[[[]]]),
    ("float-tensor-item", lambda t: _x(t)[[t.tensor(0.)]]),
    ("str-item", lambda t: _x(t)[["a"]]),
    ("ints-stay-a-tensor", lambda t: _x(t)[[0, 2]]),
    ("np-ints", lambda t: _x(t)[[np.int64(1), 2]]),
    ("32-nested-is-one-index", lambda t: t.arange(40)[[[1]] * 32]),
    ("31-nested-is-a-tuple", lambda t: t.arange(40)[[[1]] * 31]),
    ("32-slices", lambda t: t.arange(40)[[slice(None)] * 32]),
    ("floats-truncate", lambda t: _x(t)[[0.5, 1.7]]),
    ("float-half", lambda t: t.ones(3)[[0.5]]),
    ("negative-float", lambda t: _x(t)[[-0.5]]),
    ("bool-and-float", lambda t: _x(t)[[True, 0.5]]),
    ("complex", lambda t: _x(t)[[1j]]),
    ("float-ndarray", lambda t: _x(t)[np.array([0.5])]),
    ("nested-floats", lambda t: _x(t)[[[0.5], [1.5]]]),
    ("range", lambda t: _x(t)[range(2)]),
    ("range-step", lambda t: _x(t)[range(0, 3, 2)]),
    ("range-dim1", lambda t: _x(t)[:, range(1, 3)]),
    ("range-and-tensor", lambda t: _x(t)[range(3), t.tensor([0, 1, 2])]),
    ("np-float-scalar", lambda t: _x(t)[np.float64(1.0)]),
]


@pytest.mark.parametrize("fn", [g[1] for g in GET], ids=[g[0] for g in GET])
def test_getitem_sequences_match_torch(fn):
    same(fn, warns=True)


def _set(index, value, dtype="float32"):
    def fn(t):
        y = t.zeros(3, 4, dtype=getattr(t, dtype))
        y[index(t) if callable(index) else index] = value(t) if callable(value) else value
        return y
    return fn


SET = [
    ("range-tensor", _set(lambda t: (range(3), t.tensor([0, 1, 2])), 5.)),
    ("list-slice", _set([0, slice(1, 3)], 5.)),
    ("nested", _set([[0, 1], [2, 3]], 5.)),
    ("list-value", _set(0, [1., 2., 3., 4.])),
    ("ndarray-value", _set(0, np.array([1., 2., 3., 4.]))),
    ("0d-ndarray-value", _set(0, np.array(2.))),
    ("tuple-value", _set(0, (1, 2, 3, 4))),
    ("list-value-long", _set(0, [1, 2, 3, 4], "int64")),
    ("none-value", _set(0, None)),
    ("str-value", _set(0, "a")),
    ("np-float32-value", _set(0, np.float32(1))),
    ("np-bool-value", _set(0, np.bool_(True))),
    ("np-float64-value", _set(0, np.float64(2.))),
    ("np-int32-value", _set(0, np.int32(2))),
    ("size-value", _set(0, lambda t: t.Size([1]))),
    ("str-value-bad-index", _set(5, "a")),
    ("complex-into-float", _set(0, 1 + 1j)),
    ("real-complex-into-float", _set(0, 1 + 0j)),
    ("complex-into-int8", _set(0, 1 + 0j, "int8")),
    ("int8-overflow", _set(0, 300, "int8")),
    ("int8-negative-overflow", _set(0, -129, "int8")),
    ("uint8-wraps", _set(0, -1, "uint8")),
    ("uint8-too-negative", _set(0, -256, "uint8")),
    ("int8-float", _set(0, 2.5, "int8")),
    ("int8-float-overflow", _set(0, 1e10, "int8")),
    ("int8-nan", _set(0, float("nan"), "int8")),
    ("int64-beyond", _set(0, 2 ** 63, "int64")),
    ("float32-overflow", _set(0, 1e300)),
    ("float32-inf", _set(0, float("inf"))),
    ("float16-unchecked", _set(0, 1e300, "float16")),
    ("bool-from-int", _set(0, 5, "bool")),
    ("adv-int8-overflow", _set([0], 300, "int8")),
]


@pytest.mark.parametrize("fn", [s[1] for s in SET], ids=[s[0] for s in SET])
def test_setitem_values_match_torch(fn):
    same(fn, warns=True)


def _i8(t):
    return t.zeros(2, dtype=t.int8)


def _mask(t):
    return t.tensor([True, False])


WRITES = [
    ("fill-int8", lambda t: _i8(t).fill_(300)),
    ("fill-uint8-wraps", lambda t: t.zeros(2, dtype=t.uint8).fill_(-1)),
    ("fill-uint8-float", lambda t: t.zeros(2, dtype=t.uint8).fill_(255.5)),
    ("fill-int8-float", lambda t: _i8(t).fill_(127.9)),
    ("fill-float32", lambda t: t.zeros(2).fill_(1e300)),
    ("fill-float16", lambda t: t.zeros(2, dtype=t.float16).fill_(70000.)),
    ("fill-complex", lambda t: t.zeros(2).fill_(1j)),
    ("fill-big-int", lambda t: t.zeros(2).fill_(2 ** 70)),
    ("full-int8-float", lambda t: t.full((2,), 127.9, dtype=t.int8)),
    ("masked-fill", lambda t: _i8(t).masked_fill(_mask(t), 300)),
    ("index-fill", lambda t: _i8(t).index_fill(0, t.tensor([0]), 300)),
    ("where", lambda t: t.where(_mask(t), _i8(t), 300)),
    ("where-uint8-wraps", lambda t: t.where(_mask(t), t.zeros(2, dtype=t.uint8), -1)),
    ("where-float32", lambda t: t.where(_mask(t), t.zeros(2), 1e300)),
    ("scatter", lambda t: _i8(t).scatter(0, t.tensor([0]), 300)),
    ("index-put", lambda t: _i8(t).index_put((t.tensor([0]),), t.tensor(3, dtype=t.int8))),
]


@pytest.mark.parametrize("fn", [w[1] for w in WRITES], ids=[w[0] for w in WRITES])
def test_numbers_written_into_a_dtype_match_torch(fn):
    same(fn, warns=True)


def _expanded(op):
    """``op`` applied to ``b.expand(3, 4)`` for ``b = ones(3, 1)``; returns b's values."""
    def fn(t):
        b = t.ones(3, 1)
        op(t, b.expand(3, 4))
        return b.flatten().tolist()
    return fn


EXPANDED = [
    ("fill", lambda t, e: e.fill_(2)),
    ("fill-bool", lambda t, e: e.fill_(True)),
    ("zero", lambda t, e: e.zero_()),
    ("fill-tensor", lambda t, e: e.fill_(t.tensor(3.))),
    ("copy-scalar", lambda t, e: e.copy_(t.tensor(5.))),
    ("copy-col", lambda t, e: e.copy_(t.tensor([[7.], [8.], [9.]]))),
    ("add", lambda t, e: e.add_(1)),
    ("iadd", lambda t, e: e.__iadd__(1)),
    ("mul", lambda t, e: e.mul_(2)),
    ("exp", lambda t, e: e.exp_()),
    ("clamp", lambda t, e: e.clamp_(0, 0.5)),
    ("uniform", lambda t, e: e.uniform_()),
    ("normal", lambda t, e: e.normal_()),
    ("masked-fill", lambda t, e: e.masked_fill_(t.ones(3, 4, dtype=t.bool), 4.)),
    ("masked-fill-one", lambda t, e: e.masked_fill_(
        t.tensor([[False, True, False, False]] + [[False] * 4] * 2), 4.)),
    ("index-fill", lambda t, e: e.index_fill_(1, t.tensor([0]), 4.)),
    ("setitem-int", lambda t, e: e.__setitem__(0, 4.)),
    ("setitem-column", lambda t, e: e.__setitem__((slice(None), 1), 4.)),
    ("setitem-all", lambda t, e: e.__setitem__(Ellipsis, 4.)),
    ("setitem-mask", lambda t, e: e.__setitem__(t.ones(3, 4, dtype=t.bool), 4.)),
    ("setitem-tensors", lambda t, e: e.__setitem__((t.tensor([0]), t.tensor([1])), 4.)),
    ("setitem-repeated", lambda t, e: e.__setitem__((t.tensor([0, 0]), t.tensor([1, 2])),
                                                    t.tensor([5., 6.]))),
    ("setitem-tensor-value", lambda t, e: e.__setitem__(Ellipsis, t.arange(12.).reshape(3, 4))),
    ("scatter", lambda t, e: e.scatter_(1, t.tensor([[0], [1], [2]]), 4.)),
    ("index-put", lambda t, e: e.index_put_((t.tensor([0]),), t.tensor(4.))),
    ("index-put-accumulate", lambda t, e: e.index_put_((t.tensor([0]),), t.tensor(4.),
                                                       accumulate=True)),
    ("fill-diagonal", lambda t, e: e.fill_diagonal_(4.)),
    ("detach-fill", lambda t, e: e.detach().fill_(6)),
    ("data-fill", lambda t, e: e.data.fill_(6)),
    ("init-zeros", lambda t, e: t.nn.init.zeros_(e)),
    ("init-constant", lambda t, e: t.nn.init.constant_(e, 3.)),
    ("init-normal", lambda t, e: t.nn.init.normal_(e)),
    ("index-add", lambda t, e: e.index_add_(1, t.tensor([0]), t.zeros(3, 1))),
    ("masked-fill-wrong-shape", lambda t, e: e.masked_fill_(t.ones(2, 3, 4, dtype=t.bool), 4.)),
]


@pytest.mark.parametrize("op", [e[1] for e in EXPANDED], ids=[e[0] for e in EXPANDED])
def test_writes_to_expanded_tensors_match_torch(op):
    same(_expanded(op), warns=True)


def test_fill_of_an_unfolded_overlapping_view_writes_through():
    for lib in (numtorch, torch):
        x = lib.arange(6.)
        x.unfold(0, 3, 1).fill_(0)
        assert x.tolist() == [0.] * 6


def test_expanded_write_bumps_the_version():
    b = numtorch.ones(3, 1)
    v = b._version
    b.expand(3, 4).fill_(2)
    assert b._version == v + 1


def test_sequence_index_warning_points_at_the_caller():
    x = numtorch.arange(12).reshape(3, 4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        x[[0, slice(1, 3)]]
    assert w[0].filename == __file__


def test_list_index_with_slice_errors_like_torch():
    check_raises(lambda t: t.arange(40)[[slice(None)] * 32], match="Could not infer dtype")


def _a(t):
    return t.arange(12.).reshape(3, 4)


INDEX_RANGES = [
    ("index-select-negative", lambda t: _a(t).index_select(0, t.tensor([-1]))),
    ("index-select-big", lambda t: _a(t).index_select(0, t.tensor([3]))),
    ("index-select-scalar-negative", lambda t: t.tensor(5.).index_select(0, t.tensor([-1]))),
    ("index-add-negative", lambda t: _a(t).index_add_(0, t.tensor([-1]), t.ones(1, 4))),
    ("index-add-big-dim1", lambda t: _a(t).index_add_(1, t.tensor([4]), t.ones(3, 1))),
    ("index-add-scalar", lambda t: t.tensor(5.).index_add_(0, t.tensor([1]), t.tensor(1.))),
    ("index-copy-negative", lambda t: _a(t).index_copy_(1, t.tensor([-1]), t.ones(3, 1))),
    ("index-copy-big", lambda t: _a(t).index_copy_(0, t.tensor([3]), t.ones(1, 4))),
    ("index-fill-negative-wraps", lambda t: _a(t).index_fill_(0, t.tensor([-1]), 0.)),
    ("index-fill-too-negative", lambda t: _a(t).index_fill_(1, t.tensor([-5]), 0.)),
    ("index-fill-big", lambda t: _a(t).index_fill_(1, t.tensor([4]), 0.)),
    ("index-fill-scalar", lambda t: t.tensor(5.).index_fill_(0, t.tensor([1]), 0.)),
    ("take-along-dim-negative-wraps", lambda t: t.take_along_dim(_a(t), t.tensor([[-1]]), 1)),
    ("take-along-dim-too-negative", lambda t: t.take_along_dim(_a(t), t.tensor([[-5]]), 1)),
    ("take-along-dim-big", lambda t: t.take_along_dim(_a(t), t.tensor([[5]]), 1)),
    ("index-select-dim1-big", lambda t: _a(t).index_select(1, t.tensor([0, 5, -5]))),
    ("index-select-dim1-negative", lambda t: _a(t).index_select(1, t.tensor([-4]))),
    ("index-select-3d-dim2", lambda t: t.ones(2, 3, 4).index_select(2, t.tensor([9]))),
    ("take-along-flat-negative", lambda t: t.take_along_dim(_a(t), t.tensor([-1]))),
    ("take-big", lambda t: t.ones(3).take(t.tensor([5]))),
    ("gather-negative", lambda t: _a(t).gather(1, t.tensor([[-1]]))),
    ("bincount-float", lambda t: t.bincount(t.tensor([1., 2.]))),
    ("bincount-negative", lambda t: t.bincount(t.tensor([-1, 2]))),
    ("bincount-2d", lambda t: t.bincount(t.tensor([[1, 2]]))),
    ("bincount-weights-length", lambda t: t.bincount(t.tensor([1, 2]), t.ones(3))),
    ("histc-int", lambda t: t.histc(t.tensor([1, 2]))),
    ("bucketize-2d", lambda t: t.bucketize(t.ones(2), t.ones(2, 2))),
    ("repeat-interleave-negative", lambda t: t.ones(2).repeat_interleave(-1)),
    ("topk-big", lambda t: t.ones(3).topk(4)),
    ("kthvalue-big", lambda t: t.ones(3).kthvalue(4)),
    ("argmax-empty", lambda t: t.ones(0).argmax()),
    ("argmin-empty", lambda t: t.ones(0).argmin()),
    ("max-empty", lambda t: t.ones(0).max()),
    ("flip-repeated-dim", lambda t: t.ones(2, 3).flip(0, 0)),
    ("reshape-bad-dim", lambda t: t.ones(3).reshape(2, -2)),
    ("repeat-negative", lambda t: t.ones(2, 3).repeat(-1, 1)),
]


@pytest.mark.parametrize("fn", [c[1] for c in INDEX_RANGES], ids=[c[0] for c in INDEX_RANGES])
def test_index_ranges_and_messages_match_torch(fn):
    same(fn, warns=True)
