"""The Tensor class itself against torch: properties, conversions, dunders, copying, Size."""

import copy
import operator
import pickle

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_raises, same

SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 1, 1, 2)]


# -- basic properties -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=repr)
def test_shape_properties_match_torch(shape):
    same(lambda t: t.zeros(shape).shape)
    same(lambda t: t.zeros(shape).size())
    same(lambda t: (t.zeros(shape).dim(), t.zeros(shape).ndim, t.zeros(shape).ndimension()))
    same(lambda t: (t.zeros(shape).numel(), t.zeros(shape).nelement()))
    same(lambda t: tuple(t.zeros(shape).size(d) for d in range(-len(shape), len(shape))))


def test_shape_is_a_size_that_compares_with_tuples():
    x = numtorch.zeros(2, 3)
    assert isinstance(x.shape, numtorch.Size) and x.shape == (2, 3)
    assert type(x.shape[0]) is int and type(x.size(1)) is int
    assert x.size(np.int64(1)) == 3


@pytest.mark.parametrize("fn", [lambda t: t.zeros(2, 3).size(2), lambda t: t.zeros(2, 3).size(-3),
                                lambda t: t.zeros(2, 3).size(1.0), lambda t: t.zeros(()).size(1)])
def test_size_dim_errors(fn):
    check_raises(fn)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32",
                                   "int64", "uint8", "bool", "complex64", "complex128"])
def test_dtype_device_and_element_size(dtype):
    same(lambda t: t.zeros(2, dtype=getattr(t, dtype)).dtype)
    same(lambda t: t.zeros(2, dtype=getattr(t, dtype)).device)
    same(lambda t: t.zeros(2, dtype=getattr(t, dtype)).element_size())
    same(lambda t: t.zeros(2, dtype=getattr(t, dtype)).itemsize)
    same(lambda t: t.zeros(2, 3, dtype=getattr(t, dtype)).nbytes)
    same(lambda t: (t.zeros(2, dtype=getattr(t, dtype)).is_floating_point(),
                    t.zeros(2, dtype=getattr(t, dtype)).is_complex()))
    same(lambda t: t.zeros(2, dtype=getattr(t, dtype)).type())


def test_device_flags():
    same(lambda t: (t.ones(2).is_cuda, t.ones(2).is_cpu, t.ones(2).get_device()))


def test_data_ptr_is_the_address_of_the_first_element():
    x = numtorch.arange(10.0)
    assert x.data_ptr() == x.numpy().__array_interface__["data"][0]
    assert x[2:].data_ptr() == x.data_ptr() + 2 * x.element_size()


# -- conversion to Python and NumPy ---------------------------------------------------------------
@pytest.mark.parametrize("fn", [lambda t: t.tensor([1.5]).item(), lambda t: t.tensor([[3]]).item(),
                                lambda t: t.tensor(True).item(), lambda t: t.tensor(2.5).item(),
                                lambda t: t.tensor([1.5], dtype=t.float16).item(),
                                lambda t: t.tensor(1 + 2j).item(),
                                lambda t: t.tensor([1.1]).item()])
def test_item_returns_python_numbers(fn):
    same(fn)


@pytest.mark.parametrize("fn", [lambda t: t.tensor([1, 2]).item(), lambda t: t.tensor([]).item(),
                                lambda t: t.ones(2, 3).item()])
def test_item_of_many_elements_raises(fn):
    check_raises(fn, match="cannot be converted to Scalar")


@pytest.mark.parametrize("fn", [lambda t: t.tensor([[1, 2], [3, 4]]).tolist(),
                                lambda t: t.tensor(2.5).tolist(),
                                lambda t: t.tensor([1.1]).tolist(),
                                lambda t: t.tensor([True, False]).tolist(),
                                lambda t: t.zeros(2, 0).tolist(),
                                lambda t: t.tensor([1.5], dtype=t.float16).tolist()])
def test_tolist_matches_torch(fn):
    same(fn)


def test_tolist_gives_python_types():
    assert type(numtorch.tensor([1.5], dtype=numtorch.float16).tolist()[0]) is float
    assert type(numtorch.tensor([1]).tolist()[0]) is int


def test_numpy_shares_memory():
    x = numtorch.zeros(3)
    a = x.numpy()
    a[0] = 5.0
    assert x[0].item() == 5.0
    x[1] = 7.0
    assert a[1] == 7.0
    assert x.numpy().dtype == np.float32


