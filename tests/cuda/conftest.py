"""The ``cuda`` fixture of the fused-kernel tests (a file that defines its own ``cuda`` keeps
it): the CuPy stand-in active, its launch counts reset and numtorch's kernel cache empty (so
each test compiles what it launches), then the kernels re-enabled and the cache emptied again."""

import pytest

from numtorch.backend import _cupy_kernels
from tests.cuda import standin


@pytest.fixture
def cuda():
    with standin.active():
        standin.reset_stats()
        _cupy_kernels.FAILED.clear()
        _cupy_kernels._KERNELS.clear()
        yield
    _cupy_kernels.ENABLED[0] = True
    _cupy_kernels.FAILED.clear()
    _cupy_kernels._KERNELS.clear()
