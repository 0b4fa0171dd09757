"""``torch.overrides``: the ``__torch_function__`` protocol helpers that libraries call to
let tensor-like objects override a function.

numtorch's public functions and Tensor methods dispatch on it once a program defines a Tensor
subclass (numtorch/_torch_function.py); these helpers let a function written in Python (a
library's, or a user's) do the same, exactly as in torch: collect the arguments whose type
takes part, subclasses before their bases, and call them until one does not return
``NotImplemented``.
"""

from ._function_mode import (  # noqa: F401  (torch.overrides' mode API)
    BaseTorchFunctionMode, TorchFunctionMode, _get_current_function_mode,
    _get_current_function_mode_stack, _is_torch_function_mode_enabled,
    _len_torch_function_stack, _pop_mode, _pop_mode_temporarily, _push_mode,
)
from ._overrides_tables import (  # noqa: F401  (torch.overrides' tables)
    get_ignored_functions, get_overridable_functions, get_testing_overrides,
    is_tensor_method_or_property, resolve_name, wrap_torch_function,
)
from ._tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "TorchFunctionMode",
           "BaseTorchFunctionMode", "get_ignored_functions", "get_overridable_functions",
           "get_testing_overrides", "resolve_name", "is_tensor_method_or_property",
           "wrap_torch_function"]


def _overrides(obj):
    """True if ``obj``'s type takes part in ``__torch_function__`` dispatch: it defines one,
    is not the plain Tensor, and is not a type with the disabled implementation (Parameter)."""
    from ._torch_function import _takes_part

    return _takes_part(obj)


def has_torch_function(relevant_args):
    """True if any object in ``relevant_args`` overrides functions via
    ``__torch_function__``."""
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(obj):
    """:func:`has_torch_function` for one argument."""
    return _overrides(obj)


def has_torch_function_variadic(*args):
    """:func:`has_torch_function` for the arguments given one by one."""
    return any(_overrides(a) for a in args)


def _overloaded_args(relevant_args):
    """One argument per overriding type, subclasses placed before their base classes."""
    types, args = [], []
    for arg in relevant_args:
        t = type(arg)
        if not _overrides(arg) or t in types:
            continue
        index = len(args)
        for i, other in enumerate(types):
            if issubclass(t, other):
                index = i
                break
        types.insert(index, t)
        args.insert(index, arg)
    return args


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the ``__torch_function__`` overrides of ``relevant_args`` for ``public_api``
    with ``args``/``kwargs``; the first result other than ``NotImplemented`` is returned.

    Raises:
        TypeError: when every override returns ``NotImplemented``.
    """
    from ._torch_function import _dispatch

    name = getattr(public_api, "__module__", "") + "." + getattr(public_api, "__name__", "")
    return _dispatch(public_api, name.lstrip("."), True, relevant_args, args, kwargs)


def is_tensor_like(inp):
    """True for a Tensor (or subclass) and for any object whose type defines
    ``__torch_function__``."""
    return isinstance(inp, Tensor) or getattr(type(inp), "__torch_function__", None) is not None
