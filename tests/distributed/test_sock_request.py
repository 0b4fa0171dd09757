"""The socket transport's request handle: a request that fails while a waiter polls it must
raise, never pass as done (a dead peer's all_reduce once returned the local values)."""

import pytest

from numtorch.distributed import _sock_comm
from numtorch.distributed._world import DistBackendError


def test_a_failure_landing_during_the_poll_raises(monkeypatch):
    req = _sock_comm.Request()
    error = DistBackendError("lost rank 1")

    def worker_finishes(_seconds):
        # what the communicator's worker does between the waiter's two reads: error, then done
        req.error = error
        req.done = True

    monkeypatch.setattr(_sock_comm.time, "sleep", worker_finishes)
    with pytest.raises(DistBackendError, match="lost rank 1"):
        req.Test()


def test_pending_done_and_failed_requests():
    req = _sock_comm.Request()
    assert req.Test() is False
    req.done = True
    assert req.Test() is True
    failed = _sock_comm.Request()
    failed.error, failed.done = DistBackendError("x"), True
    with pytest.raises(DistBackendError):
        failed.Test()
