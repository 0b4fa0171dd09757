"""Creation functions against torch: shapes, dtypes, values and errors."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import assert_same, check_raises, same

# -- tensor() ---------------------------------------------------------------------------------
DATA = [
    [[1, 2], [3, 4]], [True, False], [1, 2.5], [True, 2], [True, 2.5], [1, 2 + 1j], 3, 3.0, True,
    2 + 1j, [], [[]], [[], []], (1, 2), [(1, 2), (3, 4)], [[[1]]], [1.5, -2.25, 1e-8],
    [-(2 ** 63), 2 ** 62], 2 ** 63 - 1, [1e40], [1.5, 2 ** 63], [[1.0, 2.0]] * 3,
]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_tensor_infers_dtype_and_shape_from_python_data(data):
    same(lambda t: t.tensor(data))


NUMPY_DATA = [
    lambda: np.array([1, 2], dtype=np.int32), lambda: np.array([1.5, 2.0]),
    lambda: np.array([[1, 2]], dtype=np.uint8), lambda: np.array([True]),
    lambda: np.array([1, 2], dtype=np.float16), lambda: np.array([1 + 2j], dtype=np.complex64),
    lambda: np.float32(2.5), lambda: np.float64(2.5), lambda: np.int32(2), lambda: np.bool_(True),
    lambda: np.array(2.5), lambda: np.zeros((2, 0)), lambda: np.ones((3, 2), order="F"),
    lambda: [np.float32(1.5), 2.0], lambda: [np.float64(1), np.int64(2)],
    lambda: [np.int8(1), np.uint8(2)], lambda: [np.int32(1), 2], lambda: [np.float16(1), 2],
    lambda: [np.complex64(1), 2.0], lambda: [np.array([1, 2], dtype=np.int32)] * 2,
]


@pytest.mark.parametrize("make", NUMPY_DATA, ids=range(len(NUMPY_DATA)))
def test_tensor_keeps_numpy_dtypes_and_promotes_mixed_data(make):
    same(lambda t: t.tensor(make()))


@pytest.mark.parametrize("make", [
    lambda t: [t.tensor(1.), t.tensor(2.)],
    lambda t: [t.tensor(1), t.tensor(2.5)],
    lambda t: [t.tensor(1), 2.5],
    lambda t: [t.tensor(1., dtype=t.float64)],
    lambda t: [t.tensor(1, dtype=t.int32), t.tensor(2, dtype=t.int32)],
    lambda t: [[t.tensor(1., dtype=t.float64)], [2]],
    lambda t: [t.tensor([1.]), t.tensor([2.])],
    lambda t: [t.tensor(1.5, requires_grad=True)],
    lambda t: list(t.ones(3)),
])
def test_tensor_of_a_list_of_one_element_tensors(make):
    same(lambda t: t.tensor(make(t)))


@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "int64", "uint8", "bool",
                                   "complex64"])
def test_tensor_dtype_argument_converts(dtype):
    same(lambda t: t.tensor([[1.7, 0.2], [0.0, 3.0]], dtype=getattr(t, dtype)))


@pytest.mark.parametrize("py_type", [float, int, bool, complex])
def test_python_types_are_dtypes_in_factories(py_type):
    same(lambda t: t.tensor([1, 0], dtype=py_type))
    same(lambda t: t.zeros(2, dtype=py_type))


def test_tensor_copies_its_source():
    a = np.array([1.0, 2.0])
    x = numtorch.tensor(a)
    a[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    src = numtorch.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="clone"):
        y = numtorch.tensor(src)
    src[0] = 7.0
    assert y.tolist() == [1.0, 2.0]


def test_tensor_requires_grad_and_device():
    same(lambda t: t.tensor([1.0, 2.0], requires_grad=True).requires_grad)
    same(lambda t: t.tensor([1.0], device="cpu").device)
    same(lambda t: t.tensor(t.ones(2), dtype=t.float64, requires_grad=True))


def test_tensor_accepts_ranges():
    same(lambda t: t.tensor(range(4)))


@pytest.mark.parametrize("fn", [
    lambda t: t.tensor([[1, 2], [3]]),
    lambda t: t.tensor([[[1, 2]], [[3]]]),
    lambda t: t.tensor([[1, 2], [3, 4, 5]]),
    lambda t: t.tensor([[1, 2], 3]),
    lambda t: t.tensor([1, [2]]),
    lambda t: t.tensor([1, "a"]),
    lambda t: t.tensor("a"),
    lambda t: t.tensor(b"ab"),
    lambda t: t.tensor(None),
    lambda t: t.tensor([None]),
    lambda t: t.tensor({1, 2}),
    lambda t: t.tensor({1: 2}),
    lambda t: t.tensor(x for x in range(3)),
    lambda t: t.tensor(2 ** 63),
    lambda t: t.tensor([2 ** 64]),
    lambda t: t.tensor([t.tensor([1, 2]), t.tensor([3, 4])]),
    lambda t: t.tensor([1, 2], requires_grad=True),
    lambda t: t.tensor([1, 2], dtype="float64"),
    lambda t: t.tensor([1, 2], dtype=np.float32),
    lambda t: t.tensor([1 + 2j], dtype=t.float32),
    lambda t: t.tensor([300], dtype=t.uint8),
    lambda t: t.tensor([-1.5], dtype=t.uint8),
    lambda t: t.tensor(float("nan"), dtype=t.int64),
    lambda t: t.tensor([2 ** 40], dtype=t.int32),
    lambda t: t.tensor([1.0], device="cuda:0" if not numtorch.backend.cupy_or_none() else "xyz"),
])
def test_tensor_errors_match_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_raises(fn)


def test_ragged_list_error_names_the_dimension():
    check_raises(lambda t: t.tensor([[1, 2], [3]]), match="expected sequence of length 2 at "
                                                          "dim 1 (got 1)")


def test_tensor_overflow_rules_for_integer_dtypes():
    # integers may wrap into unsigned types down to -max; floats may not go negative
    same(lambda t: t.tensor([-255, 255, -129], dtype=t.uint8))
    same(lambda t: t.tensor([2.7, -2.7], dtype=t.int8))
    same(lambda t: t.tensor([1e40, -1e40]))
    same(lambda t: t.tensor([70000.0], dtype=t.float16))
    same(lambda t: t.tensor([1e300], dtype=t.float32))


def test_tensor_speed_on_a_long_list():
    data = [float(i) for i in range(200_000)]
    x = numtorch.tensor(data)
    assert x.shape == (200_000,) and x.dtype is numtorch.float32


# -- as_tensor / asarray / from_numpy ------------------------------------------------------------
def test_as_tensor_shares_memory_with_an_ndarray():
    a = np.array([1.0, 2.0, 3.0])
    x = numtorch.as_tensor(a)
    x[1] = 7.0
    assert a[1] == 7.0
    assert numtorch.as_tensor(a, dtype=numtorch.float32).dtype is numtorch.float32
    a[0] = 9.0
    assert x[0].item() == 9.0


def test_as_tensor_returns_the_same_tensor_when_nothing_changes():
    x = numtorch.ones(2, requires_grad=True)
    assert numtorch.as_tensor(x) is x
    y = numtorch.as_tensor(x, dtype=numtorch.float64)
    assert y.dtype is numtorch.float64 and y.grad_fn is not None


@pytest.mark.parametrize("make", [
    lambda t: t.as_tensor([1, 2]), lambda t: t.as_tensor([1.0, 2.0], dtype=t.float64),
    lambda t: t.as_tensor(np.array([1, 2], dtype=np.int16)), lambda t: t.as_tensor(3),
    lambda t: t.as_tensor(np.array([1.0, 2.0]), dtype=t.float32),
    lambda t: t.as_tensor(t.tensor([1, 2]), dtype=t.float32),
    lambda t: t.as_tensor([np.float32(1)]),
    lambda t: t.asarray([1, 2]), lambda t: t.asarray(np.array([1.0, 2.0])),
    lambda t: t.asarray([1.0, 2.0], dtype=t.float64), lambda t: t.asarray(3.5),
    lambda t: t.asarray(np.float32(2.5)), lambda t: t.asarray(2),
    lambda t: t.asarray(t.tensor([1, 2]), dtype=t.float32),
    lambda t: t.asarray([[1, 2]], dtype=t.float64, requires_grad=True),
])
def test_as_tensor_and_asarray_match_torch(make):
    same(make)


def test_asarray_copy_semantics():
    a = np.ones(3)
    x = numtorch.asarray(a)
    x[0] = 5.0
    assert a[0] == 5.0
    y = numtorch.asarray(a, copy=True)
    y[1] = 7.0
    assert a[1] == 1.0
    t = numtorch.ones(2, requires_grad=True)
    assert numtorch.asarray(t) is t
    c = numtorch.asarray(t, copy=True)
    assert c is not t and c.grad_fn is not None


@pytest.mark.parametrize("fn", [
    lambda t: t.asarray(np.ones(3), dtype=t.float32, copy=False),
    lambda t: t.asarray([1, 2], copy=False),
    lambda t: t.asarray(t.ones(2), dtype=t.int32, copy=False),
    lambda t: t.asarray([[1, 2], [3]]),
    lambda t: t.as_tensor(np.array([1, 2])[::-1]),
    lambda t: t.from_numpy(np.array([1, 2])[::-1]),
    lambda t: t.from_numpy([1, 2]),
    lambda t: t.from_numpy(np.array(["a"])),
    lambda t: t.from_numpy(np.zeros(2, dtype=object)),
    lambda t: t.from_numpy(np.zeros(2, dtype=">f8")),
])
def test_conversion_errors_match_torch(fn):
    check_raises(fn)


def test_from_numpy_shares_memory_both_ways_and_keeps_dtype():
    for dt in (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
               np.uint8, np.bool_, np.complex64, np.complex128):
        a = np.zeros((2, 3), dtype=dt)
        x = numtorch.from_numpy(a)
        assert str(x.dtype) == str(torch.from_numpy(a).dtype)
        x[0, 1] = 1
        assert a[0, 1] == 1
        a[1, 2] = 1
        assert x[1, 2].item() == 1


def test_from_numpy_warns_for_read_only_arrays():
    a = np.ones(2)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        numtorch.from_numpy(a)


# -- zeros / ones / full / empty ------------------------------------------------------------------
SIZES = [(2, 3), ((2, 3),), ([2, 3],), (torch.Size([2, 3]),), ((),), ([],), (0,), (4,),
         (1, 0, 2), (np.int64(2), 3)]


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("size", SIZES, ids=repr)
def test_filled_factories_accept_every_size_form(fn, size):
    size = tuple(numtorch.Size(s) if isinstance(s, torch.Size) else s for s in size)
    tsize = tuple(torch.Size(s) if isinstance(s, numtorch.Size) else s for s in size)
    x, y = getattr(numtorch, fn)(*size), getattr(torch, fn)(*tsize)
    assert x.shape == tuple(y.shape) and str(x.dtype) == str(y.dtype)
    if fn != "empty":
        np.testing.assert_array_equal(x.numpy(), y.numpy())


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_size_keyword(fn):
    same(lambda t: getattr(t, fn)(size=(2, 3)).shape)
    same(lambda t: getattr(t, fn)(size=[4]).dtype)


@pytest.mark.parametrize("dtype", ["float16", "float64", "int8", "int32", "int64", "uint8",
                                   "bool", "complex64", "complex128"])
def test_filled_factory_dtypes(dtype):
    same(lambda t: t.zeros(2, 3, dtype=getattr(t, dtype)))
    same(lambda t: t.ones((2,), dtype=getattr(t, dtype)))
    same(lambda t: t.empty(2, dtype=getattr(t, dtype)).dtype)


def test_factories_follow_the_default_dtype():
    numtorch.set_default_dtype(numtorch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for fn in (lambda t: t.zeros(2), lambda t: t.tensor([1.5]), lambda t: t.full((1,), 2.5),
                   lambda t: t.arange(1.5), lambda t: t.linspace(0, 1, 3),
                   lambda t: t.tensor([1j]), lambda t: t.eye(2)):
            same(fn)
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("fn", [
    lambda t: t.zeros(2, -3), lambda t: t.zeros((2, -1)), lambda t: t.ones(-1),
    lambda t: t.empty(-1), lambda t: t.full((-1,), 1.0), lambda t: t.zeros(2.5),
    lambda t: t.zeros(True), lambda t: t.zeros((2,), (3,)), lambda t: t.zeros([2, 3.5]),
    lambda t: t.zeros(np.array([2, 3])), lambda t: t.zeros(t.tensor([2, 3])),
    lambda t: t.zeros(), lambda t: t.zeros(2, 3, size=(2,)), lambda t: t.zeros(2, dtype="float32"),
    lambda t: t.ones(2, dtype=t.int64, requires_grad=True), lambda t: t.full(2, 1.0),
    lambda t: t.full((2,), "a"), lambda t: t.full((1,), 256, dtype=t.uint8),
    lambda t: t.full((1,), -256, dtype=t.uint8), lambda t: t.full((1,), -0.5, dtype=t.uint8),
    lambda t: t.full((1,), 128, dtype=t.int8), lambda t: t.full((1,), 40000, dtype=t.int16),
    lambda t: t.full((1,), 2 ** 40, dtype=t.int32), lambda t: t.full((1,), 2 ** 63),
    lambda t: t.full((1,), float("nan"), dtype=t.int64),
    lambda t: t.full((1,), 1e300, dtype=t.float32),
    lambda t: t.full((1,), 1 + 1j, dtype=t.float32),
    lambda t: t.full((2,), 7e4, dtype=t.float16),
    lambda t: t.zeros_like([1, 2]), lambda t: t.ones(2, foo=1),
])
def test_filled_factory_errors_match_torch(fn):
    check_raises(fn)


def test_zeros_negative_dimension_message():
    check_raises(lambda t: t.zeros(2, -3), match="zeros: Dimension size must be non-negative.")
    check_raises(lambda t: t.ones(2, -3), match="Trying to create tensor with negative "
                                                "dimension -3: [2, -3]")


@pytest.mark.parametrize("value", [1.5, 2, True, 1 + 2j, np.float32(1.5), np.int32(3),
                                   np.float64(3.0), np.bool_(False), float("inf")], ids=repr)
def test_full_infers_dtype_from_the_fill_value(value):
    same(lambda t: t.full((2, 3), value))


@pytest.mark.parametrize("value, dtype", [(2, "float32"), (-255, "uint8"), (255, "uint8"),
                                          (-128, "uint8"), (-129, "uint8"), (2.5, "int64"),
                                          (-0.5, "int8"), (5, "bool"), (6e4, "float16"),
                                          (2 ** 63, "float32"), (1 + 0j, "float32")])
def test_full_with_dtype_converts_like_torch(value, dtype):
    same(lambda t: t.full((2,), value, dtype=getattr(t, dtype)))


def test_full_with_tensor_fill_and_keywords():
    same(lambda t: t.full([2], t.tensor(1.5)))
    same(lambda t: t.full([2], t.tensor(2)))
    same(lambda t: t.full((), 3))
    same(lambda t: t.full(size=(2,), fill_value=3.0))


LIKES = [("zeros_like", ()), ("ones_like", ()), ("empty_like", ()), ("full_like", (2.7,)),
         ("full_like", (3,)), ("full_like", (True,)), ("rand_like", ()), ("randn_like", ())]


@pytest.mark.parametrize("name, args", LIKES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_like_factories_keep_shape_and_dtype(name, args, dtype):
    def check(t):
        src = t.ones(2, 3, dtype=getattr(t, dtype))
        return getattr(t, name)(src, *args)

    x, y = check(numtorch), check(torch)
    assert x.shape == tuple(y.shape) and str(x.dtype) == str(y.dtype)
    if name in ("zeros_like", "ones_like", "full_like"):
        assert_same(x, y, 0, 0)


@pytest.mark.parametrize("name, args", LIKES[:6])
def test_like_factories_with_integer_input_and_dtype_override(name, args):
    same(lambda t: getattr(t, name)(t.ones(2, dtype=t.int32), *args).dtype)
    same(lambda t: getattr(t, name)(t.ones(2, dtype=t.int32), *args, dtype=t.float64).dtype)
    if name != "empty_like":
        same(lambda t: getattr(t, name)(t.ones(2, dtype=t.int32), *args))
        same(lambda t: getattr(t, name)(t.ones(2, 3), *args, requires_grad=True))


def test_like_factories_preserve_the_memory_layout():
    for name in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        same(lambda t: getattr(t, name)(t.ones(2, 3).t()).stride())
    same(lambda t: t.full_like(t.ones(2, 3).t(), 1.0).stride())


def test_like_factories_do_not_track_grad_of_the_input():
    same(lambda t: t.zeros_like(t.ones(2, requires_grad=True)))
    same(lambda t: t.ones_like(t.tensor(2.0)))
    same(lambda t: t.full_like(t.ones(2, dtype=t.bool), 5))


# -- eye ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs", [((3,), {}), ((2, 3), {}), ((3, 2), {}), ((0,), {}),
                                          ((3,), {"dtype": "int64"}), ((2,), {"m": 4}),
                                          ((), {"n": 2}), ((3,), {"dtype": "bool"}),
                                          ((2,), {"requires_grad": True})])
def test_eye_matches_torch(args, kwargs):
    def run(t):
        kw = {k: getattr(t, v) if k == "dtype" else v for k, v in kwargs.items()}
        return t.eye(*args, **kw)

    same(run)


@pytest.mark.parametrize("fn", [lambda t: t.eye(-1), lambda t: t.eye(2, -1),
                                lambda t: t.eye(2.5), lambda t: t.eye(2, 1.5)])
def test_eye_errors(fn):
    check_raises(fn)


# -- arange / range -------------------------------------------------------------------------------
ARANGE = [(5,), (5.0,), (1, 4), (1, 4, 0.5), (0, 1, 0.1), (10, 0, -1), (10, 0, -3),
          (0, -1, -0.1), (1, 2.5), (0, 10, 3), (-1.5, 1.5, 0.3), (1, 2, 0.1), (0, 1, 1 / 3),
          (-10.1, 10.7, 0.37), (0.1, 1.7, 0.2), (0,), (3, 3), (1.0, 1.3, 0.1), (True,),
          (0, 5, True), (1e6, 1e6 + 10), (-3.3, 7.1, 0.013), (5, -5, -0.7), (0, 100, 0.01),
          (-20, 20, 0.0123), (0.5, 3.7, 1.5)]


@pytest.mark.parametrize("args", ARANGE, ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "int64", "int32"])
def test_arange_matches_torch_exactly(args, dtype):
    # values are compared bit for bit: torch's kernel rounds in a specific way
    def run(t):
        return t.arange(*args) if dtype is None else t.arange(*args, dtype=getattr(t, dtype))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = run(torch)
        except Exception:  # noqa: BLE001 - e.g. int64 truncating the step to zero
            check_raises(run)
            return
    assert_same(run(numtorch), expected, 0, 0)


def test_arange_argument_forms():
    same(lambda t: t.arange(end=4))
    same(lambda t: t.arange(start=1, end=4))
    same(lambda t: t.arange(t.tensor(3)))
    same(lambda t: t.arange(t.tensor(3.0)))
    same(lambda t: t.arange(np.int64(3)))
    same(lambda t: t.arange(np.float32(2.5)))
    same(lambda t: t.arange(-3, 3, dtype=t.uint8))
    same(lambda t: t.arange(0, 5, 1.5, dtype=t.uint8))
    same(lambda t: t.arange(5.0, requires_grad=True))


@pytest.mark.parametrize("fn", [
    lambda t: t.arange(0, 10, 0), lambda t: t.arange(0, 10, -1), lambda t: t.arange(10, 0),
    lambda t: t.arange(float("inf")), lambda t: t.arange(float("nan")),
    lambda t: t.arange(5, dtype=t.bool), lambda t: t.arange(0, 5, dtype=t.complex64),
    lambda t: t.arange(1 + 2j), lambda t: t.arange(0, 1, 0.3, dtype=t.int64),
    lambda t: t.arange(5, requires_grad=True),
])
def test_arange_errors_match_torch(fn):
    check_raises(fn)


def test_arange_error_messages():
    check_raises(lambda t: t.arange(0, 10, -1), match="upper bound and lower bound inconsistent "
                                                      "with step sign")
    check_raises(lambda t: t.arange(float("inf")), match="unsupported range: 0 -> inf")


@pytest.mark.parametrize("args", [(0, 3), (0, 1, 0.25), (0, 1, 0.3), (5, 0, -1)], ids=repr)
def test_deprecated_range_includes_the_end(args):
    same(lambda t: t.range(*args))
    if all(float(a).is_integer() for a in args):  # torch crashes on a step truncated to 0
        same(lambda t: t.range(*args, dtype=t.int64))
    with pytest.warns(UserWarning, match="deprecated"):
        numtorch.range(*args)


@pytest.mark.parametrize("fn", [lambda t: t.range(3), lambda t: t.range(5, 0),
                                lambda t: t.range(0, 5, 0)])
def test_range_errors(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_raises(fn)


# -- linspace / logspace --------------------------------------------------------------------------
LINSPACE = [(0, 1, 5), (0, 1, 1), (0, 1, 0), (-1, 1, 7), (1, 0, 6), (0, 1, 11), (3, 3, 4),
            (0.3, 1.7, 13), (-3.3, 7.1, 100), (-7, 7, 6), (0.5, 5.5, 4), (-0.5, 5.5, 4),
            (1e-3, 1e3, 50), (-123.456, 654.321, 257)]


@pytest.mark.parametrize("args", LINSPACE, ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "int64", "int32", "uint8"])
def test_linspace_matches_torch_exactly(args, dtype):
    def run(t):
        return t.linspace(*args) if dtype is None else t.linspace(*args, dtype=getattr(t, dtype))

    try:
        expected = run(torch)
    except Exception:  # noqa: BLE001 - e.g. a negative end for uint8
        check_raises(run)
        return
    assert_same(run(numtorch), expected, 0, 0)


def test_linspace_other_forms():
    same(lambda t: t.linspace(t.tensor(0.0), t.tensor(1.0), 3))
    same(lambda t: t.linspace(0, 1, steps=11))
    same(lambda t: t.linspace(0, 1, 5, requires_grad=True))
    same(lambda t: t.linspace(0, 1 + 1j, 3), rtol=1e-6)


@pytest.mark.parametrize("fn", [lambda t: t.linspace(0, 1, -1), lambda t: t.linspace(0, 1, 2.5),
                                lambda t: t.linspace(0, 1, 3, dtype=t.bool),
                                lambda t: t.linspace(-5.5, 5, 3, dtype=t.uint8),
                                lambda t: t.logspace(0, 1, -1)])
def test_linspace_errors(fn):
    check_raises(fn)


LOGSPACE = [(0, 2, 3, 10.0), (0, 2, 3, 2), (-2, 2, 5, 10.0), (0, 1, 0, 10.0), (0, 3, 4, 2),
            (0.1, 1.3, 7, 10.0), (0, 1, 1, 10.0), (0, 3, 4, -2), (0, 40, 3, 10.0),
            (-1.3, 0.7, 45, 10.0), (0, 2, 3, 2.5)]


@pytest.mark.parametrize("args", LOGSPACE, ids=repr)
@pytest.mark.parametrize("dtype", [None, "float64", "int64"])
def test_logspace_matches_torch(args, dtype):
    # torch rounds pow() with the C library; NumPy may differ in the last bit of float64
    def run(t):
        return t.logspace(*args) if dtype is None else t.logspace(*args, dtype=getattr(t, dtype))

    same(run, rtol=1e-15 if dtype == "float64" else 0.0)


# -- scalar_tensor / empty_strided / predicates ---------------------------------------------------
@pytest.mark.parametrize("fn", [lambda t: t.scalar_tensor(3), lambda t: t.scalar_tensor(3.5),
                                lambda t: t.scalar_tensor(True),
                                lambda t: t.scalar_tensor(3, dtype=t.int64),
                                lambda t: t.scalar_tensor(t.tensor(2)),
                                lambda t: t.scalar_tensor(2.5, requires_grad=True)])
def test_scalar_tensor(fn):
    same(fn)


def test_scalar_tensor_rejects_complex_for_a_real_dtype():
    check_raises(lambda t: t.scalar_tensor(1 + 2j))


@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (2,)),
                                          ((2, 0), (1, 1)), ((), ()), ((3, 2), (0, 1))])
def test_empty_strided_has_the_requested_strides(size, stride):
    same(lambda t: t.empty_strided(size, stride).stride())
    same(lambda t: t.empty_strided(size, stride, dtype=t.float64).shape)
    x = numtorch.empty_strided(size, stride)
    x.fill_(1.0)
    assert bool((x == 1).all())


def test_empty_strided_dimension_mismatch():
    check_raises(lambda t: t.empty_strided((2, 3), (1,)))


def test_predicates():
    same(lambda t: t.is_tensor(t.ones(1)))
    same(lambda t: t.is_tensor([1]))
    same(lambda t: t.numel(t.ones(2, 3)))
    same(lambda t: t.is_floating_point(t.ones(1)))
    same(lambda t: t.is_complex(t.ones(1, dtype=t.complex64)))
    same(lambda t: t.is_nonzero(t.tensor([1])))
    same(lambda t: t.is_nonzero(t.tensor(0.0)))
    check_raises(lambda t: t.is_nonzero(t.tensor([1, 2])))
    check_raises(lambda t: t.is_nonzero(t.tensor([])))


# -- out= and the default device -----------------------------------------------------------------
@pytest.mark.parametrize("fn", [lambda t, o: t.zeros(2, 3, out=o), lambda t, o: t.ones(4, out=o),
                                lambda t, o: t.arange(5, out=o),
                                lambda t, o: t.full((2,), 7, out=o),
                                lambda t, o: t.linspace(0, 1, 3, out=o),
                                lambda t, o: t.eye(2, out=o)])
def test_out_argument_writes_into_the_given_tensor(fn):
    def run(t):
        o = t.empty(0, dtype=t.float64)
        r = fn(t, o)
        assert r is o
        return o

    same(run)


def test_device_context_sets_the_default_device():
    with numtorch.device("cpu"):
        assert numtorch.zeros(1).device == numtorch.device("cpu")
    assert numtorch.get_default_device() == numtorch.device("cpu")
    numtorch.set_default_device("cpu")
    try:
        assert numtorch.ones(1).device.type == "cpu"
    finally:
        numtorch.set_default_device(None)


# -- docstring examples -----------------------------------------------------------------------------
@pytest.mark.parametrize("module, attr", [
    ("numtorch._creation", None), ("numtorch._ranges", None), ("numtorch._sampling", None),
    ("numtorch._random", None), ("numtorch._tensor_str", None), ("numtorch._device", None),
    ("numtorch._size", "Size"), ("numtorch._tensor", "Tensor"),
])
def test_docstring_examples_run(module, attr):
    import doctest
    import importlib

    obj = importlib.import_module(module)
    scope = obj
    if attr is not None:  # classes shown as numtorch.X are skipped by a module-wide search
        obj = getattr(obj, attr)
        scope = False
    tests = doctest.DocTestFinder().find(obj, module=scope, globs={"torch": numtorch, "np": np})
    assert any(t.examples for t in tests)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    try:
        for test in tests:
            runner.run(test)
    finally:
        numtorch.set_printoptions(profile="default")
        numtorch.set_default_device(None)
    assert runner.failures == 0
