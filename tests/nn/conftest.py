"""Every test in this folder runs on each device of the ``device`` fixture (tests/conftest.py):
the CPU, and CUDA (a real GPU, or numtorch's CUDA path on the CuPy stand-in, where a
representative subset runs: see ``tests/conftest.py``)."""

import pytest


@pytest.fixture(autouse=True)
def _on_each_device(device):
    """Make the test's numtorch side run on ``device`` (torch stays on the CPU)."""
    return device


@pytest.fixture
def paths(monkeypatch):
    """The convolution kernel paths taken while the test runs, in call order."""
    from numtorch.ops import conv as conv_ops

    taken = []
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    return taken
