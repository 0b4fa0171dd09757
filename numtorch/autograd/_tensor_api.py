"""Autograd services behind Tensor methods: hooks, retain_grad, view refresh."""

import weakref

from .graph import RemovableHandle, accumulator
from .inplace import refresh_view  # noqa: F401  (re-exported for Tensor._refresh_view_grad_fn)


def register_tensor_hook(t, hook):
    """Register ``hook(grad)`` on ``t``; see ``Tensor.register_hook``."""
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = t.grad_fn
    if fn is None:  # a leaf: its accumulator runs the hook before adding into .grad
        return accumulator(t)._add_pre_hook(0, hook)
    return fn._add_pre_hook(t._output_nr, hook)


def register_post_accumulate_grad_hook(t, hook):
    """Register ``hook(t)`` to run after ``t.grad`` was updated; see the Tensor method."""
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    node = accumulator(t)
    if node._post_acc_hooks is None:
        node._post_acc_hooks = []
    node._post_acc_hooks.append(hook)
    return RemovableHandle(node._post_acc_hooks, hook)


def retain_grad(t):
    """Make the non-leaf ``t`` keep its gradient in ``.grad``; a no-op on leaves."""
    if not t.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = t.grad_fn
    if fn is None:
        return
    if t._extra is None:
        t._extra = {}
    t._extra["retains_grad"] = True
    if fn._retain is None:
        fn._retain = {}
    fn._retain[t._output_nr] = weakref.ref(t)
