"""Remote references: ``RRef`` and the values their owner keeps for them.

An RRef is a (owner id, rref id) pair. The owner keeps the value in a table of Futures keyed
by rref id, so a fetch that arrives before ``remote()`` has finished creating the value waits
for it. Values stay in the owner's table until RPC shuts down (there is no reference
counting across workers).
"""

import itertools
import threading

from ... import futures as _futures
from . import _state
from .functions import is_async
from .options import UNSET_RPC_TIMEOUT

_owned = {}
_owned_lock = threading.Lock()
_counter = itertools.count()


def new_rref_id():
    return (_state.agent().rank, next(_counter))


def owned_future(rref_id):
    """The owner's Future for ``rref_id`` (created empty on first use)."""
    with _owned_lock:
        fut = _owned.get(rref_id)
        if fut is None:
            fut = _owned[rref_id] = _futures.Future()
        return fut


def clear():
    with _owned_lock:
        _owned.clear()


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
        owned_future(self._rref_id).set_result(value)

    @classmethod
    def _from_wire(cls, owner_id, rref_id, created=None):
        r = cls.__new__(cls)
        r._owner_id, r._rref_id, r._created = owner_id, rref_id, created
        # a user (non-owner) reference has an id of its own, torch's "fork id"
        r._fork_id = None if r.is_owner() else new_rref_id()
        return r

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
