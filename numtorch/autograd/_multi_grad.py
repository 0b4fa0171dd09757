"""``torch.autograd.graph.register_multi_grad_hook``: one hook over the gradients of several
tensors.

Each tensor gets an ordinary tensor hook. In mode "all" the first of them to fire in a
backward call counts the watched tensors whose nodes the call runs, and the user's hook gets
the gradients once that many have come (None for tensors the call does not reach), during
the call as in torch (an end-of-call callback covers a node the call skipped); in mode "any"
the first gradient computed in the call is handed over at once, once per call.
"""

import threading

from . import engine, graph

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
                if getattr(state, "call", None) is not call:
                    state.call, state.grads, state.got = call, [None] * count, 0
                    grads = state.grads
                    # as torch: fire as soon as every watched tensor whose node this call
                    # runs has its gradient (the others stay None)
                    state.expected = -1 if call is None else sum(
                        1 for t in tensors if t.requires_grad and _will_execute(call, t))
                    fired = state.fired = [False]

                    def finish():
                        if not fired[0]:
                            fired[0] = True
                            state.call = None
                            fn(list(grads))
                    if call is not None:
                        call.append(finish)  # (a watched node the call skipped after all)
                state.grads[i] = grad
                state.got += 1
                if state.got == state.expected and not state.fired[0]:
                    state.fired[0] = True
                    fn(list(state.grads))
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


def _will_execute(call, t):
    e = graph.edge_of(t)
    if e is None or not call.will_execute(e[0]):
        return False
    if call.grad_call and isinstance(e[0], graph.AccumulateGrad):  # an input of autograd.grad
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not "
                           "supported.")
    return True


register_multi_grad_hook.__module__ = "numtorch.autograd.graph"
