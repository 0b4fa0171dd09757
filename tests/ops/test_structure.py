"""Matrix structure and index-wise updates against torch: diag, tril/triu, trace, dist,
renorm, index_add/index_copy/index_fill, masked_scatter (values, dtypes, gradients of first
and second order, in-place forms and errors)."""

import numpy as np
import pytest

import numtorch
import torch
from tests.oracle import check_op, check_raises

DTYPES = ["float64", "float32"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4,), (3, 3), (3, 5), (5, 2)])
@pytest.mark.parametrize("k", [0, 1, -2])
def test_diag(shape, k, dtype):
    check_op(lambda t, x: t.diag(x, k), [shape], dtype=dtype)
    check_op(lambda t, x: x.diag(diagonal=k), [shape], dtype=dtype)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (2, 1, 3, 5)])
@pytest.mark.parametrize("k", [0, 2, -1])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu(name, shape, k):
    check_op(lambda t, x: getattr(t, name)(x, k), [shape])
    check_op(lambda t, x: getattr(x * 1, name + "_")(diagonal=k), [shape])
    ints = np.arange(12).reshape(3, 4)
    check_op(lambda t, x: getattr(x, name)(k), [ints], grad=False)


@pytest.mark.parametrize("dtype", DTYPES + ["int32", "int64"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (4, 1)])
def test_trace(shape, dtype):
    if dtype.startswith("int"):
        x = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
        check_op(lambda t, x: t.trace(x), [x], grad=False)
    else:
        check_op(lambda t, x: x.trace(), [shape], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf")])
@pytest.mark.parametrize("shapes", [[(3, 4), (3, 4)], [(2, 3, 4), (4,)]])
def test_dist(shapes, p, dtype):
    check_op(lambda t, x, y: t.dist(x, y, p), shapes, dtype=dtype)
    check_op(lambda t, x, y: x.dist(y, p=p), shapes, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 2.0), (3, -1, 0.5),
                                           (2, 1, 100.0)])
def test_renorm(p, dim, maxnorm, dtype):
    check_op(lambda t, x: t.renorm(x, p, dim, maxnorm), [(4, 3, 2)], dtype=dtype)
    check_op(lambda t, x: (x * 1).renorm_(p, dim, maxnorm), [(4, 5)], dtype=dtype)


IDX = np.array([2, 0, 2, 3])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("alpha", [1, -2.5])
def test_index_add(dim, alpha, dtype):
    shape = (4, 5, 4)
    src = list(shape)
    src[dim] = len(IDX)
    check_op(lambda t, x, i, s: t.index_add(x, dim, i, s, alpha=alpha),
             [shape, IDX, tuple(src)], dtype=dtype)
    check_op(lambda t, x, i, s: (x * 1).index_add_(dim, i, s, alpha=alpha),
             [shape, IDX.astype(np.int32), tuple(src)], dtype=dtype)


def test_index_add_ints_and_scalar():
    x = np.arange(6, dtype=np.int64)
    check_op(lambda t, x, i, s: x.index_add(0, i, s), [x, IDX, np.arange(4)], grad=False)
    check_op(lambda t, x, i, s: x.index_add(0, i, s), [(), np.array([0]), ()])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_copy(dim, dtype):
    idx = np.array([3, 0, 2])  # no repeats: which copy wins is unspecified in torch
    shape = (4, 5, 4)
    src = list(shape)
    src[dim] = len(idx)
    check_op(lambda t, x, i, s: t.index_copy(x, dim, i, s), [shape, idx, tuple(src)],
             dtype=dtype)
    check_op(lambda t, x, i, s: (x * 1).index_copy_(dim, i, s), [shape, idx, tuple(src)],
             dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_fill(dim, dtype):
    check_op(lambda t, x, i: t.index_fill(x, dim, i, -1.5), [(4, 5, 4), IDX], dtype=dtype)
    check_op(lambda t, x, i: (x * 1).index_fill_(dim, i, 3.0), [(4, 5, 4), IDX], dtype=dtype)
    check_op(lambda t, x, i: x.index_fill(dim, i, t.tensor(2.0)), [(4, 5, 4), IDX],
             dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (1, 4)])
@pytest.mark.parametrize("src_shape", [(12,), (3, 5)])
def test_masked_scatter(mask_shape, src_shape, dtype):
    mask = np.random.default_rng(1).random(mask_shape) > 0.4
    check_op(lambda t, x, m, s: t.masked_scatter(x, m, s), [(3, 4), mask, src_shape],
             dtype=dtype)
    check_op(lambda t, x, m, s: (x * 1).masked_scatter_(m, s), [(3, 4), mask, src_shape],
             dtype=dtype)


