"""``torch.autograd.graph.register_multi_grad_hook``: one hook over the gradients of several
tensors.

Each tensor gets an ordinary tensor hook. In mode "all" the first of them to fire in a
backward call queues an end-of-call callback (``engine.queue_callback``) that hands the user
the gradients collected meanwhile (None for tensors the call did not reach); in mode "any"
the first gradient computed in the call is handed over at once, once per call.
"""

import threading

from . import engine

__all__ = ["register_multi_grad_hook"]


class _Handles:
    """Removes every per-tensor hook at once (a RemovableHandle's interface)."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` with the gradients of ``tensors`` computed by a backward call.

    Args:
        tensors (sequence of Tensor): the tensors to watch (those requiring grad get a hook).
        fn (callable): mode "all": ``fn(grads)``, one entry per tensor (None where the call
            computed none), after the call's gradients are done; mode "any": ``fn(grad)``
            with the first gradient the call computes among them.
        mode (str): ``"all"`` or ``"any"``.

    Returns:
        a handle whose ``remove()`` unregisters the hook.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state = threading.local()
    count = len(tensors)

    def calls():
        return engine._CALLBACKS[-1] if engine._CALLBACKS else None

    if mode == "all":
        def make(i):
            def hook(grad):
                call = calls()
                if call is not None and call.grad_call and any(t.is_leaf for t in tensors):
                    raise RuntimeError("A leaf node was passed to _will_engine_execute_node but "
                                       "we are currently running autograd.grad(). This is "
                                       "currently not supported.")
                if getattr(state, "call", None) is not call:
                    state.call, state.grads = call, [None] * count
                    grads = state.grads

                    def finish():
                        state.call = None
                        fn(list(grads))
                    if call is not None:
                        call.append(finish)
                state.grads[i] = grad
            return hook
    else:
        def make(i):
            def hook(grad):
                call = calls()
                if getattr(state, "call", None) is not call or call is None:
                    state.call = call
                    fn(grad)
            return hook

    handles = [t.register_hook(make(i)) for i, t in enumerate(tensors) if t.requires_grad]
    return _Handles(handles)


register_multi_grad_hook.__module__ = "numtorch.autograd.graph"
