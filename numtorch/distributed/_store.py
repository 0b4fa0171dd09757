"""Key-value stores for the rendezvous: HashStore, TCPStore and PrefixStore.

They behave as torch's: values are bytes (a str is stored UTF-8 encoded), ``get`` and
``wait`` block until the keys exist or the store's timeout passes (then DistStoreError),
``add`` keeps a decimal counter, ``compare_set`` swaps only when the current value matches.
A TCPStore's server is a thread of the process created with ``is_master=True``; every store
(the server's own process included) talks to it over one TCP connection. FileStore is in
``_file_store.py``.
"""

import datetime
import os
import pickle
import socket
import struct
import threading
import time

from ._world import DistNetworkError, DistStoreError

__all__ = ["Store", "HashStore", "TCPStore", "PrefixStore"]  # FileStore: _file_store.py

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


def _key(k):
    if not isinstance(k, str):
        raise TypeError(f"Store key must be a str, got {type(k).__name__}")
    return k


def _value(v):
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, list):  # torch accepts a list of byte values
        return bytes(v)
    raise TypeError(f"Store value must be str or bytes, got {type(v).__name__}")


def _seconds(timeout):
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)


class _Table:
    """The data of a store and the waiting on it (a HashStore, or a TCPStore's server)."""

    def __init__(self):
        self.data = {}
        self.cond = threading.Condition()
        self.closed = False  # a closed server's waiting requests end at once

    def call(self, op, args, timeout_s):
        with self.cond:
            if op == "set":
                self.data[args[0]] = args[1]
                self.cond.notify_all()
                return None
            if op in ("get", "wait"):
                keys = args if op == "wait" else (args[0],)
                end = time.monotonic() + timeout_s
                while not all(k in self.data for k in keys):
                    left = end - time.monotonic()
                    if left <= 0 or self.closed:
                        return _Timeout(keys)
                    self.cond.wait(left)
                return self.data[keys[0]] if op == "get" else None
            if op == "add":
                cur = int(self.data.get(args[0], b"0")) + int(args[1])
                self.data[args[0]] = str(cur).encode()
                self.cond.notify_all()
                return cur
            if op == "compare_set":
                key, expected, desired = args
                cur = self.data.get(key)
                if cur is None:
                    if expected == b"":
                        self.data[key] = desired
                        self.cond.notify_all()
                        return desired
                    return expected
                if cur == expected:
                    self.data[key] = desired
                    self.cond.notify_all()
                    return desired
                return cur
            if op == "wait_count":  # until the counter args[0] reaches args[1]
                end = time.monotonic() + timeout_s
                while int(self.data.get(args[0], b"0")) < args[1] and not self.closed:
                    left = end - time.monotonic()
                    if left <= 0:
                        break
                    self.cond.wait(left)
                return int(self.data.get(args[0], b"0"))
            if op == "check":
                return all(k in self.data for k in args)
            if op == "delete_key":
                return self.data.pop(args[0], None) is not None
            if op == "num_keys":
                return len(self.data)
            if op == "append":
                self.data[args[0]] = self.data.get(args[0], b"") + args[1]
                self.cond.notify_all()
                return None
        raise ValueError(f"unknown store operation {op}")


class _Timeout:
    def __init__(self, keys):
        self.keys = keys


class Store:
    """Base class of the stores: the common methods over ``_call``."""

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        self._timeout = timeout

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        """Change how long ``get`` and ``wait`` block (a timedelta)."""
        self._timeout = timeout

    def _timed_out(self, keys, timeout_s):
        raise DistStoreError("Wait timeout")

    def _do(self, op, args, timeout=None):
        t = _seconds(self.timeout if timeout is None else timeout)
        out = self._call(op, args, t)
        if isinstance(out, _Timeout):
            self._timed_out(out.keys, t)
        return out

    def set(self, key, value):
        """Store ``value`` (str or bytes) under ``key``."""
        self._do("set", (_key(key), _value(value)))

    def get(self, key):
        """The value of ``key`` as bytes, waiting up to the timeout for it to be set."""
        return self._do("get", (_key(key),))

    def add(self, key, amount):
        """Add ``amount`` to the integer counter ``key`` (0 when new); returns the new value."""
        return self._do("add", (_key(key), int(amount)))

    def compare_set(self, key, expected_value, desired_value):
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is missing and
        ``expected_value`` is empty); returns the value it holds afterwards."""
        return self._do("compare_set", (_key(key), _value(expected_value),
                                         _value(desired_value)))

    def wait(self, keys, timeout=None):
        """Block until every key in ``keys`` is set (DistStoreError after the timeout)."""
        self._do("wait", tuple(_key(k) for k in keys), timeout)

    def check(self, keys):
        """True when every key in ``keys`` is set (does not wait)."""
        return self._do("check", tuple(_key(k) for k in keys))

    def delete_key(self, key):
        """Remove ``key``; True if it existed."""
        return self._do("delete_key", (_key(key),))

    def num_keys(self):
        """The number of keys in the store."""
        return self._do("num_keys", ())

    def append(self, key, value):
        """Append ``value`` to the bytes under ``key`` (creating it)."""
        self._do("append", (_key(key), _value(value)))

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values):
            self.set(k, v)


class HashStore(Store):
    """A store in this process's memory (for threads of one process)."""

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def _call(self, op, args, timeout_s):
        return self._table.call(op, args, timeout_s)


class PrefixStore(Store):
    """A view of ``store`` whose keys all get ``prefix + "/"`` in front."""

    def __init__(self, prefix, store):
        super().__init__(store.timeout)
        self._prefix = prefix
        self.underlying_store = store

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def _timed_out(self, keys, timeout_s):
        self.underlying_store._timed_out(keys, timeout_s)

    def _call(self, op, args, timeout_s):
        p = self._prefix + "/"
        if op in ("wait", "check"):
            args = tuple(p + k for k in args)
        elif op != "num_keys":
            args = (p + args[0],) + tuple(args[1:])
        return self.underlying_store._call(op, args, timeout_s)


