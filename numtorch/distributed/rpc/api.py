"""The RPC calls: ``init_rpc``, ``rpc_sync``, ``rpc_async``, ``remote``, ``shutdown``."""

import functools
import itertools
import os
import threading

from ..autograd import _context
from . import _rref, _state, _wire
from ._agent import Agent
from ._info import WorkerInfo
from .options import UNSET_RPC_TIMEOUT, BackendType, TensorPipeRpcBackendOptions

__all__ = ["get_worker_info", "init_rpc", "remote", "rpc_async", "rpc_sync", "shutdown"]


def init_rpc(name, backend=None, rank=-1, world_size=None, rpc_backend_options=None):
    """Join the RPC group as worker ``name`` and return once every worker has joined.

    Args:
        name (str): this worker's unique name.
        backend (BackendType, optional): ``BackendType.TENSORPIPE`` (the only one).
        rank (int): this worker's id, 0 to ``world_size - 1`` (default: ``RANK``).
        world_size (int): the number of workers (default: ``WORLD_SIZE``).
        rpc_backend_options (TensorPipeRpcBackendOptions, optional): threads, default
            timeout and the rendezvous ``init_method`` (default ``env://``: MASTER_ADDR and
            MASTER_PORT, with worker 0 listening there).
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"RPC worker name must be a non-empty string, got {name!r}")
    if backend is not None and backend != BackendType.TENSORPIPE:
        raise RuntimeError(f"unsupported RPC backend {backend!r}; use BackendType.TENSORPIPE")
    if _state.is_running():
        raise RuntimeError("RPC is already initialized")
    if rank is None or rank < 0:
        rank = int(os.environ.get("RANK", "-1"))
    if world_size is None:
        world_size = int(os.environ.get("WORLD_SIZE", "-1"))
    if rank < 0 or world_size is None or world_size <= 0 or rank >= world_size:
        raise ValueError(f"init_rpc needs 0 <= rank < world_size, got rank={rank}, "
                         f"world_size={world_size}")
    options = rpc_backend_options or TensorPipeRpcBackendOptions()
    Agent(name, rank, world_size, options)  # registers itself before it serves requests


def shutdown(graceful=True, timeout=0):
    """Leave the RPC group.

    Args:
        graceful (bool): first wait until this worker's outstanding RPCs have answered and
            every other worker has called ``shutdown`` too (so no worker leaves while
            another may still call it).
        timeout (float): accepted for compatibility.
    """
    agent = _state.agent()
    try:
        if graceful:
            agent.wait_idle()
            agent.barrier()
    finally:
        agent.close()
        _state.set_agent(None)
        _rref.clear()
        _context.clear()


def get_worker_info(worker_name=None):
    """The :class:`WorkerInfo` of ``worker_name`` (default: this worker)."""
    agent = _state.agent()
    if worker_name is None:
        return agent.me
    info = agent.by_name.get(worker_name)
    if info is None:
        raise RuntimeError(f"name:{agent.name},rank:{agent.rank} could not find destination "
                           f"name {worker_name}")
    return info


def _resolve(agent, to):
    if isinstance(to, WorkerInfo):
        return to.id
    if isinstance(to, str):
        return get_worker_info(to).id
    if isinstance(to, int) and to in agent.infos:
        return to
    raise RuntimeError(f"Unknown destination worker {to}")


def _send(to, func, args, kwargs, timeout, rref_id=None, fork_id=None):
    agent = _state.agent()
    peer = _resolve(agent, to)
    if not callable(func):
        raise TypeError(f"function should be callable, got {type(func).__name__}")
    ctx = _context.current()
    if ctx is not None:
        ctx.peers.add(peer)
    payload = _wire.dumps((func, tuple(args or ()), dict(kwargs or {}), rref_id, fork_id),
                          ctx, peer)
    if timeout is None or timeout == UNSET_RPC_TIMEOUT:
        timeout = agent.options.rpc_timeout
    return agent.send(peer, payload, timeout)


def rpc_sync(to, func, args=None, kwargs=None, timeout=UNSET_RPC_TIMEOUT):
    """Run ``func(*args, **kwargs)`` on worker ``to`` and return its result.

    Args:
        to (str, int or WorkerInfo): the destination worker.
        func (callable): a function importable on the destination (or a builtin op).
        timeout (float): seconds before the call fails with RuntimeError (0: never;
            default: the backend's ``rpc_timeout``).

    Raises:
        The exception ``func`` raised remotely, its message carrying the remote traceback.
    """
    return _send(to, func, args, kwargs, timeout).wait()


def rpc_async(to, func, args=None, kwargs=None, timeout=UNSET_RPC_TIMEOUT):
    """Like :func:`rpc_sync`, but return at once a Future of the result."""
    return _send(to, func, args, kwargs, timeout)


def remote(to, func, args=None, kwargs=None, timeout=UNSET_RPC_TIMEOUT):
    """Run ``func`` on ``to``, keep the result there, and return an RRef to it.

    An error raised by ``func`` surfaces when the value is fetched (``to_here``).
    """
    agent = _state.agent()
    peer = _resolve(agent, to)
    rref_id = _rref.new_rref_id()
    # the caller's reference is the value's first fork (none when it owns the value itself)
    fork_id = _rref.new_rref_id() if peer != agent.rank else None
    rref = _rref.RRef._from_wire(peer, rref_id, fork_id)  # counted before the call runs
    rref._created = _send(peer, func, args, kwargs, timeout, rref_id, fork_id)
    return rref


def _require_initialized(func):
    """Decorator: ``func`` raises torch's "RPC has not been initialized" error until
    ``init_rpc`` has run (and after ``shutdown``)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _state.agent()
        return func(*args, **kwargs)

    return wrapper


_gather_cv = threading.Condition()
_gather_in = {}  # sequence number -> {worker name: object} (on the leader)
_gather_out = {}  # sequence number -> the gathered dict (on the followers)
_gather_seq = itertools.count()


def _gather_to_leader(seq, name, obj):
    with _gather_cv:
        _gather_in.setdefault(seq, {})[name] = obj
        _gather_cv.notify_all()


def _broadcast_to_followers(seq, objs):
    with _gather_cv:
        _gather_out[seq] = objs
        _gather_cv.notify_all()


def _wait_for(pred, timeout):
    with _gather_cv:
        if not _gather_cv.wait_for(pred, None if timeout is None or timeout < 0 else timeout):
            raise RuntimeError("timed out in _all_gather")


@_require_initialized
def _all_gather(obj, worker_names=None, timeout=UNSET_RPC_TIMEOUT):
    """``{worker name: obj}`` of every worker in ``worker_names`` (default: all), each
    worker calling it with its own ``obj``; the first name in sorted order gathers and sends
    the result back. Also a barrier: it returns once all of them have called it."""
    agent = _state.agent()
    names = sorted(worker_names if worker_names is not None else agent.by_name)
    leader, me = names[0], agent.name
    seq = next(_gather_seq)
    wait = None if timeout is None or timeout < 0 else timeout
    if me == leader:
        _gather_to_leader(seq, me, obj)
        _wait_for(lambda: len(_gather_in.get(seq, ())) == len(names), wait)
        with _gather_cv:
            result = _gather_in.pop(seq)
        for name in names[1:]:
            rpc_sync(name, _broadcast_to_followers, args=(seq, result))
        return result
    rpc_sync(leader, _gather_to_leader, args=(seq, me, obj))
    _wait_for(lambda: seq in _gather_out, wait)
    with _gather_cv:
        return _gather_out.pop(seq)
