"""The running job: world communicators, waiting without hanging, and failure notices.

MPI itself never times out and cannot say which rank is missing, so every wait in
``numtorch.distributed`` goes through :meth:`World.wait`, which polls the MPI requests and, a
few times a second, also

* reads failure notices: a rank that dies of an uncaught exception first tells every other
  rank (on a separate control communicator), so they raise an error naming it instead of
  waiting forever;
* checks that the peers it waits for still run (same-host peers, by process id), which
  catches a rank that was killed, and reads "leaving" notices that every rank sends when its
  program ends (MPICH's MPI_Finalize blocks until all ranks arrive, so a departed rank's
  process is still alive then);
* answers status queries and, past the timeout, asks the peers what they are doing, so the
  timeout error names the ranks that never arrived.
"""

import atexit
import os
import sys
import time

import numpy as np

from . import _mpi

TAG_FAIL, TAG_QUERY, TAG_ANSWER, TAG_EXIT, TAG_ACK = 11, 12, 13, 14, 15
_EXIT_GRACE_S = 1.0  # data a departed rank sent before leaving may still be arriving
_SPIN_S = 0.25  # after this long, sleep 1 ms between checks (a wait for a slow peer)
# NUMTORCH_MPI_WAIT=spin: never nap (dedicated cores, lowest latency)
_SPIN_ONLY = os.environ.get("NUMTORCH_MPI_WAIT", "") == "spin"
_yield = getattr(os, "sched_yield", lambda: time.sleep(0))
_HOST_BYTES = 64



def wait_timeout():
    """A caller's own wait timeout passed (``Work.wait(timeout=...)``): torch's RuntimeError,
    marked so that the Work knows the operation is still pending and the job not failed."""
    e = RuntimeError("Operation timed out!")
    e._numtorch_wait_timeout = True
    return e

class _GiveUp(float):
    """The earlier of the two deadlines, when it is the caller's own (see World.wait)."""

    def __new__(cls, deadline, give_up):
        out = super().__new__(cls, give_up)
        out.hard = deadline
        return out

class DistError(RuntimeError):
    """Base class of the errors ``numtorch.distributed`` raises (torch's name)."""


class DistBackendError(DistError):
    """A collective or point-to-point operation failed (a peer died, timed out, ...)."""


class DistNetworkError(DistError):
    """A network-level failure (kept for torch compatibility)."""


class DistStoreError(DistError):
    """A store-level failure (kept for torch compatibility)."""


class QueueEmptyError(DistStoreError):
    """A store queue had nothing to pop within the timeout."""


