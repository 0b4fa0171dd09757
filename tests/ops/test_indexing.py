"""Indexing against torch: ``x[idx]``, ``x[idx] = v``, gather/scatter, masks and nonzero."""

import math

import numpy as np
import pytest

import numtorch
from tests.oracle import check_op, check_raises, same

DTYPES = ("float32", "float64")

_MASK_34 = np.array([[True, False, True, False], [False, False, True, True],
                     [True, True, False, False]])
_ROWS = np.array([True, False, True])

# (id, index builder (lib -> index), shape of x)
GETITEM = [
    ("int", lambda t: 1, (3, 4)),
    ("neg-int", lambda t: -1, (3, 4)),
    ("int-int", lambda t: (2, -3), (3, 4)),
    ("int-1d", lambda t: 2, (4,)),
    ("slice", lambda t: slice(1, 3), (4, 3)),
    ("slice-step", lambda t: slice(None, None, 2), (5, 3)),
    ("slice-step-offset", lambda t: (slice(1, None, 3), slice(None, -1)), (7, 3)),
    ("slice-neg", lambda t: (slice(-3, -1), slice(-2, None)), (5, 4)),
    ("slice-beyond", lambda t: slice(2, 100), (4, 3)),
    ("slice-empty", lambda t: slice(3, 1), (4, 3)),
    ("none", lambda t: None, (3, 4)),
    ("none-mid", lambda t: (slice(None), None), (3, 4)),
    ("none-end", lambda t: (Ellipsis, None), (3, 4)),
    ("none-int", lambda t: (slice(None), None, 1), (2, 3, 4)),
    ("none-none", lambda t: (None, 0, None), (3, 4)),
    ("ellipsis", lambda t: Ellipsis, (3, 4)),
    ("ellipsis-int", lambda t: (Ellipsis, 1), (2, 3, 4)),
    ("int-ellipsis", lambda t: (1, Ellipsis), (2, 3, 4)),
    ("ellipsis-mid", lambda t: (0, Ellipsis, slice(1, 3)), (2, 3, 4)),
    ("scalar-ellipsis", lambda t: Ellipsis, ()),
    ("scalar-none", lambda t: None, ()),
    ("all-ints", lambda t: (1, 2, 3), (2, 3, 4)),
    ("tensor", lambda t: t.tensor([2, 0]), (3, 4)),
    ("tensor-repeated", lambda t: t.tensor([1, 1, 0, 1]), (3, 4)),
    ("tensor-neg", lambda t: t.tensor([-1, 0, -3]), (3, 4)),
    ("tensor-2d", lambda t: t.tensor([[0, 1], [1, 1]]), (3, 4)),
    ("tensor-int32", lambda t: t.tensor([2, 0], dtype=t.int32), (3, 4)),
    ("tensor-empty", lambda t: t.tensor([], dtype=t.int64), (3, 4)),
    ("tensor-dim1", lambda t: (slice(None), t.tensor([3, 0, 3])), (2, 4)),
    ("list", lambda t: [2, 0, 2], (3, 4)),
    ("list-dim1", lambda t: (slice(None), [1, 3]), (3, 4)),
    ("two-lists", lambda t: ([0, 2, 2], [1, 3, 1]), (3, 4)),
    ("zero-d-int-tensor", lambda t: t.tensor(1), (3, 4)),
    ("zero-d-int-tensor-pair", lambda t: (t.tensor(2), t.tensor(-1)), (3, 4)),
    ("mask-full", lambda t: t.from_numpy(_MASK_34.copy()), (3, 4)),
    ("mask-rows", lambda t: t.from_numpy(_ROWS.copy()), (3, 4)),
    ("mask-rows-then-slice", lambda t: (t.from_numpy(_ROWS.copy()), slice(1, None)), (3, 4)),
    ("mask-dim1", lambda t: (slice(None), t.tensor([True, False, True, True])), (3, 4)),
    ("mask-none-true", lambda t: t.zeros(3, 4, dtype=t.bool), (3, 4)),
    ("mask-from-list", lambda t: t.tensor([[True, True, False, False]] * 3), (3, 4)),
    ("bool-true", lambda t: True, (3, 4)),
    ("bool-false", lambda t: False, (3, 4)),
    ("adv-slice-none", lambda t: (t.tensor([2, 0]), slice(None), None), (3, 4, 2)),
    ("slice-adv-adv", lambda t: (slice(None), t.tensor([0, 2]), t.tensor([1, 1])), (2, 3, 4)),
    ("adv-slice-adv", lambda t: (t.tensor([0, 1]), slice(None), t.tensor([1, 3])), (2, 3, 4)),
    ("ellipsis-list", lambda t: (Ellipsis, [0, 2]), (2, 3, 4)),
    ("int-adv", lambda t: (1, t.tensor([0, 0, 2])), (3, 4)),
    ("adv-broadcast", lambda t: (t.tensor([[0], [2]]), t.tensor([1, 3, 0])), (3, 4)),
    ("slice-step-adv", lambda t: (slice(None, None, 2), t.tensor([3, 1])), (5, 4)),
    ("none-adv", lambda t: (None, t.tensor([1, 0])), (3, 4)),
    # ints are applied before tensor indices (torch), unlike NumPy's rule for mixed indices
    ("int-slice-list", lambda t: (0, slice(None), [0, 1]), (2, 3, 4)),
    ("none-int-slice-list", lambda t: (None, 0, slice(None), [0, 1]), (2, 3, 4)),
    ("int-slice-mask", lambda t: (1, slice(None), t.tensor([True, False, True, False])),
     (2, 3, 4)),
    ("int-none-list", lambda t: (0, None, [0, 1]), (2, 3, 4)),
    ("int-ellipsis-list", lambda t: (0, Ellipsis, [0, 2]), (2, 3, 4)),
    ("int-slice-2d-list", lambda t: (-1, slice(1, None), [[0], [3]]), (2, 3, 4)),
    ("bool-list", lambda t: (True, [0, 1]), (2, 3, 4)),
    ("int-bool-list-none", lambda t: (0, True, [1], slice(None), None), (2, 3, 4)),
    ("list-slice-int", lambda t: ([1, 0, 1], slice(None), 2), (2, 3, 4)),
    # an ellipsis standing for no dims does not separate tensor indices (torch, not NumPy)
    ("adv-empty-ellipsis-adv", lambda t: (slice(None), [2, 0], Ellipsis, [1, 1]), (2, 3, 4)),
    ("adv-ellipsis-adv", lambda t: ([1, 0], Ellipsis, [0, 3]), (2, 3, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make,shape", GETITEM, ids=[g[0] for g in GETITEM])
def test_getitem_matches_torch(name, make, shape, dtype):
    check_op(lambda t, x: x[make(t)], [shape], dtype=dtype)


@pytest.mark.parametrize("name,make,shape", GETITEM, ids=[g[0] for g in GETITEM])
def test_getitem_of_nonleaf_matches_torch(name, make, shape):
    check_op(lambda t, x: (x * x)[make(t)], [shape])


@pytest.mark.parametrize("name,make,shape", [g for g in GETITEM if len(g[2]) >= 2],
                         ids=[g[0] for g in GETITEM if len(g[2]) >= 2])
def test_getitem_of_fortran_input_matches_torch(name, make, shape):
    check_op(lambda t, x: x[make(t)], [shape], non_contiguous=True, second_order=False)


def test_getitem_with_index_tensor_input_matches_torch():
    idx = np.array([3, 0, 3, 3, 1])
    check_op(lambda t, x, i: x[i] * 2, [(4, 3), idx])
    check_op(lambda t, x, i: x[:, i], [(2, 4), idx])


def test_getitem_chains_of_views_match_torch():
    check_op(lambda t, x: x[1:][:, ::2][0], [(4, 6)])
    check_op(lambda t, x: x.t()[1:, None][[0, 2]], [(3, 4)])
    check_op(lambda t, x: x[x > 0], [(3, 4)])
    check_op(lambda t, x: x[..., [0, 2]][x[..., 0] > 0], [(5, 3)])


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_getitem_keeps_dtype(dtype):
    a = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    for make in [lambda t: 1, lambda t: (slice(None), [0, 2]), lambda t: t.tensor([True, False,
                                                                                 True])]:
        check_op(lambda t, x: x[make(t)], [a], grad=False)


# -- setitem: plain tensors --------------------------------------------------------------------

# (id, index builder, value builder (lib -> value), shape of x)
SETITEM = [
    ("int-scalar", lambda t: 1, lambda t: 5.0, (3, 4)),
    ("int-row", lambda t: -1, lambda t: t.arange(4.0), (3, 4)),
    ("int-broadcast", lambda t: 0, lambda t: t.tensor([7.0]), (3, 4)),
    ("slice-step", lambda t: (slice(None, None, 2), slice(1, 3)), lambda t: t.ones(2, 2) * 3,
     (3, 4)),
    ("slice-col-broadcast", lambda t: (slice(None), 0), lambda t: t.tensor(2.5), (3, 4)),
    ("none", lambda t: (None, 1), lambda t: t.ones(1, 4), (3, 4)),
    ("ellipsis", lambda t: (Ellipsis, 2), lambda t: t.tensor([1.0, 2.0, 3.0]), (3, 4)),
    ("ellipsis-all", lambda t: Ellipsis, lambda t: 0.5, (3, 4)),
    ("tensor", lambda t: t.tensor([2, 0]), lambda t: t.ones(2, 4), (3, 4)),
    ("tensor-broadcast", lambda t: t.tensor([2, 0]), lambda t: t.arange(4.0), (3, 4)),
    ("list", lambda t: [0, 2], lambda t: -1.0, (3, 4)),
    ("two-lists", lambda t: ([0, 2], [1, 3]), lambda t: t.tensor([8.0, 9.0]), (3, 4)),
    ("mask", lambda t: t.from_numpy(_MASK_34.copy()), lambda t: 0.0, (3, 4)),
    ("mask-values", lambda t: t.from_numpy(_MASK_34.copy()), lambda t: t.arange(6.0), (3, 4)),
    ("mask-rows", lambda t: t.from_numpy(_ROWS.copy()), lambda t: t.arange(4.0), (3, 4)),
    ("mask-rows-slice", lambda t: (t.from_numpy(_ROWS.copy()), slice(1, None)),
     lambda t: 9.0, (3, 4)),
    ("zero-d-index", lambda t: t.tensor(1), lambda t: 3.0, (3, 4)),
    ("adv-dim1", lambda t: (slice(None), t.tensor([3, 0])), lambda t: t.ones(3, 1), (3, 4)),
    ("int-value", lambda t: 1, lambda t: 4, (3, 4)),
    ("int-tensor-value", lambda t: 1, lambda t: t.tensor([1, 2, 3, 4]), (3, 4)),
    ("double-value", lambda t: 1, lambda t: t.ones(4, dtype=t.float64) / 3, (3, 4)),
    ("int-slice-list-3d", lambda t: (0, slice(None), [0, 3]), lambda t: t.ones(3, 2),
     (2, 3, 4)),
    ("int-none-list", lambda t: (1, None, [2, 0]), lambda t: t.arange(2.0)[:, None],
     (2, 3, 4)),
    ("scalar-target", lambda t: Ellipsis, lambda t: 3.0, ()),
    ("scalar-target-none", lambda t: None, lambda t: t.tensor([2.0]), ()),
]


def _same_float(t, value, x, name):
    """Float values in x's dtype: torch refuses other dtypes for advanced-index writes (tested
    separately below); "double-value" keeps its dtype on purpose (a basic-index write casts)."""
    if isinstance(value, t.Tensor) and value.is_floating_point() and name != "double-value":
        return value.to(x.dtype)
    return value


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make_idx,make_val,shape", SETITEM, ids=[s[0] for s in SETITEM])
def test_setitem_on_plain_tensor_matches_torch(name, make_idx, make_val, shape, dtype):
    def fn(t, x):
        z = x.detach().clone()
        z[make_idx(t)] = _same_float(t, make_val(t), x, name)
        return z, z._version

    check_op(fn, [shape], dtype=dtype, grad=False)


@pytest.mark.parametrize("name,make_idx,make_val,shape", SETITEM, ids=[s[0] for s in SETITEM])
def test_setitem_through_view_writes_base(name, make_idx, make_val, shape):
    if not shape:
        pytest.skip("needs a dim to view")

    def fn(t, x):
        base = x.detach().clone().unsqueeze(0).expand(2, *shape).clone()
        v = base[1]
        v[make_idx(t)] = _same_float(t, make_val(t), x, name)
        return base, v, base._version, v._version

    check_op(fn, [shape], grad=False)


@pytest.mark.parametrize("name,make_idx,make_val,shape", SETITEM, ids=[s[0] for s in SETITEM])
def test_setitem_on_nonleaf_matches_torch_gradients(name, make_idx, make_val, shape):
    def fn(t, x):
        y = x * 2
        y[make_idx(t)] = _same_float(t, make_val(t), x, name)
        return y * y

    check_op(fn, [shape])


@pytest.mark.parametrize("name,make_idx,make_val,shape",
                         [s for s in SETITEM if s[0] not in ("int-value", "int-tensor-value")],
                         ids=[s[0] for s in SETITEM if s[0] not in ("int-value",
                                                                    "int-tensor-value")])
def test_setitem_value_requiring_grad_matches_torch(name, make_idx, make_val, shape):
    def fn(t, x, w):
        y = x.sin()  # sin saves its input, not y, so writing into y is allowed
        val = make_val(t)
        y[make_idx(t)] = _same_float(t, val * w, x, name)
        return y.sin()

    check_op(fn, [shape, ()])


def test_setitem_into_zeros_from_graph_matches_torch():
    def fn(t, h):
        out = t.zeros(3, 4, dtype=h.dtype)
        out[:, 0] = h
        out[:, 2] = h * h
        return out

    check_op(fn, [(3,)])


def test_setitem_masked_by_own_values_matches_torch():
    def fn(t, x):
        y = x * 2
        y[y > 0] = 0
        return y

    check_op(fn, [(3, 4)])


def test_setitem_with_repeated_advanced_index_and_grad_value():
    # torch leaves which duplicate write wins unspecified; use equal values so results agree
    def fn(t, x, v):
        y = x * 1.5
        y[t.tensor([1, 1, 2])] = v.expand(3, 4)
        return y

    check_op(fn, [(3, 4), (4,)])


def test_setitem_in_a_loop_matches_torch():
    def fn(t, x, w):
        out = t.zeros(4, 3, dtype=x.dtype)
        for i in range(4):
            out[i] = (x[i] * w).tanh()
        return out.sum(0)

    check_op(fn, [(4, 3), (3,)])


def test_setitem_on_view_of_nonleaf_matches_torch():
    def fn(t, x, v):
        y = x.clone()
        z = y[1:]
        z[:, [0, 2]] = v
        return y * 3, z

    check_op(fn, [(3, 4), (2, 2)])


@pytest.mark.parametrize("make_idx,make_val", [
    (lambda t: 0, lambda t: t.ones(4, dtype=t.float64)),
    (lambda t: (slice(None), 1), lambda t: t.arange(3)),
    (lambda t: t.from_numpy(_MASK_34.copy()), lambda t: t.tensor(2.0, dtype=t.float64)),
    (lambda t: t.from_numpy(_ROWS.copy()), lambda t: t.ones(1, dtype=t.int64)),
    (lambda t: (1, t.tensor([True, False, True, True])), lambda t: t.tensor(3)),
], ids=["basic-double", "basic-long", "mask-0d-double", "mask-1-elem-long", "int-mask-0d"])
def test_setitem_casts_value_where_torch_does(make_idx, make_val):
    def fn(t, x):
        z = x.detach().float()
        z[make_idx(t)] = make_val(t)
        return z

    check_op(fn, [(3, 4)], grad=False)


def test_setitem_on_leaf_requiring_grad_raises():
    check_raises(lambda t, x: x.requires_grad_().__setitem__(0, 1.0), [np.zeros((2, 3))],
                 match="a leaf Variable that requires grad is being used in an in-place")


def test_setitem_bumps_version_like_torch():
    for lib in (numtorch, __import__("torch")):
        x = lib.zeros(3, 4)
        v = x[1]
        x[0] = 1.0
        x[[0, 1]] = 2.0
        v[...] = 3.0
        assert (x._version, v._version) == (3, 3)


# -- gather, scatter and friends ----------------------------------------------------------------

IDX_23 = np.array([[0, 2, 1], [2, 2, 0]])
IDX_COL = np.array([[1], [0], [1]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes", [
    (lambda t, x, i: x.gather(1, i), [(2, 4), IDX_23]),
    (lambda t, x, i: t.gather(x, 0, i), [(3, 3), IDX_23]),
    (lambda t, x, i: x.gather(-1, i), [(3, 2), IDX_COL]),
    (lambda t, x, i: x.gather(1, i.int()), [(2, 4), IDX_23]),
    (lambda t, x, i: x.gather(0, i[:, :1]), [(3, 2), IDX_23]),
    (lambda t, x, i: x.t().gather(0, i), [(3, 3), IDX_23]),
    (lambda t, x, i: x.gather(0, i[:0]), [(3, 3), IDX_23]),
    (lambda t, x, i: x.gather(0, i), [(), np.array(0)]),
    (lambda t, x, i: t.take_along_dim(x, i, 1), [(2, 4), IDX_23]),
    (lambda t, x, i: t.take_along_dim(x, i), [(2, 4), np.array([7, 0, 3])]),
    (lambda t, x, i: x.take_along_dim(i, dim=0), [(3, 2), IDX_COL]),
    (lambda t, x, i: x.take_along_dim(i, 1), [(3, 4), np.array([[3, 1, 0, 2], [0, 1, 2, 3],
                                                               [2, 2, 1, 1]])]),
], ids=["gather", "gather-fn", "gather-neg", "gather-int32", "gather-partial", "gather-t",
        "gather-empty", "gather-scalar", "take-along", "take-along-flat", "take-along-bcast",
        "take-along-perm"])
def test_gather_matches_torch(fn, shapes, dtype):
    check_op(fn, shapes, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes", [
    (lambda t, x, i, s: x.scatter(1, i, s), [(2, 4), np.array([[0, 2], [3, 1]]), (2, 2)]),
    (lambda t, x, i, s: t.scatter(x, 0, i, s), [(3, 3), np.array([[0, 1, 2]]), (1, 3)]),
    (lambda t, x, i, s: x.scatter(1, i, 2.5), [(2, 4), np.array([[0, 2], [3, 1]]), None]),
    (lambda t, x, i, s: x.scatter(1, i, value=-1.0), [(2, 4), np.array([[0], [3]]), None]),
    (lambda t, x, i, s: x.scatter_add(1, i, s), [(2, 4), np.array([[0, 0, 1], [3, 3, 3]]),
                                                 (2, 3)]),
    (lambda t, x, i, s: t.scatter_add(x, 0, i, s), [(3, 2), np.array([[0, 1], [0, 1]]),
                                                    (2, 2)]),
    (lambda t, x, i, s: x.scatter_add(1, i.int(), s), [(2, 4), np.array([[1, 1], [0, 2]]),
                                                       (2, 2)]),
    (lambda t, x, i, s: x.scatter_add(0, i, s), [(3, 2), np.zeros((0, 2), dtype=np.int64),
                                                 (0, 2)]),
], ids=["scatter-src", "scatter-fn", "scatter-value", "scatter-value-kw", "scatter-add",
        "scatter-add-fn", "scatter-add-int32", "scatter-add-empty"])
def test_scatter_matches_torch(fn, shapes, dtype):
    check_op(fn, shapes, dtype=dtype)


@pytest.mark.parametrize("fn,shapes", [
    (lambda t, x, i, s: x.scatter(1, i, s, reduce="add"),
     [(2, 4), np.array([[0, 0, 1], [3, 3, 3]]), (2, 3)]),
    (lambda t, x, i, s: x.scatter(1, i, s, reduce="multiply"),
     [(2, 4), np.array([[0, 0, 1], [3, 3, 3]]), (2, 3)]),
    (lambda t, x, i, s: x.scatter(0, i, 3.0, reduce="multiply"),
     [(3, 2), np.array([[0, 1], [2, 1]]), None]),
], ids=["add", "multiply", "multiply-value"])
def test_scatter_reduce_values_match_torch_and_backward_refuses(fn, shapes):
    check_op(fn, shapes, grad=False)
    arrays = [a for a in shapes if a is not None]
    shapes_arrays = [np.ones(a) if isinstance(a, tuple) else a for a in arrays] + \
        ([None] if shapes[-1] is None else [])

    def backward(t, x, i, s):
        x.requires_grad_()
        fn(t, x, i, s).sum().backward()

    check_raises(backward, shapes_arrays, match="derivative for aten::scatter is not implemented")


@pytest.mark.parametrize("fn,shapes", [
    (lambda t, x, i, s: x.scatter(0, i, s), [(3, 3), np.array([[0, 1, 2]]), (2, 3)]),
    (lambda t, x, i, s: x.scatter_add(1, i, s), [(2, 4), np.array([[0, 0], [3, 1]]), (2, 3)]),
    (lambda t, x, i, s: x.scatter_add(0, i, s), [(3, 2), np.zeros((0, 2), dtype=np.int64),
                                                 (2, 2)]),
], ids=["scatter", "scatter-add", "scatter-add-empty"])
def test_scatter_gradient_for_src_larger_than_index(fn, shapes):
    # torch's own backward rejects these (it returns the index-shaped gradient for src), so
    # check numtorch's against finite differences instead
    x, i, s = [numtorch.from_numpy(np.random.default_rng(0).uniform(-1, 1, a))
               if isinstance(a, tuple) else numtorch.from_numpy(a) for a in shapes]
    x.requires_grad_()
    s.requires_grad_()
    assert numtorch.autograd.gradcheck(lambda x, s: fn(numtorch, x, i, s), (x, s))
    assert numtorch.autograd.gradgradcheck(lambda x, s: fn(numtorch, x, i, s), (x, s))


def test_scatter_in_place_matches_torch():
    def fn(t, x, s):
        z = x * 1
        z.scatter_(1, t.tensor([[0, 2], [1, 1]]), s)
        z.scatter_add_(0, t.tensor([[1, 0, 0]]), s[:1, :1].expand(1, 3))
        return z

    check_op(fn, [(2, 3), (2, 2)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes", [
    (lambda t, x, i: x.index_select(0, i), [(3, 4), np.array([2, 0, 2])]),
    (lambda t, x, i: t.index_select(x, 1, i), [(3, 4), np.array([3, 3])]),
    (lambda t, x, i: x.index_select(-1, i.int()), [(3, 4), np.array([1])]),
    (lambda t, x, i: x.index_select(0, i), [(3, 4), np.array(1)]),
    (lambda t, x, i: x.index_select(0, i), [(), np.array([0])]),
    (lambda t, x, i: x.index_select(0, i), [(), np.array(0)]),
    (lambda t, x, i: x.index_select(1, i[:0]), [(3, 4), np.array([1])]),
], ids=["rows", "cols", "int32", "zero-d-index", "scalar-input", "scalar-input-0d-index",
        "empty"])
def test_index_select_matches_torch(fn, shapes, dtype):
    check_op(fn, shapes, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,shapes", [
    (lambda t, x, m: x.masked_fill(m, 0.5), [(3, 4), _MASK_34]),
    (lambda t, x, m: t.masked_fill(x, m, -2), [(3, 4), _MASK_34]),
    (lambda t, x, m: x.masked_fill(m[0], 1.0), [(3, 4), _MASK_34]),
    (lambda t, x, m: x.masked_fill(m, t.tensor(3.0)), [(3, 4), _MASK_34]),
    (lambda t, x, m: x.masked_fill(m, t.tensor(3, dtype=t.int64)), [(3, 4), _MASK_34]),
    (lambda t, x, m: x.masked_fill(m, float("-inf")).exp(), [(3, 4), _MASK_34]),
    (lambda t, x, m: x.masked_fill(m[None], 2.0), [(3, 4), _MASK_34]),
    (lambda t, x, m: (x * 2).masked_fill_(m, 1.0), [(3, 4), _MASK_34]),
    (lambda t, x, m: x.masked_select(m), [(3, 4), _MASK_34]),
    (lambda t, x, m: t.masked_select(x, m[1]), [(3, 4), _MASK_34]),
    (lambda t, x, m: x[0].masked_select(m), [(3, 4), _MASK_34]),
], ids=["fill", "fill-fn-int", "fill-broadcast-mask", "fill-0d-tensor", "fill-0d-int-tensor",
        "fill-inf-exp", "fill-bigger-mask", "fill-inplace", "select", "select-broadcast-mask",
        "select-broadcast-input"])
def test_masks_match_torch(fn, shapes, dtype):
    check_op(fn, shapes, dtype=dtype)


def test_masked_fill_value_tensor_requiring_grad_matches_torch():
    check_op(lambda t, x, v, m: x.masked_fill(m, v * 2), [(3, 4), (), _MASK_34])


INDEX_PUT = [
    ("rows", lambda t, x, v, acc: x.index_put((t.tensor([0, 2]),), v, acc), [(3, 4), (4,)]),
    ("points-repeated",
     lambda t, x, v, acc: x.index_put((t.tensor([0, 2, 0]), t.tensor([1, 1, 1])), v, acc),
     [(3, 4), (3,)]),
    ("rows-repeated-scalar", lambda t, x, v, acc: x.index_put((t.tensor([1, 1]),), v, acc),
     [(3, 4), ()]),
    ("mask",
     lambda t, x, v, acc: x.index_put([t.tensor([[True, False, True, False]] * 3)], v, acc),
     [(3, 4), (1,)]),
    ("broadcast-indices",
     lambda t, x, v, acc: x.index_put((t.tensor([2]), t.tensor([0, 3])), v, acc),
     [(3, 4), (2,)]),
    ("inplace-repeated",
     lambda t, x, v, acc: (x * 1).index_put_((t.tensor([0, 0]),), v, accumulate=acc),
     [(3, 4), (2, 4)]),
    ("inplace", lambda t, x, v, acc: (x * 1).index_put_((t.tensor([2, 0]),), v, accumulate=acc),
     [(3, 4), (2, 4)]),
]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("name,fn,shapes", INDEX_PUT, ids=[c[0] for c in INDEX_PUT])
def test_index_put_matches_torch(name, fn, shapes, accumulate):
    if not accumulate and "repeated" in name:
        pytest.skip("torch leaves the winner of duplicate writes unspecified")
    check_op(lambda t, x, v: fn(t, x, v, accumulate), shapes)


def test_index_put_accumulate_with_duplicates_matches_torch():
    check_op(lambda t, x, v: x.index_put((t.tensor([1, 1, 0, 1]),), v, accumulate=True),
             [(3, 2), (4, 2)])


@pytest.mark.parametrize("as_tuple", [False, True])
@pytest.mark.parametrize("arr", [
    _MASK_34, np.array([0.0, 1.5, 0.0, -2.0]), np.array(3), np.array(0.0),
    np.zeros((2, 0)), np.arange(24).reshape(2, 3, 4) % 5, np.zeros((2, 3), dtype=bool),
], ids=["bool-2d", "float-1d", "int-0d", "zero-0d", "empty", "int-3d", "all-false"])
def test_nonzero_matches_torch(arr, as_tuple):
    check_op(lambda t, x: x.nonzero(as_tuple=as_tuple), [arr], grad=False)
    check_op(lambda t, x: t.nonzero(x, as_tuple=as_tuple), [arr], grad=False)
    if not as_tuple:
        check_op(lambda t, x: t.argwhere(x), [arr], grad=False)


def test_nonzero_result_indexes_like_torch():
    check_op(lambda t, x: x[(x > 0).nonzero(as_tuple=True)], [(3, 4)])
    check_op(lambda t, x: x[tuple((x > 0).nonzero().t())], [(3, 4)])


# -- errors ------------------------------------------------------------------------------------

X = np.zeros((2, 3))
ERRORS = [
    ("int-out-of-range", lambda t, x: x[5],
     "index 5 is out of bounds for dimension 0 with size 2"),
    ("neg-out-of-range", lambda t, x: x[-3], "index -3 is out of bounds for dimension 0 with "
                                             "size 2"),
    ("dim1-out-of-range", lambda t, x: x[:, 7], "index 7 is out of bounds for dimension 1 with "
                                                "size 3"),
    ("tensor-out-of-range", lambda t, x: x[t.tensor([0, 5])],
     "index 5 is out of bounds for dimension 0 with size 2"),
    ("list-out-of-range", lambda t, x: x[[0, 5]],
     "index 5 is out of bounds for dimension 0 with size 2"),
    ("zero-d-out-of-range", lambda t, x: x[t.tensor(5)],
     "index 5 is out of bounds for dimension 0 with size 2"),
    ("too-many", lambda t, x: x[0, 0, 0], "too many indices for tensor of dimension 2"),
    ("float-tensor", lambda t, x: x[t.tensor([0.0])],
     "tensors used as indices must be long, int, byte or bool tensors"),
    ("float-number", lambda t, x: x[1.5], None),
    ("string", lambda t, x: x["a"], None),
    ("neg-step", lambda t, x: x[::-1], "step must be greater than zero"),
    ("mask-shape", lambda t, x: x[t.tensor([[True, False]])],
     "The shape of the mask [1, 2] at index 0 does not match the shape of the indexed tensor "
     "[2, 3] at index 0"),
    ("mask-dim1-shape", lambda t, x: x[:, t.tensor([True, False])],
     "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor "
     "[2, 3] at index 1"),
    ("adv-broadcast", lambda t, x: x[t.tensor([0, 1]), t.tensor([0, 1, 2])],
     "shape mismatch: indexing tensors could not be broadcast together"),
    ("scalar-index", lambda t: t.tensor(1.0)[0], "invalid index of a 0-dim tensor"),
    ("setitem-shape", lambda t, x: x.__setitem__(0, t.zeros(4)), None),
    ("setitem-adv-shape",
     lambda t, x: x.__setitem__(t.tensor([0, 1]), t.zeros(3, 3, dtype=x.dtype)),
     "shape mismatch: value tensor of shape [3, 3] cannot be broadcast to indexing result of "
     "shape [2, 3]"),
    ("setitem-out-of-range", lambda t, x: x.__setitem__(4, 1.0),
     "index 4 is out of bounds for dimension 0 with size 2"),
    ("setitem-expanded", lambda t: t.zeros(3, 1).expand(3, 4).__setitem__(0, 1.0),
     "unsupported operation"),
    ("setitem-adv-dtype", lambda t, x: x.__setitem__(t.tensor([0, 1]), t.ones(3)),
     "Index put requires the source and destination dtypes match, got Double for the "
     "destination and Float for the source."),
    ("setitem-adv-0d-dtype", lambda t, x: x.__setitem__(t.tensor([0, 1]), t.tensor(1)),
     "got Double for the destination and Long for the source"),
    ("setitem-list-dtype", lambda t, x: x.__setitem__([0, 1], t.ones(1)),
     "got Double for the destination and Float for the source"),
    ("setitem-mask-many-dtype", lambda t, x: x.__setitem__(x == 0, t.zeros(6)),
     "got Double for the destination and Float for the source"),
    ("setitem-mask-dim1-dtype", lambda t, x: x.__setitem__((0, t.tensor([True, False, True])),
                                                           t.ones(2)),
     "got Double for the destination and Float for the source"),
    ("index-put-dtype", lambda t, x: x.index_put((t.tensor([0]),), t.tensor(1.0)),
     "got Double for the destination and Float for the source"),
    ("index-put-mask-dtype", lambda t, x: x.index_put((x == 0,), t.ones(6)),
     "got Double for the destination and Float for the source"),
    ("index-put-mask-acc-dtype", lambda t, x: x.index_put((x == 0,), t.tensor(1.0), True),
     "got Double for the destination and Float for the source"),
    ("masked-fill-float-mask", lambda t, x: x.masked_fill(t.ones(2, 3), 1.0),
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    ("masked-fill-uint8-mask", lambda t, x: x.masked_fill(t.ones(2, 3, dtype=t.uint8), 1.0),
     "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
    ("masked-fill-1d-value", lambda t, x: x.masked_fill(t.ones(2, 3, dtype=t.bool), t.ones(2)),
     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
     "dimension(s)."),
    ("masked-fill-big-mask", lambda t, x: x.masked_fill(t.ones(4, 3, dtype=t.bool), 1.0),
     "The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0"),
    ("masked-fill-inplace-big-mask",
     lambda t, x: x.masked_fill_(t.ones(1, 2, 3, dtype=t.bool), 1.0),
     "output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]"),
    ("masked-select-float-mask", lambda t, x: x.masked_select(t.ones(2, 3)),
     "masked_select: expected BoolTensor for mask"),
    ("gather-float-index", lambda t, x: x.gather(0, t.zeros(2, 3)),
     "gather(): Expected dtype int32/int64 for index"),
    ("gather-int16-index", lambda t, x: x.gather(0, t.zeros(2, 3, dtype=t.int16)),
     "gather(): Expected dtype int32/int64 for index"),
    ("gather-ndim", lambda t, x: x.gather(0, t.zeros(2, 3, 3, dtype=t.int64)),
     "Index tensor must have the same number of dimensions as input tensor"),
    ("gather-dim", lambda t, x: x.gather(2, t.zeros(2, 3, dtype=t.int64)),
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("gather-out-of-range", lambda t, x: x.gather(0, t.tensor([[3]])),
     "index 3 is out of bounds for dimension 0 with size 2"),
    ("gather-too-big", lambda t, x: x.gather(1, t.zeros(3, 3, dtype=t.int64)),
     "Size does not match at dimension 0 expected index [3, 3] to be no larger than self "
     "[2, 3] apart from dimension 1"),
    ("scatter-float-index", lambda t, x: x.scatter(0, t.zeros(2, 3), 1.0),
     "scatter(): Expected dtype int32/int64 for index"),
    ("scatter-add-float-index", lambda t, x: x.scatter_add(0, t.zeros(2, 3), x),
     "scatter(): Expected dtype int32/int64 for index"),
    ("scatter-dtype", lambda t, x: x.scatter(0, t.zeros(2, 3, dtype=t.int64), x.float()),
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    ("scatter-out-of-range", lambda t, x: x.scatter(0, t.tensor([[3]]), 1.0),
     "index 3 is out of bounds for dimension 0 with size 2"),
    ("index-select-float", lambda t, x: x.index_select(0, t.tensor([0.0])),
     "index_select(): Expected dtype int32 or int64 for index"),
    ("index-select-out-of-range", lambda t, x: x.index_select(0, t.tensor([3])),
     "index out of range in self"),
    ("index-select-scalar-many", lambda t: t.tensor(1.0).index_select(0, t.tensor([0, 0])),
     "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
    ("index-select-2d", lambda t, x: x.index_select(0, t.zeros(1, 1, dtype=t.int64)),
     "Index is supposed to be a vector"),
    ("index-put-float", lambda t, x: x.index_put((t.tensor([0.0]),), t.tensor(1.0)),
     "tensors used as indices must be long, int, byte or bool tensors"),
    ("index-put-out-of-range",
     lambda t, x: x.index_put((t.tensor([5]),), t.tensor(1.0, dtype=x.dtype)),
     "index 5 is out of bounds for dimension 0 with size 2"),
    ("take-along-int32", lambda t, x: t.take_along_dim(x, t.zeros(2, 1, dtype=t.int32), 1),
     "torch.take_along_dim(): dtype of indices should be Long but got Int"),
]


@pytest.mark.parametrize("name,fn,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_indexing_errors_match_torch(name, fn, match):
    arrays = [X] if fn.__code__.co_argcount == 2 else []
    check_raises(fn, arrays, match=match)


def test_scatter_reduce_extremes_are_exact_and_keep_nan_like_torch():
    # on CuPy, amax/amin go through ordered int64 keys (its float atomics drop NaN and compute
    # float64 in float32): exact values, NaN wins (with torch's sign)
    def fn(t):
        x = t.tensor([0.1, 0.2, -0.5, 5.0, 0.0], dtype=t.float64)
        s = t.tensor([float("nan"), 0.3, 0.25, -1e-300, 1.0, -2.0], dtype=t.float64)
        i = t.tensor([0, 1, 2, 2, 3, 4])
        return [(y, [math.copysign(1.0, v) for v in y.tolist()]) for y in (
            x.to(dt).scatter_reduce(0, i, s.to(dt), r)
            for r in ("amax", "amin") for dt in (t.float64, t.float32, t.float16))]

    same(fn)


def test_repeated_writes_keep_the_last_value_like_torch():
    # CuPy's scatter kernel races on repeated positions (an H100 kept the first write)
    def fn(t):
        x = t.zeros(4, 3)
        x[t.tensor([1, 1, 2, 1])] = t.arange(12.0).reshape(4, 3)
        y = t.zeros(5).index_put((t.tensor([3, 0, 3]),), t.tensor([1.0, 2.0, 3.0]))
        z = t.zeros(2, 3).scatter(1, t.tensor([[2, 2, 2], [0, 1, 0]]),
                                  t.arange(6.0).reshape(2, 3))
        w = t.zeros(3, 4)
        w[t.tensor([0, 2, 0]), t.tensor([1, 1, 1])] = t.tensor([1.0, 2.0, 3.0])
        c = t.zeros(3, 2).index_copy(0, t.tensor([1, 1, 0]), t.arange(6.0).reshape(3, 2))
        p = t.zeros(4).put_(t.tensor([1, 1]), t.tensor([5.0, 6.0]))
        return x, y, z, w, c, p

    same(fn)