def test_masked_copy_alias():
    mask = np.array([[True, False, True], [False, True, True]])
    nt = numtorch.zeros(2, 3)
    nt.masked_copy_(numtorch.from_numpy(mask), numtorch.arange(1.0, 7.0))
    ref = numtorch.zeros(2, 3).masked_scatter(numtorch.from_numpy(mask),
                                              numtorch.arange(1.0, 7.0))
    assert numtorch.equal(nt, ref)
    check_op(lambda t, x, m, s: (x * 1).masked_scatter_(m, s), [(2, 3), mask, (6,)])


def test_errors():
    x = np.zeros((3, 4))
    one = np.ones((1, 4))
    check_raises(lambda t, x, i, s: x.index_add(0, i, s), [x, np.array([0.]), one])
    check_raises(lambda t, x, i, s: x.index_add(0, i, s), [x, np.array([0]), np.ones((2, 4))],
                 match="Number of indices")
    check_raises(lambda t, x, i, s: x.index_copy(0, i, s), [x, np.array([0]), np.ones((1, 5))])
    for bad in ([5], [-4], [-1]):
        check_raises(lambda t, x, i, s: x.index_add(0, i, s), [x, np.array(bad), one])
    for bad in ([5], [-4]):
        check_raises(lambda t, x, i, s: x.index_copy(0, i, s), [x, np.array(bad), one])
        check_raises(lambda t, x, i: x.index_fill(0, i, 1.0), [x, np.array(bad)])
    check_raises(lambda t, x, i: x.index_fill(0, i, 1.0), [x, np.array([0.])])
    check_raises(lambda t, x, i: x.index_fill(0, i, 1.0), [x, np.array([0], np.int32)])
    check_raises(lambda t, x, m, s: x.masked_scatter(m, s), [x, x > -1, np.ones(5)])
    check_raises(lambda t, x, m, s: x.masked_scatter(m, s), [x, x, np.ones(12)])
    check_raises(lambda t, x: t.tril(x), [np.ones(3)])
    check_raises(lambda t, x: x.triu_(), [np.ones(3)])
    check_raises(lambda t, x: t.trace(x), [np.ones(3)])
    check_raises(lambda t, x: t.diag(x), [np.ones((2, 2, 2))])
    check_raises(lambda t, x: t.renorm(x, 2, 0, 1.0), [np.ones(3)])
    check_raises(lambda t, x: t.renorm(x, -1, 0, 1.0), [x])
    check_raises(lambda t, x, y: t.dist(x, y), [x, np.ones((2, 4))])
    check_raises(lambda t, x, y: t.cross(x, y, dim=1), [x, x])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,offset,d1,d2", [((3, 4), 0, 0, 1), ((3, 4), 2, 1, 0),
                                                ((2, 3, 4), -1, 0, 2), ((2, 3, 4), 1, -1, 1),
                                                ((3, 3), 5, 0, 1)])
def test_diagonal(shape, offset, d1, d2, dtype):
    check_op(lambda t, x: t.diagonal(x, offset, d1, d2), [shape], dtype=dtype)
    check_op(lambda t, x: x.diagonal(offset=offset, dim1=d1, dim2=d2) * 2, [shape],
             dtype=dtype)


def test_diagonal_is_a_view():
    def fn(t, x):
        y = x * 1
        y.diagonal(1).fill_(-3.0)
        y.diagonal().mul_(2.0)
        return y

    check_op(fn, [(3, 4)])


@pytest.mark.parametrize("shape,offset,d1,d2", [((3,), 0, -2, -1), ((2, 3), 1, 0, 2),
                                                ((2, 3), -2, 2, 0), ((2, 2, 3), 0, 1, 3)])
def test_diag_embed(shape, offset, d1, d2):
    check_op(lambda t, x: t.diag_embed(x, offset, d1, d2), [shape])
    check_op(lambda t, x: x.diag_embed(offset, d1, d2), [shape], dtype="float32")


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (3, 5, 1), (4, 2, -1), (0, 3, 0),
                                            (3, 4, 10)])
