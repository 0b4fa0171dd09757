"""F.pad in every mode and the padding modules against torch: values, gradients (first and
second order), negative pads (cropping), dtypes, reprs and torch's errors."""

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module, check_op, check_raises

DTYPES = ["float64", "float32"]

NONCONSTANT = [
    ((2, 3, 5), (2, 1)),
    ((3, 5), (0, 3)),
    ((2, 3, 5), (-1, 2)),
    ((2, 3, 5), (-1, -1)),
    ((2, 3, 5, 4), (2, 1, 1, 3)),
    ((3, 5, 4), (1, 0, -1, 2)),
    ((2, 3, 4, 5, 4), (2, 1, 1, 3, 0, 1)),
    ((3, 4, 5, 4), (1, 1, 1, 1, 1, 1)),
    ((0, 3, 5), (1, 1)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", NONCONSTANT)
def test_pad_modes_match_torch(shape, pad, mode, dtype):
    check_op(lambda t, x: t.nn.functional.pad(x, pad, mode=mode), [shape], dtype=dtype)


@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (5, 5)), ((2, 3, 5), (-2, -1)),
                                       ((2, 3, 5), (2, -1)), ((2, 3, 5), (-4, 1)),
                                       ((2, 0, 4), (1, 1))])
def test_pad_circular_wraps_like_torch(shape, pad):
    check_op(lambda t, x: t.nn.functional.pad(x, pad, mode="circular"), [shape])


@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (7, 1)), ((2, 3, 5), (-2, -2)),
                                       ((1, 2, 3, 3), (3, 0, 4, 1))])
def test_pad_replicate_far_and_cropping_match_torch(shape, pad):
    check_op(lambda t, x: t.nn.functional.pad(x, pad, mode="replicate"), [shape])


