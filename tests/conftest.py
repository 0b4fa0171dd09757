"""Shared fixtures: the device list, seeding, and a clean default dtype for every test."""

import numpy as np
import pytest

import numtorch


def _devices():
    devs = ["cpu"]
    if numtorch.backend.cupy_or_none() is not None:
        devs.append("cuda")
    return devs


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    """Yields 'cpu', and 'cuda' when CuPy and a GPU are present (skipped otherwise)."""
    if request.param not in _devices():
        pytest.skip("no CUDA device (CuPy with a GPU) available")
    return request.param


@pytest.fixture(autouse=True)
def _reset_state():
    numtorch.manual_seed(0)
    np.random.seed(0)
    dt = numtorch.get_default_dtype()
    yield
    numtorch.set_default_dtype(dt)
