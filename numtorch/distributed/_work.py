"""``Work``: the handle of a started operation, and the cross-rank consistency check.

Every collective is started as non-blocking MPI calls; a blocking call is the same handle
waited on at once. Next to the data traffic each collective sends a small fingerprint
(operation, call number, dtype, shape, root) through an all-reduce of its own, so ranks that
call different collectives or pass tensors of different shapes get a clear error instead of
MPI's undefined behaviour (a hang, or silently wrong numbers).
"""

import time

import numpy as np

# operation codes carried in fingerprints (and their names for messages)
OPS = ["barrier", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
       "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all",
       "all_to_all_single", "monitored_barrier", "object collective", "new_group"]
_CODE = {name: i for i, name in enumerate(OPS)}
_MAX_DIMS = 8


class Fingerprint:
    """A non-blocking all-reduce that tells whether all ranks called the same thing.

    The call is described by ``(op, call number, dtype, detail, ndim, d0..d7)``; a 62-bit
    hash of it and its negation are max-reduced, and they agree across ranks exactly when
    max == -max(-h) == min. Only on a disagreement are the full descriptions gathered, to
    say who called what.
    """

    def __init__(self, group, op, seq, array=None, shape_matters=True, detail=0):
        shape = () if array is None else array.shape
        ndim = len(shape) if (shape_matters and array is not None) else -1
        dims = list(shape[:_MAX_DIMS]) if ndim >= 0 else []
        if ndim > _MAX_DIMS:
            dims[-1] = hash(tuple(shape[_MAX_DIMS - 1:])) & 0x3FFFFFFFFFFFFFFF
        dtype = _dtype_code(array) if array is not None else -1
        self.local = (_CODE[op], seq, dtype, detail, ndim, *dims,
                      *([0] * (_MAX_DIMS - len(dims))))
        h = hash(self.local) & 0x3FFFFFFFFFFFFFFF  # ints and tuples of ints hash the same
        self.buf = np.array((h, -h), np.int64)     # in every process
        self.group = group
        MPI = group._world.MPI
        self.req = group._check_comm.Iallreduce(MPI.IN_PLACE, self.buf, MPI.MAX)

    def verify(self, what, detail_name):
        buf = self.buf
        if buf[0] == -buf[1]:
            return
        g = self.group
        local = np.array(self.local, np.int64)
        every = np.empty((g.size(), local.size), np.int64)
        req = g._check_comm.Iallgather(local, every)
        g._world.wait([req], what, g._ranks, time.monotonic() + g._timeout_s)
        lines = [f"rank {g._ranks[i]} calls {_render(row, detail_name)}"
                 for i, row in enumerate(every)]
        g._broken = RuntimeError(
            f"{what}: the ranks disagree (the calls must match on every rank of the group, "
            "in the same order, with the same shapes and dtypes): " + "; ".join(lines))
        raise g._broken


_DTYPE_CODES = {}


def _dtype_code(array):
    """A number naming the dtype (its 8-character NumPy type string, packed)."""
    dt = array.dtype
    code = _DTYPE_CODES.get(dt)
    if code is None:
        code = _DTYPE_CODES[dt] = int(np.frombuffer(dt.str.encode().ljust(8, b" ")[:8],
                                                    np.int64)[0])
    return code


def _dtype_name(code):
    from .._dtype import _FROM_NP

    s = np.int64(code).tobytes().decode(errors="replace").strip()
    try:
        return str(_FROM_NP[np.dtype(s)]).replace("torch.", "")
    except (TypeError, KeyError):
        return s


def _render(row, detail_name):
    op, seq, dtype, detail, ndim = (int(v) for v in row[:5])
    name = OPS[op] if 0 <= op < len(OPS) else f"operation {op}"
    parts = []
    if ndim >= 0:
        dims = [int(v) for v in row[5:5 + min(ndim, _MAX_DIMS)]]
        if ndim > _MAX_DIMS:
            dims[-1] = "..."
        parts.append(f"shape [{', '.join(str(d) for d in dims)}]")
    if dtype != -1:
        parts.append(_dtype_name(dtype))
    ops = ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")
    if detail_name == "op":
        parts.append(f"op={ops[detail] if 0 <= detail < len(ops) else detail}")
    elif detail_name == "dst,op":
        parts.append(f"dst={detail // 8}, op={ops[detail % 8]}")
    elif detail_name:
        parts.append(f"{detail_name}={detail}")
    return f"{name} #{seq}" + (f" ({', '.join(parts)})" if parts else "")


# Works dropped before they finished (torch lets a program drop an async op's Work: the op
# still completes). Their requests and the buffers MPI reads or writes stay referenced here
# until the requests complete: freed early, a buffer's memory could be reused by a later
# call's buffer while MPI still writes into it (a later fingerprint then read another call's
# hash, and ranks that agreed were reported as disagreeing).
_ABANDONED = []


def _reap_abandoned():
    _ABANDONED[:] = [w for w in _ABANDONED if not w.is_completed()]


