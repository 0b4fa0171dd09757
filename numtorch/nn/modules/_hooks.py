"""Module.__call__ with hooks: forward pre/post hooks (module and global) and full backward
hooks, which wrap the module's tensor inputs and outputs in identity autograd Functions to
observe (and replace) the gradients flowing through them."""

from ...autograd.function import Function
from ..._tensor import Tensor


class _Identity(Function):
    """Passes tensors through; its backward hands the gradients to ``ctx.on_grad``."""

    @staticmethod
    def forward(ctx, on_grad, *tensors):
        ctx.on_grad = on_grad
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        res = ctx.on_grad(grads)
        return (None,) + tuple(res)


def _wrap(tensors, on_grad):
    """Run ``tensors`` (the ones requiring grad) through an identity node; return new tuple."""
    idx = [i for i, t in enumerate(tensors) if isinstance(t, Tensor) and t.requires_grad]
    if not idx:
        return tensors, False
    out = _Identity.apply(on_grad, *[tensors[i] for i in idx])
    out = out if isinstance(out, tuple) else (out,)
    new = list(tensors)
    for i, t in zip(idx, out):
        new[i] = t
    return type(tensors)(new) if isinstance(tensors, tuple) else new, True


def _hooks_call(module, args, kwargs):
    from .module import _global_forward_hooks, _global_forward_pre_hooks

    for table, with_kw in ((_global_forward_pre_hooks, {}),
                           (module._forward_pre_hooks, module._forward_pre_hooks_with_kwargs)):
        for hid, hook in list(table.items()):
            if with_kw.get(hid):
                r = hook(module, args, kwargs)
                if r is not None:
                    args, kwargs = r
            else:
                r = hook(module, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)

    full = bool(module._backward_hooks or module._backward_pre_hooks)
    state = {}
    if full:
        def on_grad_input(grads):
            res = grads
            for hook in list(module._backward_hooks.values()):
                r = hook(module, res, state.get("grad_output", ()))
                if r is not None:
                    res = tuple(r)
            return res

        args, state["has_inputs"] = _wrap(tuple(args), on_grad_input)

    result = module.forward(*args, **kwargs)

    for table, with_kw in ((_global_forward_hooks, {}),
                           (module._forward_hooks, module._forward_hooks_with_kwargs)):
        for hid, hook in list(table.items()):
            r = hook(module, args, kwargs, result) if with_kw.get(hid) else \
                hook(module, args, result)
            if r is not None:
                result = r

    if full:
        def on_grad_output(grads):
            for hook in list(module._backward_pre_hooks.values()):
                r = hook(module, grads)
                if r is not None:
                    grads = tuple(r)
            state["grad_output"] = grads
            if not state.get("has_inputs"):  # no input needs grad: report Nones now
                for hook in list(module._backward_hooks.values()):
                    hook(module, (None,) * len(args), grads)
            return grads

        if isinstance(result, Tensor):
            wrapped, _ = _wrap((result,), on_grad_output)
            result = wrapped[0]
        elif isinstance(result, tuple):
            result, _ = _wrap(result, on_grad_output)
    return result
