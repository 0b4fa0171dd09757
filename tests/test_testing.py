"""numtorch.testing against torch.testing: the same inputs must pass or fail the same way."""

import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import numtorch
from numtorch.testing import assert_close, make_tensor

NAN, INF = float("nan"), float("inf")


class Arr:
    """Marks a NumPy array that becomes a tensor of the library under test."""

    def __init__(self, values, dtype="float32"):
        self.array = np.asarray(values, dtype=dtype)


def build(spec, lib):
    """Turn a spec (Arr, numbers, lists, tuples, dicts) into the objects of ``lib``."""
    if isinstance(spec, Arr):
        return lib.from_numpy(spec.array.copy())
    if isinstance(spec, list):
        return [build(s, lib) for s in spec]
    if isinstance(spec, tuple):
        return tuple(build(s, lib) for s in spec)
    if isinstance(spec, dict):
        return {k: build(v, lib) for k, v in spec.items()}
    return spec


def outcome(fn, *args, **kwargs):
    """'pass', or the exception class name and its message."""
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the kind of failure is what is compared
        return type(e).__name__, str(e)
    return "pass", ""


def both(actual, expected, **kwargs):
    ours = outcome(assert_close, build(actual, numtorch), build(expected, numtorch), **kwargs)
    theirs = outcome(torch.testing.assert_close, build(actual, torch), build(expected, torch),
                     **kwargs)
    return ours, theirs