class Work:
    """A started operation: ``wait()`` for it, or ask ``is_completed()``.

    Returned by every operation called with ``async_op=True`` (and by ``isend``/``irecv``).

    Example:
        >>> work = dist.all_reduce(t, async_op=True)   # doctest: +SKIP
        >>> ...                                        # overlap other work
        >>> work.wait()                                # t now holds the sum
        True
    """

    def __init__(self, group, what, pending, peers, check=None, finish=None, outputs=(),
                 detail_name=None, keep=None):
        self._group = group
        self._keep = keep  # buffers MPI reads or writes until completion
        self._what = what
        self._pending = list(pending)
        self._peers = peers
        self._check = check
        self._finish = finish
        self._outputs = list(outputs)
        self._detail_name = detail_name
        self._start = time.monotonic()
        self._done = False
        self._exc = None
        self._source = -1
        if _ABANDONED:
            _reap_abandoned()

    def __del__(self):
        try:
            if not self._done and (self._pending or self._check is not None):
                _ABANDONED.append(self)  # kept until it completes (see _ABANDONED)
        except Exception:  # interpreter shutdown: nothing is left to protect
            pass

    def _deadline(self, timeout):
        if timeout is not None:
            secs = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
            return time.monotonic() + float(secs)
        return self._start + self._group._timeout_s

    def _give_up(self, timeout):
        """A caller's own timeout (``wait(timeout=...)``): the moment to stop waiting with
        torch's "Operation timed out!", the operation left pending; None without one."""
        if timeout is None:
            return None
        secs = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
        return time.monotonic() + float(secs)

    def wait(self, timeout=None):
        """Block until the operation finished; raise its error if it failed.

        Args:
            timeout (timedelta or float, optional): stop waiting after this long with
                torch's RuntimeError "Operation timed out!"; the operation stays pending (a
                later wait may complete it) and the group stays usable. The group's own
                timeout still fails the job.

        Returns:
            bool: True.
        """
        if not self._done:
            try:
                world = self._group._world
                deadline = self._deadline(None)
                give_up = self._give_up(timeout)
                if self._check is not None:
                    world.wait([self._check.req], self._what, self._peers, deadline, give_up)
                    self._verify()
                world.wait(self._pending, self._what, self._peers, deadline, give_up)
                self._complete()
            except BaseException as e:
                if getattr(e, "_numtorch_wait_timeout", False):
                    raise  # still pending: a later wait may complete it
                self._exc = e
                self._done = True
                raise
        if self._exc is not None:
            raise self._exc
        return True

    def _verify(self):
        check, self._check = self._check, None
        check.verify(self._what, self._detail_name)

    def is_completed(self):
        """True once the operation finished (this also moves MPI's progress along)."""
        if self._done:
            return True
        try:
            if self._check is not None:
                if not self._check.req.Test():
                    return False
                self._verify()
            for r in self._pending:
                if not r.Test():
                    return False
            self._complete()
        except BaseException as e:
            self._exc, self._done = e, True
        return True

    def _complete(self):
        self._done = True
        if self._finish is not None:
            fin, self._finish = self._finish, None
            fin()

    def is_success(self):
        """True if the operation completed without error."""
        return self.is_completed() and self._exc is None

    def exception(self):
        """The error the operation failed with, or None."""
        return self._exc

    def result(self):
        """The output tensors of the operation (after ``wait()``)."""
        self.wait()
        return list(self._outputs)

    def source_rank(self):
        """The rank a ``recv`` from any source received from."""
        self.wait()
        return self._source

    def synchronize(self):
        """Same as ``wait()`` on the CPU (no device streams to synchronise)."""
        self.wait()

    def get_future(self):
        """A future whose value is the list of output tensors."""
        return Future(self)

    def __repr__(self):
        state = "completed" if self._done else "pending"
        return f"<numtorch.distributed.Work {self._what} ({state})>"


class Future:
    """A minimal ``torch.futures.Future`` over a :class:`Work` (``wait``, ``value``, ``then``).
    """

    def __init__(self, work=None, value=None):
        self._work = work
        self._value = value
        self._callbacks = []

    def done(self):
        return self._work is None or self._work.is_completed()

    def wait(self):
        if self._work is not None:
            self._value = self._work.result()
            self._work = None
            for cb in self._callbacks:
                cb(self)
            self._callbacks = []
        return self._value

    def value(self):
        return self.wait()

    def then(self, callback):
        """A future holding ``callback(self)``, run once this one completes."""
        out = Future()
        out._work = _Chained(self, callback)
        return out

    def add_done_callback(self, callback):
        if self._work is None:
            callback(self)
        else:
            self._callbacks.append(callback)

    def set_result(self, value):
        self._work, self._value = None, value


class _Chained:
    def __init__(self, parent, callback):
        self.parent, self.callback = parent, callback

    def is_completed(self):
        return self.parent.done()

    def result(self):
        self.parent.wait()
        return self.callback(self.parent)


class WorkList:
    """Several started operations behind one ``Work``-like handle."""

    def __init__(self, works):
        self._works = list(works)

    def wait(self, timeout=None):
        for w in self._works:
            w.wait(timeout)
        return True

    def is_completed(self):
        return all(w.is_completed() for w in self._works)

    def is_success(self):
        return all(w.is_success() for w in self._works)

    def exception(self):
        return next((w.exception() for w in self._works if w.exception() is not None), None)

    def result(self):
        return [t for w in self._works for t in w.result()]