CONSTANT = [
    ((2, 3, 4, 5), (1, 2), None),
    ((2, 3, 4, 5), (-1, -2, 1, 0), 2.5),
    ((2, 3, 4, 5), (1, 1, 1, 1, 1, 1, 1, 1), -1.0),
    ((2, 3, 4, 5), (-5, 0), None),
    ((3, 4), (0, 0), 3.0),
    ((3, 4), (), None),
    ((5,), (2, 3), 1.0),
    ((0, 4), (1, 1, 2, 2), None),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,pad,value", CONSTANT)
def test_pad_constant_matches_torch(shape, pad, value, dtype):
    check_op(lambda t, x: t.nn.functional.pad(x, pad, value=value), [shape], dtype=dtype)


def test_pad_constant_value_and_list_pad_match_torch():
    check_op(lambda t, x: t.nn.functional.pad(x, [1, 1], "constant", 0.5), [(2, 3)])
    check_op(lambda t, x: t.nn.functional.pad(x, (1, 1), value=t.tensor(2.0)), [(2, 3)])
    check_op(lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect", value=0.0), [(2, 3)])


@pytest.mark.parametrize("dtype,value", [(np.int64, 2.7), (np.int64, -2.7), (np.bool_, 0.5),
                                         (np.int32, 1)])
def test_pad_constant_non_float_matches_torch(dtype, value):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    check_op(lambda t, a: t.nn.functional.pad(a, (1, 2), value=value), [x], grad=False)


@pytest.mark.parametrize("mode", ["replicate", "circular", "reflect"])
def test_pad_integer_modes_match_torch(mode):
    x = np.arange(12).reshape(1, 3, 4).astype(np.int64)
    check_op(lambda t, a: t.nn.functional.pad(a, (2, 1), mode=mode), [x], grad=False)


def test_pad_result_is_a_new_contiguous_tensor():
    x = numtorch.randn(2, 3, 4)
    for mode in ["constant", "reflect", "replicate", "circular"]:
        y = numtorch.nn.functional.pad(x, (0, 0), mode=mode)
        assert y is not x and y.is_contiguous()
        y = numtorch.nn.functional.pad(x, (1, 2), mode=mode)
        assert y.stride() == torch.nn.functional.pad(torch.zeros(2, 3, 4), (1, 2),
                                                     mode=mode).stride()


def test_pad_float32_stays_float32():
    x = numtorch.randn(2, 3, 4, requires_grad=True)
    for mode in ["constant", "reflect", "replicate", "circular"]:
        y = numtorch.nn.functional.pad(x, (2, 1), mode=mode)
        (g,) = numtorch.autograd.grad(y.sum(), [x])
        assert y.dtype is numtorch.float32 and g.dtype is numtorch.float32


MODULES = [
    (lambda t: t.nn.ReflectionPad1d(2), (2, 3, 5)),
    (lambda t: t.nn.ReflectionPad1d((3, 1)), (3, 5)),
    (lambda t: t.nn.ReflectionPad2d((1, 2, 3, 0)), (2, 3, 4, 5)),
    (lambda t: t.nn.ReflectionPad3d(1), (1, 2, 3, 4, 5)),
    (lambda t: t.nn.ReplicationPad1d((1, 4)), (2, 3, 5)),
    (lambda t: t.nn.ReplicationPad2d(2), (3, 4, 5)),
    (lambda t: t.nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)), (1, 2, 3, 4, 5)),
    (lambda t: t.nn.ZeroPad1d((1, 2)), (2, 3, 5)),
    (lambda t: t.nn.ZeroPad2d((1, 0, -1, 2)), (2, 3, 4, 5)),
    (lambda t: t.nn.ZeroPad3d(1), (2, 3, 4, 5)),
    (lambda t: t.nn.ConstantPad1d(2, 3.5), (2, 3, 5)),
    (lambda t: t.nn.ConstantPad2d((1, 2, 0, 1), -1.0), (3, 4, 5)),
    (lambda t: t.nn.ConstantPad3d(1, 0.5), (1, 2, 3, 4, 5)),
    (lambda t: t.nn.CircularPad1d(2), (2, 3, 5)),
    (lambda t: t.nn.CircularPad2d((1, 2, 2, 1)), (3, 4, 5)),
    (lambda t: t.nn.CircularPad3d(1), (1, 2, 3, 4, 5)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", MODULES)
def test_padding_modules_match_torch(make, shape, dtype):
    check_module(make, [shape], dtype=dtype)
    a, b = make(numtorch), make(torch)
    assert repr(a) == repr(b) and a.padding == b.padding
    assert list(a.state_dict()) == []


def test_padding_module_import_paths():
    from numtorch.nn.modules.padding import ConstantPad2d, ZeroPad2d

    assert issubclass(ZeroPad2d, ConstantPad2d) and numtorch.nn.ZeroPad2d is ZeroPad2d


def _z(*shape, dtype=np.float32):
    return np.zeros(shape, dtype)


ERRORS = [
    (lambda t, x: t.nn.functional.pad(x, (1, 2, 3)), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.pad(x, (1,) * 10), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.pad(x, (-3, -3)), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect"), _z(2, 3, 4, 5)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="circular"), _z(5)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1, 1, 1), mode="replicate"), _z(3, 5)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="replicate"), _z(2, 3, 4, 5, 6, 7)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="foo"), _z(2, 3, 4)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect", value=1.0), _z(2, 3, 4)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="circular", value=0.5), _z(2, 3, 4)),
    (lambda t, x: t.nn.functional.pad(x, (5, 0), mode="reflect"), _z(2, 3, 5)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1, 4, 0), mode="reflect"), _z(2, 3, 4, 4)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1, 1, 1, 4, 0), mode="reflect"), _z(2, 3, 4, 4, 4)),
    (lambda t, x: t.nn.functional.pad(x, (-2, -3), mode="replicate"), _z(2, 3, 5)),
    (lambda t, x: t.nn.functional.pad(x, (6, 0), mode="circular"), _z(2, 3, 5)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="replicate"), _z(2, 3, 0)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1, 1, 1), mode="reflect"), _z(2, 0, 4, 4)),
    (lambda t, x: t.nn.functional.pad(x, (1, 1), mode="reflect"), _z(3, 4, dtype=np.bool_)),
    (lambda t, x: t.nn.functional.pad(x, (1.0, 1)), _z(2, 3, 4)),
    (lambda t, x: t.nn.CircularPad2d(1)(x), _z(3, 4)),
    (lambda t, x: t.nn.CircularPad1d(1)(x), _z(3, 4, 5, 6)),
    (lambda t, x: t.nn.ReflectionPad1d(2)(x), _z(2, 3, 4, 5)),
]


@pytest.mark.parametrize("fn,x", ERRORS)
def test_pad_errors_match_torch(fn, x):
    nt, th = check_raises(fn, [x])
    if not isinstance(th, TypeError):
        assert str(nt) == str(th)


def test_pad_circular_refuses_to_wrap_an_emptied_dim():
    # torch returns uninitialised memory here; numtorch refuses instead
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        numtorch.nn.functional.pad(numtorch.zeros(2, 3, 5), (-5, 1), mode="circular")
