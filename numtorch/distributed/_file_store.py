"""FileStore: a key-value store kept in a file every process opens (``file://`` rendezvous)."""

import fcntl
import os
import pickle
import time

from ._store import _LEN, Store, _Timeout

class FileStore(Store):
    """A store kept in a file that every process opens (``file://`` rendezvous).

    Each change is appended to the file under an exclusive lock; reads replay it. The last
    FileStore on the file to be closed (counted in the file) removes it.

    Args:
        file_name (str): the file's path (created when missing).
        world_size (int): how many processes use it (-1: unknown).
    """

    _POLL_S = 0.005

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        self._open = True
        self._call("add", ("\0users", 1), 0)

    def _apply(self, data, record):
        op, args = record
        if op == "set":
            data[args[0]] = args[1]
        elif op == "add":
            data[args[0]] = str(int(data.get(args[0], b"0")) + args[1]).encode()
        elif op == "delete_key":
            data.pop(args[0], None)
        elif op == "append":
            data[args[0]] = data.get(args[0], b"") + args[1]

    def _locked(self, fn):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with os.fdopen(os.dup(fd), "rb") as f:
                raw = f.read()
            data, off = {}, 0
            while off + 8 <= len(raw):
                (n,) = _LEN.unpack_from(raw, off)
                if off + 8 + n > len(raw):
                    break  # a half-written record: its writer died holding no lock
                self._apply(data, pickle.loads(raw[off + 8:off + 8 + n]))
                off += 8 + n
            out, record = fn(data)
            if record is not None:
                blob = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
                os.write(fd, _LEN.pack(len(blob)) + blob)
            return out
        finally:
            os.close(fd)

    def _call(self, op, args, timeout_s):
        if op in ("get", "wait"):
            keys = args if op == "wait" else (args[0],)
            end = time.monotonic() + timeout_s
            while True:
                got = self._locked(lambda d: (d.get(keys[0]) if all(k in d for k in keys)
                                              else _Timeout(keys), None))
                if not isinstance(got, _Timeout):
                    return got if op == "get" else None
                if time.monotonic() >= end:
                    return got
                time.sleep(self._POLL_S)

        def step(d):
            if op in ("set", "append"):
                return None, (op, args)
            if op == "add":
                return int(d.get(args[0], b"0")) + args[1], (op, args)
            if op == "check":
                return all(k in d for k in args), None
            if op == "delete_key":  # True even for a missing key, as torch's FileStore
                return True, (op, args) if args[0] in d else None
            if op == "num_keys":
                return len(d), None
            if op == "compare_set":
                key, expected, desired = args
                cur = d.get(key)
                if (cur is None and expected == b"") or cur == expected:
                    return desired, ("set", (key, desired))
                return (expected if cur is None else cur), None
            raise ValueError(op)

        return self._locked(step)

    def _timed_out(self, keys, timeout_s):
        raise RuntimeError(f"Timeout waiting for key: {', '.join(keys)} after "
                             f"{int(round(timeout_s * 1000))} ms")

    def num_keys(self):
        return self._do("num_keys", ())

    def close(self):
        if not getattr(self, "_open", False):
            return
        self._open = False
        try:
            if self._call("add", ("\0users", -1), 0) <= 0:
                os.unlink(self.path)
        except OSError:
            pass

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
