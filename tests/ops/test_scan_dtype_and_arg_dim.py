"""Scans asked for a bool result and arg-reductions given a non-int ``dim`` raise as torch does;
in-place scans run in the tensor's own dtype."""

import numpy as np
import pytest
import torch

import numtorch as nt


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return type(e).__name__, str(e)
    return "ok", (np.asarray(r.tolist()).tolist(), str(r.dtype).split(".")[-1])


DTYPES = ["bool", "int8", "int32", "uint8", "float16", "float32"]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", ["inplace", "function", "to_bool", "zero_d"])
def test_scan_bool_results_refused_like_torch(name, dtype, form):
    def run(lib):
        x = (lib.arange(6).reshape(2, 3) * 50 + 1).to(getattr(lib, dtype))
        if form == "inplace":
            return getattr(x, name + "_")(1)
        if form == "function":
            return getattr(lib, name)(x, 1)
        if form == "to_bool":
            return getattr(lib, name)(x, 0, dtype=lib.bool)
        return getattr(lib, name)(x[0, 0], 0, dtype=lib.bool)

    assert _outcome(nt, run) == _outcome(torch, run)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dim", [(0,), 1.0, True, [1], "zero_d_tensor", 1])
def test_arg_reduction_dim_types(name, dim):
    def run(lib):
        d = lib.tensor(0) if dim == "zero_d_tensor" else dim
        return getattr(lib, name)(lib.tensor([[1.0, 5.0, 2.0], [3.0, 0.0, 4.0]]), d)

    assert _outcome(nt, run) == _outcome(torch, run)