def test_numpy_of_a_tensor_requiring_grad_raises():
    check_raises(lambda t: t.ones(2, requires_grad=True).numpy(), match="detach")
    same(lambda t: t.ones(2, requires_grad=True).numpy(force=True).tolist())
    same(lambda t: t.ones(2, requires_grad=True).detach().numpy().tolist())


def test_array_protocol():
    x = numtorch.arange(6.0).reshape(2, 3)
    a = np.asarray(x)
    assert a.dtype == np.float32 and a.shape == (2, 3)
    a[0, 0] = 9.0
    assert x[0, 0].item() == 9.0  # np.asarray shares memory, as torch's does
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    np.testing.assert_array_equal(np.array(x), a)
    check_raises(lambda t: np.asarray(t.ones(2, requires_grad=True)))


def test_numpy_ufuncs_on_tensors_return_tensors():
    same(lambda t: np.sin(t.ones(2)), rtol=1e-6)
    same(lambda t: np.add(t.ones(2), 1))
    same(lambda t: np.greater(t.ones(2), 0))


def test_dlpack_round_trip():
    x = numtorch.arange(6).reshape(2, 3)
    a = np.from_dlpack(x)
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
    a[0, 0] = 42
    assert x[0, 0].item() == 42
    assert x.__dlpack_device__() == torch.arange(1).__dlpack_device__()
    check_raises(lambda t: np.from_dlpack(t.ones(2, requires_grad=True)), match="detach")


def test_format():
    same(lambda t: f"{t.tensor(2.5):.3f}")
    same(lambda t: format(t.tensor(3), "d"))
    same(lambda t: f"{t.tensor([2.5])}")
    same(lambda t: f"{t.tensor(2.5)}")
    check_raises(lambda t: f"{t.tensor([2.5]):.3f}")


# -- Python protocols -----------------------------------------------------------------------------
def test_len_and_iter():
    same(lambda t: len(t.ones(3, 2)))
    same(lambda t: [r.tolist() for r in t.tensor([[1, 2], [3, 4]])])
    same(lambda t: [v.item() for v in t.tensor([1, 2])])
    check_raises(lambda t: len(t.tensor(1.0)), match="len() of a 0-d tensor")
    check_raises(lambda t: iter(t.tensor(1.0)), match="iteration over a 0-d tensor")


@pytest.mark.parametrize("fn", [lambda t: bool(t.tensor([0.0])), lambda t: bool(t.tensor(3)),
                                lambda t: bool(t.tensor([[True]])),
                                lambda t: bool(t.tensor(float("nan")))])
def test_bool(fn):
    same(fn)


@pytest.mark.parametrize("fn", [lambda t: bool(t.tensor([1, 2])), lambda t: bool(t.tensor([]))])
def test_bool_of_many_or_no_elements_raises(fn):
    check_raises(fn, match="ambiguous")


@pytest.mark.parametrize("fn", [
    lambda t: int(t.tensor([2.7])), lambda t: int(t.tensor(-2.7)), lambda t: float(t.tensor([2])),
    lambda t: float(t.tensor(True)), lambda t: int(t.tensor(True)),
    lambda t: complex(t.tensor(2.5)), lambda t: float(t.tensor(1 + 0j)),
    lambda t: [1, 2, 3][t.tensor(1)], lambda t: operator.index(t.tensor([2])),
    lambda t: t.tensor(5).__index__(), lambda t: range(10)[t.tensor(2):t.tensor(5)],
])
def test_number_conversions(fn):
    same(fn)


@pytest.mark.parametrize("fn", [
    lambda t: int(t.tensor([2.7, 1])), lambda t: float(t.tensor([1, 2])),
    lambda t: complex(t.tensor([1, 2])), lambda t: float(t.tensor(1 + 2j)),
    lambda t: int(t.tensor(1 + 1j)), lambda t: int(t.tensor(float("nan"))),
    lambda t: [1, 2, 3][t.tensor(1.0)], lambda t: operator.index(t.tensor([1, 2])),
    lambda t: t.tensor(2.5).__index__(),
])
def test_number_conversion_errors(fn):
    check_raises(fn)


def test_hash_is_by_identity():
    a, b = numtorch.ones(2), numtorch.ones(2)
    assert hash(a) == hash(a) and hash(a) != hash(b)
    t = torch.ones(2)
    assert hash(t) == id(t)  # torch's value: the identity itself
    assert hash(a) == id(a) and hash(b) == id(b)
    d = {a: 1, b: 2}
    assert d[a] == 1 and d[b] == 2
    assert len({a, b, a}) == 2
    assert a in {a} and b not in {a}


