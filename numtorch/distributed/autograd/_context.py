"""Distributed autograd contexts: the per-iteration record of what crossed RPC.

A context exists on every worker that took part in its RPCs, under the same id (the
creating worker's id in the high 16 bits, as in torch). It holds

* ``sends``: tensors that required grad and left this worker in a message, by message id;
  a gradient that comes back for one of them continues backward from that tensor;
* ``recvs``: the tensors such messages became here, with where they came from;
* ``grads``: the gradients of this worker's leaves, accumulated here instead of ``.grad``.
"""

import itertools
import threading

_contexts = {}
_lock = threading.Lock()
_local = threading.local()
_counter = itertools.count()
_msg_counter = itertools.count()


class Context:
    """One distributed autograd context on this worker."""

    def __init__(self, context_id):
        self.id = context_id
        self.lock = threading.Lock()
        self.sends = {}
        self.recvs = {}
        self.grads = {}  # id(leaf) -> (leaf, gradient)
        self.peers = set()
        self.pass_nodes = {}  # id(node) -> node: the graph the running backward walked here

    def add_send(self, tensor):
        msg_id = next(_msg_counter)
        with self.lock:
            self.sends[msg_id] = tensor
        return msg_id

    def add_recv(self, tensor, sender, send_id):
        with self.lock:
            self.recvs[id(tensor)] = (tensor, sender, send_id)

    def accumulate(self, leaf, grad):
        with self.lock:
            old = self.grads.get(id(leaf))
            self.grads[id(leaf)] = (leaf, grad if old is None else old[1] + grad)


def new_id():
    from ..rpc import _state

    rank = _state.agent().rank if _state.is_running() else 0
    return (rank << 48) | next(_counter)


def get_or_create(context_id):
    with _lock:
        ctx = _contexts.get(context_id)
        if ctx is None:
            ctx = _contexts[context_id] = Context(context_id)
        return ctx


def require_init():
    """Distributed autograd starts with RPC (``init_rpc``), as in torch.

    Raises:
        RuntimeError: before ``init_rpc``.
    """
    from ..rpc import _state

    if not _state.is_running():
        raise RuntimeError("Need to initialize distributed autograd using "
                           "torch.distributed.autograd.init()")


def lookup(context_id):
    """The context ``context_id``.

    Raises:
        RuntimeError: when this worker does not know it (never made or already released),
            or before ``init_rpc``.
    """
    require_init()
    with _lock:
        ctx = _contexts.get(context_id)
    if ctx is None:
        raise RuntimeError(f"Could not find autograd context with id: {context_id}")
    return ctx


def release(context_id):
    with _lock:
        return _contexts.pop(context_id, None)


def clear():
    with _lock:
        _contexts.clear()


def current():
    """The context this thread is inside (``with dist_autograd.context()``), or None."""
    cid = getattr(_local, "id", None)
    if cid is None:
        return None
    with _lock:
        return _contexts.get(cid)


def current_id():
    return getattr(_local, "id", None)


def set_current(context_id):
    _local.id = context_id


class entered:
    """Make ``ctx`` (or nothing, when None) this thread's current context for a block."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __enter__(self):
        self.prev = getattr(_local, "id", None)
        if self.ctx is not None:
            _local.id = self.ctx.id

    def __exit__(self, *exc):
        _local.id = self.prev
