"""Remote references: ``RRef`` and the values their owner keeps for them.

An RRef is a (owner id, rref id) pair. The owner keeps the value in a table of Futures keyed
by rref id, so a fetch that arrives before ``remote()`` has finished creating the value waits
for it.

The owner frees a value once no reference to it is left anywhere. It counts its own live
RRef objects, and knows every other worker's reference by a fork id: whoever sends an RRef
to a worker other than the owner makes a new fork id and tells the owner (directly, before
the message goes out); a user reference that is garbage-collected tells the owner it is
gone. Both notices travel on the sender's connection to the owner, which reads them in
order, so a worker's "added" for a fork it passes on always precedes its own "gone"; a
"gone" that overtakes its "added" (they come from different workers) is remembered until
the "added" arrives. Notices for collected RRefs are sent by a background thread, never
from inside the garbage collector.
"""

import itertools
import queue
import threading

from ... import futures as _futures
from . import _state
from .functions import is_async
from .options import UNSET_RPC_TIMEOUT


class _Entry:
    __slots__ = ("early_gone", "forks", "fut", "local")

    def __init__(self):
        self.fut = _futures.Future()
        self.forks = set()  # live references on other workers
        self.early_gone = set()  # "gone" notices whose "added" has not arrived yet
        self.local = 0  # live RRef objects on the owner itself


_owned = {}
_owned_lock = threading.Lock()
_counter = itertools.count()
collected = queue.SimpleQueue()  # ("local", rref_id) | ("user", owner, rref_id, fork_id)


def new_rref_id():
    return (_state.agent().rank, next(_counter))


def _entry(rref_id):
    e = _owned.get(rref_id)
    if e is None:
        e = _owned[rref_id] = _Entry()
    return e


def _free_if_unused(rref_id, e):
    if not e.forks and e.local <= 0 and not e.early_gone:
        _owned.pop(rref_id, None)


def owned_future(rref_id):
    """The owner's Future for ``rref_id`` (created empty on first use)."""
    with _owned_lock:
        return _entry(rref_id).fut


def existing_future(rref_id):
    """The owner's Future for ``rref_id``, or None once every reference to it is gone."""
    with _owned_lock:
        e = _owned.get(rref_id)
        return None if e is None else e.fut


def add_fork(rref_id, fork_id):
    """The owner learns of a reference ``fork_id`` on another worker."""
    with _owned_lock:
        e = _entry(rref_id)
        if fork_id in e.early_gone:
            e.early_gone.discard(fork_id)
            _free_if_unused(rref_id, e)
        else:
            e.forks.add(fork_id)


def drop_fork(rref_id, fork_id):
    """The reference ``fork_id`` on another worker is gone."""
    with _owned_lock:
        e = _entry(rref_id)
        if fork_id in e.forks:
            e.forks.discard(fork_id)
        else:
            e.early_gone.add(fork_id)
        _free_if_unused(rref_id, e)


def local_ref(rref_id, delta):
    """An owner-side RRef object for ``rref_id`` was made (+1) or collected (-1)."""
    with _owned_lock:
        e = _entry(rref_id) if delta > 0 else _owned.get(rref_id)
        if e is not None:
            e.local += delta
            _free_if_unused(rref_id, e)


def live_count():
    """How many values this worker keeps for RRefs (for tests)."""
    with _owned_lock:
        return len(_owned)


def clear():
    with _owned_lock:
        _owned.clear()
    while not collected.empty():
        collected.get_nowait()


