"""Module hooks: handles, global (all-module) hooks, and ``Module.__call__`` with hooks.

Full backward hooks wrap the module's tensor inputs and outputs in identity autograd Functions
whose backward passes observe (and may replace) the gradients flowing through them. The
0.x ``register_backward_hook`` instead hooks the grad_fn of the module's output, as torch did.
"""

from ..._class_repr import object_repr as _object_repr
import itertools
import warnings
from collections import OrderedDict

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd import hooks as _autograd_hooks
from ...ops._util import user_stacklevel

__all__ = ["RemovableHandle", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]

_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``: ``remove()`` (or leaving a ``with`` block)
    unregisters the hook."""

    __repr__ = _object_repr  # torch's name in the default object repr

    def __init__(self, table, extra=()):
        self.id = next(_ids)
        self._tables = [table, *extra]

    def remove(self):
        """Unregister the hook (a no-op when already removed)."""
        for t in self._tables:
            t.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(table, hook, prepend=False, extra=()):
    """Store ``hook`` in ``table`` under a fresh handle id; return the handle."""
    h = RemovableHandle(table, extra)
    table[h.id] = hook
    if prepend:
        table.move_to_end(h.id, last=False)
    return h


_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = [None]
_registration_hooks = {"buffer": OrderedDict(), "module": OrderedDict(),
                       "parameter": OrderedDict()}


def any_global_hooks():
    """True when some all-module forward or backward hook is registered."""
    return bool(_global_forward_pre_hooks or _global_forward_hooks
                or _global_backward_pre_hooks or _global_backward_hooks)


def register_module_forward_pre_hook(hook):
    """Run ``hook(module, args)`` before every module's forward (before its own hooks)."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, always_call=False):
    """Run ``hook(module, args, output)`` after every module's forward (before its own)."""
    h = add_hook(_global_forward_hooks, hook, extra=[_global_forward_hooks_always_called])
    if always_call:
        _global_forward_hooks_always_called[h.id] = True
    return h


def register_module_full_backward_pre_hook(hook):
    """Run ``hook(module, grad_output)`` for every module (see the Module method)."""
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Run ``hook(module, grad_input, grad_output)`` for every module."""
    if _global_is_full_backward_hook[0] is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as "
                           "a global Module hook. Please use only one of them.")
    _global_is_full_backward_hook[0] = True
    return add_hook(_global_backward_hooks, hook)


def register_module_backward_hook(hook):
    """The 0.x global backward hook (on each module output's grad_fn)."""
    if _global_is_full_backward_hook[0] is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as "
                           "a global Module hook. Please use only one of them.")
    _global_is_full_backward_hook[0] = False
    return add_hook(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """Run ``hook(module, name, buffer)`` on every buffer registration; a non-None result
    is registered instead."""
    return add_hook(_registration_hooks["buffer"], hook)


def register_module_module_registration_hook(hook):
    """Run ``hook(module, name, submodule)`` on every submodule registration."""
    return add_hook(_registration_hooks["module"], hook)


def register_module_parameter_registration_hook(hook):
    """Run ``hook(module, name, param)`` on every parameter registration."""
    return add_hook(_registration_hooks["parameter"], hook)


def run_registration_hooks(kind, module, name, value):
    """Pass ``value`` through the global registration hooks of ``kind``."""
    for hook in _registration_hooks[kind].values():
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


class BackwardHookFunction(Function):
    """Identity on tensors; its backward hands the incoming gradients to ``on_grad``, which
    may return replacements. On a module's outputs the pre-hooks see None for an output that
    got no gradient; on its inputs (``materialize``) that is zeros, as in torch, where such an
    input then also gets a zero ``.grad``."""

    # torch's is a Function of the ctx form: torch.func transforms refuse it (a module with
    # full backward hooks called inside grad/vmap raises torch's setup_context error)
    _user_rules_under_transforms = True

    @staticmethod
    def forward(ctx, on_grad, materialize, *tensors):
        ctx.on_grad = on_grad
        ctx.set_materialize_grads(materialize)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, None) + tuple(ctx.on_grad(grads))


def _tap(values, on_grad, materialize=False):
    """Route the tensors of ``values`` that require grad through one ``BackwardHookFunction`` node.

    Returns the new tuple and the positions that were tapped.
    """
    idx = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
    if not idx:
        return values, idx
    out = BackwardHookFunction.apply(on_grad, materialize, *[values[i] for i in idx])
    out = out if isinstance(out, tuple) else (out,)
    new = list(values)
    for i, t in zip(idx, out):
        new[i] = t
    return tuple(new), idx


def _checked_grads(new, old):
    """What a full backward (pre-)hook returned in place of the gradients ``old``: torch
    indexes it as a sequence (a bare tensor stands for the tuple of its rows) and holds each
    gradient to its old size and type, naming the hook 'hook' (its wrapper's name)."""
    return tuple(None if v is None else _autograd_hooks._checked("hook", v, o)
                 for v, o in zip(new, old))


