"""Sorting and selection against torch: values, indices, dtypes, gradients (first and second
order) and errors. Ties are tested only where torch defines the winner (stable sort, median,
mode); elsewhere inputs are random floats and so tie-free."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, check_raises

SHAPES = [(), (7,), (3, 5), (2, 3, 4)]
DTYPES = ["float64", "float32"]


def _dims(shape):
    return [0, -1] if len(shape) <= 1 else list(range(len(shape))) + [-1]


CASES = [(s, d) for s in SHAPES for d in _dims(s)]
TIES = np.array([[2., 1., 2., 3., 1., 2.], [0., 0., 5., 5., 1., 0.]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort(shape, dim, descending, dtype):
    check_op(lambda t, x: t.sort(x, dim, descending=descending), [shape], dtype=dtype)
    check_op(lambda t, x: x.argsort(dim=dim, descending=descending), [shape], dtype=dtype,
             grad=False)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_sort_stable_ties(dim, descending):
    check_op(lambda t, x: t.sort(x, dim=dim, descending=descending, stable=True), [TIES])
    ints = TIES.astype(np.int64)
    check_op(lambda t, x: x.sort(dim=dim, descending=descending, stable=True), [ints], grad=False)


def test_sort_nan_last():
    x = np.array([[1., np.nan, -2., 3.], [np.nan, 0., 4., -1.]])
    check_op(lambda t, x: t.sort(x, 1), [x], grad=False)
    check_op(lambda t, x: t.sort(x, 1, descending=True), [x], grad=False)


def test_msort():
    check_op(lambda t, x: t.msort(x), [(4, 3)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("largest", [True, False])
def test_topk(shape, dim, largest, dtype):
    n = 1 if not shape else shape[dim]
    for k in sorted({0, 1, n}):
        check_op(lambda t, x: t.topk(x, k, dim, largest=largest), [shape], dtype=dtype)


def test_topk_ints():
    x = np.array([[7, 1, 4, 3, 9, 2], [0, 8, 5, 6, 1, 3]], dtype=np.int32)
    check_op(lambda t, x: t.topk(x, 3, 1), [x], grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue(shape, dim, keepdim, dtype):
    n = 1 if not shape else shape[dim]
    for k in sorted({1, (n + 1) // 2, n}):
        check_op(lambda t, x: t.kthvalue(x, k, dim, keepdim), [shape], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_dim(shape, dim, keepdim, dtype):
    check_op(lambda t, x: t.median(x, dim, keepdim), [shape], dtype=dtype)
    check_op(lambda t, x: x.nanmedian(dim, keepdim), [shape], dtype=dtype)


@pytest.mark.parametrize("shape", SHAPES + [(4, 6)])
def test_median_all(shape):
    check_op(lambda t, x: t.median(x), [shape])
    check_op(lambda t, x: x.nanmedian(), [shape])


def test_median_lower_value_of_even_count_and_ints():
    check_op(lambda t, x: t.median(x, 1), [np.array([[4., 1., 3., 2.], [9., 7., 8., 6.]])])
    check_op(lambda t, x: t.median(x), [np.array([5, 1, 4, 2, 3, 8], dtype=np.int64)],
             grad=False)


def test_median_nan():
    x = np.array([[1., np.nan, 3., 2.], [0., 4., -1., 2.], [np.nan] * 4])
    check_op(lambda t, x: t.median(x, 1), [x], grad=False)
    check_op(lambda t, x: t.nanmedian(x, 1), [x[:2]], grad=False)
    # which index an all-NaN line reports is torch's own choice: compare the values only
    check_op(lambda t, x: t.nanmedian(x, 1).values, [x], grad=False)
    check_op(lambda t, x: t.median(x), [x], grad=False)
    check_op(lambda t, x: t.nanmedian(x), [x[:2]], grad=False)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mode(dim, keepdim):
    check_op(lambda t, x: t.mode(x, dim, keepdim), [TIES])
    check_op(lambda t, x: x.mode(dim, keepdim), [TIES.astype(np.int64)], grad=False)


def test_mode_scalar_and_vector():
    check_op(lambda t, x: t.mode(x), [np.array(2.5)])
    check_op(lambda t, x: t.mode(x), [np.array([3., 1., 3., 2., 1., 5.])])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bins,lo,hi", [(4, 0, 3), (10, 0, 0), (7, -1.0, 0.5), (1, 0, 0)])
def test_histc(dtype, bins, lo, hi):
    check_op(lambda t, x: t.histc(x, bins=bins, min=lo, max=hi), [(50,)], dtype=dtype,
             grad=False)
    check_op(lambda t, x: x.histc(bins, lo, hi), [np.array([1., 2., 1., 3.], dtype=dtype)],
             grad=False)


def test_histc_flat_input():
    check_op(lambda t, x: t.histc(x, bins=3), [np.full(4, 2.0)], grad=False)


def test_errors():
    x = np.arange(6.0)
    check_raises(lambda t, x: t.topk(x, 7), [x], match="selected index k out of range")
    check_raises(lambda t, x: x.topk(2, dim=1), [x])
    check_raises(lambda t, x: t.kthvalue(x, 7), [x])
    check_raises(lambda t, x: t.kthvalue(x, 0), [x])
    check_raises(lambda t, x: t.sort(x, 2), [x])
    check_raises(lambda t, x: t.median(x, 0), [np.zeros((0, 2))])
    check_raises(lambda t, x: t.mode(x, 0), [np.zeros((0, 2))])
    check_raises(lambda t, x: t.histc(x, bins=0), [x])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES + [((0, 3), 0)])
@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin(name, shape, dim, dtype):
    check_op(lambda t, x: getattr(t, name)(x, dim), [shape], dtype=dtype)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_ties_and_nan(name):
    check_op(lambda t, x: getattr(x, name)(1), [TIES])
    x = np.array([1., 3., 3., 2., 3., np.nan, 4., np.nan, 5.])
    check_op(lambda t, x: getattr(t, name)(x, 0), [x], grad=False)
    check_op(lambda t, x: getattr(t, name)(x, 0), [TIES[0].astype(np.int64)], grad=False)


@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
def test_unique(dim, inverse, counts):
    x = np.array([[2, 1, 2], [0, 4, 0], [2, 1, 2], [0, 4, 0]])
    check_op(lambda t, x: t.unique(x, return_inverse=inverse, return_counts=counts, dim=dim),
             [x], grad=False)
    check_op(lambda t, x: x.unique(sorted=True, return_inverse=inverse,
                                   return_counts=counts, dim=dim), [x.astype(float)],
             grad=False)
    check_op(lambda t, x: t.unique_consecutive(x, return_inverse=inverse,
                                               return_counts=counts, dim=dim), [x], grad=False)
    check_op(lambda t, x: x.unique_consecutive(return_inverse=inverse, return_counts=counts,
                                               dim=dim), [TIES[:, :3]], grad=False)


_NAN = float("nan")


@pytest.mark.parametrize("data,kw", [
    ([1., _NAN, 2., _NAN, 1., _NAN], {}),
    ([1., _NAN, _NAN], dict(sorted=False)),
    ([float("inf"), _NAN, -float("inf"), _NAN], {}),
    ([[_NAN, 1.], [_NAN, 1.]], {}),
    ([0., -0., 0.], {}),
    ([[1., _NAN], [1., _NAN], [2., 3.]], dict(dim=0)),
    ([[3., 1.], [3., 1.], [2., 3.]], dict(dim=0)),
])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_unique_keeps_every_nan_apart(data, kw, dtype):
    x = np.array(data, dtype=dtype)
    check_op(lambda t, x: t.unique(x, return_inverse=True, return_counts=True, **kw), [x],
             grad=False)
    check_op(lambda t, x: t.unique_consecutive(x, return_inverse=True, return_counts=True,
                                               dim=kw.get("dim")), [x], grad=False)


def test_unique_of_complex_is_not_implemented():
    check_raises(lambda t: t.unique(t.tensor([1j, 2j])), match='"unique" not implemented')


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_searchsorted_bucketize(right, out_int32):
    seq = np.array([-1.0, 0.0, 0.0, 2.0, 3.5])
    vals = np.array([[-2.0, 0.0, 1.0], [2.0, 3.5, 9.0]])
    kw = dict(right=right, out_int32=out_int32)
    check_op(lambda t, s, v: t.searchsorted(s, v, **kw), [seq, vals], grad=False)
    check_op(lambda t, s: t.searchsorted(s, 0.0, **kw), [seq], grad=False)
    check_op(lambda t, v, s: t.bucketize(v, s, **kw), [vals, seq], grad=False)
    rows = np.sort(np.random.default_rng(0).uniform(-2, 2, (2, 3, 6)), axis=-1)
    check_op(lambda t, s, v: t.searchsorted(s, v, side="right" if right else "left"),
             [rows, (2, 3, 4)], grad=False)
    order = np.argsort(seq[::-1]).astype(np.int64)
    check_op(lambda t, s, v, o: t.searchsorted(s, v, sorter=o, right=right),
             [seq[::-1].copy(), vals, order], grad=False)


@pytest.mark.parametrize("wdtype", [None, "float32", "float64", "int64"])
@pytest.mark.parametrize("minlength", [0, 9])
def test_bincount(wdtype, minlength):
    x = np.array([0, 3, 3, 1, 5, 3])
    if wdtype is None:
        check_op(lambda t, x: t.bincount(x, minlength=minlength), [x], grad=False)
    else:
        w = np.arange(6).astype(wdtype)
        check_op(lambda t, x, w: x.bincount(w, minlength), [x, w], grad=False)
    check_op(lambda t, x: t.bincount(x, minlength=minlength), [x[:0]], grad=False)


def test_more_errors():
    check_raises(lambda t, x: t.bincount(x), [np.array([1, -1])])
    check_raises(lambda t, x, w: t.bincount(x, w), [np.array([1, 2]), np.ones(3)])
    check_raises(lambda t, s, v: t.searchsorted(s, v), [np.ones((2, 3)), np.ones((3, 1))])
    check_raises(lambda t, s, v: t.searchsorted(s, v, side="middle"), [np.ones(3), np.ones(2)])
    check_raises(lambda t, v, s: t.bucketize(v, s), [np.ones(3), np.ones((2, 3))])
    check_raises(lambda t, x: t.cummax(x, 2), [np.ones((2, 3))])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("bins,rng", [(3, None), (10, (-1.0, 1.5)), (1, None)])
@pytest.mark.parametrize("density", [False, True])
def test_histogram(dtype, bins, rng, density):
    w = np.random.default_rng(2).uniform(0, 1, 40).astype(dtype)
    check_op(lambda t, x: t.histogram(x, bins, range=rng, density=density), [(40,)],
             dtype=dtype, grad=False)
    check_op(lambda t, x, w: x.histogram(bins, range=rng, weight=w, density=density),
             [(8, 5), w.reshape(8, 5)], dtype=dtype, grad=False)
    edges = np.array([-2.0, -0.5, 0.0, 1.0, 2.0], dtype=dtype)
    check_op(lambda t, x, e: t.histogram(x, e, density=density), [(40,), edges], dtype=dtype,
             grad=False)


def test_histogram_errors():
    check_raises(lambda t, x: t.histogram(x, 3, range=(2.0, 1.0)), [np.ones(3)])
    check_raises(lambda t, x: t.histogram(x, -1), [np.ones(3)])


def test_out_arguments():
    def fn(t, x):
        v, i = t.empty(0, dtype=x.dtype), t.empty(0, dtype=t.int64)
        r = t.sort(x, 1, out=(v, i))
        v2, i2 = t.empty(0, dtype=x.dtype), t.empty(0, dtype=t.int64)
        t.topk(x, 2, out=(v2, i2))
        m = (t.empty(0, dtype=x.dtype), t.empty(0, dtype=t.int64))
        t.median(x, 0, out=m)
        tr = t.empty(0, dtype=x.dtype)
        t.tril(x, out=tr)
        return r.values, v, i, v2, i2, m[0], m[1], tr

    check_op(fn, [(3, 4)], grad=False)


@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_topk_small_k_of_long_lines(dim, largest, dtype):
    rng = np.random.default_rng(3)
    x = rng.permutation(40 * 30).reshape(40, 30).astype(dtype)  # distinct values
    check_op(lambda t, x: t.topk(x, 3, dim, largest), [x], grad=dtype != "int64")


# torch's two signatures: (dim, descending) by position, or the keyword-only ``stable`` with
# both by keyword; a call mixing them is a TypeError naming both signatures
SIGNATURE_CALLS = {
    "f(x,1,stable)": lambda L, x: L.sort(x, 1, stable=True),
    "f(x,1,T,stable)": lambda L, x: L.sort(x, 1, True, stable=True),
    "f(x,1,T,T)": lambda L, x: L.sort(x, 1, True, True),
    "m(1,stable)": lambda L, x: x.sort(1, stable=True),
    "m(1,T,stable)": lambda L, x: x.sort(1, True, stable=True),
    "m(1,T,T)": lambda L, x: x.sort(1, True, True),
    "af(x,1,stable)": lambda L, x: L.argsort(x, 1, stable=True),
    "af(x,1,T,stable)": lambda L, x: L.argsort(x, 1, True, stable=True),
    "am(1,stable)": lambda L, x: x.argsort(1, stable=True),
    "am(1,T,stable)": lambda L, x: x.argsort(1, True, stable=True),
    "f(x,dim,stable)": lambda L, x: L.sort(x, dim=0, stable=True),
    "m(0,T)": lambda L, x: x.sort(0, True),
    "m(stable,desc)": lambda L, x: x.sort(stable=False, descending=True),
    "af(x,0,T)": lambda L, x: L.argsort(x, 0, True),
    "am(dim,desc,stable)": lambda L, x: x.argsort(dim=1, descending=True, stable=True),
    "am()": lambda L, x: x.argsort(), "f(x,desc)": lambda L, x: L.sort(x, descending=True),
    "af(x,stable)": lambda L, x: L.argsort(x, stable=True),
}


def _outcome(lib, name):
    x = (numtorch if lib == "nt" else torch).tensor(TIES)
    try:
        r = SIGNATURE_CALLS[name](numtorch if lib == "nt" else torch, x)
    except TypeError as e:
        return "TypeError", str(e)
    r = r if isinstance(r, tuple) else (r,)
    return [t.tolist() for t in r]


@pytest.mark.parametrize("name", list(SIGNATURE_CALLS))
def test_sort_signatures_as_torch(name):
    assert _outcome("nt", name) == _outcome("torch", name)
