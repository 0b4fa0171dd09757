"""The link between the main process and one ``DataLoader`` worker: a Unix socket pair.

Down the link go tasks (small pickles); the main process never blocks writing one: what the
socket cannot take yet waits in an outbox, sent as the socket drains. Up the link come
results: pickles whose (non-empty, CPU) tensors travel as shared memory. The worker copies each
tensor's values into a new *nameless* file under /dev/shm and passes the open descriptor over
the socket (``SCM_RIGHTS``); the receiver maps it and closes the descriptor. No file ever has a
name, so nothing can be left in /dev/shm: the kernel frees a batch's memory when the last
process mapping it (or the socket carrying its descriptor) is gone, however the processes end.

Result format: a fixed header (payload size, descriptor count, epoch, key), the descriptors in
chunks of at most ``_FDS_PER_MSG`` (one byte each, the ancillary data carrying them), then the
pickle. Task format: the pickle's size, then the pickle.
"""

import io
import mmap
import os
import pickle
import socket
import struct
from multiprocessing.connection import wait

import numpy as np

from ...storage import _new_shm_fd

__all__ = ["NO_TASK", "Channel", "Message", "channel_pair", "close_fds", "fd_passing"]

_HEADER = struct.Struct("<QIqq")  # payload bytes, descriptors, epoch, key
_TASK_HEADER = struct.Struct("<Q")  # payload bytes
_FDS_PER_MSG = 250  # the kernel refuses more than 253 descriptors in one message
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)  # map a batch's pages in one go, not per fault
NO_TASK = object()  # what ``Channel.next_task`` returns when nothing came in time


def fd_passing():
    """Whether descriptors can be sent over a socket on this platform."""
    return hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


def channel_pair():
    """Two connected ends: (main's, the worker's)."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return Channel(a), Channel(b)


def _write_shm(arr):
    """A descriptor of a new nameless shared-memory file holding ``arr``'s values."""
    flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    fd = _new_shm_fd(flat.nbytes)
    try:
        done = 0
        while done < flat.nbytes:
            done += os.pwrite(fd, flat[done:], done)
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Pickler(pickle.Pickler):
    """Pickles a batch with its tensors' values moved to shared-memory descriptors."""

    def __init__(self, file, use_shm):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.fds = []
        self.use_shm = use_shm

    def persistent_id(self, obj):
        from ..._tensor import Tensor

        if (not self.use_shm or not isinstance(obj, Tensor) or type(obj._array) is not np.ndarray
                or not obj._array.nbytes):
            return None
        arr = obj._array
        self.fds.append(_write_shm(arr))
        return (len(self.fds) - 1, arr.dtype, arr.shape, obj.requires_grad, type(obj),
                dict(obj.__dict__) or None)


class _Unpickler(pickle.Unpickler):
    """Rebuilds the tensors of a message from the descriptors that came with it."""

    def __init__(self, file, fds):
        super().__init__(file)
        self.fds = fds

    def persistent_load(self, pid):
        from ..._tensor import _rebuild

        index, dtype, shape, requires_grad, cls, state = pid
        fd = self.fds[index]
        self.fds[index] = None
        try:
            size = os.fstat(fd).st_size
            mm = mmap.mmap(fd, size, flags=mmap.MAP_SHARED | _POPULATE)
        finally:
            os.close(fd)  # the mapping keeps the memory; no descriptor per live batch
        arr = np.frombuffer(mm, dtype=dtype, count=int(np.prod(shape, dtype=np.int64)))
        return _rebuild(arr.reshape(shape), requires_grad, cls, None, state)


def close_fds(fds):
    """Close the descriptors of a message that will not be opened."""
    for fd in fds:
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass


class Message:
    """A received message, not yet unpickled: its tensors' descriptors are still open."""

    __slots__ = ("epoch", "fds", "key", "payload")

    def __init__(self, epoch, key, payload, fds):
        self.epoch, self.key, self.payload, self.fds = epoch, key, payload, fds

    def load(self):
        """Unpickle, mapping the tensors' shared memory (each descriptor is closed)."""
        try:
            return _Unpickler(io.BytesIO(self.payload), self.fds).load()
        finally:
            self.discard()

    def discard(self):
        """Drop the message, freeing whatever shared memory only it held."""
        close_fds(self.fds)
        self.fds = []


class Channel:
    """One end of a worker link (see the module docstring)."""

    def __init__(self, sock):
        self.sock = sock
        self.outbox = bytearray()  # main's end: task bytes the socket has not taken yet

    def fileno(self):
        return self.sock.fileno()

    def close(self):
        self.sock.close()

    # -- tasks, main process -> worker ---------------------------------------------------------
    def post(self, task):
        """Queue ``task`` for the worker and send what the socket takes without waiting."""
        payload = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
        self.outbox += _TASK_HEADER.pack(len(payload))
        self.outbox += payload
        self.flush()

    def flush(self):
        """Send as much of the outbox as the socket takes now (never blocks)."""
        while self.outbox:
            try:
                n = self.sock.send(self.outbox, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return
            del self.outbox[:n]

    def next_task(self, timeout):
        """The next task, waiting up to ``timeout`` seconds; ``NO_TASK`` if none came,
        None if the main process closed its end."""
        if not wait([self.sock], timeout):
            return NO_TASK
        try:
            size, = _TASK_HEADER.unpack(self._read(_TASK_HEADER.size, None, 0))
            return pickle.loads(self._read(size, None, 0))
        except EOFError:
            return None

    def has_task(self):
        return bool(wait([self.sock], 0))

    # -- results, worker -> main process -------------------------------------------------------
    def send(self, epoch, key, obj):
        """Send ``obj`` tagged with ``(epoch, key)``; its tensors go as shared memory."""
        buf = io.BytesIO()
        pickler = _Pickler(buf, fd_passing())
        try:
            pickler.dump(obj)
            payload = buf.getbuffer()
            fds = pickler.fds
            header = _HEADER.pack(len(payload), len(fds), epoch, key)
            chunks = [fds[i:i + _FDS_PER_MSG] for i in range(0, len(fds), _FDS_PER_MSG)]
            if chunks:
                socket.send_fds(self.sock, [header], chunks[0])
                for chunk in chunks[1:]:
                    socket.send_fds(self.sock, [b"\0"], chunk)
            else:
                self.sock.sendall(header)
            self.sock.sendall(payload)
        finally:
            close_fds(pickler.fds)  # the socket holds its own references now

    def _read(self, n, fds, max_fds):
        """``n`` bytes, collecting descriptors sent with them; EOFError if the peer is gone."""
        data = bytearray(n)
        view = memoryview(data)
        done = 0
        while done < n:
            if max_fds:
                got, new, flags, _ = socket.recv_fds(self.sock, n - done, max_fds)
                fds.extend(new)
                if flags & getattr(socket, "MSG_CTRUNC", 0):
                    raise EOFError("descriptors were lost in transit")
                view[done:done + len(got)] = got
                got = len(got)
            else:
                got = self.sock.recv_into(view[done:])
            if not got:
                raise EOFError("the other end of the link closed")
            done += got
        return data

    def recv(self):
        """The next result ``Message`` (blocks until it is complete)."""
        fds = []
        max_fds = _FDS_PER_MSG if fd_passing() else 0
        try:
            header = self._read(_HEADER.size, fds, max_fds)
            size, nfds, epoch, key = _HEADER.unpack(header)
            while len(fds) < nfds:
                self._read(1, fds, min(_FDS_PER_MSG, nfds - len(fds)))
            payload = self._read(size, fds, 0)
        except BaseException:
            close_fds(fds)
            raise
        return Message(epoch, key, payload, fds)

