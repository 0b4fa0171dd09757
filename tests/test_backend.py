"""The NumPy/CuPy backend helpers, including the NumPy-only fallbacks for SciPy functions."""

import numpy as np
import pytest

import numtorch
from numtorch import backend
from numtorch.backend import _numpy

special = pytest.importorskip("scipy.special")


def test_erf_fallback_is_double_precision():
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, -0.0, 1e-300, 0.46875, -0.46875, 4.0,
                                                    26.0, 30.0]])
    np.testing.assert_allclose(_numpy._erf_rational(x), special.erf(x), rtol=2e-15, atol=0)
    edge = _numpy._erf_rational(np.array([np.inf, -np.inf, np.nan]))
    assert edge[0] == 1.0 and edge[1] == -1.0 and np.isnan(edge[2])


def test_erfinv_fallback_is_double_precision():
    u = np.concatenate([np.linspace(-0.999, 0.999, 20001), 1 - np.logspace(-16, -1, 200),
                        -(1 - np.logspace(-16, -1, 200)), [1e-12, -1e-12, 0.0]])
    np.testing.assert_allclose(_numpy._erfinv_newton(u), special.erfinv(u), rtol=2e-15, atol=0)
    edge = _numpy._erfinv_newton(np.array([1.0, -1.0, 1.5, np.nan]))
    assert edge[0] == np.inf and edge[1] == -np.inf and np.isnan(edge[2:]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fallbacks_keep_the_dtype(dtype, monkeypatch):
    monkeypatch.setattr(_numpy, "_scipy_special", None)
    x = np.linspace(-0.9, 0.9, 7).astype(dtype)
    assert _numpy.erf(x).dtype == dtype and _numpy.erfinv(x).dtype == dtype
    np.testing.assert_allclose(_numpy.erfinv(_numpy.erf(x)), x, rtol=1e-5)


def test_index_add_rows_matches_add_at():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 5, 40)
    vals = rng.standard_normal((40, 3))
    expected = np.zeros((5, 3))
    np.add.at(expected, idx, vals)
    np.testing.assert_allclose(_numpy.index_add_rows(5, idx, vals), expected, rtol=1e-12)
    assert _numpy.index_add_rows(4, idx[:0], vals[:0]).shape == (4, 3)


@pytest.mark.parametrize("n_rows,n_idx,width", [(27, 512, 27), (5, 300, 1), (65, 768, 64),
                                                  (3000, 700, 16), (7, 40, 3)])
def test_index_add_rows_adds_each_buckets_rows_in_order(n_rows, n_idx, width):
    """Bit for bit the sequential sum (torch's order), with skewed buckets of up to hundreds
    of rows."""
    rng = np.random.default_rng(n_rows + n_idx)
    idx = rng.zipf(1.3, n_idx) % n_rows
    vals = rng.standard_normal((n_idx, width)).astype(np.float32)
    expected = np.zeros((n_rows, width), np.float32)
    for i, v in zip(idx, vals):
        expected[i] = expected[i] + v
    np.testing.assert_array_equal(_numpy.index_add_rows(n_rows, idx, vals), expected)


def test_expand_to_makes_a_contiguous_copy():
    a = np.arange(3.0)
    out = _numpy.expand_to(a, (2, 3))
    assert out.flags.c_contiguous and out.flags.writeable
    np.testing.assert_array_equal(out, np.broadcast_to(a, (2, 3)))


def test_array_module_and_device_lookup():
    a = np.zeros(2)
    assert backend.xp_of(a) is np and backend.get_xp(None) is np
    assert backend.get_xp(numtorch.device("cpu")) is np
    assert backend.device_of(a) == numtorch.device("cpu")
    assert backend.to_device(a, numtorch.device("cpu")) is a
    assert backend.helpers_for(np) is _numpy


def test_unsupported_devices_raise_runtime_errors():
    with pytest.raises(RuntimeError, match="PyTorch is not linked with support for mps devices"):
        backend.get_xp(numtorch.device("mps"))
    if backend.cupy_or_none() is None:  # torch's plain AssertionError, with a note on CuPy
        with pytest.raises(AssertionError) as e:
            backend.get_xp(numtorch.device("cuda"))
        assert type(e.value) is AssertionError
        assert str(e.value) == "Torch not compiled with CUDA enabled"
        assert "CuPy" in e.value.__notes__[0]