CASES = {
    "equal_f32": (Arr([1.0, 2.0]), Arr([1.0, 2.0]), {}),
    "within_f32_tol": (Arr([1.0, 2.0]), Arr([1.0, 2.0 + 2e-6]), {}),
    "outside_f32_tol": (Arr([1.0, 2.0]), Arr([1.0, 2.0 + 5e-5]), {}),
    "atol_only_region": (Arr([0.0]), Arr([9e-6]), {}),
    "atol_only_region_out": (Arr([0.0]), Arr([2e-5]), {}),
    "f64_tight": (Arr([1.0], "float64"), Arr([1.0 + 5e-8], "float64"), {}),
    "f64_tight_out": (Arr([1.0], "float64"), Arr([1.0 + 5e-7], "float64"), {}),
    "f16_in": (Arr([1.0], "float16"), Arr([1.0009765625], "float16"), {}),
    "f16_out": (Arr([1.0], "float16"), Arr([1.0029296875], "float16"), {}),
    "int_equal": (Arr([1, 2, 3], "int64"), Arr([1, 2, 3], "int64"), {}),
    "int_off_by_one": (Arr([1, 2, 3], "int64"), Arr([1, 2, 4], "int64"), {}),
    "int_with_tolerance": (Arr([100], "int64"), Arr([101], "int64"),
                           {"rtol": 0.05, "atol": 0.0}),
    "int_with_small_tolerance": (Arr([100], "int64"), Arr([103], "int64"),
                                 {"rtol": 0.0, "atol": 0.5}),
    "uint8_off": (Arr([1], "uint8"), Arr([3], "uint8"), {}),
    "bool_equal": (Arr([True, False], "bool"), Arr([True, False], "bool"), {}),
    "bool_off": (Arr([True, False], "bool"), Arr([True, True], "bool"), {}),
    "complex_in": (Arr([1 + 1j], "complex64"), Arr([1 + 1j + 1e-6], "complex64"), {}),
    "complex_out": (Arr([1 + 1j], "complex64"), Arr([1 + 2j], "complex64"), {}),
    "nan_default": (Arr([NAN, 1.0]), Arr([NAN, 1.0]), {}),
    "nan_equal_nan": (Arr([NAN, 1.0]), Arr([NAN, 1.0]), {"equal_nan": True}),
    "nan_vs_number": (Arr([NAN]), Arr([1.0]), {"equal_nan": True}),
    "inf_same": (Arr([INF, -INF]), Arr([INF, -INF]), {}),
    "inf_opposite": (Arr([INF]), Arr([-INF]), {}),
    "finite_vs_inf": (Arr([1e30]), Arr([INF]), {"rtol": 1.0, "atol": 1.0}),
    "inf_vs_finite": (Arr([INF]), Arr([1.0]), {}),
    "user_tolerance_in": (Arr([1.0]), Arr([1.1]), {"rtol": 0.0, "atol": 0.2}),
    "user_tolerance_rel": (Arr([1.0]), Arr([1.1]), {"rtol": 0.1, "atol": 0.0}),
    "zero_tolerance_float": (Arr([1.0]), Arr([1.0 + 1e-7]), {"rtol": 0.0, "atol": 0.0}),
    "shape": (Arr([1.0, 2.0]), Arr([1.0, 2.0, 3.0]), {}),
    "shape_broadcastable": (Arr([[1.0, 2.0]]), Arr([1.0, 2.0]), {}),
    "dtype": (Arr([1.0]), Arr([1.0], "float64"), {}),
    "dtype_unchecked": (Arr([1.0]), Arr([1.0], "float64"), {"check_dtype": False}),
    "dtype_unchecked_looser_tol": (Arr([1.0]), Arr([1.0 + 5e-6], "float64"),
                                   {"check_dtype": False}),
    "dtype_unchecked_out": (Arr([1.0]), Arr([1.0 + 3e-5], "float64"), {"check_dtype": False}),
    "int_vs_float_unchecked": (Arr([1, 2], "int64"), Arr([1.0, 2.0]), {"check_dtype": False}),
    "empty": (Arr(np.zeros((0, 3))), Arr(np.zeros((0, 3))), {}),
    "zero_dim": (Arr(1.0), Arr(2.0), {}),
    "zero_dim_int": (Arr(1, "int64"), Arr(1, "int64"), {}),
    "float_numbers_in": (1.0, 1.0 + 1e-8, {}),
    "float_numbers_out": (1.0, 1.1, {}),
    "int_numbers": (2, 3, {}),
    "int_vs_float_number": (1, 1.0, {}),
    "int_vs_float_number_unchecked": (1, 1.0, {"check_dtype": False}),
    "complex_numbers": (1 + 1j, 1 + 1.1j, {}),
    "nan_numbers": (NAN, NAN, {}),
    "nan_numbers_equal_nan": (NAN, NAN, {"equal_nan": True}),
    "inf_numbers": (INF, INF, {}),
    "number_vs_inf": (1.0, INF, {}),
    "numpy_scalar_vs_float": (np.float32(1.0), 1.0, {}),
    "bools": (True, False, {}),
    "bools_equal": (True, True, {}),
    "none": (None, None, {}),
    "none_vs_number": (None, 1, {}),
    "list_vs_tuple": ([1, 2], (1, 2), {}),
    "list_length": ([1, 2], [1, 2, 3], {}),
    "list_of_tensors": ([Arr([1.0]), Arr([2.0])], [Arr([1.0]), Arr([2.5])], {}),
    "nested": ([[1.0, 2.0], [3.0]], [[1.0, 2.0], [3.5]], {}),
    "nested_types": ([1.0, 2.0], [1, 2], {}),
    "dict": ({"a": Arr([1.0]), "b": 2}, {"a": Arr([1.0]), "b": 2}, {}),
    "dict_value": ({"a": 1.0}, {"a": 1.5}, {}),
    "dict_keys": ({"a": 1.0}, {"b": 1.0}, {}),
    "tensor_vs_number": (Arr(1.0), 1.0, {}),
    "number_vs_tensor": (1.0, Arr(1.0), {}),
    "tensor_vs_list": (Arr([1.0, 2.0]), [1.0, 2.0], {}),
    "strings": ("a", "a", {}),
    "only_rtol": (Arr([1.0]), Arr([1.0]), {"rtol": 1e-3}),
    "only_atol": (Arr([1.0]), Arr([1.0]), {"atol": 1e-3}),
    "msg_string": (Arr([1.0]), Arr([2.0]), {"msg": "custom"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_assert_close_decides_like_torch(name):
    actual, expected, kwargs = CASES[name]
    (ours, our_msg), (theirs, _) = both(actual, expected, **kwargs)
    assert ours == theirs, f"numtorch: {ours} ({our_msg!r}), torch: {theirs}"


def _mismatch_summary(message):
    """(mismatch count line, greatest abs diff, its index, greatest rel diff, its index)."""
    count = re.search(r"Mismatched elements: .*", message).group(0)
    abs_m = re.search(r"Greatest absolute difference: (\S+) at index (\(.*?\))", message)
    rel_m = re.search(r"Greatest relative difference: (\S+) at index (\(.*?\))", message)
    return count, float(abs_m.group(1)), abs_m.group(2), float(rel_m.group(1)), rel_m.group(2)


@pytest.mark.parametrize("actual,expected,kwargs", [
    (Arr([[1.0, 2.0], [3.0, 4.0]]), Arr([[1.0, 2.5], [3.0, 0.0]]), {}),
    (Arr([1.0, 2.0, 3.0, 4.0], "float64"), Arr([1.5, 2.0, 3.25, 4.0], "float64"), {}),
    (Arr([1, 2, 3, 9], "int64"), Arr([1, 2, 4, 1], "int64"), {}),
    (Arr([NAN, 1.0, 5.0]), Arr([1.0, 1.0, 2.0]), {}),
    (Arr(np.arange(12.0).reshape(3, 4)), Arr(np.arange(12.0).reshape(3, 4) * 1.01), {}),
    (Arr([True, False, True], "bool"), Arr([True, True, False], "bool"), {}),
])
def test_failure_message_reports_mismatches_like_torch(actual, expected, kwargs):
    (ours, our_msg), (theirs, their_msg) = both(actual, expected, **kwargs)
    assert ours == theirs == "AssertionError"
    mine, ref = _mismatch_summary(our_msg), _mismatch_summary(their_msg)
    assert mine[0] == ref[0]
    np.testing.assert_allclose([mine[1], mine[3]], [ref[1], ref[3]], rtol=1e-6)
    assert (mine[2], mine[4]) == (ref[2], ref[4])


def test_failure_message_shows_allowed_tolerance_and_item_path():
    with pytest.raises(AssertionError) as info:
        assert_close({"w": [numtorch.zeros(2), numtorch.tensor([1.0, 3.0])]},
                     {"w": [numtorch.zeros(2), numtorch.tensor([1.0, 2.0])]})
    text = str(info.value)
    assert "Mismatched elements: 1 / 2 (50.0%)" in text
    assert "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)" in text
    assert "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)" in text
    assert text.endswith("The failure occurred for item ['w'][1]")


def test_msg_callable_receives_generated_message():
    with pytest.raises(AssertionError, match=r"^context: Tensor-likes are not close!"):
        assert_close(numtorch.tensor([1.0]), numtorch.tensor([2.0]),
                     msg=lambda m: "context: " + m)


def test_numpy_arrays_compare_like_tensors():
    (ours, _), (theirs, _) = [
        outcome(lib, np.array([1.0, 2.0]), np.array([1.0, 2.1])) for lib in
        (assert_close, torch.testing.assert_close)]
    assert ours == theirs == "AssertionError"
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
    with pytest.raises(TypeError):
        assert_close(numtorch.tensor([1.0]), np.array([1.0], dtype=np.float32))


def test_requires_grad_and_strides_are_ignored_by_default():
    x = numtorch.ones(2, 3, requires_grad=True)
    assert_close(x, numtorch.ones(2, 3))
    assert_close(numtorch.zeros(3, 2).t(), numtorch.zeros(2, 3))
    with pytest.raises(AssertionError, match="stride"):
        assert_close(numtorch.zeros(3, 2).t(), numtorch.zeros(2, 3), check_stride=True)


def test_negative_tolerance_is_rejected():
    with pytest.raises(ValueError, match="non-negative"):
        assert_close(numtorch.zeros(1), numtorch.zeros(1), rtol=-1.0, atol=0.0)


_finite = st.floats(-100, 100, allow_nan=False, width=32)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(_finite, min_size=1, max_size=6),
       factor=st.sampled_from([0.0, 0.5, 0.97, 1.03, 2.0, -0.97, -1.03, 10.0]),
       dtype=st.sampled_from(["float32", "float64"]),
       special=st.sampled_from([None, NAN, INF, -INF]),
       equal_nan=st.booleans())
def test_random_pairs_near_the_tolerance_decide_like_torch(values, factor, dtype, special,
                                                           equal_nan):
    rtol, atol = {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}[dtype]
    expected = np.array(values, dtype=dtype)
    actual = expected + factor * (atol + rtol * np.abs(expected))
    if special is not None:
        actual[0] = special
        expected[-1] = special
    (ours, msg), (theirs, _) = both(Arr(actual, dtype), Arr(expected, dtype),
                                    equal_nan=equal_nan)
    assert ours == theirs, msg


@pytest.mark.parametrize("dtype,low,high", [
    (numtorch.float32, None, None), (numtorch.float64, -2.0, 3.0),
    (numtorch.float16, 0.0, 1.0), (numtorch.int64, None, None), (numtorch.int8, -3, 4),
    (numtorch.uint8, None, None), (numtorch.int32, 2.5, 4.5),
])
def test_make_tensor_respects_dtype_and_bounds(dtype, low, high):
    x = make_tensor(400, dtype=dtype, device="cpu", low=low, high=high)
    y = torch.testing.make_tensor(400, dtype=getattr(torch, str(dtype)[6:]), device="cpu",
                                  low=low, high=high)
    assert x.dtype is dtype and tuple(x.shape) == (400,)
    # same support as torch: compare the bounds of a large sample loosely, ints exactly
    xs, ys = x.numpy().astype(np.float64), y.numpy().astype(np.float64)
    if dtype.is_floating_point:
        lo, hi = ys.min() - 0.1 * (ys.max() - ys.min()), ys.max() + 0.1 * (ys.max() - ys.min())
        assert lo <= xs.min() and xs.max() <= hi
        assert xs.max() - xs.min() > 0.8 * (ys.max() - ys.min())
    else:
        assert set(np.unique(xs)) == set(np.unique(ys))


def test_make_tensor_clips_bounds_to_the_dtype_range():
    x = make_tensor(200, dtype=numtorch.int8, device="cpu", low=100, high=1000)
    assert x.numpy().min() >= 100 and x.numpy().max() <= 127
    f = make_tensor(200, dtype=numtorch.float32, device="cpu", low=-INF, high=0)
    assert np.isfinite(f.numpy()).all()


def test_make_tensor_shapes_and_flags():
    assert tuple(make_tensor(2, 3, dtype=numtorch.float32, device="cpu").shape) == (2, 3)
    assert tuple(make_tensor((2, 3), dtype=numtorch.float32, device="cpu").shape) == (2, 3)
    assert tuple(make_tensor([4], dtype=numtorch.float32, device="cpu").shape) == (4,)
    assert make_tensor(dtype=numtorch.float32, device="cpu").shape == ()
    x = make_tensor(3, 4, dtype=numtorch.float32, device="cpu", noncontiguous=True)
    y = torch.testing.make_tensor(3, 4, dtype=torch.float32, device="cpu", noncontiguous=True)
    assert x.is_contiguous() == y.is_contiguous() is False
    assert x.stride() == y.stride()
    g = make_tensor(3, dtype=numtorch.float64, device="cpu", requires_grad=True)
    assert g.requires_grad and g.is_leaf
    z = make_tensor(500, dtype=numtorch.int64, device="cpu", low=-1, high=2, exclude_zero=True)
    assert set(np.unique(z.numpy())) == {-1, 1}
    f = make_tensor(50, dtype=numtorch.float32, device="cpu", low=0, high=0, exclude_zero=True)
    assert (f.numpy() > 0).all()


def test_make_tensor_is_reproducible_under_manual_seed():
    numtorch.manual_seed(5)
    a = make_tensor(6, dtype=numtorch.float32, device="cpu")
    numtorch.manual_seed(5)
    b = make_tensor(6, dtype=numtorch.float32, device="cpu")
    assert_close(a, b, rtol=0.0, atol=0.0)


@pytest.mark.parametrize("kwargs", [
    {"dtype": "int64", "requires_grad": True},
    {"dtype": "bool", "requires_grad": True},
    {"dtype": "float32", "low": NAN},
    {"dtype": "float32", "low": 2, "high": 1},
    {"dtype": "int64", "low": 2, "high": 2},
    {"dtype": "int8", "low": -1000, "high": -500},
    {"dtype": "float32", "noncontiguous": True, "memory_format": "channels_last"},
])
def test_make_tensor_rejects_bad_arguments_like_torch(kwargs):
    name = kwargs["dtype"]
    ours = dict(kwargs, dtype=getattr(numtorch, name))
    theirs = dict(kwargs, dtype=getattr(torch, name))
    if "memory_format" in kwargs:
        ours["memory_format"] = theirs["memory_format"] = torch.channels_last
    got = outcome(make_tensor, 3, device="cpu", **ours)[0]
    want = outcome(torch.testing.make_tensor, 3, device="cpu", **theirs)[0]
    assert got == want == "ValueError"


def test_make_tensor_needs_dtype_and_device():
    with pytest.raises(TypeError):
        make_tensor(3, dtype=numtorch.float32)
    with pytest.raises(TypeError):
        make_tensor(3, device="cpu")


def test_testing_is_reachable_from_the_package():
    assert numtorch.testing.assert_close is assert_close
    assert numtorch.testing.make_tensor is make_tensor