class _FullBackwardState:
    """Connects the output tap (grad_output, pre-hooks) with the input tap (full hooks)."""

    def __init__(self, module, n_args, hooks, pre_hooks):
        self.module = module
        self.n_args = n_args
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_output = None
        self.input_idx = []
        self.frozen = [None] * n_args

    def run_full_hooks(self, grad_input):
        for hook in self.hooks:
            out = hook(self.module, grad_input, self.grad_output)
            if out is not None:
                if len(out) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of "
                                       f"grad_input, got {len(out)}, but expected "
                                       f"{len(grad_input)}")
                grad_input = _checked_grads(out, grad_input)
        return grad_input

    def on_input_grads(self, grads):
        if self.grad_output is None and self.hooks:
            # the outputs were not tapped (not a tensor or a tuple): torch's hooks stay silent
            return list(grads)
        # tensor arguments that need no gradient report zeros, as torch's hooks see them
        full = [None if z is None else z.new_zeros(z.shape) for z in self.frozen]
        for i, g in zip(self.input_idx, grads):
            full[i] = g
        full = self.run_full_hooks(tuple(full))
        return [full[i] for i in self.input_idx]

    def on_output_grads(self, grads, out_idx, n_out):
        full = [None] * n_out
        for i, g in zip(out_idx, grads):
            full[i] = g
        full = tuple(full)
        for hook in self.pre_hooks:
            out = hook(self.module, full)
            if out is not None:
                if len(out) != len(full):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(out)}, but expected "
                                       f"{len(full)}")
                full = _checked_grads(out, full)
        self.grad_output = full
        if not self.input_idx and self.hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=user_stacklevel())
            self.run_full_hooks((None,) * self.n_args)
        return [full[i] for i in out_idx]


def _call_forward_hooks(module, hooks, args, kwargs, result, only_always=False, done=None):
    called = set() if done is None else done
    for table, with_kw, always in hooks:
        for hid, hook in list(table.items()):
            if only_always and (not always.get(hid) or hid in called):
                continue
            try:
                out = hook(module, args, kwargs, result) if with_kw.get(hid) else \
                    hook(module, args, result)
            except Exception:
                if not only_always:  # torch still runs the always_call hooks not yet run
                    called.add(hid)
                    _call_forward_hooks(module, hooks, args, kwargs, result, True, called)
                raise
            called.add(hid)
            if out is not None:
                result = out
    return result


def call_with_hooks(module, args, kwargs):
    """``module(*args, **kwargs)`` running every registered hook (the slow path of call)."""
    for table, with_kw in ((_global_forward_pre_hooks, {}),
                           (module._forward_pre_hooks, module._forward_pre_hooks_with_kwargs)):
        for hid, hook in list(table.items()):
            if with_kw.get(hid):
                out = hook(module, args, kwargs)
                if out is not None:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {out}.")
                    args, kwargs = out
            else:
                out = hook(module, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)

    legacy = module._is_full_backward_hook is False
    glob_legacy = _global_is_full_backward_hook[0] is False
    full_hooks = [] if legacy else list(module._backward_hooks.values())
    if not glob_legacy:
        full_hooks = list(_global_backward_hooks.values()) + full_hooks
    pre_hooks = list(_global_backward_pre_hooks.values()) + \
        list(module._backward_pre_hooks.values())
    state = None
    if full_hooks or pre_hooks:
        state = _FullBackwardState(module, len(args), full_hooks, pre_hooks)
        state.frozen = [a.detach() if isinstance(a, Tensor) and not a.requires_grad else None
                        for a in args]
        args, state.input_idx = _tap(tuple(args), state.on_input_grads, materialize=True)

    forward_hooks = ((_global_forward_hooks, {}, _global_forward_hooks_always_called),
                     (module._forward_hooks, module._forward_hooks_with_kwargs,
                      module._forward_hooks_always_called))
    try:
        result = module.forward(*args, **kwargs)
    except Exception:
        _call_forward_hooks(module, forward_hooks, args, kwargs, None, only_always=True)
        raise
    result = _call_forward_hooks(module, forward_hooks, args, kwargs, result)

    if state is not None:
        result = _tap_outputs(state, result)
    legacy_hooks = (list(module._backward_hooks.values()) if legacy else []) + \
        (list(_global_backward_hooks.values()) if glob_legacy else [])
    if legacy_hooks:
        _register_legacy(module, legacy_hooks, result)
    return result


def _tap_outputs(state, result):
    if isinstance(result, Tensor):
        out, _ = _tap((result,), lambda g: state.on_output_grads(g, [0], 1))
        return out[0]
    if isinstance(result, tuple):
        probe = [i for i, v in enumerate(result) if isinstance(v, Tensor) and v.requires_grad]
        n = len(result)
        out, _ = _tap(result, lambda g: state.on_output_grads(g, probe, n))
        return out
    warnings.warn(f"For backward hooks to be called, module output should be a Tensor or a "
                  f"tuple of Tensors but received {type(result)}", stacklevel=3)
    return result


def _register_legacy(module, hooks, result):
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    fn = var.grad_fn
    if fn is None:
        return
    warnings.warn("Using a non-full backward hook when the forward contains multiple autograd "
                  "Nodes is deprecated and will be removed in future versions. This hook will "
                  "be missing some grad_input. Please use register_full_backward_hook to get "
                  "the documented behavior.", FutureWarning, stacklevel=3)
    for hook in hooks:
        fn.register_hook(lambda gi, go, hook=hook: hook(module, gi, go))


# torch defines these in nn.modules.module (re-exported there) and the handle in utils.hooks.
for _fn in (register_module_forward_pre_hook, register_module_forward_hook,
            register_module_full_backward_pre_hook, register_module_full_backward_hook,
            register_module_backward_hook, register_module_buffer_registration_hook,
            register_module_module_registration_hook,
            register_module_parameter_registration_hook):
    _fn.__module__ = "numtorch.nn.modules.module"
RemovableHandle.__module__ = "numtorch.utils.hooks"
del _fn
