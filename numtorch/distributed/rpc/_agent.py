"""The per-process RPC agent: rendezvous, sockets, the request thread pool and timeouts.

Every worker listens on a TCP socket of its own. Worker 0 also serves the rendezvous on
``MASTER_ADDR:MASTER_PORT`` (or the ``tcp://`` init method): each worker connects there,
says who it is and where it listens, and gets back the table of all workers. That
connection stays open and carries the shutdown barrier.

A worker opens one connection per peer it calls (itself included), on first use; requests go
out on it and the responses come back on it, read by one thread per connection that completes
the waiting futures. Incoming connections get a reader thread that hands each request to a
pool of ``num_worker_threads`` threads.
"""

import concurrent.futures
import heapq
import itertools
import os
import pickle
import queue
import socket
import threading
import time
import traceback
from urllib.parse import urlparse

from ... import futures as _futures
from . import _rref, _state, _wire
from ._info import WorkerInfo

_REQ, _RESP_OK, _RESP_ERR = 0, 1, 2


def _master_address(init_method):
    if init_method and init_method.startswith("tcp://"):
        u = urlparse(init_method)
        return u.hostname, u.port
    if init_method and not init_method.startswith("env://"):
        raise ValueError(f"RPC init_method {init_method!r} is not supported here; use env:// "
                         "(MASTER_ADDR and MASTER_PORT) or tcp://host:port")
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if addr is None or port is None:
        missing = "MASTER_ADDR" if addr is None else "MASTER_PORT"
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {missing} expected, but not set")
    return addr, int(port)


def _connect(addr, deadline):
    while True:
        try:
            s = socket.create_connection(addr, timeout=5)
            s.settimeout(None)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"RPC rendezvous: could not reach the master at "
                                   f"{addr[0]}:{addr[1]}") from None
            time.sleep(0.05)


_ROUNDS = itertools.count()


def _group_store(master):
    """The default process group's TCPStore when it is served at ``master``, else None."""
    from .. import distributed_c10d as c10d

    store = getattr(c10d._world, "_store", None)
    base = store
    while base is not None and hasattr(base, "underlying_store"):
        base = base.underlying_store
    if base is None or getattr(base, "port", None) != master[1]:
        return None
    try:
        same = socket.gethostbyname(base.host) == socket.gethostbyname(master[0])
    except OSError:
        same = base.host == master[0]
    return store if same else None


def _send_obj(sock, obj):
    _wire.send_frame(sock, threading.Lock(), pickle.dumps(obj))


def _recv_obj(sock, what):
    data = _wire.recv_frame(sock)
    if data is None:
        raise RuntimeError(f"RPC {what}: a worker closed its connection")
    return pickle.loads(data)


