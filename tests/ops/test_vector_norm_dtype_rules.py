"""linalg.vector_norm's ``dtype=`` rules and softmin's order (negate, then cast) against
torch: classes, texts and results."""

import numpy as np
import pytest
import torch

import numtorch as nt

DTYPES = ["int64", "float32", "float64", "float16", "bfloat16", "complex64", "complex128"]


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - class and text are compared
        return type(e).__name__, str(e)
    return str(r.dtype), np.asarray(r.detach().to(lib.float64).tolist())


def _same(run, rtol):
    a, b = _outcome(nt, run), _outcome(torch, run)
    assert a[0] == b[0]
    if isinstance(a[1], str):
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=rtol)


@pytest.mark.parametrize("have", DTYPES)
@pytest.mark.parametrize("want", DTYPES[1:] + ["int32"])
def test_vector_norm_dtype(have, want):
    def run(lib):
        x = lib.arange(1, 4).to(getattr(lib, have))
        return lib.linalg.vector_norm(x, 2.0, dtype=getattr(lib, want))

    _same(run, 1e-2)


@pytest.mark.parametrize("have", ["bool", "int64", "float32"])
@pytest.mark.parametrize("dtype", [None, "float64", "int32"])
def test_softmin_negates_before_the_cast(have, dtype):
    def run(lib):
        x = lib.tensor([1, 0, 1]).to(getattr(lib, have))
        return lib.nn.functional.softmin(x, 0, dtype=None if dtype is None
                                         else getattr(lib, dtype))

    _same(run, 1e-6)
