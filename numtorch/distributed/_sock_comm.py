"""The socket transport's communicators: the part of mpi4py's ``Comm`` numtorch uses.

A :class:`SocketComm` offers the non-blocking collectives (``Iallreduce``, ``Ibcast``,
``Iallgather``, ...), point-to-point calls and the pickled-object calls of the control
channel with mpi4py's signatures, so every collective, DDP's reducer and the failure
handling of :mod:`._world` run unchanged on it. :data:`NS` stands in for the ``MPI`` module
(reduction ops are NumPy ufuncs, ``IN_PLACE``, ``ANY_SOURCE``, ``Status``).

Collectives of one communicator run one after another on its own worker thread (the order
every rank posts them in, as MPI requires); they exchange the arrays themselves. All-reduce
of a large array is a ring (reduce-scatter, then all-gather: each rank sends 2(n-1)/n of
the data); small arrays go to every rank and are reduced in rank order. Either way every
rank ends with bit-identical values.
"""

import pickle
import queue
import threading
import time

import numpy as np

from ._world import DistBackendError

_COLL = -1  # the tag of collective traffic (user tags are >= 0)
_RING_MIN_BYTES = 1 << 15
_SEGMENT_BYTES = 1 << 20  # a ring step's chunk travels in pieces of this size


class _InPlace:
    def __repr__(self):
        return "IN_PLACE"


class Status:
    """Where a probed message came from and how many bytes it holds."""

    def __init__(self):
        self.source, self.count = -1, 0

    def Get_source(self):
        return self.source

    def Get_count(self, datatype=None):
        return self.count


class _NS:
    """Stands in for ``mpi4py.MPI`` where numtorch reads constants and ops from it."""

    IN_PLACE = _InPlace()
    SUM, PROD, MIN, MAX = np.add, np.multiply, np.minimum, np.maximum
    BAND, BOR, BXOR = np.bitwise_and, np.bitwise_or, np.bitwise_xor
    ANY_SOURCE, UNDEFINED, BYTE = -1, -32766, "byte"
    Status = Status

    @staticmethod
    def Query_cuda_support():
        return False


NS = _NS()


class Request:
    """A started operation: ``Test()`` says whether it finished (raising its error)."""

    __slots__ = ("done", "error")

    def __init__(self, done=False):
        self.done, self.error = done, None

    def Test(self):
        done = self.done
        if not done:
            # a caller polling in a loop would otherwise keep the GIL from the threads
            # that move the data (for up to the 5 ms switch interval each time)
            time.sleep(0)
            done = self.done
        # read after ``done``: the worker sets ``error`` first, so a finished request's
        # error is always seen (read before, a failure that landed in between passed as a
        # success: an all_reduce with a dead peer returned the local values, ~1 run in 20)
        if self.error is not None:
            raise self.error
        return done


_DONE = Request(True)


class _RecvRequest:
    """``Irecv``: completes when a matching message arrived and was copied in."""

    def __init__(self, comm, buf, source, tag):
        self.comm, self.buf, self.source, self.tag = comm, buf, source, tag
        self.done = False

    def Test(self):
        if not self.done:
            got = self.comm._poll(self.source, self.tag)
            if got is None:
                return False
            _copy_into(self.buf, got[1])
            self.done = True
        return True


class _Message:
    """A matched message (``Improbe``'s result): receive it with ``Recv`` or ``Irecv``."""

    def __init__(self, payload):
        self.payload = payload

    def Recv(self, buf):
        if not isinstance(buf, np.ndarray):
            return  # draining into a throwaway bytearray
        _copy_into(buf, self.payload)

    def Irecv(self, buf):
        self.Recv(buf)
        return _DONE


def _copy_into(buf, payload):
    dst = buf.reshape(-1).view(np.uint8)
    if dst.nbytes != payload.nbytes:
        raise RuntimeError(f"message of {payload.nbytes} bytes received into a buffer of "
                           f"{dst.nbytes} bytes")
    dst[...] = payload


