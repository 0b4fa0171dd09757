"""The tables of ``torch.overrides``: which functions dispatch on ``__torch_function__``, which
do not, dummy implementations with their signatures, and their torch names."""

import collections
import functools
import importlib
import inspect
import types

from . import _torch_function as _tf
from ._tensor import Tensor

# numtorch's module -> the torch module name it stands for
_TORCH_MODULE = {"numtorch": "torch", "numtorch.nn.functional": "torch.nn.functional",
                 "numtorch.linalg": "torch.linalg", "numtorch.fft": "torch.fft",
                 "numtorch.special": "torch.special"}


def _inner(f):
    return getattr(f, "__wrapped__", f)


def _public(module):
    for name, value in vars(module).items():
        if not name.startswith("_") and isinstance(value, types.FunctionType) and \
                getattr(value, "__module__", "").startswith("numtorch"):
            yield name, value


def _modules():
    return [importlib.import_module(m) for m in _tf._MODULES]


def get_ignored_functions():
    """The public functions and Tensor methods that never reach ``__torch_function__``."""
    ignored = set()
    for module in _modules():
        for name, value in _public(module):
            if name in _tf._KEEP_FUNCTIONS:
                ignored.add(value)
    methods = set(_tf._tensor_method_names())
    for name, value in vars(Tensor).items():
        if isinstance(value, types.FunctionType) and name not in methods:
            ignored.add(value)
    return ignored


def get_overridable_functions():
    """{namespace: [functions]}: the functions that dispatch, by the module (or ``Tensor``)
    that holds them."""
    table = collections.defaultdict(list)
    for module in _modules():
        table[module] = [v for n, v in _public(module) if n not in _tf._KEEP_FUNCTIONS]
    methods = []
    for name in _tf._tensor_method_names():
        value = inspect.getattr_static(Tensor, name, None)
        for klass in Tensor.__mro__:
            if name in vars(klass):
                value = vars(klass)[name]
                break
        methods.append(value.__get__ if isinstance(value, property) else value)
    table[Tensor] = methods
    return table


def _dummy(fn):
    def dummy(*args, **kwargs):
        return -1

    try:
        dummy.__signature__ = inspect.signature(fn)
    except (TypeError, ValueError):
        pass
    dummy.__name__ = getattr(fn, "__name__", "dummy")
    return dummy


def get_testing_overrides():
    """{function: a dummy taking the same arguments and returning -1}, for every function
    that dispatches (a library checks its ``__torch_function__`` covers them)."""
    return {fn: _dummy(fn) for fns in get_overridable_functions().values() for fn in fns}


def resolve_name(f):
    """torch's name of ``f`` (``'torch.add'``, ``'torch.Tensor.add'``), or None."""
    target = _inner(f)
    for klass in Tensor.__mro__:
        for name, value in vars(klass).items():
            if isinstance(value, property):
                if getattr(f, "__self__", None) is value or (value.fget is not None and
                                          _inner(value.fget) is target):
                    return f"torch.Tensor.{name}.__get__"
            elif value is f or (callable(value) and _inner(value) is target):
                return f"torch.Tensor.{name}"
    for module in _modules():
        for name, value in vars(module).items():
            if not name.startswith("_") and (value is f or _inner(value) is target):
                return f"{_TORCH_MODULE[module.__name__]}.{name}"
    return None


def is_tensor_method_or_property(func):
    """Whether ``func`` is a Tensor method or the getter of a Tensor property."""
    name = getattr(func, "__name__", None)
    if name == "__get__":
        return True
    return name is not None and getattr(Tensor, name, None) is not None and \
        _inner(getattr(Tensor, name)) is _inner(func)


def wrap_torch_function(dispatcher):
    """Decorate a function so that the arguments ``dispatcher(*args, **kwargs)`` names take
    part in ``__torch_function__`` dispatch, as numtorch's own functions do."""
    from .overrides import handle_torch_function, has_torch_function

    def decorate(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = tuple(dispatcher(*args, **kwargs))
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return decorate