class World:
    """Per-process state of an initialised job (one per ``init_process_group``).

    Attributes:
        rank, size: this process's rank and the number of ranks (from MPI).
        comm: the communicator of the default group's data traffic.
        ctl: a separate communicator for failure notices and status queries.
        pids, hosts: every rank's process id and host name (for liveness checks).
        failure: once set, the error every later operation raises.
    """

    def __init__(self, timeout_s, base=None, namespace=None, mesh=None, pids=None):
        MPI = _mpi.mpi() if namespace is None else namespace
        self.MPI = MPI
        # the socket transport (mp.spawn and other processes not started by MPI) passes its
        # world communicator, its stand-in for the MPI module and its connections
        self.mesh = mesh
        base = MPI.COMM_WORLD if base is None else base
        self.comm = base.Dup()
        self.ctl = base.Dup()
        self.rank, self.size = base.Get_rank(), base.Get_size()
        self.timeout_s = timeout_s
        self.failure = None
        self.waiting = None  # what this rank waits in, for other ranks' status queries
        self.exited = {}
        self.exit_reasons = {}  # rank -> the reason its "leaving" notice gave
        self.closed = False  # rank -> monotonic time its "leaving" notice arrived
        self.notified = False
        self._status = MPI.Status()
        self.pids, self.hosts, self.local_peers = [0] * self.size, ["?"] * self.size, set()
        self._exchange_identity()
        self._prev_hook = None

    def _exchange_identity(self):
        import socket

        mine = np.zeros(8 + _HOST_BYTES, np.uint8)
        mine[:8] = np.frombuffer(np.int64(os.getpid()).tobytes(), np.uint8)
        name = socket.gethostname().encode()[:_HOST_BYTES]
        mine[8:8 + len(name)] = np.frombuffer(name, np.uint8)
        every = np.empty((self.size, mine.size), np.uint8)
        req = self.ctl.Iallgather(mine, every)
        self.wait([req], "init_process_group", range(self.size),
                  time.monotonic() + self.timeout_s)
        self.pids = [int(np.frombuffer(row[:8].tobytes(), np.int64)[0]) for row in every]
        self.hosts = [row[8:].tobytes().rstrip(b"\0").decode(errors="replace") for row in every]
        self.local_peers = {r for r in range(self.size)
                            if self.hosts[r] == self.hosts[self.rank] and r != self.rank}
        if self.mesh is None:
            _mpi.note_local_peers({r: self.pids[r] for r in self.local_peers})

    def describe(self, r):
        return f"rank {r} (pid {self.pids[r]} on {self.hosts[r]})"

    # -- waiting ------------------------------------------------------------------------

    def wait(self, pending, what, peers, deadline, give_up=None):
        """Wait until every request in ``pending`` (objects with ``Test()``) completes.

        Args:
            pending: MPI requests or objects with the same ``Test()`` method.
            what: the operation, for error messages ("all_reduce (collective 3 ...)").
            peers: the ranks this operation needs (world ranks).
            deadline: ``time.monotonic()`` value after which the wait fails.
            give_up: ``time.monotonic()`` value of a caller's own timeout (``Work.wait(
                timeout=...)``): past it ``wait_timeout()`` is raised and the operation stays
                pending (a later wait may still complete it), as torch's "Operation timed
                out!"; ``deadline`` still fails the job.
        """
        if self.failure is not None:
            raise self.failure
        if give_up is not None and give_up < deadline:
            deadline = _GiveUp(deadline, give_up)
        if self.mesh is not None:
            return self._wait_mesh(pending, what, peers, deadline)
        if _all_done(pending):
            return
        prev = self.waiting
        self.waiting = what
        try:
            start = time.monotonic()
            next_check = start + 0.02
            spins = 0
            spin_only = _SPIN_ONLY
            while not _all_done(pending):
                spins += 1
                if spins & 63:  # MPI moves large messages along only while it is called
                    continue
                if spins > 2048 and not spin_only:
                    # past ~1 ms this is a wait for a peer: busy-polling would take the core
                    # from it when ranks share cores; yielding costs nothing otherwise (a
                    # sleep would also slow down a transfer both ranks are driving)
                    _yield()
                now = time.monotonic()
                if now >= next_check:
                    self.poll(what, peers)
                    if now > deadline:
                        if type(deadline) is _GiveUp:
                            raise wait_timeout()
                        self.timed_out(what, peers)
                    next_check = now + 0.05
                    if now - start > _SPIN_S:  # a long wait is a wait for a peer: sleep
                        time.sleep(1e-3)
        finally:
            self.waiting = prev

    def _wait_mesh(self, pending, what, peers, deadline):
        """wait() on the socket transport: sleep until a message arrives or an operation
        completes (its threads move the data; spinning here would only hold the GIL)."""
        mesh = self.mesh
        next_check = time.monotonic() + 0.05
        prev, self.waiting = self.waiting, what
        try:
            while True:
                v = mesh.version
                try:
                    if _all_done(pending):
                        return
                except DistBackendError as e:  # the transport lost a peer
                    if getattr(e, "_numtorch_from_peer", False):
                        raise
                    self.fail(_caused_by(getattr(e, "_numtorch_peer", None), DistBackendError(
                        f"[rank {self.rank}] {what} failed: {e}")))
                now = time.monotonic()
                if now >= next_check:
                    self.poll(what, peers)
                    if now > deadline:
                        if type(deadline) is _GiveUp:
                            raise wait_timeout()
                        self.timed_out(what, peers)
                    next_check = now + 0.05
                mesh.idle(v, max(0.0, min(next_check, deadline + 0.001) - now))
        finally:
            self.waiting = prev

    def poll(self, what, peers):
        """Raise if a peer reported a failure or died; answer other ranks' status queries."""
        MPI, ctl, st = self.MPI, self.ctl, self._status
        if ctl.Iprobe(MPI.ANY_SOURCE, TAG_FAIL, st):
            src = st.Get_source()
            text = ctl.recv(source=src, tag=TAG_FAIL)
            error = DistBackendError(f"[rank {self.rank}] {what} failed: "
                                     f"{self.describe(src)} failed with {text}")
            error._numtorch_ack_to = src  # acknowledged once this rank reported it
            error._numtorch_peer = src
            self.fail(error)
        while ctl.Iprobe(MPI.ANY_SOURCE, TAG_QUERY, st):
            src = st.Get_source()
            ctl.recv(source=src, tag=TAG_QUERY)
            ctl.isend(self.waiting, dest=src, tag=TAG_ANSWER)
        while ctl.Iprobe(MPI.ANY_SOURCE, TAG_EXIT, st):
            src = st.Get_source()
            reason = ctl.recv(source=src, tag=TAG_EXIT)
            self.exited.setdefault(src, time.monotonic())
            self.exit_reasons.setdefault(src, reason)
        now = time.monotonic()
        for r in peers:
            if r in self.local_peers and not _alive(self.pids[r]):
                self.fail(_caused_by(r, DistBackendError(
                    f"[rank {self.rank}] {what} failed: {self.describe(r)} is no longer "
                    "running (it exited or was killed)")))
            left = self.exited.get(r)
            if left is not None and now - left > _EXIT_GRACE_S:
                how = ("it called destroy_process_group"
                       if self.exit_reasons.get(r) == "destroy" else "its program ended")
                self.fail(_caused_by(r, DistBackendError(
                    f"[rank {self.rank}] {what} failed: {self.describe(r)} left the job "
                    f"({how}) while this rank still waits for it")))

    def timed_out(self, what, peers):
        """Ask the peers what they are doing, then raise a timeout error naming them."""
        MPI, ctl, st = self.MPI, self.ctl, self._status
        others = [r for r in peers if r != self.rank]
        for r in others:
            ctl.isend(what, dest=r, tag=TAG_QUERY)
        answers = {}
        end = time.monotonic() + min(2.0, max(0.2, 0.1 * self.timeout_s))
        while len(answers) < len(others) and time.monotonic() < end:
            self.poll(what, ())
            if ctl.Iprobe(MPI.ANY_SOURCE, TAG_ANSWER, st):
                src = st.Get_source()
                answers[src] = ctl.recv(source=src, tag=TAG_ANSWER)
            else:
                time.sleep(0.002)
        lines = []
        for r in others:
            if r not in answers:
                lines.append(f"rank {r} did not answer (busy outside numtorch.distributed, "
                             "hung or deadlocked)")
            elif answers[r] != what:
                lines.append(f"rank {r} is waiting in {answers[r] or 'nothing'}")
        if not lines:
            lines.append("every peer is waiting in the same operation (MPI made no progress)")
        self.fail(DistBackendError(
            f"[rank {self.rank}] {what} timed out after {self.timeout_s:g} s: "
            + "; ".join(lines)))

    def fail(self, error):
        """Remember ``error`` as the job's failure (later calls raise it too) and raise it."""
        error._numtorch_from_peer = True
        self.failure = error
        _mpi.abandon()
        raise error

    # -- telling the others --------------------------------------------------------------

    def notify_failure(self, exc):
        """Tell every other rank that this one dies of ``exc``, then leave without MPI's
        finalisation (which would wait for the others forever).

        The others acknowledge once they printed their own error naming this rank; waiting
        for that (a few seconds at most) keeps an MPI launcher that stops the whole job
        when one rank ends from cutting their reports short.
        """
        if getattr(exc, "_numtorch_from_peer", False) or self.size == 1:
            return  # the root cause was another rank's, which told everybody already
        self.notified = True
        _mpi.abandon()
        text = f"{type(exc).__name__}: {exc}"
        MPI, ctl, st = self.MPI, self.ctl, self._status
        try:
            reqs = [ctl.isend(text, dest=r, tag=TAG_FAIL)
                    for r in range(self.size) if r != self.rank]
            acks = set()
            end = time.monotonic() + min(3.0, self.timeout_s)
            while len(acks) < self.size - 1 and time.monotonic() < end:
                _all_done(reqs)
                if ctl.Iprobe(MPI.ANY_SOURCE, TAG_ACK, st):
                    src = st.Get_source()
                    ctl.recv(source=src, tag=TAG_ACK)
                    acks.add(src)
                else:
                    time.sleep(0.002)
        except Exception:  # MPI already broken: the others will see this process die
            pass

    def acknowledge(self, exc):
        """After reporting a peer's failure, let that peer go."""
        src = getattr(exc, "_numtorch_ack_to", None)
        if src is None:
            return
        try:
            req = self.ctl.isend(None, dest=src, tag=TAG_ACK)
            end = time.monotonic() + 0.5
            while not req.Test() and time.monotonic() < end:
                time.sleep(0.001)
        except Exception:
            pass

    def notify_exit(self, reason=None):
        """Tell the other ranks that this program ends (at interpreter exit), or that this
        rank destroyed the job's groups (``reason="destroy"``): either way it will join no
        more of their operations."""
        if self.notified or self.size == 1 or self.closed:
            return
        self.notified = True
        try:
            reqs = [self.ctl.isend(reason, dest=r, tag=TAG_EXIT)
                    for r in range(self.size) if r != self.rank]
            end = time.monotonic() + 1.0
            while not _all_done(reqs) and time.monotonic() < end:
                time.sleep(0.001)
        except Exception:
            pass

    def install_hooks(self):
        """Notify the other ranks of an uncaught exception, and of this program's end."""
        prev = sys.excepthook

        def hook(tp, value, tb):
            prev(tp, value, tb)
            _write_error_file(self.rank, value, tb)
            self.notify_failure(value)
            self.acknowledge(value)

        self._prev_hook = prev
        sys.excepthook = hook
        # registered after mpi4py's own exit handler, so it runs before MPI_Finalize
        atexit.register(self.notify_exit)

    def close(self):
        # (on MPI) a peer still waiting for this rank in an operation would otherwise wait
        # until its timeout: torch's gloo peers see the connection reset at once
        if self.mesh is None and self.failure is None:
            self.notify_exit("destroy")
        self.closed = True
        atexit.unregister(self.notify_exit)
        if self._prev_hook is not None:
            sys.excepthook = self._prev_hook
            self._prev_hook = None
        for c in (self.comm, self.ctl):
            try:
                c.Free()
            except Exception:
                pass


def _all_done(pending):
    for r in pending:
        if not r.Test():
            return False
    return True


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie has exited but is not reaped yet
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().split(b") ", 1)[1][:1] != b"Z"
    except (OSError, IndexError):
        return True


def _caused_by(peer, error):
    """Mark ``error`` as the consequence of rank ``peer``'s failure: the launcher then names
    ``peer`` as the root cause even when this rank's report is written first (a killed rank is
    seen dead here, as a zombie, before its supervisor reaps it and records the time)."""
    error._numtorch_peer = peer
    return error


def _write_error_file(rank, exc, tb):
    """Leave the traceback where the launcher can summarise it (TORCHELASTIC_ERROR_FILE)."""
    path = os.environ.get("TORCHELASTIC_ERROR_FILE")
    if not path:
        return
    import json
    import traceback

    try:
        with open(path, "w") as f:
            json.dump({"rank": rank, "time": time.time(), "type": type(exc).__name__,
                       "message": str(exc), "peer": getattr(exc, "_numtorch_peer", None),
                       "traceback": "".join(traceback.format_exception(type(exc), exc, tb))}, f)
    except OSError:
        pass
