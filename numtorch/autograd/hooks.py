"""Running the hooks of graph nodes during backward, with torch's checks on what they return.

Per node, in torch's order: the tensor hooks of each output (``Tensor.register_hook``), the
``retain_grad`` copies, the node's pre-hooks (``grad_fn.register_prehook``, called with the
tuple of output gradients), the node itself, then its hooks (``grad_fn.register_hook``, called
with ``(grad_inputs, grad_outputs)``). After a leaf's ``.grad`` is updated its post-accumulate
hooks run. A hook that returns a value must return what it was given in kind: a tensor of the
same size and type, or a tuple of the same length.
"""

from . import graph
from .grad_mode import _state

__all__ = ["run_pre_hooks", "run_node_hooks", "run_post_accumulate_hooks"]


def _hook_name(hook):
    if isinstance(hook, str):  # a name given by the caller (module hooks' wrapper)
        return hook
    return getattr(hook, "__name__", None) or repr(hook)


def _type_name(t):
    return t.type()  # 'torch.FloatTensor', 'torch.cuda.FloatTensor', ...


def _checked(hook, value, old):
    """``value`` returned by ``hook`` in place of the tensor ``old``: torch's errors when it is
    not a tensor or differs in size or type."""
    if not isinstance(value, graph.Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(value).__name__}'")
    if old is None:
        return value
    if value._array.shape != old._array.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    if value._array.dtype != old._array.dtype or value.device.type != old.device.type:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{_type_name(old)} got {_type_name(value)})")
    return value


def _checked_tuple(hook, values, old):
    """A tuple returned by a node hook in place of the gradients ``old``."""
    if not isinstance(values, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(values).__name__}'")
    if len(values) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of "
                           f"values (got {len(values)}, but expected {len(old)})")
    out = []
    for v, o in zip(values, old):
        if v is not None and o is None:  # (an input without a gradient, as torch refuses)
            raise RuntimeError("can't replace a None gradient with a non-None value")
        out.append(None if v is None else _checked(hook, v, o))
    return tuple(out)


def run_pre_hooks(node, buf, node_runs=True):
    """Tensor hooks, ``retain_grad`` and node pre-hooks on ``buf`` (the node's incoming
    gradients, a list changed in place); the pre-hooks only when the node then runs
    (``node_runs``)."""
    pre = node._pre_hooks
    if pre:
        for nr, hooks in pre.items():
            for h in list(hooks):
                g = buf[nr]  # None: an output of a multi-output node that got no gradient
                r = h(g)  # (torch calls the hook with None there too)
                if r is not None:
                    if g is None:
                        raise RuntimeError("can't replace a None gradient with a non-None "
                                           "value")
                    buf[nr] = _checked(h, r, g)
    retain = node._retain
    if retain:
        for nr, ref in retain.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                g = buf[nr]
                g = g if _state.enabled else graph._make(g._array.copy())
                t._grad = g if t._grad is None else t._grad + g
    node_pre = node._node_pre_hooks
    if node_pre and node_runs:
        for h in list(node_pre):
            r = h(tuple(buf))
            if r is not None:
                buf[:] = _checked_tuple(h, r, tuple(buf))


def run_node_hooks(node, grads_in, grads_out):
    """The node's hooks after it ran; each may replace the gradients it produced."""
    for h in list(node._hooks):
        r = h(grads_in, tuple(grads_out))
        if r is not None:
            grads_in = _checked_tuple(h, r, tuple(grads_in))
    return grads_in


def run_post_accumulate_hooks(node, t):
    """A leaf's post-accumulate hooks, after its ``.grad`` was updated; they return None."""
    for h in tuple(node._post_acc_hooks):
        r = h(t)
        if r is not None:
            _checked(h, r, t)
            if r is not t:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