# -- TCPStore ----------------------------------------------------------------------------

_LEN = struct.Struct("<Q")


def _send_msg(sock, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_LEN.pack(len(data)) + data)


def _recv_exact(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("connection closed")
        got += k
    return bytes(buf)


def _recv_msg(sock):
    (n,) = _LEN.unpack(_recv_exact(sock, _LEN.size))
    return pickle.loads(_recv_exact(sock, n))


class _Server:
    """The TCPStore server: one thread accepting, one thread per connected store."""

    def __init__(self, host, port):
        self.table = _Table()
        self.clients = set()
        self.lock = threading.Lock()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind(("" if host in ("", "0.0.0.0") else _resolve(host), port))
        except OSError as e:
            self.sock.close()
            raise DistNetworkError(f"The server socket has failed to listen on any local "
                                   f"network address. port: {port}, useIpv6: 0, code: "
                                   f"-{e.errno}, name: {os.strerror(e.errno or 98)}, message: "
                                   f"address already in use") from None
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True, name="TCPStore-accept").start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                if self.closed:
                    conn.close()
                    return
                self.clients.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True,
                             name="TCPStore-client").start()

    def _serve(self, conn):
        try:
            while True:
                op, args, timeout_s = _recv_msg(conn)
                try:
                    out = self.table.call(op, args, timeout_s)
                except Exception as e:  # a bad request: answer it, keep serving
                    out = e
                if self.table.closed:
                    return  # no answer: the client sees its connection lost, not a timeout
                _send_msg(conn, out)
        except (OSError, EOFError, ConnectionError):
            pass
        finally:
            with self.lock:
                self.clients.discard(conn)
            conn.close()

    def close(self):
        with self.table.cond:
            self.table.closed = True
            self.table.cond.notify_all()
        with self.lock:
            self.closed = True
            clients, self.clients = list(self.clients), set()
        for s in [self.sock] + clients:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def _resolve(host):
    try:
        return socket.gethostbyname(host)
    except OSError:
        return host


class TCPStore(Store):
    """A store served over TCP by the process created with ``is_master=True``.

    Args:
        host_name (str): the server's host.
        port (int): its port (0 with ``is_master``: pick a free one; see ``.port``).
        world_size (int, optional): with ``wait_for_workers``, the master's constructor
            waits until that many stores (itself included) have connected.
        is_master (bool): run the server in this process.
        timeout (timedelta): for connecting, ``get`` and ``wait``. Default 300 s.
        wait_for_workers (bool): see ``world_size``.
        multi_tenant, master_listen_fd, use_libuv: accepted for compatibility.

    Raises:
        DistNetworkError: the server could not be reached (or its port was taken).
        DistStoreError: the other workers did not join in time.
    """

    def __init__(self, host_name, port, world_size=None, is_master=False,
                 timeout=_DEFAULT_TIMEOUT, wait_for_workers=True, multi_tenant=False,
                 master_listen_fd=None, use_libuv=True):
        super().__init__(timeout)
        if world_size is not None and world_size <= 0:
            raise ValueError(f"TCPStore world size cannot be {world_size}")
        self.host, self.libuvBackend = host_name, use_libuv
        self._server = _Server(host_name, int(port)) if is_master else None
        self.port = self._server.port if is_master else int(port)
        self.world_size = world_size
        self._lock = threading.Lock()
        t = _seconds(timeout)
        try:
            self._sock = self._connect(t)
            self.add("init/", 1)  # every connected store counts itself (torch's key too)
            if is_master and wait_for_workers and world_size:
                self._wait_workers(world_size, t)
        except BaseException:
            self.close()
            raise

    def _connect(self, timeout_s):
        addr = ("127.0.0.1" if self._server is not None else _resolve(self.host), self.port)
        end = time.monotonic() + timeout_s
        while True:
            try:
                s = socket.create_connection(addr, timeout=max(0.05, min(1.0, timeout_s)))
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return s
            except OSError:
                if time.monotonic() >= end:
                    raise DistNetworkError(
                        f"The client socket has timed out after {int(timeout_s * 1000)}ms "
                        f"while trying to connect to ({self.host}, {self.port}).") from None
                time.sleep(0.02)

    def _wait_workers(self, n, timeout_s):
        joined = self._call("wait_count", ("init/", n), timeout_s)
        if joined < n:
            raise DistStoreError(f"Timed out after {int(timeout_s) + 1} seconds waiting for "
                                 f"clients. {joined}/{n} clients joined.")

    def _timed_out(self, keys, timeout_s):
        raise DistStoreError(f"wait timeout after {int(round(timeout_s * 1000))}ms, keys: "
                             + ", ".join("/" + k for k in keys))

    def _call(self, op, args, timeout_s):
        sock = getattr(self, "_sock", None)
        if sock is None:
            raise DistNetworkError("TCPStore is closed")
        with self._lock:
            try:
                _send_msg(sock, (op, args, timeout_s))
                out = _recv_msg(sock)
            except (OSError, EOFError, ConnectionError) as e:
                lost = DistNetworkError(f"TCPStore: lost the connection to the server at "
                                        f"{self.host}:{self.port} ({e})")
                lost._numtorch_lost = True
                raise lost from None
        if isinstance(out, Exception):
            raise out
        return out

    def close(self):
        """Close the connection and, on the master, stop the server (frees the port)."""
        sock, self._sock = getattr(self, "_sock", None), None
        if sock is not None:
            sock.close()
        if self._server is not None:
            self._server.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"TCPStore(host={self.host}, port={self.port})"
