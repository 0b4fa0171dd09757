"""The CuPy stand-in's elementwise math is CuPy 14's where it differs from NumPy's (each case
read from CuPy's source and seen as a failure on an H100; see tests/cuda/standin/_special.py).
"""

import numpy as np
import pytest
from scipy import special as sp

from tests.cuda import standin

cp, cupyx = standin.modules()
_INF = np.inf


def _dev(values, dtype=np.float64):
    return cp.asarray(np.array(values, dtype=dtype))


def test_polygamma_needs_a_device_array_order():
    x = _dev([0.5, 2.0, -1.5])
    with pytest.raises(AttributeError, match="'bool' object has no attribute 'astype'"):
        cupyx.scipy.special.polygamma(1, x)
    for n in (0, 1, 3):
        got = cupyx.scipy.special.polygamma(cp.asarray(n), x).get()
        np.testing.assert_allclose(got, sp.polygamma(n, x.get()), rtol=1e-12)


def test_broadcast_arrays_leaves_python_scalars_and_where_needs_an_array_condition():
    a, n = cp.broadcast_arrays(_dev([[1.0], [2.0]]), 3)
    assert a.shape == (2, 1) and n == 3 and type(n) is int
    with pytest.raises(AttributeError, match="'bool' object has no attribute 'astype'"):
        cp.where(True, _dev([1.0]), _dev([2.0]))
    assert cp.where(_dev([1.0]) > 0, 1.0, 2.0).get().tolist() == [1.0]


def test_bessel_i0_is_cuda_cyl_bessel_i0_at_infinity():
    x = _dev([_INF, -_INF, 1.0])
    assert cupyx.scipy.special.i0(x).get().tolist()[:2] == [_INF, _INF]  # SciPy: NaN
    assert np.isnan(cupyx.scipy.special.i0e(x).get()[:2]).all()  # exp(-inf) * inf; SciPy: 0
    np.testing.assert_allclose(cupyx.scipy.special.i0(x).get()[2], sp.i0(1.0), rtol=1e-15)


def test_float_floor_divide_and_remainder_are_cupys_formulas():
    a, b = _dev([1.0, 1.0, _INF, 0.0, 3.0, 7.0]), _dev([0.1, -_INF, 1.0, _INF, _INF, 2.0])
    q = (a // b).get()
    assert q[0] == 10.0 and q[1] == 0.0 and np.signbit(q[1]) and q[2] == _INF  # NumPy: 9, -1, NaN
    r = (a % b).get()
    assert np.isnan(r[3:5]).all() and r[5] == 1.0  # 0 - 0 * inf; NumPy: 0 and 3
    assert (cp.floor_divide(_dev([7, -7], np.int64), 2).get() == [3, -4]).all()
    assert (cp.remainder(_dev([7, -7], np.int8), 3).get() == [1, 2]).all()


def test_logical_ufuncs_have_no_complex_loops():
    z = _dev([1j, 0], np.complex64)
    for name in ("logical_and", "logical_or", "logical_xor"):
        with pytest.raises(TypeError, match=r"Wrong type \(\(dtype\('complex64'\), dtype\("
                                            rf"'complex64'\)\)\) of arguments for cupy_{name}"):
            getattr(cp, name)(z, z)
    with pytest.raises(TypeError, match="cupy_logical_not"):
        cp.logical_not(z)
    assert cp.logical_and(z != 0, z.real == 0).get().tolist() == [True, False]


def test_complex_division_scales_by_the_divisor_as_thrust():
    z = _dev([1 + 1j, 2j, 3, 1 + 1j], np.complex64)
    w = _dev([0, 0, 0, _INF], np.complex64)
    q = (z / w).get()
    assert np.isnan(q.real).all() and np.isnan(q.imag).all()  # NumPy: inf+infj, nan+infj...
    np.testing.assert_allclose((z / _dev([2j, 1, 1 - 1j, 4], np.complex64)).get(),
                               z.get() / np.array([2j, 1, 1 - 1j, 4]), rtol=1e-6)


def test_signed_lcm_negates_the_wrapped_product():
    a, b = _dev([-14, 14, 6, 0], np.int8), _dev([13, 13, -4, 5], np.int8)
    assert cp.lcm(a, b).get().tolist() == [74, 74, 12, 0]  # NumPy: -74, -74, 12, 0
    assert cp.gcd(a, b).get().tolist() == [1, 1, 2, 5]


def test_round_with_decimals_scales_in_double():
    x = _dev([0.35, 0.25, -2.5, 1234.5678], np.float32)
    assert cp.round(x, 1).get()[0] == np.float32(0.3)  # NumPy (in float32): 0.4
    assert x.round(1).get()[0] == np.float32(0.3) and cp.around(x, -1).get()[3] == 1230
    assert cp.round(x).get().tolist() == [0.0, 0.0, -2.0, 1235.0]


def test_sum_to_another_dtype_adds_in_tree_order():
    rows = np.array([[-0.6264538, 0.1836433, -0.8356286, 1.5952808],
                     [0.3295078, -0.8204684, 0.4874291, 0.7383247]])
    x = cp.asarray(rows)
    got = x.sum(axis=1, dtype=np.float32).get()
    f = rows.astype(np.float32)
    assert (got == (f[:, 0] + f[:, 2]) + (f[:, 1] + f[:, 3])).all()
    assert (cp.sum(x, 1, np.float32).get() == got).all()
    # the same dtype goes through CUB on a GPU; the stand-in keeps NumPy's order there
    assert (x.astype(np.float32).sum(axis=1).get() == f.sum(axis=1)).all()
