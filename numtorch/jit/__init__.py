"""``numtorch.jit``: TorchScript does not exist here; ``script`` and ``trace`` return objects of
torch's script types that run the Python code eagerly (see ``_script``), so code that scripts a
model for speed still runs."""

__all__ = ["script", "trace", "trace_module", "freeze", "optimize_for_inference", "ignore",
           "unused", "export", "is_scripting", "is_tracing", "ScriptModule", "save", "load",
           "Final", "annotate", "fork", "wait", "Attribute", "Error", "interface", "isinstance",
           "script_if_tracing", "script_method", "optimized_execution", "fuser",
           "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled",
           "strict_fusion", "TracerWarning", "ScriptWarning", "ScriptFunction",
           "RecursiveScriptModule", "Future", "export_opnames", "TopLevelTracedModule",
           "TracedModule"]

import builtins

from .. import _fork
from ..nn import Module as _Module
from ._eager import (  # noqa: F401
    _deprecated, Attribute, Error, ScriptWarning, TracerWarning, _overload, _overload_method,
    _unwrap_optional, enable_onednn_fusion, export_opnames, fuser, interface, isinstance,
    onednn_fusion_enabled, optimized_execution, script_if_tracing, script_method,
    set_fusion_strategy, strict_fusion)
from . import annotations  # noqa: F401,E402
from .._fork import Future  # noqa: F401
from ._script import (  # noqa: F401
    RecursiveScriptModule, ScriptFunction, ScriptModule, TopLevelTracedModule, TracedModule,
    copy_script as _copy_script, saving as _saving, script_module as _script_module,
    trace_module as _trace_module)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """A module's scripted copy (a ``RecursiveScriptModule`` sharing its parameters and
    buffers), a function's ``ScriptFunction``; classes and script objects come back as they
    are. Everything runs eagerly."""
    _deprecated("script")
    if builtins.isinstance(obj, _Module):
        return _script_module(obj)
    if builtins.isinstance(obj, (ScriptFunction, type)):
        return obj
    if callable(obj):
        return ScriptFunction(obj)
    return obj


_TRACE_PARAMS = ("optimize", "check_trace", "check_inputs", "check_tolerance", "strict")

_DICT_OUTPUT = ("Encountering a dict at the output of the tracer might cause the trace to be "
                "incorrect, this is only valid if the container structure does not change "
                "based on the module's inputs. Consider using a constant container instead "
                "(e.g. for `list`, use a `tuple` instead. for `dict`, use a `NamedTuple` "
                "instead). If you absolutely need this and know the side effects, pass "
                "strict=False to trace() to allow this behavior.")


def _has_dict(out):
    if builtins.isinstance(out, dict):
        return True
    if builtins.isinstance(out, (list, tuple)):
        return any(_has_dict(o) for o in out)
    return False


def _call_args(example, kwargs=None):
    if builtins.isinstance(example, dict) and kwargs is None:
        return (), example
    args = example if builtins.isinstance(example, tuple) else (
        () if example is None else (example,))
    return args, dict(kwargs or {})


def _run_as_tracing(methods, args, kwargs):
    """Call each of ``methods`` (name -> (callable, example call)) on its example inputs as
    often, and in the order, torch's trace does.

    Torch runs each method's Python code once to record it and checks it at once: for each
    set of check inputs (the example inputs unless ``check_inputs`` is given; none with
    ``check_trace=False``) it records every method again, then runs the method's two
    recordings and its Python code once more. Their effects on the module's state (batch-norm statistics
    in training mode) are torch's; a dict in an output is refused unless ``strict=False``.
    """
    opts = dict(zip(_TRACE_PARAMS, args))
    opts.update((k, v) for k, v in kwargs.items() if k in _TRACE_PARAMS)
    checks = opts.get("check_inputs")
    if checks is None:
        checks = [None]
    for name, (fn, (call_args, call_kwargs)) in methods.items():
        out = fn(*call_args, **call_kwargs)
        if opts.get("strict", True) and _has_dict(out):
            raise RuntimeError(_DICT_OUTPUT)
        if not opts.get("check_trace", True):
            continue
        for check in checks:  # each method is checked right after it is recorded
            if check is None:
                calls = {k: e for k, (_, e) in methods.items()}
            elif len(methods) == 1 and not builtins.isinstance(check, dict):
                calls = {name: _call_args(check)}
            else:  # trace_module's check sets: one example per method
                calls = {k: _call_args(v) for k, v in check.items()}
            for k, (c_args, c_kwargs) in calls.items():
                methods[k][0](*c_args, **c_kwargs)
            c_args, c_kwargs = calls[name]
            for _ in range(3):
                fn(*c_args, **c_kwargs)


