"""Autograd services behind Tensor methods: hooks, retain_grad, view refresh."""

import weakref

from . import _func_transforms
from .graph import RemovableHandle, accumulator
from .inplace import refresh_view  # noqa: F401  (re-exported for Tensor._refresh_view_grad_fn)


def register_tensor_hook(t, hook):
    """Register ``hook(grad)`` on ``t``; see ``Tensor.register_hook``."""
    if _func_transforms.KINDS and hasattr(t, "_bt"):
        return _register_batched_hook(t, hook)
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = t.grad_fn
    if fn is None:  # a leaf: its accumulator runs the hook before adding into .grad
        return accumulator(t)._add_pre_hook(0, hook)
    return fn._add_pre_hook(t._output_nr, hook)


def _register_batched_hook(t, hook):
    """A hook on a tensor inside ``vmap(grad(f))``: the graph lives on its physical tensor,
    so the hook goes there and sees (and may replace) the gradient as the batched tensor
    torch's hook gets. Directly inside a vmap, torch's tensors do not require grad."""
    from ..func import _batched as B

    phys, levels = B.physical(t)
    if _func_transforms.KINDS[-1] == "vmap" or not phys.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")

    def on_physical(grad):
        out = hook(B.wrap(grad, levels))
        return None if out is None else B.materialize(out, levels)

    return register_tensor_hook(phys, on_physical)


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
    kinds = _func_transforms.KINDS
    if kinds and t.requires_grad:  # (torch: inside a vmap nothing requires grad)
        if kinds[-1] == "vmap":
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        raise RuntimeError("You are attempting to call Tensor.retain_grad() inside of a function "
                           "being transformed by a functorch transform. This is unsupported, "
                           "please attempt to use the functorch transforms (e.g. grad, vjp, "
                           "jacrev, jacfwd, hessian) or call retain_grad() outside of a function "
                           "being transformed instead.")
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
