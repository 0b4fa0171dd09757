"""``functorch`` under ``numtorch.run``: the deprecated functorch API that torch still ships
(programs written for torch 1.x import it). Each transform forwards to ``numtorch.func`` after
torch's FutureWarning; ``make_functional(_with_buffers)`` and ``combine_state_for_ensemble``
turn a module into a function of its parameters (and buffers) over a stateless copy."""
import copy
import functools
import warnings

from .. import func, nn, stack

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "combine_state_for_ensemble",
           "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "make_functional", "make_functional_with_buffers", "vjp", "vmap"]


def _warn(api, new_api=None):
    new_api = new_api or f"torch.func.{api}"
    warnings.warn(
        f"We've integrated functorch into PyTorch. As the final step of the integration, "
        f"`functorch.{api}` is deprecated as of PyTorch 2.0 and will be deleted in a future "
        f"version of PyTorch >= 2.3. Please use `{new_api}` instead; see the PyTorch 2.0 "
        f"release notes and/or the `torch.func` migration guide for more details "
        f"https://pytorch.org/docs/main/func.migrating.html", FutureWarning, stacklevel=3)


def _deprecated(name, new_name=None):
    target = getattr(func, name)

    @functools.wraps(target)
    def wrapper(*args, **kwargs):
        _warn(name, new_name)
        return target(*args, **kwargs)
    return wrapper


vmap = _deprecated("vmap", "torch.vmap")
grad = _deprecated("grad")
grad_and_value = _deprecated("grad_and_value")
vjp = _deprecated("vjp")
jvp = _deprecated("jvp")
jacrev = _deprecated("jacrev")
jacfwd = _deprecated("jacfwd")
hessian = _deprecated("hessian")
functionalize = _deprecated("functionalize")


class FunctionalModuleWithBuffers(nn.Module):
    """``fmodel(params, buffers, *args)``: the stateless copy run with the given state."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names

    def forward(self, params, buffers, *args, **kwargs):
        state = dict(zip(self.param_names, params))
        state.update(zip(self.buffer_names, buffers))
        return func.functional_call(self.stateless_model, state, args, kwargs)


class FunctionalModule(nn.Module):
    """``fmodel(params, *args)``: the stateless copy run with the given parameters."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names

    def forward(self, params, *args, **kwargs):
        return func.functional_call(self.stateless_model, dict(zip(self.param_names, params)),
                                    args, kwargs)


def _state(model, disable_autograd_tracking):
    model_copy = copy.deepcopy(model)
    named = dict(model_copy.named_parameters())
    params = tuple(named.values())
    if disable_autograd_tracking:
        for p in params:
            p.requires_grad_(False)
    return model_copy, tuple(named), params


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)`` for a module without buffers."""
    _warn("make_functional", "torch.func.functional_call")
    if len(list(model.buffers())) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    model_copy, names, params = _state(model, disable_autograd_tracking)
    return FunctionalModule(model_copy, names), params


def _with_buffers(model, disable_autograd_tracking):
    model_copy, names, params = _state(model, disable_autograd_tracking)
    named_buffers = dict(model_copy.named_buffers())
    fmodel = FunctionalModuleWithBuffers(model_copy, names, tuple(named_buffers))
    return fmodel, params, tuple(named_buffers.values())


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)``: ``fmodel(params, buffers, *args)`` runs ``model``."""
    _warn("make_functional_with_buffers", "torch.func.functional_call")
    return _with_buffers(model, disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` with each parameter and buffer stacked over ``models``
    (detached), for ``vmap(fmodel)(params, buffers, x)``."""
    _warn("combine_state_for_ensemble", "torch.func.stack_module_state")
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same "
                           "class.")
    parts = [_with_buffers(m, False) for m in models]
    params = tuple(stack(ps).detach() for ps in zip(*(p[1] for p in parts)))
    buffers = tuple(stack(bs).detach() for bs in zip(*(p[2] for p in parts)))
    return parts[0][0], params, buffers


def __getattr__(name):
    if name == "__version__":  # torch's version string (the launcher's, under numtorch.run)
        from .. import __version__
        return __version__
    raise AttributeError(f"module 'functorch' has no attribute {name!r}")
