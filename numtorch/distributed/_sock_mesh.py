"""The socket transport's connections: a full mesh of TCP sockets between the ranks.

Used when the processes were not started by an MPI launcher (``mp.spawn``,
``multiprocessing.Process``, separate shells): MPICH cannot join processes started apart
(its singleton connect/accept fails, pmodels/mpich#7805), so the ranks meet through a
store and connect to each other directly.

Every message is framed as (communicator id, tag, byte count) + raw bytes; arrays go out
from their own memory and land in a fresh array (no pickling of tensors). One reader thread
per peer drains its socket into mailboxes keyed by (communicator, source, tag), so a send
never waits for the receiving program and two ranks sending to each other cannot deadlock.
A closed connection (the peer exited or was killed) wakes every waiter on that peer.
"""

import collections
import os
import socket
import struct
import threading
import time

import numpy as np

from ._world import DistBackendError, DistStoreError

_HEAD = struct.Struct("<iQH")  # tag, payload bytes, communicator-id bytes
_SMALL = 1 << 16  # payloads below this go out in the header's packet


class Mesh:
    """This rank's connections to every other rank, and the mailboxes they fill.

    Attributes:
        rank, size: this process's rank and the number of ranks.
        version: bumped (under ``cond``) on every arrival, completion and failure, so a
            waiter can sleep until something changed instead of spinning.
    """

    def __init__(self, rank, size, socks):
        self.rank, self.size = rank, size
        self.cond = threading.Condition()
        self.version = 0
        self.boxes = {}  # (cid, src, tag) -> deque of (arrival number, payload)
        self.arrivals = 0
        self.dead = {}  # peer -> why its connection ended
        self.closed = False
        self.socks = socks
        self.send_locks = {p: threading.Lock() for p in socks}
        for p, s in socks.items():
            threading.Thread(target=self._reader, args=(p, s), daemon=True,
                             name=f"numtorch-dist-recv-{p}").start()

    # -- sending -------------------------------------------------------------------------

    def send(self, peer, cid, tag, payload):
        """Send ``payload`` (a C-contiguous array or bytes) to ``peer``; returns once the
        bytes are handed to the kernel (the peer's reader thread takes them at once)."""
        if isinstance(payload, np.ndarray):
            data = payload.reshape(-1).view(np.uint8) if payload.size else b""
        else:
            data = payload
        nbytes = len(data) if not isinstance(data, np.ndarray) else data.nbytes
        cb = cid.encode()
        head = _HEAD.pack(tag, nbytes, len(cb)) + cb
        if self.closed:
            raise DistBackendError("the process group was destroyed")
        sock = self.socks.get(peer)
        if sock is None or peer in self.dead:
            raise self._dead_error(peer)
        try:
            with self.send_locks[peer]:
                if nbytes < _SMALL:
                    sock.sendall(head + bytes(data))
                else:
                    sock.sendall(head)
                    sock.sendall(memoryview(data))
        except OSError as e:
            self._mark_dead(peer, f"sending failed ({e.strerror or e})")
            raise self._dead_error(peer) from None

    # -- receiving -----------------------------------------------------------------------

    def _reader(self, peer, sock):
        try:
            while True:
                head = _recv_exact(sock, _HEAD.size)
                tag, nbytes, clen = _HEAD.unpack(head)
                cid = bytes(_recv_exact(sock, clen)).decode()
                payload = _recv_exact(sock, nbytes)
                with self.cond:
                    self.arrivals += 1
                    self.boxes.setdefault((cid, peer, tag), collections.deque()).append(
                        (self.arrivals, payload))
                    self.version += 1
                    self.cond.notify_all()
        except (OSError, ConnectionError) as e:
            why = "its connection closed (the process exited or was killed)" \
                if isinstance(e, ConnectionError) else f"its connection failed ({e})"
            self._mark_dead(peer, why)

    def _mark_dead(self, peer, why):
        with self.cond:
            self.dead.setdefault(peer, why)
            self.version += 1
            self.cond.notify_all()

    def _dead_error(self, peer):
        why = self.dead.get(peer, "it is not connected")
        e = DistBackendError(f"lost rank {peer}: {why}")
        e._numtorch_peer = peer
        return e

    def _find(self, cid, src, tag):
        """The mailbox key of the oldest waiting message from ``src`` (None: any source)."""
        if src is not None:
            k = (cid, src, tag)
            return k if self.boxes.get(k) else None
        best = None
        for p in range(self.size):
            box = self.boxes.get((cid, p, tag))
            if box and (best is None or box[0][0] < self.boxes[best][0][0]):
                best = (cid, p, tag)
        return best

    def probe(self, cid, src, tag):
        """(source, payload size) of a waiting message, or None (nothing is taken)."""
        with self.cond:
            k = self._find(cid, src, tag)
            if k is None:
                self._check_alive(src)
                return None
            return k[1], self.boxes[k][0][1].nbytes

    def poll(self, cid, src, tag):
        """(source, payload) of a waiting message, taken from its mailbox; or None."""
        with self.cond:
            k = self._find(cid, src, tag)
            if k is None:
                self._check_alive(src)
                return None
            return k[1], self._pop(k)

    def take(self, cid, src, tag):
        """Wait for the next message from ``src`` on ``(cid, tag)``; returns its payload.

        Raises DistBackendError when the peer's connection ended with no such message left,
        or the mesh was closed (``destroy_process_group``).
        """
        k = (cid, src, tag)
        with self.cond:
            while True:
                if self.boxes.get(k):
                    return self._pop(k)
                self._check_alive(src)
                self.cond.wait()

    def _pop(self, k):
        box = self.boxes[k]
        payload = box.popleft()[1]
        if not box:
            del self.boxes[k]
        return payload

    def _check_alive(self, src):
        if self.closed:
            raise DistBackendError("the process group was destroyed")
        if src is not None and src in self.dead:
            raise self._dead_error(src)

    # -- waiting and closing -------------------------------------------------------------

    def changed(self):
        """Wake every thread waiting in :meth:`idle` (a request completed)."""
        with self.cond:
            self.version += 1
            self.cond.notify_all()

    def idle(self, since, timeout):
        """Sleep until ``version`` moves past ``since`` or ``timeout`` seconds passed."""
        with self.cond:
            if self.version == since:
                self.cond.wait(timeout)

    def close(self):
        """Close every connection (the readers end) and wake all waiters."""
        with self.cond:
            self.closed = True
            self.version += 1
            self.cond.notify_all()
        for s in self.socks.values():
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def _recv_exact(sock, n):
    buf = np.empty(n, np.uint8)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:], min(n - got, 1 << 24))
        if k == 0:
            raise ConnectionError("connection closed")
        got += k
    return buf