class SocketComm:
    """A communicator over a :class:`~._sock_mesh.Mesh`: some ranks and an id.

    The id names the communicator's traffic; ``Dup`` and ``Split`` derive their ids from it
    and a counter, which agree on every rank because every rank calls them in the same order.
    """

    def __init__(self, mesh, cid, ranks):
        self.mesh, self.cid, self.ranks = mesh, cid, list(ranks)
        self.me, self.n = self.ranks.index(mesh.rank), len(self.ranks)
        self._kids = 0
        self._queue = None

    def Get_rank(self):
        return self.me

    def Get_size(self):
        return self.n

    # -- derived communicators -----------------------------------------------------------

    def Dup(self):
        self._kids += 1
        return SocketComm(self.mesh, f"{self.cid}.{self._kids}", self.ranks)

    def Split(self, color, key=0):
        """Blocking, like MPI's: ranks with the same ``color`` form a new communicator,
        ordered by (``key``, rank); ``NS.UNDEFINED`` gets None."""
        self._kids += 1
        mine = np.array([color, key], np.int64)
        every = np.empty((self.n, 2), np.int64)
        req = self.Iallgather(mine, every)
        while not req.Test():
            v = self.mesh.version
            self.mesh.idle(v, 0.05)
        if color == NS.UNDEFINED:
            return None
        members = sorted((int(every[i, 1]), i) for i in range(self.n)
                         if every[i, 0] == color)
        return SocketComm(self.mesh, f"{self.cid}.s{self._kids}",
                          [self.ranks[i] for _, i in members])

    def Free(self):
        if self._queue is not None:
            self._queue.put(None)
            self._queue = None

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    # -- the worker ----------------------------------------------------------------------

    def _post(self, fn):
        req = Request()
        if self.n == 1:
            fn()
            req.done = True
            return req
        if self._queue is None:
            self._queue = queue.SimpleQueue()
            threading.Thread(target=_work, args=(self._queue, self.mesh), daemon=True,
                             name=f"numtorch-dist-comm-{self.cid}").start()
        self._queue.put((fn, req))
        return req

    def _send(self, i, arr):
        self.mesh.send(self.ranks[i], self.cid, _COLL, arr)

    def _recv(self, i, dtype):
        return self.mesh.take(self.cid, self.ranks[i], _COLL).view(dtype)

    def _others(self):
        return [i for i in range(self.n) if i != self.me]

    # -- collectives (mpi4py signatures) -------------------------------------------------

    def Iallreduce(self, sendbuf, recvbuf, op):
        buf = recvbuf.reshape(-1)
        if sendbuf is not NS.IN_PLACE:
            buf[...] = sendbuf.reshape(-1)
        if buf.nbytes >= _RING_MIN_BYTES and buf.size >= self.n:
            return self._post(lambda: self._ring_allreduce(buf, op))
        return self._post(lambda: self._direct_allreduce(buf, op))

    def _direct_allreduce(self, buf, op):
        for i in self._others():
            self._send(i, buf)
        parts = [buf if i == self.me else self._recv(i, buf.dtype) for i in range(self.n)]
        acc = np.array(parts[0])
        for p in parts[1:]:
            op(acc, p, out=acc)
        buf[...] = acc

    def _ring_allreduce(self, buf, op):
        n, me = self.n, self.me
        b = [k * buf.size // n for k in range(n + 1)]
        right, left = (me + 1) % n, (me - 1) % n
        seg = max(1, _SEGMENT_BYTES // buf.itemsize)

        def pieces(c):  # chunk c as the segments it travels in
            return [buf[i:min(i + seg, b[c + 1])] for i in range(b[c], b[c + 1], seg)]

        for reducing in (True, False):  # reduce-scatter, then all-gather
            for step in range(n - 1):
                if reducing:
                    s, r = (me - step) % n, (me - step - 1) % n
                else:
                    s, r = (me + 1 - step) % n, (me - step) % n
                out, into = pieces(s), pieces(r)
                # interleaved: the peer's next segment arrives while this one is reduced
                for i in range(max(len(out), len(into))):
                    if i < len(out):
                        self._send(right, out[i])
                    if i < len(into):
                        got = self._recv(left, buf.dtype)
                        if reducing:
                            op(into[i], got, out=into[i])
                        else:
                            into[i][...] = got

    def Ireduce(self, sendbuf, recvbuf, op, root=0):
        if self.me != root:
            data = sendbuf.reshape(-1)
            return self._post(lambda: self._send(root, data))
        buf = recvbuf.reshape(-1)
        if sendbuf is not NS.IN_PLACE:
            buf[...] = sendbuf.reshape(-1)

        def run():
            parts = [buf if i == root else self._recv(i, buf.dtype) for i in range(self.n)]
            acc = np.array(parts[0])
            for p in parts[1:]:
                op(acc, p, out=acc)
            buf[...] = acc

        return self._post(run)

    def Ibcast(self, buf, root=0):
        buf = buf.reshape(-1)
        if self.me == root:
            return self._post(lambda: [self._send(i, buf) for i in self._others()])

        def run():
            buf[...] = self._recv(root, buf.dtype)

        return self._post(run)

    def Iallgather(self, sendbuf, recvbuf):
        data = sendbuf.reshape(-1)
        rows = recvbuf.reshape(self.n, -1)

        def run():
            for i in self._others():
                self._send(i, data)
            rows[self.me] = data
            for i in self._others():
                rows[i] = self._recv(i, rows.dtype)

        return self._post(run)

    def Igather(self, sendbuf, recvbuf, root=0):
        data = sendbuf.reshape(-1)
        if self.me != root:
            return self._post(lambda: self._send(root, data))
        rows = recvbuf.reshape(self.n, -1)

        def run():
            rows[self.me] = data
            for i in self._others():
                rows[i] = self._recv(i, rows.dtype)

        return self._post(run)

    def Iscatter(self, sendbuf, recvbuf, root=0):
        out = recvbuf.reshape(-1)
        if self.me != root:
            return self._post(lambda: out.__setitem__(Ellipsis, self._recv(root, out.dtype)))
        rows = sendbuf.reshape(self.n, -1)

        def run():
            for i in self._others():
                self._send(i, np.ascontiguousarray(rows[i]))
            out[...] = rows[self.me]

        return self._post(run)

    def Ireduce_scatter_block(self, sendbuf, recvbuf, op):
        rows = sendbuf.reshape(self.n, -1)
        out = recvbuf.reshape(-1)

        def run():
            for i in self._others():
                self._send(i, np.ascontiguousarray(rows[i]))
            parts = [rows[self.me] if i == self.me else self._recv(i, rows.dtype)
                     for i in range(self.n)]
            acc = np.array(parts[0])
            for p in parts[1:]:
                op(acc, p, out=acc)
            out[...] = acc

        return self._post(run)

    def Ialltoallv(self, sendspec, recvspec):
        send, (scounts, sdispl) = sendspec
        recv, (rcounts, rdispl) = recvspec
        send, recv = send.reshape(-1), recv.reshape(-1)

        def run():
            for i in self._others():
                self._send(i, send[sdispl[i]:sdispl[i] + scounts[i]])
            me = self.me
            recv[rdispl[me]:rdispl[me] + rcounts[me]] = send[sdispl[me]:sdispl[me] + scounts[me]]
            for i in self._others():
                recv[rdispl[i]:rdispl[i] + rcounts[i]] = self._recv(i, recv.dtype)

        return self._post(run)

    # -- point to point ------------------------------------------------------------------

    def Isend(self, buf, dest, tag=0):
        self.mesh.send(self.ranks[dest], self.cid, tag, np.ascontiguousarray(buf))
        return _DONE

    def Irecv(self, buf, source=-1, tag=0):
        return _RecvRequest(self, buf, source, tag)

    def _source(self, source):
        return None if source == NS.ANY_SOURCE else self.ranks[source]

    def _poll(self, source, tag):
        got = self.mesh.poll(self.cid, self._source(source), tag)
        if got is None:
            return None
        return self.ranks.index(got[0]), got[1]

    def Improbe(self, source, tag, status=None):
        got = self._poll(source, tag)
        if got is None:
            return None
        if status is not None:
            status.source, status.count = got[0], got[1].nbytes
        return _Message(got[1])

    # -- pickled objects (the control channel) -------------------------------------------

    def isend(self, obj, dest, tag=0):
        self.mesh.send(self.ranks[dest], self.cid, tag, pickle.dumps(obj))
        return _DONE

    def recv(self, buf=None, source=-1, tag=0):
        src = self._source(source)
        if src is None:
            while True:
                v = self.mesh.version
                got = self._poll(source, tag)
                if got is not None:
                    return pickle.loads(got[1].tobytes())
                self.mesh.idle(v, 0.05)
        return pickle.loads(self.mesh.take(self.cid, src, tag).tobytes())

    def Iprobe(self, source=-1, tag=0, status=None):
        got = self.mesh.probe(self.cid, self._source(source), tag)
        if got is None:
            return False
        if status is not None:
            status.source, status.count = self.ranks.index(got[0]), got[1]
        return True


def _work(q, mesh):
    """Run a communicator's collectives in order until ``Free`` (or the mesh closes)."""
    while True:
        try:
            item = q.get(timeout=1.0)
        except queue.Empty:
            if mesh.closed:  # a communicator nobody freed (DDP's): end with the job
                return
            continue
        if item is None:
            return
        fn, req = item
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            if not isinstance(e, DistBackendError):
                e = DistBackendError(f"socket transport: {e!r}")
            req.error = e
        req.done = True
        mesh.changed()
