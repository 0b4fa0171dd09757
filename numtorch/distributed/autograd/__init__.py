"""``numtorch.distributed.autograd``: backward across RPC calls.

Inside ``with context() as context_id:``, tensors that require grad and cross an RPC are
recorded at both ends. ``backward(context_id, [loss])`` then runs backward locally and sends
gradients back along those calls, so every worker's parameters that took part get their
gradients, stored in the context (``get_gradients``), not in ``.grad``.
"""

from . import _context
from ._engine import backward

__all__ = ["backward", "context", "get_gradients", "is_available"]


def is_available():
    """True: distributed autograd runs wherever RPC does."""
    return True


class context:
    """A distributed autograd context for one forward/backward pass.

    ``with context() as context_id:`` gives the id to pass to ``backward``,
    ``get_gradients`` and ``DistributedOptimizer.step``; leaving the block releases the
    context on this worker and on the workers it exchanged RPCs with.
    """

    def __enter__(self):
        _context.require_init()
        if _context.current_id() is not None:
            raise RuntimeError("Already have an autograd context id for this thread.")
        self.context_id = _context.new_id()
        _context.get_or_create(self.context_id)
        _context.set_current(self.context_id)
        return self.context_id

    def __exit__(self, *exc):
        _context.set_current(None)
        _release_everywhere(self.context_id, None)
        return False


def _release_everywhere(context_id, came_from):
    from ..rpc import _state, api

    ctx = _context.release(context_id)
    if ctx is None or not _state.is_running():
        return
    me = _state.agent().rank
    futs = [api.rpc_async(p, _release_everywhere, args=(context_id, me))
            for p in ctx.peers if p not in (me, came_from)]
    if came_from is not None:  # a peer's request: finish before answering it
        for f in futs:
            f.wait()


def get_gradients(context_id):
    """The gradients this worker's tensors received in ``context_id``: ``{tensor: grad}``."""
    ctx = _context.lookup(context_id)
    with ctx.lock:
        return {leaf: g for leaf, g in ctx.grads.values()}


def _is_valid_context(context_id):
    _context.lookup(context_id)
