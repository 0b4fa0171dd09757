"""What ``torch.jit.script`` and ``torch.jit.trace`` hand back: a ``ScriptFunction`` around a
function, a ``RecursiveScriptModule`` (scripted) or ``TopLevelTracedModule`` (traced) copy of a
module. Nothing is compiled: calls run the Python code eagerly.

A module's script copy shares the original's parameter and buffer tensors, has its own
attributes and training flag, and converts its children the same way, as torch's does.
Its class is made per original class, subclassing both the script class and the original, so
the original's methods (forward and what it calls) run on the copy.

Note:
    Because of that, ``isinstance(scripted, OriginalClass)`` is True here where torch says
    False, and the copy has no ``code`` or ``graph`` (there is no TorchScript).
"""

import builtins
import contextlib
import pickle
from collections import OrderedDict

from ..nn import Module as _Module

_SAVING = [0]  # > 0 while jit.save pickles: script objects may be written then


@contextlib.contextmanager
def saving():
    """Allow script modules and functions to be pickled (by ``jit.save``)."""
    _SAVING[0] += 1
    try:
        yield
    finally:
        _SAVING[0] -= 1


class ScriptModule(_Module):
    """A module written in the TorchScript style (``class M(torch.jit.ScriptModule)`` with
    ``@torch.jit.script_method``): an ordinary module here, run eagerly; also the base of
    what ``script`` and ``trace`` make of a module."""

    def save(self, f, **kwargs):
        """Save this module as :func:`numtorch.jit.save` does."""
        from . import save

        save(self, f, **kwargs)


def _script_name(obj):
    return type(obj)._nt_original.__name__


def _qualified(obj):
    """TorchScript's name of a function or class: ``__torch__.`` then its module's path
    (none for the main script) and its name."""
    module = getattr(obj, "__module__", None) or "__main__"
    if module == "numtorch" or module.startswith("numtorch."):  # torch's own classes
        module = module[3:]
    where = f"{module}." if module != "__main__" else ""
    return f"__torch__.{where}{obj.__name__}"


class RecursiveScriptModule(ScriptModule):
    """What ``torch.jit.script`` makes of a module (see the module docstring)."""

    _nt_original = None  # the scripted module's own class (set on each made class)

    @property
    def original_name(self):
        """The name of the class the module was made from."""
        return _script_name(self)

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        return f"original_name={_script_name(self)}"

    def __repr__(self):
        # the plain module layout (containers' own reprs, which fold repeats, are not used)
        return _Module.__repr__(self)

    def __reduce_ex__(self, protocol):
        if not _SAVING[0]:
            name = _qualified(type(self)._nt_original)
            raise RuntimeError(f"Tried to serialize object {name} which does not have a "
                               "__getstate__ method defined!")
        # torch's archive loads back as scripted modules, traced ones included
        return _rebuild_module, (type(self)._nt_original, self.__dict__)

    def __copy__(self):
        # a new module tree (children copied too) over the same tensors, as torch's copy
        return copy_script(self)

    def __deepcopy__(self, memo):
        import copy

        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new


class TracedModule(RecursiveScriptModule):
    """What ``torch.jit.trace`` makes of a submodule of the module it traces."""

    def _get_name(self):
        return _script_name(self)

    def __copy__(self):
        # torch's copy of a traced module keeps the same submodules
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new


class TopLevelTracedModule(TracedModule):
    """What ``torch.jit.trace`` makes of the module it traces."""


_CLASSES = {}


def _class_for(original, base):
    """The class of script copies of ``original`` modules (made once per pair)."""
    key = (original, base)
    cls = _CLASSES.get(key)
    if cls is None:
        # the original's own class attributes are found after the script class's
        cls = type(base.__name__, (base, original), {"_nt_original": original,
                                                      "__module__": base.__module__})
        _CLASSES[key] = cls
    return cls


def _convert(module, top, child, memo, again=False):
    """The script copy of ``module`` (children converted with ``child``); a module that is
    already a ScriptModule stays itself, unless ``again`` (a copy of a script module)."""
    if id(module) in memo:
        return memo[id(module)]
    if builtins.isinstance(module, RecursiveScriptModule) and again:
        cls = type(module)
    elif builtins.isinstance(module, ScriptModule):
        return module
    else:
        cls = _class_for(type(module), top)
    new = object.__new__(cls)
    memo[id(module)] = new
    state = dict(module.__dict__)
    for key, value in state.items():  # own tables (hooks, parameter lists), same values
        if type(value) in (OrderedDict, dict):
            state[key] = type(value)(value)
        elif builtins.isinstance(value, set):
            state[key] = set(value)
    state["_modules"] = OrderedDict(
        (name, None if sub is None else _convert(sub, child, child, memo, again))
        for name, sub in module._modules.items())
    new.__dict__.update(state)
    return new


def script_module(module):
    """The scripted copy of ``module``."""
    return _convert(module, RecursiveScriptModule, RecursiveScriptModule, {})


def copy_script(module):
    """A new script module like ``module`` (a script copy), sharing its tensors."""
    return _convert(module, None, None, {}, again=True)


def trace_module(module):
    """The traced copy of ``module``."""
    return _convert(module, TopLevelTracedModule, TracedModule, {})


def _rebuild_module(original, state):
    new = object.__new__(_class_for(original, RecursiveScriptModule))
    new.__dict__.update(state)
    return new


class ScriptFunction:
    """What ``torch.jit.script`` (or ``trace``) makes of a function: calling it calls the
    function (eagerly)."""

    # torch's object answers __name__ with its class's name (the function's is ``name``)
    __name__ = "ScriptFunction"

    def __init__(self, fn, qualified_name=None):
        self._fn = fn
        self.name = fn.__name__
        self.qualified_name = qualified_name or _qualified(fn)
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self):
        return f"<numtorch.jit.ScriptFunction object at {hex(id(self))}>"

    def __reduce_ex__(self, protocol):
        if not _SAVING[0]:
            raise pickle.PickleError("ScriptFunction cannot be pickled")
        return ScriptFunction, (self._fn, self.qualified_name)

    def save(self, f, **kwargs):
        """Save this function as :func:`numtorch.jit.save` does."""
        from . import save

        save(self, f, **kwargs)
