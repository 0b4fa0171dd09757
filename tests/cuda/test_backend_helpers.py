"""backend/_cupy.py's helpers give backend/_numpy.py's results (on the CuPy stand-in, whose
module has only what CuPy has: no ``maximum.accumulate``, ``multiply.at``, ``reduceat`` other
than add, ``indices(sparse=)`` or ``argsort(kind=)``)."""

import numpy as np
import pytest

from numtorch.backend import _numpy as H
from tests.cuda import standin


@pytest.fixture
def C():
    with standin.active():
        from numtorch.backend import _cupy

        yield _cupy


RNG = np.random.default_rng(0)


def _with_nans(shape):
    a = RNG.normal(size=shape)
    a.reshape(-1)[::7] = np.nan
    return a


@pytest.mark.parametrize("shape, axis", [((7,), 0), ((3, 9), 1), ((9, 4), 0), ((1,), 0),
                                         ((0, 3), 0), ((2, 3, 17), 2)])
@pytest.mark.parametrize("name", ["maximum", "minimum", "logaddexp", "add", "multiply"])
def test_accumulate(C, shape, axis, name):
    a = _with_nans(shape)
    got = C.accumulate(name, C.cp.asarray(a), axis).get()
    np.testing.assert_allclose(got, H.accumulate(name, a, axis), rtol=1e-13)


@pytest.mark.parametrize("name", ["maximum", "minimum", "add"])
def test_reduceat(C, name):
    rows = RNG.normal(size=(10, 3))
    starts = np.array([0, 3, 4, 8])
    got = C.reduceat(name, C.cp.asarray(rows), C.cp.asarray(starts)).get()
    np.testing.assert_allclose(got, H.reduceat(name, rows, starts), rtol=1e-14)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)])
def test_open_grids(C, shape):
    for g, h in zip(C.open_grids(shape), H.open_grids(shape), strict=True):
        np.testing.assert_array_equal(g.get(), h)


def test_argsort_stable(C):
    a = np.array([3.0, 1.0, np.nan, 1.0, 3.0, -0.0, 0.0])
    np.testing.assert_array_equal(C.argsort_stable(C.cp.asarray(a)).get(), H.argsort_stable(a))


@pytest.mark.parametrize("name, dtype", [("multiply", np.float64), ("multiply", np.int64),
                                         ("logical_and", np.bool_), ("logical_or", np.bool_),
                                         ("maximum", np.float32), ("add", np.float64)])
def test_ufunc_at_with_repeated_indices(C, name, dtype):
    target = (RNG.normal(size=(4, 5)) * 3).astype(dtype)
    rows = RNG.integers(0, 4, size=(3, 6))
    cols = RNG.integers(0, 5, size=(3, 6))
    vals = (RNG.normal(size=(3, 6)) * 2).astype(dtype)
    want = target.copy()
    H.ufunc_at(name, want, (rows, cols), vals)
    got = C.cp.asarray(target)
    C.ufunc_at(name, got, (C.cp.asarray(rows), C.cp.asarray(cols)), C.cp.asarray(vals))
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    flat = target.reshape(-1).copy()
    idx = RNG.integers(0, flat.size, size=50)
    H.ufunc_at(name, flat, idx, vals.reshape(-1)[:1])
    got = C.cp.asarray(target.reshape(-1))
    C.ufunc_at(name, got, C.cp.asarray(idx), C.cp.asarray(vals.reshape(-1)[:1]))
    np.testing.assert_allclose(got.get(), flat, rtol=1e-12)