def test_transpose_properties():
    same(lambda t: t.ones(2, 3).T.shape)
    same(lambda t: t.ones(2, 3, 4).mT.shape)
    from numtorch import _warn_once

    _warn_once._DONE.difference_update({"T_nd", "T_0d"})  # torch warns once per process
    with pytest.warns(UserWarning, match="deprecated"):
        numtorch.ones(2, 3, 4).T
    with pytest.warns(UserWarning, match="0-D"):
        numtorch.tensor(1.0).T
    same(lambda t: t.ones(2, 3, 4).T.shape)
    check_raises(lambda t: t.ones(3).mT, match="mT is only supported")


# -- dtype and device conversions -----------------------------------------------------------------
@pytest.mark.parametrize("method", ["float", "double", "half", "long", "int", "short", "char",
                                    "byte", "bool", "cfloat", "cdouble"])
def test_dtype_conversion_methods(method):
    same(lambda t: getattr(t.tensor([[1.7, 0.0], [3.0, 2.2]]), method)())


def test_conversion_methods_return_self_when_nothing_changes():
    x = numtorch.ones(2)
    assert x.float() is x and x.to(numtorch.float32) is x and x.to("cpu") is x
    assert x.cpu() is x and x.type(numtorch.float32) is x and x.type("torch.FloatTensor") is x
    assert x.to(numtorch.float32, copy=True) is not x
    y = numtorch.ones(2, dtype=numtorch.int64)
    assert y.long() is y and y.type_as(y) is y


@pytest.mark.parametrize("fn", [
    lambda t: t.ones(2).to(t.float64), lambda t: t.ones(2).to("cpu"),
    lambda t: t.ones(2).to(t.ones(1, dtype=t.int32)), lambda t: t.ones(2).to("cpu", t.int8),
    lambda t: t.ones(2).to(device="cpu", dtype=t.int16), lambda t: t.ones(2).to(None),
    lambda t: t.ones(2).to(t.device("cpu"), t.float64), lambda t: t.ones(2).to(t.float32, True),
    lambda t: t.ones(2).to("cpu", t.float64, False, True),
    lambda t: t.ones(2).to(t.float64, copy=True, non_blocking=True),
    lambda t: t.ones(2).to(dtype=float), lambda t: t.ones(2).to(int),
    lambda t: t.ones(2).to(float),
    lambda t: t.ones(2).to(t.device("cpu"), dtype=t.int32),
    lambda t: t.ones(2, 3, dtype=t.int32).to(t.float32, copy=True),
    lambda t: t.tensor([1.5, -2.5]).to(t.int64), lambda t: t.tensor([1 + 2j]).to(t.float32),
])
def test_to_matches_torch(fn):
    same(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.ones(2).to(foo=1), lambda t: t.ones(2).to(t.float64, t.int32),
    lambda t: t.ones(2).to("cpu", "cpu"), lambda t: t.ones(2).to(t.ones(2), t.int32),
    lambda t: t.ones(2).to(t.ones(2), dtype=t.float64), lambda t: t.ones(2).to(other=t.ones(2)),
    lambda t: t.ones(2).to("xyz"), lambda t: t.ones(2).to("float64"),
    lambda t: t.ones(2).to("cpu", t.float64, False, True, True),
    lambda t: t.ones(2).to(np.float64),
])
def test_to_errors_match_torch(fn):
    check_raises(fn)


def test_to_copy_makes_a_copy_in_the_graph():
    x = numtorch.ones(2, requires_grad=True)
    y = x.to(numtorch.float32, copy=True)
    assert y is not x and y.grad_fn is not None
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_to_other_dtype_is_differentiable():
    x = numtorch.ones(2, requires_grad=True)
    x.double().sum().backward()
    assert x.grad.dtype is numtorch.float32


@pytest.mark.parametrize("arg", ["torch.DoubleTensor", "torch.IntTensor", "torch.FloatTensor",
                                 "torch.BoolTensor", "torch.HalfTensor", "torch.ByteTensor"])
def test_type_with_legacy_names(arg):
    same(lambda t: t.tensor([1.5, 0.0]).type(arg))


def test_type_with_dtypes_and_legacy_types():
    same(lambda t: t.ones(2).type(t.float64))
    same(lambda t: t.ones(2).type(dtype=t.int32))
    same(lambda t: t.ones(2).type(t.DoubleTensor))
    same(lambda t: t.ones(2).type_as(t.ones(1, dtype=t.int32)))