class Agent:
    """One worker's RPC endpoint (created by ``init_rpc``, closed by ``shutdown``)."""

    def __init__(self, name, rank, world_size, options):
        self.name, self.rank, self.world_size = name, rank, world_size
        self.options = options
        self.pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, options.num_worker_threads), thread_name_prefix="rpc-worker")
        self._callback_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=4, thread_name_prefix="rpc-callback")
        self._ids = itertools.count()
        self.pending = {}  # request id -> Future
        self._pending_lock = threading.Lock()
        self._idle = threading.Condition(self._pending_lock)
        self._conns = {}  # peer id -> (socket, write lock)
        self._conn_lock = threading.Lock()
        self._timeouts = []  # heap of (deadline, request id)
        self._timer_cv = threading.Condition()
        self._closing = False
        self._server_socks = []
        self._rendezvous(options)
        # A peer that finished the rendezvous first may already be calling us, and decoding
        # its request (an RRef in the arguments) needs the process's agent: register before
        # the first request can be read.
        _state.set_agent(self)
        self._start_thread(self._accept_loop, "rpc-accept")
        self._start_thread(self._timer_loop, "rpc-timer")
        self._start_thread(self._collect_rrefs, "rpc-rref-gc")

    # -- rendezvous and shutdown barrier --------------------------------------------------

    def _rendezvous(self, options):
        master = _master_address(options.init_method)
        deadline = time.monotonic() + max(float(options.rpc_timeout), 60.0)
        # init_process_group's TCPStore may already serve this address (rpc/batch's pattern,
        # as torch shares it): then worker 0 listens on a free port and says which there
        store, key = _group_store(master), f"numtorch/rpc/{next(_ROUNDS)}"
        if store is not None and self.rank != 0:
            master = (master[0], int(store.get(key)))
        if self.rank == 0:
            rv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            rv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            rv.bind((socket.gethostbyname(master[0]), 0 if store is not None else master[1]))
            rv.listen(self.world_size)
            if store is not None:
                store.set(key, str(rv.getsockname()[1]))
            host = rv.getsockname()[0]
            self.listener = self._listen(host)
            entries = {0: (self.name, host, self.listener.getsockname()[1])}
            self.peers = []
            rv.settimeout(max(1.0, deadline - time.monotonic()))
            try:
                while len(self.peers) < self.world_size - 1:
                    conn, _ = rv.accept()
                    conn.settimeout(None)
                    rank, entry = _recv_obj(conn, "rendezvous")
                    entries[rank] = entry
                    self.peers.append(conn)
            except TimeoutError:
                raise RuntimeError(f"RPC rendezvous timed out: {len(entries)} of "
                                   f"{self.world_size} workers joined") from None
            finally:
                rv.close()
            table, error = self._table(entries)
            for c in self.peers:
                _send_obj(c, (table, error))
            self.master_sock = None
        else:
            self.master_sock = _connect(master, deadline)
            host = self.master_sock.getsockname()[0]
            self.listener = self._listen(host)
            _send_obj(self.master_sock,
                      (self.rank, (self.name, host, self.listener.getsockname()[1])))
            table, error = _recv_obj(self.master_sock, "rendezvous")
        if error is not None:
            raise RuntimeError(error)
        self.addresses = {r: (h, p) for r, (_, h, p) in table.items()}
        self.infos = {r: WorkerInfo(n, r) for r, (n, _, _) in table.items()}
        self.by_name = {info.name: info for info in self.infos.values()}
        self.me = self.infos[self.rank]

    def _table(self, entries):
        names = {}
        for r, (n, _, _) in sorted(entries.items()):
            if n in names:
                return None, (f"RPC worker name {n!r} is used by both rank {names[n]} and "
                              f"rank {r}; names must be unique")
            names[n] = r
        if sorted(entries) != list(range(self.world_size)):
            return None, f"RPC rendezvous got ranks {sorted(entries)} for world size {self.world_size}"
        return entries, None

    def _listen(self, host):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((host, 0))
        s.listen(64)
        return s

    def barrier(self):
        """Wait until every worker has reached ``shutdown`` (worker 0 coordinates)."""
        if self.rank == 0:
            alive = []
            for c in self.peers:
                # a worker that died has no RPCs left either: the others may still finish
                if _wire.recv_frame(c) is not None:
                    alive.append(c)
            for c in alive:
                try:
                    _send_obj(c, "go")
                except OSError:
                    pass  # it arrived, then died: nobody is left there to release
        else:
            _send_obj(self.master_sock, "arrived")
            _recv_obj(self.master_sock, "shutdown")

    # -- threads ---------------------------------------------------------------------------

    def _start_thread(self, fn, name, *args):
        t = threading.Thread(target=fn, args=args, name=name, daemon=True)
        t.start()
        return t

    def _accept_loop(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._server_socks.append(conn)
            self._start_thread(self._serve_conn, "rpc-serve", conn)

    def _serve_conn(self, conn):
        hello = _wire.recv_frame(conn)
        if hello is None:
            return
        peer = pickle.loads(hello)
        lock = threading.Lock()
        while True:
            try:
                got = _wire.recv_message(conn)
            except OSError:
                return
            if got is None:
                return
            head, msg = got
            if head[0] == "ctl":
                _apply_control(pickle.loads(msg[0]))
                continue
            # decoded here, in arrival order: an RRef in a request is counted by its owner
            # before a later "gone" notice on this connection is read
            try:
                request = _wire.loads(msg, peer)
                (_, _, _, rref_id, fork_id), _ = request
                if fork_id is not None:
                    _rref.add_fork(rref_id, fork_id)
            except Exception as e:  # noqa: BLE001 - answered as the request's error
                request = e
            self.pool.submit(self._handle, conn, lock, peer, head[0], request)
            del got, msg, request  # an idle connection must not keep the last RRefs alive

    def _collect_rrefs(self):
        """Turn garbage-collected RRefs into counts here and notices to their owners."""
        while not self._closing:
            try:
                event = _rref.collected.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                if event[0] == "local":
                    _rref.local_ref(event[1], -1)
                else:
                    _, owner, rref_id, fork_id = event
                    self.send_control(owner, ("gone", rref_id, fork_id))
            except OSError:
                pass  # the owner has left: nothing to free there

    def send_control(self, peer, notice):
        """Send an RRef notice (read in order with this worker's requests, not answered)."""
        sock, lock = self._connection(peer)
        _wire.send_message(sock, lock, ("ctl",), (pickle.dumps(notice), []))

    def _handle(self, conn, lock, peer, req_id, data):
        from . import _handlers

        def reply(kind, payload):
            if kind == _RESP_ERR:
                payload = (pickle.dumps(payload), [])
            try:
                _wire.send_message(conn, lock, (req_id, kind), payload)
            except OSError:
                pass  # the caller is gone; nothing to tell

        _handlers.run_request(self, peer, data, reply)

    def _read_responses(self, peer, sock):
        while True:
            try:
                got = _wire.recv_message(sock)
            except OSError:
                got = None
            if got is None:
                self._fail_peer(peer)
                return
            (req_id, kind), payload = got
            with self._pending_lock:
                fut = self.pending.get(req_id)
            if fut is None:
                continue  # timed out already
            if kind == _RESP_OK:
                try:
                    value, _ = _wire.loads(payload, peer)
                except Exception as e:  # noqa: BLE001 - an unreadable reply fails its call
                    self._finish(req_id, None, e)
                    continue
                self._finish(req_id, value, None)
                del value
            else:
                self._finish(req_id, None, _rebuild_error(pickle.loads(payload[0])))
            del fut  # nor the last reply's value, once its caller has dropped it

    def _fail_peer(self, peer):
        if self._closing:
            return
        with self._conn_lock:
            self._conns.pop(peer, None)
        with self._pending_lock:
            mine = [r for r, f in self.pending.items() if getattr(f, "_peer", None) == peer]
        for r in mine:
            self._finish(r, None, RuntimeError(
                f"RPC to {self.infos[peer]} failed: the connection to it was closed"))

    def _finish(self, req_id, value, error):
        with self._pending_lock:
            fut = self.pending.pop(req_id, None)
            if not self.pending:
                self._idle.notify_all()
        if fut is None:
            return
        complete = fut.set_exception if error is not None else fut.set_result
        arg = error if error is not None else value
        if fut._callbacks:
            # callbacks may make RPCs themselves: run them off the thread that reads the
            # replies of this connection, which they might be waiting for
            self._callback_pool.submit(complete, arg)
        else:
            complete(arg)

    def _timer_loop(self):
        with self._timer_cv:
            while not self._closing:
                now = time.monotonic()
                while self._timeouts and self._timeouts[0][0] <= now:
                    _, req_id, ms = heapq.heappop(self._timeouts)
                    self._finish(req_id, None, RuntimeError(
                        f"RPCErr:1:RPC ran for more than set timeout ({ms} ms) and will "
                        "now be marked with an error"))
                wait = self._timeouts[0][0] - now if self._timeouts else None
                self._timer_cv.wait(wait)

    # -- sending ---------------------------------------------------------------------------

    def _connection(self, peer):
        with self._conn_lock:
            c = self._conns.get(peer)
            if c is None:
                sock = socket.create_connection(self.addresses[peer])
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                c = (sock, threading.Lock())
                _wire.send_frame(sock, c[1], pickle.dumps(self.rank))
                self._conns[peer] = c
                self._start_thread(self._read_responses, "rpc-responses", peer, sock)
            return c

    def send(self, peer, payload, timeout):
        """Send a request (``_wire.dumps``'s message) and return the Future of its reply.

        Args:
            peer (int): the destination worker id.
            timeout (float): seconds; 0 means no limit.
        """
        if self._closing:
            raise RuntimeError("RPC has already been shut down on this worker")
        fut = _futures.Future()
        fut._peer = peer
        req_id = next(self._ids)
        with self._pending_lock:
            self.pending[req_id] = fut
        if timeout and timeout > 0:
            with self._timer_cv:
                ms = round(timeout * 1000)
                heapq.heappush(self._timeouts, (time.monotonic() + timeout, req_id, ms))
                self._timer_cv.notify()
        sock, lock = self._connection(peer)
        try:
            _wire.send_message(sock, lock, (req_id,), payload)
        except OSError as e:
            self._finish(req_id, None, RuntimeError(f"RPC to {self.infos[peer]} failed: {e}"))
        return fut

    def wait_idle(self, timeout=None):
        """Block until every request this worker sent has its answer."""
        with self._pending_lock:
            return self._idle.wait_for(lambda: not self.pending, timeout)

    def close(self):
        self._closing = True
        with self._timer_cv:
            self._timer_cv.notify()
        for s in [self.listener, self.master_sock, *getattr(self, "peers", ()),
                  *(c[0] for c in self._conns.values()), *self._server_socks]:
            if s is None:
                continue
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self.pool.shutdown(wait=False)
        self._callback_pool.shutdown(wait=False)


def _apply_control(notice):
    kind, rref_id, fork_id = notice
    if kind == "add":
        _rref.add_fork(rref_id, fork_id)
    else:
        _rref.drop_fork(rref_id, fork_id)


def error_payload(me, exc):
    """What a failed request sends back: the exception's class and torch-style text."""
    text = (f"{type(exc).__name__}: On {me}:\n{exc!r}\n"
            f"{''.join(traceback.format_exception(type(exc), exc, exc.__traceback__))}")
    try:
        cls = pickle.dumps(type(exc))
    except Exception:  # noqa: BLE001 - a class that cannot travel becomes RuntimeError
        cls = None
    return cls, text


def _rebuild_error(payload):
    cls, text = payload
    try:
        exc_type = pickle.loads(cls) if cls is not None else RuntimeError
        return exc_type(text)
    except Exception:  # noqa: BLE001 - an exception class with another signature
        return RuntimeError(text)
