"""The stand-in follows CuPy where CuPy's results differ from NumPy's in ways numtorch can see
(read from CuPy 14's source, and seen on an H200 in the lead's GPU run of the oracle suite):

- zeros of both signs: CuPy's float maximum/minimum/fmax/fmin compile to PTX ``max``/``min``,
  which order +0. above -0. in either operand order (NumPy gives its second operand on ties);
  its clip keeps x on ties (NumPy's one-bound clip gives the bound).
"""

import numpy as np
import pytest

from tests.cuda import standin

cp, cupyx = standin.modules()

FLOATS = [np.float16, np.float32, np.float64]


def _bits(a):
    return [repr(float(v)) for v in a.get().ravel()]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,larger", [("maximum", True), ("minimum", False),
                                         ("fmax", True), ("fmin", False)])
def test_max_min_order_signed_zeros_as_cuda(name, larger, dtype):
    f = getattr(cp, name)
    pz, nz = cp.asarray(np.zeros(3, dtype)), cp.asarray(-np.zeros(3, dtype))
    want = "0.0" if larger else "-0.0"
    for a, b in ((pz, nz), (nz, pz), (pz, dtype(-0.0)), (dtype(-0.0), pz), (nz, 0.0),
                 (0.0, nz)):
        assert _bits(f(a, b)) == [want] * 3
    # zeros of one sign, and NumPy's other rules, stay as they were
    assert _bits(f(nz, nz)) == ["-0.0"] * 3 and _bits(f(pz, pz)) == ["0.0"] * 3
    x = cp.asarray(np.array([np.nan, 1.0, -2.0], dtype))
    y = cp.asarray(np.array([1.0, np.nan, 3.0], dtype))
    host = getattr(np, name)(x.get(), y.get())
    np.testing.assert_array_equal(f(x, y).get(), host)


def test_max_min_into_out_and_in_place_follow_cuda():
    x = cp.asarray(np.array([-0.0, 0.0, -1.0, np.nan], np.float32))
    out = cp.empty_like(x)
    cp.maximum(x.dtype.type(0), x, out=out)
    assert _bits(out)[:3] == ["0.0", "0.0", "0.0"] and np.isnan(out.get()[3])
    y = x.copy()
    cp.minimum(y, 0.0, out=y)
    assert _bits(y)[:3] == ["-0.0", "0.0", "-1.0"]
    z = cp.asarray(np.array([0.0, -0.0], np.float32))
    cp.maximum(z, -0.0, out=z)
    assert _bits(z) == ["0.0", "-0.0"]
    cp.minimum(z[::-1], 0.0, out=z)  # an output overlapping its operand reversed
    assert _bits(z) == ["-0.0", "0.0"]


def test_integer_max_min_unchanged():
    a = cp.asarray(np.array([0, -3, 5], np.int64))
    np.testing.assert_array_equal(cp.maximum(a, 0).get(), [0, 0, 5])
    np.testing.assert_array_equal(cp.minimum(a, 0).get(), [0, -3, 0])


@pytest.mark.parametrize("dtype", FLOATS)
def test_clip_keeps_x_on_ties_and_nan_as_cupy(dtype):
    x = cp.asarray(np.array([-0.0, 0.0, np.nan, -1.0, 2.0], dtype))
    assert _bits(cp.clip(x, 0.0, 1.0)) == ["-0.0", "0.0", "nan", "0.0", "1.0"]
    # a missing bound is -inf/+inf: one bound keeps x on ties too (NumPy: the bound)
    assert _bits(cp.clip(x, 0.0, None)) == ["-0.0", "0.0", "nan", "0.0", "2.0"]
    assert _bits(x.clip(None, -0.0)) == ["-0.0", "0.0", "nan", "-1.0", "-0.0"]
    assert _bits(x.clip(0.0)) == ["-0.0", "0.0", "nan", "0.0", "2.0"]
    # lo > hi gives hi everywhere, NaN included
    assert _bits(cp.clip(x, 1.0, 0.0)) == ["0.0"] * 5
    assert cp.clip(x, 0.0, 1.0).dtype == dtype
    out = cp.empty_like(x)
    assert cp.clip(x, 0.0, 1.0, out=out) is out and _bits(out)[0] == "-0.0"


def test_clip_of_integers_and_complex():
    a = cp.asarray(np.array([-5, 0, 7], np.int32))
    np.testing.assert_array_equal(cp.clip(a, 0, None).get(), [0, 0, 7])
    assert cp.clip(a, 0, None).dtype == np.int32
    with pytest.raises(TypeError, match="cupy_clip"):
        cp.clip(cp.asarray(np.ones(2, np.complex64)), 0, 1)
