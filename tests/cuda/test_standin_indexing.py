"""The CuPy stand-in indexes and scatters as CuPy 14 does (tests/cuda/standin/_indexing.py).

Each case is what the project's tests met on an H100 (CuPy 14.2) and the CPU stand-in first
missed: index arrays wrap instead of raising, CuPy's own wording for a scalar out of range and
for index arrays that do not broadcast, the first of two writes to one position winning,
``ndarray.scatter_add``'s deprecation, and ``maximum.at`` computing float64 in float32.
"""

import warnings

import numpy as np
import pytest

from tests.cuda import standin

cp, cupyx = standin.modules()


@pytest.fixture
def x():
    return cp.asarray(np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("key", [[5], [-3], (slice(None), [7])], ids=["list", "neg", "dim1"])
def test_index_arrays_wrap_instead_of_raising(x, key):
    host = np.arange(6.0).reshape(2, 3)
    wrapped = tuple(np.asarray(k) % host.shape[d] if isinstance(k, list) else k
                    for d, k in enumerate(key if isinstance(key, tuple) else (key,)))
    assert np.array_equal(x[key].get(), host[wrapped])
    x[key] = -1.0  # a write wraps too
    assert (x[wrapped].get() == -1.0).all()


def test_take_and_take_along_axis_wrap(x):
    assert cp.take(x, cp.asarray([7])).item() == 1.0
    assert cp.take_along_axis(x, cp.asarray([[3], [4]]), 1).get().ravel().tolist() == [0.0, 4.0]


@pytest.mark.parametrize("key,msg", [(5, "Index 5 is out of bounds for axis 0 with size 2"),
                                     ((0, -4), "Index -4 is out of bounds for axis 1 with size 3")])
def test_scalar_out_of_range_has_cupys_wording(x, key, msg):
    with pytest.raises(IndexError, match=msg):
        x[key]
    with pytest.raises(IndexError, match=msg):
        x[key] = 0.0


def test_index_arrays_that_do_not_broadcast_raise_valueerror(x):
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with "
                                         r"shapes\(2,\) \(3,\)"):
        x[cp.asarray([0, 1]), cp.asarray([0, 1, 2])]


def test_repeated_write_keeps_the_first_value():
    a = cp.zeros(3)
    a[cp.asarray([1, 1])] = cp.asarray([5.0, 6.0])
    assert a[1].item() == 5.0
    b = cp.ones((3, 1))
    cp.broadcast_to(b, (3, 4))[cp.asarray([0, 0]), cp.asarray([1, 2])] = cp.asarray([5.0, 6.0])
    assert b.get().ravel().tolist() == [5.0, 1.0, 1.0]


@pytest.mark.parametrize("name", ["add", "max", "min"])
def test_scatter_methods_are_deprecated(name):
    a = cp.zeros(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        getattr(cupyx, f"scatter_{name}")(a, cp.asarray([0]), 1.0)
        getattr(cp, {"add": "add", "max": "maximum", "min": "minimum"}[name]).at(
            a, cp.asarray([1]), 1.0)
    assert [x.category for x in w] == [DeprecationWarning]
    assert "is deprecated" in str(w[0].message)
    assert a.get().tolist() == ([0.0] * 3 if name == "min" else [1.0, 1.0, 0.0])


def test_maximum_at_rounds_float64_through_float32_and_drops_nan():
    a = cp.zeros(4)
    cp.maximum.at(a, cp.asarray([0, 1, 1]), cp.asarray([0.1, np.nan, 0.3]))
    got = a.get()
    assert got[0] == float(np.float32(0.1)) != 0.1  # touched: float32 precision
    assert got[1] == np.float32(0.3)  # fmaxf: NaN loses
    b = cp.asarray([0.1, 0.2])
    cp.minimum.at(b, cp.asarray([0]), 1.0)
    assert b.get().tolist() == [float(np.float32(0.1)), 0.2]  # untouched stays exact


@pytest.mark.parametrize("name,dtype", [("add", np.int8), ("add", np.complex64),
                                        ("maximum", np.float16), ("subtract", np.float32),
                                        ("bitwise_or", np.uint8)])
def test_at_refuses_dtypes_the_atomic_kernels_lack(name, dtype):
    with pytest.raises(TypeError, match=f"cupy.{name}.at only supports"):
        getattr(cp, name).at(cp.zeros(3, dtype=dtype), cp.asarray([0]), 1)


def test_sorts_are_stable_as_cupys_radix_sort():
    keys = np.tile(np.arange(4), 50)[::-1].copy()  # many ties, longer than NumPy's small sort
    a = cp.asarray(keys)
    expected = np.argsort(keys, kind="stable")
    assert np.array_equal(cp.argsort(a).get(), expected)
    assert np.array_equal(a.argsort().get(), expected)
