"""Dropping an async collective's Work (as torch allows) leaves the op running safely."""
import os

import pytest

from . import _launch

pytest.importorskip("mpi4py")
if not os.path.exists(_launch.MPIEXEC):
    pytest.skip("mpiexec not installed", allow_module_level=True)


def test_dropped_async_works_complete_and_do_not_corrupt_later_calls():
    proc = _launch.launcher("dropped_works.py", timeout=240)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "rank 0 ok" in proc.stdout and "rank 1 ok" in proc.stdout
