"""Deterministic mode's filling of new memory (torch.utils.deterministic), against torch:
empty/empty_like/empty_strided/new_empty*/empty(out=) and the elements resize_ adds hold NaN
or the integer type's largest value while use_deterministic_algorithms(True) and
fill_uninitialized_memory are on; torch.backends.openmp."""

import numpy as np
import pytest
import torch

import numtorch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "float16",
          "bfloat16", "float32", "float64", "complex64", "complex128"]


@pytest.fixture
def deterministic():
    for L in (torch, numtorch):
        L.use_deterministic_algorithms(True)
    yield
    for L in (torch, numtorch):
        L.use_deterministic_algorithms(False)
        L.utils.deterministic.fill_uninitialized_memory = True


def _made(L, kind, dt):
    d = getattr(L, dt)
    if kind == "empty":
        return L.empty(2, 3, dtype=d)
    if kind == "empty_like":
        return L.empty_like(L.zeros(3, dtype=d))
    if kind == "new_empty":
        return L.zeros(1, dtype=d).new_empty((4,))
    if kind == "empty_strided":
        return L.empty_strided((2, 2), (1, 2), dtype=d)
    if kind == "new_empty_strided":
        return L.zeros(1, dtype=d).new_empty_strided((3,), (2,))
    if kind == "out":
        o = L.zeros(2, dtype=d)
        L.empty(5, out=o)
        return o
    if kind == "resize_":
        o = L.zeros(2, dtype=d)
        return o.resize_(3, 2)


def _np(t):
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.numpy()


@pytest.mark.parametrize("kind", ["empty", "empty_like", "new_empty", "empty_strided",
                                  "new_empty_strided", "out", "resize_"])
@pytest.mark.parametrize("dt", DTYPES)
def test_new_memory_is_filled_as_torch(deterministic, kind, dt):
    a, b = _made(numtorch, kind, dt), _made(torch, kind, dt)
    assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
    np.testing.assert_array_equal(_np(a), _np(b))  # NaN positions compare equal


@pytest.mark.parametrize("flag", [True, False])
def test_fill_flag_decides(deterministic, flag):
    # what empty() holds is not known, so the filling step is checked on an array of zeros
    from numtorch._creation import fill_uninitialized

    numtorch.utils.deterministic.fill_uninitialized_memory = flag
    a = fill_uninitialized(np.zeros(3, np.float32))
    assert np.isnan(a).all() if flag else (a == 0).all()
    numtorch.use_deterministic_algorithms(False)
    assert (fill_uninitialized(np.zeros(3, np.float32)) == 0).all()


def test_warn_only_fills_too():
    try:
        for L in (torch, numtorch):
            L.use_deterministic_algorithms(True, warn_only=True)
        np.testing.assert_array_equal(numtorch.empty(3).numpy(), torch.empty(3).numpy())
    finally:
        for L in (torch, numtorch):
            L.use_deterministic_algorithms(False)


def test_openmp_backend():
    import torch.backends.openmp

    import numtorch.backends.openmp

    assert numtorch.backends.openmp.is_available() == torch.backends.openmp.is_available()
