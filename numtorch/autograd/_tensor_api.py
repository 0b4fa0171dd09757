"""Autograd services behind Tensor methods: hooks, retain_grad, view refresh."""

import weakref

from .graph import accumulator
from .inplace import refresh_view  # noqa: F401  (re-exported for Tensor._refresh_view_grad_fn)


def register_tensor_hook(t, hook):
    """Register ``hook(grad)`` on ``t``; see ``Tensor.register_hook``."""
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = t.grad_fn
    if fn is None:  # a leaf: its accumulator runs the hook before adding into .grad
        return accumulator(t)._add_pre_hook(0, hook)
    return fn._add_pre_hook(t._output_nr, hook)


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