@pytest.mark.parametrize("arg", ["torch.float64", "float64", "DoubleTensor", "torch.Foo", int,
                                 np.float64])
def test_type_rejects_invalid_types(arg):
    check_raises(lambda t: t.ones(2).type(arg), match="invalid type")


def test_cuda_without_cuda_raises():
    if numtorch.backend.cupy_or_none() is not None:
        pytest.skip("a CUDA device is available")
    # torch (built without CUDA) raises a plain AssertionError for these
    for fn in (lambda t: t.ones(2).cuda(), lambda t: t.ones(2).to("cuda"),
               lambda t: t.ones(2, device="cuda")):
        nt_exc, th_exc = check_raises(fn, match="Torch not compiled with CUDA enabled")
        assert type(th_exc) is AssertionError and isinstance(nt_exc, AssertionError)


# -- constructors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.Tensor(2, 3).shape, lambda t: t.Tensor(2, 3).dtype, lambda t: t.Tensor([1, 2]),
    lambda t: t.Tensor([[1, 2]]), lambda t: t.Tensor(), lambda t: t.Tensor(t.Size([2, 3])).shape,
    lambda t: t.Tensor((2, 3)), lambda t: t.Tensor(np.array([1, 2])), lambda t: t.Tensor([True]),
    lambda t: t.Tensor(t.tensor([1, 2])), lambda t: t.Tensor([]),
    lambda t: t.Tensor(t.tensor([1.0, 2.0], dtype=t.float64)),
    lambda t: t.Tensor([1, 2], device="cpu"), lambda t: t.Tensor(2, 3, device="cpu").shape,
    lambda t: t.Tensor(0).shape, lambda t: t.Tensor(np.int64(3)).shape,
    lambda t: t.FloatTensor(2, 3).shape, lambda t: t.LongTensor([1, 2]),
    lambda t: t.DoubleTensor([1, 2]), lambda t: t.BoolTensor([True, False]),
    lambda t: t.HalfTensor([1]), lambda t: t.ByteTensor([1, 255]), lambda t: t.IntTensor(2).shape,
    lambda t: t.DoubleTensor(t.tensor([1.5], dtype=t.float64)),
    lambda t: t.DoubleTensor(np.array([1.5], dtype=np.float32)),
])
def test_tensor_constructors_match_torch(fn):
    same(fn)


@pytest.mark.parametrize("fn", [
    lambda t: t.Tensor(2.5), lambda t: t.Tensor(-1), lambda t: t.Tensor("a"),
    lambda t: t.Tensor(2, "a"), lambda t: t.Tensor([[1, 2], [3]]),
    lambda t: t.Tensor([1, 2], dtype=t.float64), lambda t: t.Tensor(np.float64(2.0)),
    lambda t: t.FloatTensor([1], dtype=t.float64), lambda t: t.DoubleTensor(t.tensor([1.5])),
    lambda t: t.ByteTensor(t.tensor([1.5])),
])
def test_tensor_constructor_errors_match_torch(fn):
    check_raises(fn)


def test_tensor_of_a_tensor_aliases_it():
    a = numtorch.ones(2)
    b = numtorch.Tensor(a)
    b[0] = 5.0
    assert a[0].item() == 5.0 and b is not a


def test_legacy_types_check_dtype_in_isinstance():
    same(lambda t: isinstance(t.ones(2), t.FloatTensor))
    same(lambda t: isinstance(t.ones(2, dtype=t.float64), t.FloatTensor))
    same(lambda t: isinstance(t.ones(2, dtype=t.int64), t.LongTensor))
    same(lambda t: issubclass(t.FloatTensor, t.Tensor))
    same(lambda t: isinstance(t.ones(2), t.Tensor))
    same(lambda t: (t.FloatTensor.dtype, t.FloatTensor.is_cuda))
    same(lambda t: repr(t.FloatTensor).replace("numtorch", "torch"))
    same(lambda t: repr(t.Tensor))  # <class 'torch.Tensor'>, as tutorials print type(x)


def test_new_factory_methods_use_the_tensors_dtype():
    same(lambda t: t.ones(2).new_zeros(2, 3))
    same(lambda t: t.ones(2, dtype=t.int32).new_ones((2,)))
    same(lambda t: t.ones(2, dtype=t.int32).new_tensor([1.7]))
    same(lambda t: t.ones(2).new_full((2,), 3))
    same(lambda t: t.ones(2).new_empty(3).shape)
    same(lambda t: t.ones(2, dtype=t.float64).new_zeros(2, dtype=t.int8))
    same(lambda t: t.ones(2, dtype=t.float64).new_ones(2, requires_grad=True))


