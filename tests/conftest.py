"""Shared fixtures: the device list, seeding, and a clean default dtype for every test."""

import os

import numpy as np
import pytest

import numtorch


def _device_params():
    """'cpu', then 'cuda' on a machine with CuPy and a GPU, else 'cuda-standin' (numtorch's
    CUDA path on the CPU stand-in for CuPy, tests/cuda/standin). ``NUMTORCH_TEST_DEVICES``
    (comma-separated, e.g. ``cuda`` or ``cpu,cuda-standin``) overrides the list."""
    env = os.environ.get("NUMTORCH_TEST_DEVICES")
    if env:
        return [d.strip() for d in env.split(",") if d.strip()]
    return ["cpu", "cuda" if numtorch.backend.cupy_or_none() is not None else "cuda-standin"]


DEVICE_PARAMS = _device_params()


@pytest.fixture(params=DEVICE_PARAMS)
def device(request):
    """The device numtorch's side of an oracle test runs on: 'cpu', or 'cuda' (a real GPU, or
    the CuPy stand-in for the 'cuda-standin' param). On cuda, numtorch's factories default to
    cuda and the oracle helpers (tests/oracle.py) move numtorch's inputs and modules there;
    torch stays on the CPU as the oracle."""
    from tests import oracle

    param = request.param
    if param == "cuda" and numtorch.backend.cupy_or_none() is None:
        pytest.skip("no CUDA device (CuPy with a GPU) available")
    name = "cpu" if param == "cpu" else "cuda"
    standin = None
    if param == "cuda-standin":
        from tests.cuda import standin

        standin.install()
    oracle.DEVICE[0] = name
    if name != "cpu":
        numtorch.set_default_device(name)
    try:
        yield name
    finally:
        oracle.DEVICE[0] = "cpu"
        if name != "cpu":
            numtorch.set_default_device(None)
        if standin is not None:
            standin.uninstall()


@pytest.fixture(autouse=True)
def _reset_state():
    numtorch.manual_seed(0)
    np.random.seed(0)
    dt = numtorch.get_default_dtype()
    yield
    numtorch.set_default_dtype(dt)
