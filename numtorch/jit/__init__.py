"""``numtorch.jit``: TorchScript does not exist here; ``script`` and ``trace`` return what
they are given, so code that scripts a model for speed still runs (eagerly)."""

__all__ = ["script", "trace", "trace_module", "freeze", "optimize_for_inference", "ignore",
           "unused", "export", "is_scripting", "is_tracing", "ScriptModule", "save", "load",
           "Final", "annotate", "fork", "wait", "Attribute", "Error", "interface", "isinstance",
           "script_if_tracing", "script_method", "optimized_execution", "fuser",
           "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled",
           "strict_fusion", "TracerWarning", "ScriptWarning", "ScriptFunction",
           "RecursiveScriptModule", "Future", "export_opnames"]

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


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Return ``obj`` unchanged (numtorch runs everything eagerly)."""
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Return ``func`` unchanged (numtorch runs everything eagerly)."""
    from ..nn import Module

    _deprecated("trace")
    # torch warns again from the helpers it goes through: tracing a module traces its
    # forward method (twice over), a function once more
    traced = ("trace_method", "trace_method") if builtins.isinstance(func, Module) else ("trace",)
    for name in traced:
        _deprecated(name)
    return func


def trace_module(mod, inputs, *args, **kwargs):
    """Return ``mod`` unchanged (numtorch runs everything eagerly)."""
    _deprecated("trace_method")
    _deprecated("trace_method")
    return mod


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Return ``mod`` unchanged: a module here is never scripted, so it has nothing to fold."""
    _deprecated("freeze", "use `torch.compile` instead")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Return ``mod`` unchanged (see :func:`freeze`)."""
    _deprecated("optimize_for_inference", "use `torch.compile` instead")
    _deprecated("freeze", "use `torch.compile` instead")
    return mod


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


class ScriptModule(_Module):
    """A module written in the TorchScript style (``class M(torch.jit.ScriptModule)`` with
    ``@torch.jit.script_method``): an ordinary module here, run eagerly. Nothing numtorch
    makes is an instance of it (``script`` returns modules unchanged)."""


class RecursiveScriptModule(ScriptModule):
    """What torch's ``script`` makes of a module; numtorch never makes one (for isinstance)."""


class ScriptFunction:
    """What torch's ``script`` makes of a function; numtorch never makes one (for isinstance)."""


class _Final:
    def __getitem__(self, item):
        return item


Final = _Final()


def save(m, f, _extra_files=None):
    """Save a "scripted" module (the module itself here) whole, for :func:`load`.

    Note:
        The file is numtorch's pickle of the module (``numtorch.save(m, f)``), not a
        TorchScript archive: torch.jit.load cannot read it, nor this load torch's archives.
    """
    from ..serialization import save as _save

    _deprecated("save", "switch to `torch.export`")
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