class RRef:
    """A reference to a value that lives on one worker, its owner.

    ``RRef(value)`` makes the calling worker the owner of ``value``; ``rpc.remote`` returns
    RRefs owned by the worker it ran on. RRefs travel as RPC arguments and results.

    Args:
        value: the local value to own.
        type_hint: accepted for compatibility.
    """

    def __init__(self, value, type_hint=None):
        if not _state.is_running():
            raise RuntimeError("Current RPC agent is not set! Did you initialize the RPC "
                               "framework (e.g. by calling `rpc.init_rpc`)?")
        self._owner_id = _state.agent().rank
        self._rref_id = new_rref_id()
        self._created = None
        self._fork_id = None
        local_ref(self._rref_id, +1)
        owned_future(self._rref_id).set_result(value)

    @classmethod
    def _from_wire(cls, owner_id, rref_id, fork_id, created=None):
        r = cls.__new__(cls)
        r._owner_id, r._rref_id, r._created = owner_id, rref_id, created
        # a user (non-owner) reference has an id of its own, torch's "fork id"
        r._fork_id = None if r.is_owner() else fork_id
        if r._fork_id is None:
            local_ref(rref_id, +1)
        return r

    def __del__(self):
        try:
            if self._fork_id is None:
                collected.put(("local", self._rref_id))
            else:
                collected.put(("user", self._owner_id, self._rref_id, self._fork_id))
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown: nothing left to tell
            pass

    def __reduce__(self):
        raise RuntimeError("RRef is not picklable outside of RPC: pass it as an argument "
                           "or return value of rpc_sync/rpc_async/remote")

    def is_owner(self):
        """True when the calling worker owns the value."""
        return self._owner_id == _state.agent().rank

    def owner(self):
        """The owner's :class:`WorkerInfo`."""
        return _state.agent().infos[self._owner_id]

    def owner_name(self):
        """The owner's worker name."""
        return self.owner().name

    def confirmed_by_owner(self):
        """True once the owner has the value (an RRef from ``remote`` waits for its reply)."""
        return self._created is None or self._created.done()

    def local_value(self):
        """The value itself; only on the owner (waits until ``remote`` created it).

        Raises:
            RuntimeError: on a worker that is not the owner.
        """
        if not self.is_owner():
            me = _state.agent().me
            raise RuntimeError(
                f"For {self._describe()}, can't call localValue() on user {me}. Call it on "
                f"owner {self.owner()}")
        return owned_future(self._rref_id).wait()

    def to_here(self, timeout=UNSET_RPC_TIMEOUT):
        """A copy of the value on this worker (the value itself on the owner)."""
        if self.is_owner():
            return self.local_value()
        from . import api

        return api.rpc_sync(self._owner_id, _fetch, args=(self,), timeout=timeout)

    def _get_type(self, timeout=UNSET_RPC_TIMEOUT, blocking=True):
        if self.is_owner():
            t = type(self.local_value())
        else:
            from . import api

            t = api.rpc_sync(self._owner_id, _value_type, args=(self,), timeout=timeout)
        if blocking:
            return t
        fut = _futures.Future()
        fut.set_result(t)
        return fut

    def rpc_sync(self, timeout=UNSET_RPC_TIMEOUT):
        """A proxy whose method calls run on the owner through ``rpc_sync``."""
        return _Proxy(self, "rpc_sync", timeout)

    def rpc_async(self, timeout=UNSET_RPC_TIMEOUT):
        """A proxy whose method calls run on the owner through ``rpc_async``."""
        return _Proxy(self, "rpc_async", timeout)

    def remote(self, timeout=UNSET_RPC_TIMEOUT):
        """A proxy whose method calls run on the owner through ``remote`` (RRef results)."""
        return _Proxy(self, "remote", timeout)

    def backward(self, dist_autograd_ctx_id=-1, retain_graph=False):
        """Run (distributed) backward from the tensor this RRef holds."""
        from ..autograd import _engine

        return _engine.rref_backward(self, dist_autograd_ctx_id, retain_graph)

    def _describe(self, sep="_", eq="="):
        rid = "GloballyUniqueId(created_on={}, local_id={})".format(*self._rref_id)
        if self.is_owner():
            return f"OwnerRRef(rref{sep}id{eq}{rid})"
        fid = "GloballyUniqueId(created_on={}, local_id={})".format(*self._fork_id)
        return f"UserRRef(rref{sep}id{eq}{rid}, fork{sep}id{eq}{fid})"

    def __repr__(self):
        if self.is_owner():
            return "OwnerRRef({})".format(
                "GloballyUniqueId(created_on={}, local_id={})".format(*self._rref_id))
        return self._describe("", " = ").replace("rrefid", "RRefId").replace("forkid", "ForkId")


class _Proxy:
    def __init__(self, rref, mode, timeout):
        self._rref, self._mode, self._timeout = rref, mode, timeout

    def __getattr__(self, name):
        def call(*args, **kwargs):
            from . import api

            run = getattr(api, self._mode)
            return run(self._rref._owner_id, _call_method, args=(self._rref, name, args, kwargs),
                       timeout=self._timeout)

        return call


class AsyncResult:
    """Marks a Future returned by an ``async_execution`` method called through a proxy."""

    __slots__ = ("future",)

    def __init__(self, future):
        self.future = future


def _call_method(rref, name, args, kwargs):
    method = getattr(rref.local_value(), name)
    out = method(*args, **kwargs)
    return AsyncResult(out) if is_async(method) else out


def _fetch(rref):
    return rref.local_value()


def _value_type(rref):
    return type(rref.local_value())
