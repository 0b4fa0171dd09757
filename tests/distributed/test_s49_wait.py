"""Session 49: ``work.wait(timeout=...)`` that expires. numtorch treated the caller's timeout
as the group's: the job was failed for good (every later call raised a DistBackendError
naming a hung peer) where torch raises RuntimeError("Operation timed out!"), keeps the
operation pending, and a later ``wait()`` and the next collectives succeed. One rank program
(``ranks/s49_wait.py``) runs under torch's launcher and numtorch's; events are compared."""

import os

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s49_wait.py")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s49_wait"))
    return _launch.oracle_runs(SCRIPT, out, timeout=120)


@pytest.mark.parametrize("rank", [0, 1])
def test_wait_timeout_leaves_the_operation_pending_as_torch(both, rank):
    assert both["numtorch", rank] == both["torch", rank]
