"""``nn.Module``: parameters, buffers and submodules registered by attribute assignment.

Registration follows torch (``_parameters``, ``_buffers``, ``_modules`` dicts filled by a
routing ``__setattr__``), so ``state_dict`` keys and ``named_parameters`` order match torch
and real torch state dicts load. This file holds construction, registration, the call and its
hook registration, printing and pickling. The rest of Module comes from base classes, one
concept each: tree walks and dotted-path lookups (``_module_tree.py``), modes and
device/dtype conversion (``_module_convert.py``), state dicts (``_state_dict.py``); hook
tables and the hooked call live in ``_hooks.py``.
"""

from collections import OrderedDict
from typing import TypeVar as _TypeVar

from ..._tensor import Tensor
from ..parameter import Buffer, Parameter
from . import _hooks
from ._hooks import (  # noqa: F401  (public re-exports, as in torch.nn.modules.module)
    RemovableHandle,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from ._module_convert import _ConversionMixin
from ._module_tree import _TreeMixin
from ._state_dict import _EXTRA_STATE as _EXTRA_STATE_KEY_SUFFIX  # noqa: F401 (torch's name)
from ._state_dict import _IncompatibleKeys, _StateDictMixin  # noqa: F401 (torch's path)

__all__ = [
    "Module",
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]


def _addindent(text, spaces):
    """Indent every line but the first (for nested module reprs)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _typename(obj):
    """How torch names a value's type in messages (``torch.FloatTensor``, ``int``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    mod = cls.__module__
    return cls.__qualname__ if mod in (None, "builtins") else f"{mod}.{cls.__qualname__}"


def _forward_unimplemented(self, *input):
    """The placeholder ``forward``: subclasses must define their own."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              f'"forward" function')


class Module(_TreeMixin, _ConversionMixin, _StateDictMixin):
    """Base class of every layer and model; subclasses set attributes and define ``forward``.

    Assigning a :class:`Parameter`, a Module or a :class:`Buffer` to an attribute registers
    it, so it appears in ``parameters()``, ``state_dict()`` and is moved by ``to()``.

    Attributes:
        training (bool): whether the module is in training mode (``train()``/``eval()``).
        dump_patches (bool): a class flag of the 0.x serializer that wrote source diffs of
            changed module classes; kept for old code, it has no effect.

    Example:
        >>> class Net(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = torch.nn.Linear(3, 2)
        ...     def forward(self, x):
        ...         return self.fc(x).relu()
        >>> [name for name, _ in Net().named_parameters()]
        ['fc.weight', 'fc.bias']
    """

    training: bool
    _version = 1
    call_super_init = False
    dump_patches = False
    T_destination = _TypeVar("T_destination", bound=dict)  # a class attribute in torch too

    def __init__(self, *args, **kwargs):
        if not self.call_super_init:
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                                f"argument '{next(iter(kwargs))}'")
            if args:
                raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                                f"but {len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # -- registration ------------------------------------------------------------------------
    def _check_name(self, name, kind, table):
        if table not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in self.__dict__[table]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (e.g. running statistics).

        Args:
            name (str): attribute name.
            tensor (Tensor or None): the buffer (None: registered but left out of state_dict).
            persistent (bool): whether it appears in ``state_dict``. Default: True.

        Example:
            >>> m = torch.nn.Module()
            >>> m.register_buffer("running_mean", torch.zeros(3))
            >>> list(m.state_dict())
            ['running_mean']
        """
        self._check_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        tensor = _hooks.run_registration_hooks("buffer", self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a :class:`Parameter` or None) under ``name``."""
        self._check_name(name, "parameter", "_parameters")
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{_typename(param)}' object to parameter "
                                f"'{name}' (torch.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                                 f"parameters must be created explicitly. To express '{name}' "
                                 "as a function of another Tensor, compute the value in the "
                                 "forward() method.")
        self._parameters[name] = _hooks.run_registration_hooks("parameter", self, name, param)

    def add_module(self, name, module):
        """Add a child module (or None) under ``name``; ``register_module`` is the same."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if "_modules" not in self.__dict__:
            raise AttributeError("cannot assign module before Module.__init__() call")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = _hooks.run_registration_hooks("module", self, name, module)

    def register_module(self, name, module):
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, d["_buffers"], d["_modules"], d["_non_persistent_buffers_set"])
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(name, d, params, d["_buffers"], d["_non_persistent_buffers_set"])
            modules[name] = _hooks.run_registration_hooks("module", self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _hooks.run_registration_hooks("module", self, name, value)
            return
        buffers = d.get("_buffers")
        is_buffer = isinstance(value, Buffer)
        if is_buffer or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if is_buffer:
                persistent = value._extra["buffer_persistent"]
                _remove_from(name, d, params, modules)
            else:
                persistent = name not in d["_non_persistent_buffers_set"]
            self.register_buffer(name, value, persistent)
            return
        # a plain list/dict of Modules is stored as is, silently, as torch does (its contents
        # then miss parameters(), state_dict() and .to())
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # only called when normal lookup failed, so plain attributes cost nothing here
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            t = d.get(table)
            if t is not None and name in t:
                return t[name]
        if isinstance(getattr(type(self), name, None), property):
            # the property exists, so it was its getter that raised AttributeError
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}' "
                                 f"(the property '{name}' raised AttributeError while being "
                                 "computed)") from None
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = dir(type(self)) + list(self.__dict__) + list(self._parameters) + \
            list(self._modules) + list(self._buffers)
        return sorted(k for k in keys if not k[0].isdigit())

    # -- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _hooks.any_global_hooks()):
            return self.forward(*args, **kwargs)
        return _hooks.call_with_hooks(self, args, kwargs)

    _call_impl = __call__

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Run ``hook(module, args)`` before ``forward``; a non-None result replaces ``args``.

        With ``with_kwargs=True`` it is ``hook(module, args, kwargs)`` and may return a new
        ``(args, kwargs)`` pair.

        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.
        """
        extra = [self._forward_pre_hooks_with_kwargs] if with_kwargs else []
        h = _hooks.add_hook(self._forward_pre_hooks, hook, prepend, extra)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Run ``hook(module, args, output)`` after ``forward``; a non-None result replaces
        the output. ``always_call=True`` runs it even when ``forward`` raised."""
        extra = [self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
        h = _hooks.add_hook(self._forward_hooks, hook, prepend, extra)
        if with_kwargs:
            self._forward_hooks_with_kwargs[h.id] = True
        if always_call:
            self._forward_hooks_always_called[h.id] = True
        return h

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_output)`` when gradients w.r.t. the outputs are ready; a
        non-None result replaces them."""
        return _hooks.add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_input, grad_output)`` once the gradients w.r.t. the
        module's inputs are computed; a non-None result replaces ``grad_input``.

        ``grad_input`` has one entry per positional argument (None for non-tensors and for
        inputs that do not require grad).
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return _hooks.add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated 0.x hook on the grad_fn of the module's output.

        ``hook(module, grad_input, grad_output)`` sees the gradients of that single last
        autograd node's inputs, which is only the module's input gradient for one-op modules;
        use :meth:`register_full_backward_hook` instead.
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        return _hooks.add_hook(self._backward_hooks, hook, False)

    # -- printing ----------------------------------------------------------------------------
    def extra_repr(self):
        """Extra text shown inside this module's repr (subclasses override)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(m), 2) for key, m in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        # modules pickled by older versions may lack newer tables
        for k in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                  "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                  "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
                  "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                  "_load_state_dict_post_hooks"):
            self.__dict__.setdefault(k, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)


def _remove_from(name, d, *tables):
    d.pop(name, None)
    for t in tables:
        if t is not None:
            t.discard(name) if isinstance(t, set) else t.pop(name, None)