def test_tri_indices(row, col, offset):
    check_op(lambda t: t.tril_indices(row, col, offset), [], grad=False)
    check_op(lambda t: t.triu_indices(row, col, offset), [], grad=False)
    check_op(lambda t: t.tril_indices(row, col, offset, dtype=t.int32), [], grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_take(dtype):
    idx = np.array([[0, 11, -1], [5, 5, -12]])
    check_op(lambda t, x, i: t.take(x, i), [(3, 4), idx], dtype=dtype)
    check_op(lambda t, x, i: x.take(i), [(), np.array([0, -1])], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_repeat_interleave(dim, dtype):
    check_op(lambda t, x: t.repeat_interleave(x, 3, dim), [(2, 3)], dtype=dtype)
    n = 6 if dim is None else (2, 3)[dim]
    reps = np.arange(n) % 3
    check_op(lambda t, x, r: x.repeat_interleave(r, dim=dim), [(2, 3), reps], dtype=dtype)


def test_repeat_interleave_counts_only():
    check_op(lambda t, r: t.repeat_interleave(r), [np.array([2, 0, 3])], grad=False)
    check_op(lambda t, x, r: t.repeat_interleave(x, r), [(), np.array([3])])


def test_more_errors():
    x = np.zeros((3, 4))
    check_raises(lambda t, x: t.diagonal(x, 0, 1, 1), [x])
    check_raises(lambda t, x, i: t.take(x, i), [x, np.array([12])])
    check_raises(lambda t, x, i: t.take(x, i), [x, np.array([0], np.int32)])
    check_raises(lambda t, x, r: t.repeat_interleave(x, r, 0), [x, np.array([1, 2])])
    check_raises(lambda t, x: t.repeat_interleave(x, -1), [x])


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(2,), (3,)], [(2,), (), (4,)], [(3,)]])
def test_meshgrid(shapes, indexing):
    check_op(lambda t, *xs: t.meshgrid(*xs, indexing=indexing), shapes)
    check_op(lambda t, *xs: t.meshgrid(list(xs), indexing=indexing), shapes, grad=False)


@pytest.mark.parametrize("shapes", [[(2, 2), (), (3,)], [(1, 3), (2, 0), (2, 1)], [(3, 2)]])
def test_block_diag(shapes):
    check_op(lambda t, *xs: t.block_diag(*xs), shapes)
    ints = [np.ones(s, dtype=np.int32) for s in shapes]
    check_op(lambda t, a, *xs: t.block_diag(a, *xs), [(2,)] + ints, grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("shapes", [[(4, 3), (5, 3)], [(2, 4, 3), (2, 2, 3)], [(2, 4, 3), (5, 3)]])
def test_cdist(shapes, p, dtype):
    # torch has no second derivative for cdist
    check_op(lambda t, a, b: t.cdist(a, b, p=p), shapes, dtype=dtype, second_order=False)


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 2), False), ((7, 3), True),
                                        ((2, 5), True), ((3, 3, 3), False)])
def test_fill_diagonal(shape, wrap):
    check_op(lambda t, x: (x * 1).fill_diagonal_(-2.5, wrap=wrap), [shape])
    ints = np.zeros(shape, dtype=np.int64)
    check_op(lambda t, x: x.clone().fill_diagonal_(4, wrap), [ints], grad=False)


def test_structure_errors_extra():
    check_raises(lambda t, x: x.fill_diagonal_(1.0), [np.ones((2, 3, 2))])
    check_raises(lambda t, x: x.fill_diagonal_(1.0), [np.ones(3)])
    check_raises(lambda t, a, b: t.cdist(a, b), [np.ones((2, 3)), np.ones((2, 4))])
    check_raises(lambda t, a, b: t.cdist(a, b), [np.ones(3), np.ones((2, 3))])
    check_raises(lambda t, a: t.block_diag(a), [np.ones((2, 2, 2))])
    check_raises(lambda t, a: t.meshgrid(a, indexing="ab"), [np.ones(2)])
    check_raises(lambda t, a: t.meshgrid(a, a, indexing="ij"), [np.ones((2, 2))])


def test_meshgrid_default_warns():
    from numtorch import _warn_once

    _warn_once._DONE.discard("meshgrid")  # torch warns once per process
    with pytest.warns(UserWarning, match="indexing"):
        grids = numtorch.meshgrid(numtorch.arange(2), numtorch.arange(3))
    assert tuple(grids[0].shape) == (2, 3)


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_matches_torch(accumulate):
    idx = np.array([0, -1, 4], dtype=np.int64) if not accumulate else \
        np.array([0, 0, 5, -1], dtype=np.int64)
    check_op(lambda t, x, s: x.put(t.from_numpy(idx), s, accumulate=accumulate),
             [(2, 3), (idx.size,)])

    def inplace(t):
        x = t.zeros(2, 3)
        x.put_(t.from_numpy(idx), t.arange(float(idx.size)), accumulate=accumulate)
        return x
    assert inplace(numtorch).tolist() == inplace(torch).tolist()
    check_raises(lambda t: t.zeros(3).put_(t.tensor([5]), t.tensor([1.0])))