# -- rendezvous --------------------------------------------------------------------------

_HELLO = struct.Struct("<i16s")


def connect_mesh(store, rank, size, timeout_s):
    """Meet the other ranks through ``store`` and connect to each of them.

    Every rank listens on a fresh port and publishes where; rank i connects to every rank
    below it and accepts the ones above it. The handshake carries the rank and a session
    token from rank 0, so a connection from a stale job is refused. The listening socket is
    closed once the mesh is complete (its port is free again).

    Raises:
        DistStoreError: a rank did not publish its address within ``timeout_s``.
    """
    host = socket.gethostname()
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.bind(("0.0.0.0", 0))
    lst.listen(size)
    port = lst.getsockname()[1]
    if rank == 0:
        token = os.urandom(16)
        store.set("numtorch/session", token)
    store.set(f"numtorch/addr/{rank}", f"{host}|{_my_ip(store)}|{port}|{os.getpid()}")
    deadline = time.monotonic() + timeout_s
    socks = {}
    try:
        token = _get(store, "numtorch/session", deadline, rank, size)
        addrs = [_get(store, f"numtorch/addr/{r}", deadline, rank, size).decode().split("|")
                 for r in range(size)]
        for r in range(rank):
            h, ip, p, _ = addrs[r]
            target = "127.0.0.1" if h == host else ip
            s = _dial((target, int(p)), deadline)
            s.sendall(_HELLO.pack(rank, token))
            socks[r] = s
        lst.settimeout(0.2)
        while len(socks) < size - 1:
            if time.monotonic() > deadline:
                missing = [r for r in range(rank + 1, size) if r not in socks]
                raise DistStoreError(f"[rank {rank}] init_process_group: ranks {missing} did "
                                     f"not connect within {timeout_s:g} s")
            try:
                conn, _ = lst.accept()
            except socket.timeout:
                continue
            conn.settimeout(max(1.0, deadline - time.monotonic()))
            try:
                peer, got = _HELLO.unpack(bytes(_recv_exact(conn, _HELLO.size)))
            except (OSError, ConnectionError):
                conn.close()
                continue
            if got != token or not rank < peer < size or peer in socks:
                conn.close()  # from another job (or a stale try): not ours
                continue
            conn.settimeout(None)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            socks[peer] = conn
    except BaseException:
        for s in socks.values():
            s.close()
        raise
    finally:
        lst.close()
    pids = [int(a[3]) for a in addrs]
    return Mesh(rank, size, socks), pids


def _get(store, key, deadline, rank, size):
    left = deadline - time.monotonic()
    try:
        return store._do("get", (key,), max(left, 0.001))
    except DistStoreError:
        r = key.rsplit("/", 1)[-1]
        who = f"rank {r}" if r.isdigit() else "rank 0"
        raise DistStoreError(f"[rank {rank}] init_process_group timed out waiting for {who} "
                             f"of {size} to join the rendezvous") from None


def _dial(addr, deadline):
    while True:
        try:
            s = socket.create_connection(addr, timeout=2)
            s.settimeout(None)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            if time.monotonic() > deadline:
                raise DistBackendError(f"init_process_group: could not connect to a peer at "
                                       f"{addr[0]}:{addr[1]}") from None
            time.sleep(0.02)


def _my_ip(store):
    """The address the other ranks can reach this one at: the local end of the store's
    connection (a TCPStore), else the host name's address."""
    base = store
    while hasattr(base, "underlying_store"):
        base = base.underlying_store
    sock = getattr(base, "_sock", None)
    if sock is not None:
        try:
            ip = sock.getsockname()[0]
            if not ip.startswith("127.") or getattr(base, "_server", None) is None:
                return ip
            return socket.gethostbyname(base.host)  # the master dials its own loopback
        except OSError:
            pass
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"