def _traced_call(func, example_inputs, kwargs):
    kw_inputs = kwargs.get("example_kwarg_inputs")
    if example_inputs is None and kw_inputs is None:
        return {}
    if builtins.isinstance(example_inputs, dict):  # (torch takes a dict as one input)
        example_inputs = (example_inputs,)
    return {"forward": (func, _call_args(example_inputs, kw_inputs or {}))}


def trace(func, example_inputs=None, *args, **kwargs):
    """A module's traced copy (a ``TopLevelTracedModule`` sharing its parameters and buffers)
    or a function's ``ScriptFunction``.

    The function runs on the example inputs as often as torch's trace runs it (see
    ``_run_as_tracing``), but nothing is recorded: calls run eagerly, so data-dependent
    branches are taken anew on each call (torch's trace keeps the first)."""
    _deprecated("trace")
    # torch warns again from the helpers it goes through: tracing a module traces its
    # forward method (twice over), a function once more
    module = builtins.isinstance(func, _Module)
    for name in ("trace_method", "trace_method") if module else ("trace",):
        _deprecated(name)
    if module:
        if builtins.isinstance(func, ScriptModule):
            return func
        _run_as_tracing(_traced_call(func, example_inputs, kwargs), args, kwargs)
        return _trace_module(func)
    if builtins.isinstance(func, ScriptFunction):
        return func
    _run_as_tracing(_traced_call(func, example_inputs, kwargs), args, kwargs)
    return ScriptFunction(func, f"__torch__.{getattr(func, '__name__', 'fn')}")


def trace_module(mod, inputs, *args, **kwargs):
    """The traced copy of ``mod``; each method named in ``inputs`` runs on its example inputs
    as :func:`trace` runs ``forward``."""
    _deprecated("trace_method")
    _deprecated("trace_method")
    if builtins.isinstance(mod, ScriptModule):
        return mod
    _run_as_tracing({name: (getattr(mod, name), _call_args(example))
                     for name, example in inputs.items()}, args, kwargs)
    return _trace_module(mod)


def _need_script(mod, what):
    if not builtins.isinstance(mod, ScriptModule):  # noqa: TRY004 (torch's class)
        raise RuntimeError(f"{what} expects a ScriptModule as input. Please use "
                           "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A frozen copy of a scripted module in eval mode.

    Note:
        Nothing is folded: the copy keeps its parameters (torch's inlines them, so its
        state_dict is empty) and runs as the module does.
    """
    _deprecated("freeze", "use `torch.compile` instead")
    _need_script(mod, "Freezing")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return _copy_script(mod)


def optimize_for_inference(mod, other_methods=None):
    """A frozen copy of a scripted module (see :func:`freeze`)."""
    _deprecated("optimize_for_inference", "use `torch.compile` instead")
    _need_script(mod, "optimize_for_inference")
    if mod.training:
        mod = mod.eval()
    return freeze(mod)


def fork(func, *args, **kwargs):
    """Run ``func`` now and return a completed future (numtorch has no TorchScript threads)."""
    _deprecated("fork", "use `torch.compile` instead")
    return _fork.fork(func, *args, **kwargs)


def wait(future):
    """The value of a future from :func:`fork`."""
    _deprecated("wait", "use `torch.compile` instead")
    return _fork.wait(future)


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


class _Final:
    def __getitem__(self, item):
        return item


Final = _Final()


def save(m, f, _extra_files=None):
    """Save a scripted module (or function) whole, for :func:`load`.

    Note:
        The file is numtorch's pickle of the module (``numtorch.save(m, f)``), not a
        TorchScript archive: torch.jit.load cannot read it, nor this load torch's archives.
    """
    from ..serialization import save as _save

    _deprecated("save", "switch to `torch.export`")
    with _saving():
        _save(m, f)


def load(f, map_location=None, _extra_files=None):
    """Load a module written by :func:`save` (its classes must be importable)."""
    import os

    from ..serialization import load as _load

    _deprecated("load", "switch to `torch.export`")
    if builtins.isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        if not os.path.exists(name):
            raise ValueError(f"The provided filename {name} does not exist")
        if os.path.isdir(name):
            raise ValueError(f"The provided filename {name} is a directory")
    return _load(f, map_location=map_location, weights_only=False)