# -- pickling and copying -------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda t: t.ones(2, requires_grad=True),
                                  lambda t: t.arange(10)[2:5], lambda t: t.ones(2, 3).t(),
                                  lambda t: t.tensor(2.5, dtype=t.float64),
                                  lambda t: t.ones(2, requires_grad=True) * 2,
                                  lambda t: t.zeros(0, 3, dtype=t.bool)])
def test_pickle_round_trip(make):
    def run(t):
        y = pickle.loads(pickle.dumps(make(t)))
        return y, y.requires_grad, y.is_leaf, y.grad

    same(run)


def test_pickle_keeps_attributes_but_not_grad():
    x = numtorch.ones(2, requires_grad=True)
    x.grad = numtorch.full((2,), 3.0)
    x.note = "kept"
    y = pickle.loads(pickle.dumps(x))
    assert y.requires_grad and y.grad is None and y.note == "kept"


def test_deepcopy_of_a_leaf_copies_grad_and_attributes():
    x = numtorch.ones(2, requires_grad=True)
    x.grad = numtorch.full((2,), 3.0)
    x.foo = [1]
    d = copy.deepcopy(x)
    assert d is not x and d.requires_grad and d.is_leaf
    assert d.grad.tolist() == [3.0, 3.0] and d.grad is not x.grad
    assert d.foo == [1] and d.foo is not x.foo
    d.data[0] = 5.0
    assert x[0].item() == 1.0


def test_deepcopy_keeps_views_of_one_tensor_together():
    a = numtorch.arange(4.0)
    pair = [a, a[1:]]
    c = copy.deepcopy(pair)
    c[0][1] = 100.0
    assert c[1][0].item() == 100.0 and a[1].item() == 1.0
    shared = {"x": a, "y": a}
    c = copy.deepcopy(shared)
    assert c["x"] is c["y"]


def test_deepcopy_of_a_non_leaf_raises():
    check_raises(lambda t: copy.deepcopy(t.ones(2, requires_grad=True) * 2),
                 match="graph leaves")


def test_copy_copy_shares_memory_like_torch():
    x = numtorch.ones(2, requires_grad=True)
    c = copy.copy(x)
    c.data[0] = 5.0
    assert x[0].item() == 5.0 and c.requires_grad


# -- torch.Size -----------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda t: t.Size([2, 3]), lambda t: repr(t.Size([2, 3])), lambda t: str(t.Size([2])),
    lambda t: repr(t.Size()), lambda t: t.Size([2, 3]).numel(), lambda t: t.Size([]).numel(),
    lambda t: t.Size([2, 3, 4])[1:], lambda t: t.Size([2, 3])[0], lambda t: t.Size([2, 3])[-1],
    lambda t: t.Size([2, 3])[::-1], lambda t: t.Size([2, 3]) + (4,), lambda t: (1,) + t.Size([2]),
    lambda t: t.Size([2]) + t.Size([3]), lambda t: t.Size([2, 3]) * 2, lambda t: 2 * t.Size([2]),
    lambda t: t.Size([2, 3]) == (2, 3), lambda t: t.Size([2, 3]) == [2, 3],
    lambda t: t.Size([2, 3]) != (2, 3), lambda t: hash(t.Size([2, 3])) == hash((2, 3)),
    lambda t: t.Size([2, True]), lambda t: t.Size((t.tensor(3),)), lambda t: t.Size([np.int64(3)]),
    lambda t: t.Size(x for x in [1, 2]), lambda t: t.Size([2, 3]).count(2),
    lambda t: t.Size([2, 3]).index(3), lambda t: list(t.Size([2, 3])),
    lambda t: pickle.loads(pickle.dumps(t.Size([2, 3]))), lambda t: t.Size([2, -1]),
    lambda t: type(t.Size([2, 3])[1:]).__name__, lambda t: type(t.Size([2]) * 2).__name__,
])
def test_size_matches_torch(fn):
    same(fn)


@pytest.mark.parametrize("fn", [lambda t: t.Size((2.5,)), lambda t: t.Size([t.tensor(3.0)]),
                                lambda t: t.Size(3), lambda t: t.Size([2, 3]) + [4],
                                lambda t: t.Size([2, 3])[5], lambda t: t.Size([2]) * 1.5])
def test_size_errors_match_torch(fn):
    check_raises(fn)
