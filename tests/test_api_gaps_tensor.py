"""torch's remaining Tensor methods against torch: prelu/hardshrink/igamma methods, resize,
new_empty_strided, split variants, reversed/del, subclassing helpers, sparse-layout queries
on dense tensors, nonzero_static, dim_order and the small no-ops."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_op, same

rng = np.random.default_rng(2)


def _arr(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


def test_math_methods():
    a = _arr(3, 4)
    check_op(lambda t, x, w: x.prelu(w), [a, _arr(4)])
    check_op(lambda t, x: x.hardshrink(0.6), [a], second_order=False)
    check_op(lambda t, x: x.hardshrink(), [a], second_order=False)
    p, q = _arr(3, 4, low=0.5, high=3.0), _arr(3, 4, low=0.1, high=3.0)
    for name in ("igamma", "igammac"):
        check_op(lambda t, x: getattr(t.from_numpy(p), name)(x), [q], second_order=False)
        same(lambda t: getattr(t.tensor([1.0, 2.0]), name)(1.0))

        def inplace(t):
            x = t.from_numpy(p.copy())
            y = getattr(x, name + "_")(t.from_numpy(q))
            return y is x, x, x._version

        same(inplace, rtol=1e-12)


def test_resize():
    a = _arr(2, 3)
    check_op(lambda t, x: x.resize(3, 2), [a])
    check_op(lambda t, x: (x * 1).resize(6), [a])
    check_op(lambda t, x: x.resize_as(t.ones(6, 1)), [a])
    same(lambda t: t.from_numpy(a).resize(3, 2), warns=True)
    same(lambda t: t.from_numpy(a).resize_as(t.ones(6)), warns=True)
    same(lambda t: t.from_numpy(a).resize(4))
    same(lambda t: t.from_numpy(a).resize(2, 4))
    same(lambda t: t.from_numpy(a).resize_as(t.ones(7)))

    def shares(t):
        x = t.from_numpy(a.copy())
        y = x.resize(3, 2)
        y[0, 0] = 9.0
        return x

    same(shares)


def test_new_empty_strided_and_swaps():
    x = numtorch.ones(2, 3, dtype=numtorch.float64)
    y = x.new_empty_strided((2, 3), (1, 2))
    assert y.stride() == (1, 2) and y.dtype == numtorch.float64
    same(lambda t: t.ones(2, 3).new_empty_strided((4,), (2,), dtype=t.int64).dtype)
    same(lambda t: t.ones(2, 3).new_empty_strided((4,), (1,), requires_grad=True).requires_grad)
    for name in ("swapaxes_", "swapdims_"):
        def fn(t):
            x = t.from_numpy(np.arange(6.0).reshape(2, 3))
            y = getattr(x, name)(0, 1)
            return y is x, x, x.stride(), x.shape

        same(fn)


def test_split_methods():
    a = _arr(4, 6)
    for case in [lambda t, x: x.split_with_sizes([1, 3]),
                 lambda t, x: x.split_with_sizes([2, 4], dim=1),
                 lambda t, x: x.unsafe_split_with_sizes([2, 4], 1),
                 lambda t, x: x.unsafe_split(4, 1), lambda t, x: x.unsafe_chunk(3, 0),
                 lambda t, x: x.narrow_copy(1, 2, 3)]:
        check_op(case, [a], second_order=False)
    same(lambda t: t.ones(3).split_with_sizes([1, 1]))


def test_reversed_and_delitem():
    a = _arr(3, 2)
    same(lambda t: list(reversed(t.from_numpy(a))))
    same(lambda t: reversed(t.tensor(3.0)))
    same(lambda t: reversed(t.arange(4.0)))
    check_op(lambda t, x: reversed(x), [a])

    def delete(t):
        x = t.ones(3)
        del x[0]

    same(delete)


def _subclass(lib):
    return type("Tagged", (lib.Tensor,), {})


def test_as_subclass():
    def fn(t):
        cls = _subclass(t)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x.as_subclass(cls)
        (y * 3).sum().backward()
        with t.no_grad():
            y[0] = 5.0
        return (type(y).__name__, isinstance(y, t.Tensor), y.is_leaf, y.requires_grad,
                y._is_view(), x.grad, x.detach())

    same(fn)
    same(lambda t: t.ones(2).as_subclass(int))
    same(lambda t: type(t.ones(2).as_subclass(t.nn.Parameter)).__name__)


def test_make_subclass():
    def fn(t):
        cls = _subclass(t)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        a = t.Tensor._make_subclass(cls, x)
        b = t.Tensor._make_subclass(cls, x * 2, True)
        a.add_(1.0) if not a.requires_grad else None
        return (type(a).__name__, a.requires_grad, a.grad_fn is None, a.is_leaf,
                type(b).__name__, b.requires_grad, b.grad_fn is None, b.is_leaf, x.detach())

    same(fn)
    same(lambda t: t.Tensor._make_subclass(int, t.ones(2)))
    same(lambda t: t.Tensor._make_subclass(_subclass(t), 3))
    same(lambda t: t.Tensor._make_subclass(_subclass(t), t.ones(2, dtype=t.long), True))

    # the Parameter-like pattern: a subclass whose __new__ calls _make_subclass
    def param_like(t):
        cls = type("P", (t.Tensor,), {
            "__new__": lambda c, data: t.Tensor._make_subclass(c, data, True)})
        p = cls(t.ones(2))
        (p * p).sum().backward()
        return type(p).__name__, p.requires_grad, p.grad

    same(param_like)


def test_is_view():
    same(lambda t: (t.ones(2, 3)._is_view(), t.ones(2, 3)[0]._is_view(),
                    t.ones(6).view(2, 3)._is_view(), t.ones(2, 3).clone()._is_view(),
                    t.ones(2, 3).t()._is_view()))


def test_sparse_queries_on_dense():
    x = lambda t: t.ones(2, 3)
    same(lambda t: (x(t).sparse_dim(), x(t).dense_dim()))
    for name in ("indices", "values", "crow_indices", "col_indices", "ccol_indices",
                 "row_indices"):
        same(lambda t: getattr(x(t), name)())
    same(lambda t: t.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo().to_dense())
    same(lambda t: t.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo().indices())
    same(lambda t: t.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo().sparse_dim())


def test_nonzero_static():
    same(lambda t: t.tensor([0, 1, 0, 2]).nonzero_static(size=3))
    same(lambda t: t.tensor([[0, 1], [3, 2]]).nonzero_static(size=5, fill_value=-7))
    same(lambda t: t.nonzero_static(t.tensor([0, 1, 0, 2]), size=1))
    same(lambda t: t.nonzero_static(t.tensor([0.0, 0.0]), size=2))
    same(lambda t: t.nonzero_static(t.tensor([0, 1, 0, 2]), size=-1))


def test_dim_order_const_data_ptr_name_record_stream():
    same(lambda t: (t.ones(2, 3).dim_order(), t.ones(2, 3).t().dim_order(),
                    t.ones(2, 3, 4, 5).to(memory_format=t.channels_last).dim_order(),
                    t.ones(2, 1, 3).dim_order(), t.tensor(1.0).dim_order()))
    x = numtorch.ones(3)
    assert x.const_data_ptr() == x.data_ptr()
    same(lambda t: t.ones(2).name)

    def set_name(t):
        t.ones(2).name = "a"

    same(set_name, messages=False)
    same(lambda t: t.ones(2).record_stream(None))
    same(lambda t: t.ones(2).xpu(), messages=True)
    same(lambda t: t.ones(2).ipu())


def test_chalf_refused_with_reason():
    with pytest.raises(RuntimeError, match="complex32"):
        numtorch.ones(2).chalf()
    assert torch.ones(2).chalf().dtype == torch.complex32  # torch can; numtorch says why not
