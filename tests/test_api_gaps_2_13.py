"""torch 2.13 public names numtorch lacked: oracle tests against torch."""

import numpy as np
import pytest
import torch as T

import numtorch as nt

REDUCES = ["sum", "mean", "max", "min", "prod"]


def _both(a, **kw):
    return nt.tensor(a, **kw), T.tensor(a, **kw)


def _close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a.detach().tolist(), dtype=float),
                               np.asarray(b.detach().tolist(), dtype=float),
                               rtol=1e-5, atol=1e-6, equal_nan=True, **kw)


def _raises(fn_nt, fn_t):
    with pytest.raises(Exception) as et:
        fn_t()
    with pytest.raises(Exception) as en:
        fn_nt()
    assert type(en.value) is type(et.value)
    assert str(en.value) == str(et.value)


# -- segment_reduce ------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 1.5])
@pytest.mark.parametrize("by", ["lengths", "offsets"])
def test_segment_reduce_1d_values_and_grad(reduce, initial, by):
    rng = np.random.default_rng(0)
    data = rng.integers(-3, 4, size=(11, 3)).astype(np.float64)  # ties and zeros
    lengths = np.array([3, 0, 4, 1, 0, 3])
    idx = lengths if by == "lengths" else np.concatenate([[0], np.cumsum(lengths)])
    a, b = _both(data, requires_grad=True)
    kw = {by: None}
    ya = nt.segment_reduce(a, reduce, **{by: nt.tensor(idx)}, initial=initial)
    yb = T.segment_reduce(b, reduce, **{by: T.tensor(idx)}, initial=initial)
    del kw
    _close(ya, yb)
    assert ya.dtype == nt.float64 and tuple(ya.shape) == tuple(yb.shape)
    assert ya.grad_fn.name() == yb.grad_fn.name()
    g = rng.standard_normal(tuple(yb.shape))
    ya.backward(nt.tensor(g))
    yb.backward(T.tensor(g))
    _close(a.grad, b.grad)


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_axis_batched(reduce):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2, 7, 3)).astype(np.float32)
    lengths = np.array([[2, 0, 5], [3, 3, 1]])
    a, b = _both(data, requires_grad=True)
    ya = nt.segment_reduce(a, reduce, lengths=nt.tensor(lengths), axis=1)
    yb = T.segment_reduce(b, reduce, lengths=T.tensor(lengths), axis=1)
    assert ya.dtype == nt.float32 and tuple(ya.shape) == tuple(yb.shape)
    _close(ya, yb)
    g = rng.standard_normal(tuple(yb.shape)).astype(np.float32)
    ya.backward(nt.tensor(g))
    yb.backward(T.tensor(g))
    _close(a.grad, b.grad)


def test_segment_reduce_prod_single_zero_grad():
    data = [2., 0., 3., 0., 0., 4., 5.]
    a, b = _both(data, requires_grad=True)
    ya = nt.segment_reduce(a, "prod", lengths=nt.tensor([3, 2, 2]), initial=0.5)
    yb = T.segment_reduce(b, "prod", lengths=T.tensor([3, 2, 2]), initial=0.5)
    ya.backward(nt.tensor([1., 2., 3.]))
    yb.backward(T.tensor([1., 2., 3.]))
    _close(ya, yb)
    _close(a.grad, b.grad)


def test_segment_reduce_half_and_unsafe():
    x = [1., 2., 3., 4., 5., 6.]
    ya = nt.segment_reduce(nt.tensor(x, dtype=nt.float16), "sum", lengths=nt.tensor([2, 2]),
                           unsafe=True)
    yb = T.segment_reduce(T.tensor(x, dtype=T.float16), "sum", lengths=T.tensor([2, 2]),
                          unsafe=True)
    assert ya.dtype == nt.float16
    _close(ya, yb)


@pytest.mark.parametrize("case", [
    dict(lengths=[2, 2]), dict(), dict(lengths=[2., 4.]), dict(lengths=[-1, 7]),
    dict(lengths=[2, 4], axis=1), dict(reduce="foo", lengths=[6]),
    dict(data="long", lengths=[6]),
])
def test_segment_reduce_errors(case):
    case = dict(case)
    reduce = case.pop("reduce", "sum")
    kind = case.pop("data", "float")

    def call(lib):
        data = lib.tensor([1., 2., 3., 4., 5., 6.])
        if kind == "long":
            data = data.long()
        kw = {k: lib.tensor(v) if isinstance(v, list) else v for k, v in case.items()}
        return lib.segment_reduce(data, reduce, **kw)

    _raises(lambda: call(nt), lambda: call(T))


def test_segment_reduce_axis_not_last_of_lengths():
    def call(lib):
        return lib.segment_reduce(lib.arange(12.).reshape(2, 6), "sum",
                                  lengths=lib.tensor([[2, 4], [3, 3]]), axis=0)
    _raises(lambda: call(nt), lambda: call(T))
