"""Functions beyond the seeds' API (issue 19) against torch: values, dtypes, gradients for a
random cotangent, second order, and torch's errors."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, check_raises

_RNG = np.random.default_rng(19)
IDX = _RNG.integers(0, 4, (5, 3))  # scatter positions into a (4, 3) tensor
ROWS = np.array([0, 2, 0, 3, 2])  # index_reduce rows
TIES = _RNG.integers(-2, 3, (4, 3)).astype("float64")  # few distinct values: many ties
TIES_SRC = _RNG.integers(-2, 3, (5, 3)).astype("float64")
NANS = np.array([[1.0, np.nan, 2.5, -1.0], [np.nan, np.nan, 0.5, 3.0], [0.2, 0.1, -0.3, 2.0]])


def _idx(t, a=IDX):
    return t.from_numpy(np.array(a))


def _silence(fn):
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return run


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("ties", [False, True])
def test_scatter_reduce_matches_torch(reduce, include_self, ties):
    shapes = [TIES.copy(), TIES_SRC.copy()] if ties else [(4, 3), (5, 3)]
    check_op(lambda t, x, s: x.scatter_reduce(0, _idx(t), s, reduce,
                                              include_self=include_self), shapes)


def test_scatter_reduce_prod_with_zeros_matches_torch():
    x = np.array([[0.0, 2.0, 1.5], [3.0, 0.0, 0.5]])
    s = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 4.0], [2.0, 3.0, 0.0]])
    idx = np.array([[0, 1, 0], [0, 1, 1], [1, 1, 0]])
    check_op(lambda t, a, b: a.scatter_reduce(0, _idx(t, idx), b, "prod"), [x, s],
             second_order=False)
    check_op(lambda t, a, b: a.scatter_reduce(0, _idx(t, idx), b, "prod", include_self=False),
             [x, s], second_order=False)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_integer_matches_torch(dtype, reduce):
    if dtype == "bool" and reduce == "mean":
        return
    x = _RNG.integers(-5, 6, (4, 3)).astype(dtype)
    s = _RNG.integers(-5, 6, (5, 3)).astype(dtype)
    for inc in (True, False):
        check_op(lambda t, a, b: t.scatter_reduce(a, 0, _idx(t), b, reduce, include_self=inc),
                 [x, s], grad=False)


def test_scatter_reduce_inplace_and_dim1_match_torch():
    idx = _RNG.integers(0, 3, (4, 2))

    def fn(t, x, s):
        y = x * 1
        y.scatter_reduce_(1, _idx(t, idx), s, "amax", include_self=False)
        return y
    check_op(fn, [(4, 3), (4, 2)])  # src larger than index: torch's backward fails


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_torch(reduce, include_self):
    shapes = [TIES[:, :2].copy(), TIES_SRC[:, :2].copy()]
    fn = _silence(lambda t, x, s: x.index_reduce(0, _idx(t, ROWS), s, reduce,
                                                 include_self=include_self))
    check_op(fn, shapes)
    check_op(_silence(lambda t, x, s: t.index_reduce(x, 1, _idx(t, [2, 0, 2]), s, reduce,
                                                     include_self=include_self)),
             [(3, 4), (3, 3)])


def test_index_reduce_warns_like_torch():
    import numtorch.ops.reducing_scatter as rs

    rs._INDEX_REDUCE_WARNED.clear()
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        numtorch.ones(2).index_reduce(0, numtorch.tensor([0]), numtorch.ones(1), "prod")


@pytest.mark.parametrize("fn", [
    lambda t, x: x.as_strided((3, 2), (1, 2), 1),
    lambda t, x: t.as_strided(x, (2, 2), (3, 1)),
    lambda t, x: x[2:].as_strided((2, 3), (1, 1)),  # offset defaults to the view's own
    lambda t, x: x[1::2].as_strided((2,), (2,), 1),
    lambda t, x: x.expand(3, 8).as_strided((4, 2), (1, 1)),  # overlapping input
    lambda t, x: x.as_strided((3, 3), (1, 1)).sum(1),  # overlapping output
    lambda t, x: x.reshape(2, 4).t().as_strided((2, 2), (4, 1), 2),
], ids=["basic", "function", "view", "strided_view", "expanded_input", "overlap",
        "transposed"])
def test_as_strided_matches_torch(fn):
    check_op(fn, [(8,)])


def test_as_strided_is_a_view_with_torch_geometry():
    for lib in (numtorch, torch):
        x = lib.arange(12.0)
        v = x[2:].as_strided((2, 3), (3, 1))
        v[0, 0] = 100.0
        assert x[2].item() == 100.0
        assert v.stride() == (3, 1) and v.storage_offset() == 2
        w = v.as_strided((2,), (5,), 0)
        assert w.tolist() == [0.0, 5.0]
    q = numtorch.arange(6.0)[2:]
    q.as_strided_((2,), (2,), 1)
    assert q.tolist() == [1.0, 3.0] and q.storage_offset() == 1 and q.stride() == (2,)


@pytest.mark.parametrize("fn", [
    lambda t, x, s: t.select_scatter(x, s[0], 0, -1),
    lambda t, x, s: x.select_scatter(s[:, 0], 1, 1),
    lambda t, x, s: t.slice_scatter(x, s[:, :2], 1, 1),
    lambda t, x, s: x.slice_scatter(s[:2], 0, 0, None, 2),
    lambda t, x, s: t.diagonal_scatter(x, s[0, :2], 1),
    lambda t, x, s: x.diagonal_scatter(s[:1, 0], -2, 1, 0),
], ids=["select", "select_dim1", "slice", "slice_step",
        "diagonal", "diagonal_swapped"])
def test_view_scatters_match_torch(fn):
    check_op(fn, [(3, 3), (3, 3)])


def test_as_strided_scatter_matches_torch():
    # torch 2.13 sends input's gradient to the overwritten positions instead of the others
    # (it fails its own gradcheck), so input's gradient is checked numerically here and only
    # src's against torch
    check_op(lambda t, x, s: t.as_strided_scatter(x.detach(), s[:2, 0], (2,), (2,), 1),
             [(3, 3), (3, 3)])
    # a non-contiguous input: torch refuses it with gradients, and its src gradient disagrees
    # with its own forward; compare values only
    check_op(lambda t, x, s: x[:, 1:].as_strided_scatter(s[:2, 0], (2,), (2,), 1),
             [(3, 3), (3, 3)], grad=False)
    x = numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)
    s = numtorch.randn(2, dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(
        lambda a, b: numtorch.as_strided_scatter(a, b, (2,), (2,), 1), (x, s))
    assert numtorch.autograd.gradgradcheck(
        lambda a, b: numtorch.as_strided_scatter(a, b, (2,), (2,), 1) ** 2, (x, s))


@pytest.mark.parametrize("fn", [
    lambda t, x: t.rot90(x),
    lambda t, x: x.rot90(2, [1, 2]),
    lambda t, x: t.rot90(x, -1, (2, 0)),
    lambda t, x: t.rot90(x, 7, [0, 1]),
    lambda t, x: t.rot90(x, 0),
    lambda t, x: t.tensor_split(x, 2, 2),
    lambda t, x: x.tensor_split([1, 5, 3, -1], dim=2),
    lambda t, x: t.tensor_split(x, t.tensor(3), dim=2),
    lambda t, x: t.tensor_split(x, t.tensor([1, 2]), dim=1),
    lambda t, x: t.hsplit(x, 3),
    lambda t, x: x.vsplit([1]),
    lambda t, x: t.dsplit(x, 2),
    lambda t, x: t.hsplit(x.reshape(-1), [2, 7]),
    lambda t, x: t.dstack([x[0], x[1]]),
    lambda t, x: t.dstack((x[0, 0], x[1, 0])),
    lambda t, x: t.column_stack([x[0, :, 0], x[0], x[1]]),
    lambda t, x: t.column_stack([x[0, 0, 0], x[1, 0, :1]]),
    lambda t, x: t.row_stack([x[0], x[1, 0]]),
    lambda t, x: t.tile(x, (2,)),
    lambda t, x: x[0].tile(2, 1, 2),
    lambda t, x: x.tile(()),
    lambda t, x: t.ravel(x.transpose(0, 2)),
    lambda t, x: x[:, 1].ravel(),
    lambda t, x: t.broadcast_tensors(x[0, :, :1], x[1, 0]),
    lambda t, x: t.broadcast_tensors(x),
    lambda t, x: t.diagflat(x[0]),
    lambda t, x: x[0, 0].diagflat(-2),
    lambda t, x: t.combinations(x[0, 0]),
    lambda t, x: t.combinations(x[0, :, 0], 3),
    lambda t, x: t.combinations(x[0, 0], 2, with_replacement=True),
    lambda t, x: t.combinations(x[0, :, 0], 4, True),
    lambda t, x: t.combinations(x[0, 0], 0),
    lambda t, x: t.combinations(x[0, 0], 5),
    lambda t, x: x.sum_to_size(1, 3, 1),
    lambda t, x: x.sum_to_size((4,)),
    lambda t, x: x.sum_to_size(2, 3, 4),
    lambda t, x: t.adjoint(x),
    lambda t, x: x.fliplr(),
    lambda t, x: x[0].flipud(),
    lambda t, x: x[0, 0].vdot(x[1, 1]),
], ids=lambda f: None)
def test_shape_functions_match_torch(fn):
    check_op(fn, [(2, 3, 4)])


def test_vander_matches_torch():
    # torch 2.13 cannot differentiate vander (its backward trips its own in-place check):
    # values against torch, gradients (first and second order) by finite differences
    for fn in (lambda t, x: t.vander(x), lambda t, x: t.vander(x, 5, increasing=True),
               lambda t, x: t.vander(x, 0), lambda t, x: t.vander(x, 1)):
        check_op(fn, [np.array([0.0, 1.5, -2.0, 0.5])], grad=False)
    x = numtorch.tensor([0.0, 1.5, -2.0, 0.5], dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda a: numtorch.vander(a, 5), (x,))
    assert numtorch.autograd.gradgradcheck(lambda a: numtorch.vander(a, 4, True), (x,))
    check_op(lambda t, x: t.vander(x), [np.array([1, 2, 3], dtype="int32")], grad=False)
    check_op(lambda t, x: t.vander(x), [np.array([True, False])], grad=False)


def test_index_helpers_match_torch():
    for idx, shape in (([5, 7, -1, 0], (2, 3)), (4, (2, 3)), ([1, 30], 6), ([3], ()),
                       ([[1, 2], [8, 9]], (3, 1, 4))):
        arr = np.array(idx, dtype="int64")
        check_op(lambda t, i: t.unravel_index(i, shape), [arr], grad=False)
    check_op(lambda t, i: t.unravel_index(i, (4, 5)), [np.array([7, 19], dtype="int32")],
             grad=False)
    assert numtorch.broadcast_shapes((2, 1), (3,), 1, ()) == torch.broadcast_shapes(
        (2, 1), (3,), 1, ())
    assert type(numtorch.broadcast_shapes((2, 1))) is numtorch.Size
    assert numtorch.broadcast_shapes() == torch.broadcast_shapes()


@pytest.mark.parametrize("fn", [
    lambda t, x: t.logcumsumexp(x, 1),
    lambda t, x: x.logcumsumexp(-1) * 3,
    lambda t, x: t.logcumsumexp(x * 400, 0),  # a wide spread: no overflow, no underflow
    lambda t, x: t.logcumsumexp(x[0, 0], 0),
    lambda t, x: t.diff(x),
    lambda t, x: x.diff(2, 0),
    lambda t, x: t.diff(x, n=3, dim=1, prepend=x[:, :1] * 2, append=x[:, :2].exp()),
    lambda t, x: t.diff(x, n=0),
    lambda t, x: t.diff(x, n=9),
    lambda t, x: t.nansum(x, 1),
    lambda t, x: x.nansum(),
    lambda t, x: t.nanmean(x, (0, 1), keepdim=True),
    lambda t, x: t.cumulative_trapezoid(x),
    lambda t, x: t.cumulative_trapezoid(x, dx=0.5, dim=0),
    lambda t, x: t.cumulative_trapezoid(x, x[0].exp().cumsum(0)),
    lambda t, x: t.cumulative_trapezoid(x, x.exp().cumsum(0), dim=0),
    lambda t, x: t.cov(x),
    lambda t, x: x.cov(correction=0),
    lambda t, x: t.cov(x[0]),
    lambda t, x: t.cov(x, fweights=t.tensor([1, 2, 0, 3])),
    lambda t, x: t.cov(x, aweights=x[0].exp()),
    lambda t, x: t.cov(x, aweights=x[0].exp().detach(), correction=2),  # no degree of freedom
    lambda t, x: t.cov(x, fweights=t.tensor([1, 2, 1, 3]), aweights=x[1].exp()),
    lambda t, x: t.corrcoef(x),
    lambda t, x: x[:1].corrcoef(),
    lambda t, x: t.cosine_similarity(x, x.flip(0) + 1, dim=0),
    lambda t, x: t.pairwise_distance(x, x.flip(1), p=3.0),
], ids=lambda f: None)
def test_statistics_match_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_op(fn, [(3, 4)])


def test_distance_functions_at_torch_names():
    assert numtorch.pdist is numtorch.nn.functional.pdist
    check_op(lambda t, x: t.pdist(x), [(3, 4)], second_order=False)  # torch has no 2nd order


def test_nan_reductions_match_torch():
    for fn in (lambda t, x: t.nansum(x, 1), lambda t, x: x.nansum(0, keepdim=True),
               lambda t, x: t.nanmean(x), lambda t, x: x.nanmean(1),
               lambda t, x: t.nanmean(x, 0, dtype=t.float32)):
        check_op(fn, [NANS.copy()])
    for dt in ("int64", "bool", "int8"):
        check_op(lambda t, x: t.nansum(x), [np.array([1, 0, 3]).astype(dt)], grad=False)
    check_op(lambda t, x: t.nansum(x, dtype=t.int64), [np.array([1.5, np.nan])], grad=False)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_torch(interpolation):
    q = np.array([0.0, 0.25, 0.5, 0.5 / 3, 1.0])
    for fn in (lambda t, x, qq: t.quantile(x, qq, interpolation=interpolation),
               lambda t, x, qq: x.quantile(qq, 1, keepdim=True, interpolation=interpolation),
               lambda t, x, qq: t.quantile(x, 0.3, 0, interpolation=interpolation),
               lambda t, x, qq: t.quantile(x, 0.7, keepdim=True, interpolation=interpolation),
               lambda t, x, qq: t.quantile(x, qq, None, True, interpolation=interpolation),
               lambda t, x, qq: t.nanquantile(x, qq, 1, interpolation=interpolation),
               lambda t, x, qq: x.nanquantile(0.4, 0, True, interpolation=interpolation)):
        check_op(fn, [(3, 4), q.copy()])
        check_op(fn, [TIES.T.copy(), q.copy()])  # ties: the gradient follows sort's choice
        check_op(fn, [NANS.copy(), q.copy()])


def test_quantile_of_all_nan_and_0d_match_torch():
    check_op(lambda t, x: t.nanquantile(x, 0.5, 1), [np.array([[np.nan, np.nan], [1.0, 2.0]])])
    check_op(lambda t, x: t.quantile(x, 0.3), [np.array(3.0)])
    check_op(lambda t, x: t.quantile(x, 0.3, dim=0, keepdim=True), [np.array(3.0)])
    check_op(lambda t, x: t.quantile(x, 0.3, 1), [(2, 5)], dtype="float32")


def test_isin_matches_torch():
    a = np.array([[1, 2, 3], [4, 2, 0]])
    b = np.array([2, 5, 0])
    for fn in (lambda t, x, y: t.isin(x, y), lambda t, x, y: t.isin(x, y, invert=True),
               lambda t, x, y: t.isin(x.double(), y), lambda t, x, y: t.isin(x, 2),
               lambda t, x, y: t.isin(3, y), lambda t, x, y: t.isin(x, y, assume_unique=True)):
        check_op(fn, [a, b], grad=False)


def test_frombuffer_shares_memory_like_torch():
    import array

    for lib in (numtorch, torch):
        buf = bytearray(b"\x01\x00\x02\x00\x03\x00\x04\x00")
        t = lib.frombuffer(buf, dtype=lib.int16, count=2, offset=2)
        assert t.tolist() == [2, 3] and t.dtype == lib.int16
        buf[2] = 9
        assert t[0].item() == 9
        t[1] = 7
        assert buf[4] == 7
        f = lib.frombuffer(array.array("d", [1.5, 2.5]), dtype=lib.float64, requires_grad=True)
        assert f.requires_grad and f.tolist() == [1.5, 2.5]
    with pytest.warns(UserWarning, match="not writable"):
        numtorch.frombuffer(b"\x00" * 4, dtype=numtorch.float32)


def test_to_dense_and_adjoint_match_torch():
    x = numtorch.ones(2, 3)
    assert x.to_dense() is x
    assert x.to_dense(numtorch.float64).dtype is numtorch.float64
    assert numtorch.adjoint(x).shape == (3, 2)


@pytest.mark.parametrize("fn, args, match", [
    (lambda t, x: t.rot90(x, 1, [0]), [(2, 3)], "expected total rotation dims == 2"),
    (lambda t, x: t.rot90(x[0], 1), [(2, 3)], "expected total dims >= 2"),
    (lambda t, x: t.rot90(x, 1, [0, -2]), [(2, 3)], "dim0 = 0 and dim1 = -2"),
    (lambda t, x: t.rot90(x, 1, [0, 2]), [(2, 3)], "Dimension out of range"),
    (lambda t, x: t.tensor_split(x, 0), [(7,)], "number of sections must be larger than 0"),
    (lambda t, x: t.tensor_split(x[0], 2), [(7,)], "expected at least a 1-dimensional"),
    (lambda t, x: t.tensor_split(x, t.tensor([2.0])), [(7,)], "to have dtype of long"),
    (lambda t, x: t.tensor_split(x, t.tensor([[2]])), [(7,)], "got a tensor with 2 dims"),
    (lambda t, x: t.hsplit(x, 3), [(3, 4)], "is not divisible by the split_size 3!"),
    (lambda t, x: t.vsplit(x, 3), [(12,)], "at least 2 dimension, but got a tensor with 1"),
    (lambda t, x: t.dsplit(x, 3), [(3, 4)], "at least 3 dimension"),
    (lambda t, x: t.dstack([]), [], "dstack expects a non-empty TensorList"),
    (lambda t, x: t.column_stack([]), [], "column_stack expects a non-empty TensorList"),
    (lambda t, x: t.broadcast_shapes((2, 1), (3, 4)), [], "Attempting to broadcast a dim"),
    (lambda t, x: t.broadcast_shapes((-1,)), [], "negative length"),
    (lambda t, x: t.broadcast_tensors(x, x[:, :2].t()), [(2, 3)],
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton"),
    (lambda t, x: t.unravel_index(x, (2, 3)), [(2,)], "expected 'indices' to be integer"),
    (lambda t, x: t.unravel_index(t.tensor([1]), (2, -3)), [], "cannot have negative values"),
    (lambda t, x: t.combinations(x), [(2, 3)], "Expect a 1D vector, but got shape [2, 3]"),
    (lambda t, x: t.combinations(x, -1), [(3,)], "Expect a non-negative number, but got -1"),
    (lambda t, x: t.vander(x, -1), [(3,)], "N must be non-negative."),
    (lambda t, x: t.vander(x), [(3, 2)], "x must be a one-dimensional tensor."),
    (lambda t, x: x.sum_to_size(2, 2), [(2, 3)], "size {[2, 2]} is not expandable to size"),
    (lambda t, x: x.sum_to_size(4, 3), [(2, 3)], "is not expandable"),
    (lambda t, x: t.adjoint(x), [(3,)], "only supported on matrices"),
    (lambda t, x: x.scatter_reduce(0, t.tensor([0]), x, "foo"), [(3,)],
     "reduce argument must be either sum, prod, mean, amax or amin, got foo"),
    (lambda t, x: x.scatter_reduce(0, t.tensor([0]), x.float(), "sum"), [(3,)],
     "Expected self.dtype to be equal to src.dtype"),
    (lambda t, x: x.scatter_reduce(0, t.tensor([3]), x, "sum"), [(3,)], "out of bounds"),
    (lambda t, x: x.scatter_reduce(0, t.tensor([0]), 1.0, "sum"), [(3,)], "must be Tensor"),
    (lambda t, x: x.index_reduce(0, t.tensor([0]), x[:1], "sum"), [(3,)],
     "Expected reduce to be one of prod, mean, amax or amin but got sum."),
    (lambda t, x: x.index_reduce(0, t.tensor([0.0]), x[:1], "prod"), [(3,)],
     "Expected dtype int32/int64 for index"),
    (lambda t, x: x.index_reduce(0, t.tensor([5]), x[:1], "prod"), [(3,)],
     "index out of range in self"),
    (lambda t, x: x.index_reduce(0, t.tensor([0, 1]), x[:1], "prod"), [(3,)],
     "Number of indices (2) should be equal to source.size(dim): (1), for dim: 0"),
    (lambda t, x: x.index_reduce(0, t.tensor([0]), x[:1, :1], "prod"), [(3, 2)],
     "source tensor shape must match self tensor shape"),
    (lambda t, x: x.index_reduce(0, t.tensor([0]), x[:1].float(), "prod"), [(3,)],
     "must have the same scalar type"),
    (lambda t, x: x.as_strided((3, 3), (3, 1)), [(2, 3)], "requiring a storage size of 72"),
    (lambda t, x: x.as_strided((2, 2), (-1, 1)), [(2, 3)], "Negative strides are not"),
    (lambda t, x: x.as_strided((2,), (1,), -1), [(2, 3)], "invalid storage offset -1"),
    (lambda t, x: x.as_strided((2, 2), (1,)), [(2, 3)], "mismatch in length of strides"),
    (lambda t, x: t.as_strided_scatter(x, x[0], (2,), (2,), 1), [(2, 3)],
     "src size = [3], slice size = [2]"),
    (lambda t, x: t.select_scatter(x, x[0, :2], 0, 1), [(2, 3)],
     "expected src to have a size equal to the slice of self"),
    (lambda t, x: t.select_scatter(x, x[0], 0, 5), [(2, 3)], "select(): index 5 out of range"),
    (lambda t, x: t.slice_scatter(x, x, 1, 0, 1), [(2, 3)], "slice size = [2, 1]"),
    (lambda t, x: t.diagonal_scatter(x, x[0], 1), [(2, 3)], "src size = [3], slice size = [2]"),
    (lambda t, x: t.logcumsumexp(t.tensor([1, 2]), 0), [], "not implemented for 'Long'"),
    (lambda t, x: t.diff(x[0]), [(3,)], "diff expects input to be at least one-dimensional"),
    (lambda t, x: t.diff(x, n=-1), [(3,)], "order must be non-negative but got -1"),
    (lambda t, x: t.diff(x, prepend=x[0]), [(2, 3)], "the same dimension as input"),
    (lambda t, x: t.diff(x, prepend=1), [(2, 3)], "must be Tensor"),
    (lambda t, x: t.nansum(t.tensor([1j])), [], "does not support complex inputs"),
    (lambda t, x: t.nanmean(t.tensor([1, 2])), [], "expected input to have floating point"),
    (lambda t, x: t.quantile(x, 1.5), [(2, 3)], "q must be in the range [0, 1] but got 1.5"),
    (lambda t, x: t.quantile(x.float(), t.tensor([0.5, 1.2])), [(2, 3)], "q values must be in the ra"),
    (lambda t, x: t.quantile(x.long(), 0.5), [(2, 3)], "must be either float or double"),
    (lambda t, x: t.quantile(x, t.tensor([0.5])), [(2, 3)], "same dtype as the input"),
    (lambda t, x: t.quantile(x, x[:1, :1]), [(2, 3)], "q must be a scalar or 1D tensor"),
    (lambda t, x: t.quantile(x[:0], 0.5), [(2, 3)], "input tensor must be non-empty"),
    (lambda t, x: t.nanquantile(x, 0.5, interpolation="foo"), [(2, 3)], "but got foo"),
    (lambda t, x: t.cov(x, fweights=t.tensor([1.0, 2.0, 3.0])), [(2, 3)], "integral dtype"),
    (lambda t, x: t.cov(x, fweights=t.tensor([1, -2, 3])), [(2, 3)], "cannot be negative"),
    (lambda t, x: t.cov(x, aweights=t.tensor([1, 2, 3])), [(2, 3)], "floating point dtype"),
    (lambda t, x: t.cov(x, aweights=t.tensor([1.0, 2.0])), [(2, 3)], "but got 2 != 3"),
    (lambda t, x: t.cov(x, fweights=t.tensor([[1, 2, 3]])), [(2, 3)], "one or fewer dim"),
    (lambda t, x: t.cov(x), [(2, 2, 2)], "two or fewer dimensions but got an input with 3"),
    (lambda t, x: t.cov(x, correction=1.5), [(2, 3)], "'correction' must be int"),
    (lambda t, x: t.cumulative_trapezoid(x, t.ones(2), dim=1), [(2, 3)],
     "There must be one `x` value for each sample point"),
    (lambda t, x: t.cumulative_trapezoid(x[0, 0]), [(2, 3)], "cannot be applied to a 0-dim"),
    (lambda t, x: t.cumulative_trapezoid(x, x[0], dx=2), [(2, 3)], ""),
    (lambda t, x: t.isin(t.tensor([1, 2]), t.tensor([1j])), [], "Unsupported input type"),
    (lambda t, x: t.isin(2, 3), [], ""),
    (lambda t, x: t.frombuffer(bytearray(8), dtype=t.float32, count=3), [],
     "must not be greater than actual buffer length (8 bytes)"),
    (lambda t, x: t.frombuffer(bytearray(8), dtype=t.float32, offset=9), [],
     "offset (9 bytes) must be non-negative"),
    (lambda t, x: t.frombuffer(bytearray(7), dtype=t.float32), [], "multiple of element size"),
    (lambda t, x: t.frombuffer(bytearray(0), dtype=t.float32), [], "must not be 0"),
    (lambda t, x: t.frombuffer([1, 2], dtype=t.float32), [], "buffer protocol"),
    (lambda t, x: t.frombuffer(bytearray(4), dtype=t.int32, requires_grad=True), [],
     "floating point and complex dtype can require gradients"),
], ids=lambda v: None)
def test_errors_match_torch(fn, args, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shapes = [np.random.default_rng(0).uniform(-1, 1, s) for s in args]
        check_raises(fn if shapes else (lambda t: fn(t, None)), shapes, match=match or None)


def test_cov_warns_when_degrees_of_freedom_vanish():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        r = numtorch.cov(numtorch.ones(3, 1))
    assert r.isnan().all()
