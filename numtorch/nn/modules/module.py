"""``nn.Module``: parameters, buffers and submodules registered by attribute assignment.

Registration follows torch (``_parameters``, ``_buffers``, ``_modules`` dicts filled by a
routing ``__setattr__``), so ``state_dict`` keys and ``named_parameters`` order match torch
and real torch state dicts load. Hook tables and the hooked call live in ``_hooks.py``, the
state-dict methods in ``_state_dict.py`` (a base class of Module).
"""

from collections import OrderedDict

from ... import _dtype
from ..._device import as_device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter
from . import _hooks
from ._state_dict import _IncompatibleKeys, _StateDictMixin  # noqa: F401 (torch's path)
from ._hooks import (  # noqa: F401  (public re-exports, as in torch.nn.modules.module)
    RemovableHandle, register_module_backward_hook, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook,
)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]


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


class Module(_StateDictMixin):
    """Base class of every layer and model; subclasses set attributes and define ``forward``.

    Assigning a :class:`Parameter`, a Module or a :class:`Buffer` to an attribute registers
    it, so it appears in ``parameters()``, ``state_dict()`` and is moved by ``to()``.

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

    # -- traversal ---------------------------------------------------------------------------
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for k, v in get_members(mod):
                if v is None or id(v) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield (mod_prefix + "." + k if mod_prefix else k), v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(name, parameter)``; a parameter shared by several modules comes once.

        Args:
            prefix (str): prepended to every name.
            recurse (bool): include submodules' parameters. Default: True.
            remove_duplicate (bool): list a shared parameter only once. Default: True.
        """
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse=True):
        """Yield every parameter (each once)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(name, buffer)``, each buffer once."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse=True):
        """Yield every buffer."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        """Yield ``(name, module)`` for the direct children (each module once)."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        """Yield the direct child modules."""
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yield ``(name, module)`` for this module and all descendants, depth first.

        Args:
            memo (set, optional): modules already yielded (skipped again).
            prefix (str): prepended to every name.
            remove_duplicate (bool): yield a module reachable by several paths once.
        """
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + "." + name if prefix else name,
                                           remove_duplicate)

    def modules(self):
        """Yield this module and all descendants."""
        for _, m in self.named_modules():
            yield m

    def _walk(self, target):
        mod = self
        for item in target.split(".") if target else ():
            if item not in mod._modules:
                if not hasattr(mod, item):
                    raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
                raise AttributeError(f"`{item}` is not an nn.Module")
            mod = mod._modules[item]
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_submodule(self, target):
        """Return the submodule at dotted path ``target`` (``''`` is self).

        Example:
            >>> net = torch.nn.Sequential(torch.nn.Sequential(torch.nn.Identity()))
            >>> net.get_submodule("0.0")
            Identity()
        """
        return self._walk(target)

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at dotted path ``target``; with ``strict`` the path must exist."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self._walk(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """Return the parameter at dotted path ``target``."""
        mod_path, _, name = target.rpartition(".")
        mod = self._walk(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        """Return the buffer at dotted path ``target``."""
        mod_path, _, name = target.rpartition(".")
        mod = self._walk(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first, depth first) and then on self.

        Example:
            >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2))
            >>> _ = net.apply(lambda m: print(type(m).__name__))
            Linear
            Sequential
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- modes and conversion -----------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (dropout, batch norm...) here and below; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Set evaluation mode; the same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (default) or to zeros in place."""
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def _apply(self, fn, recurse=True):
        """Apply ``fn`` to every parameter, gradient and buffer, keeping parameter objects
        (optimizers hold them)."""
        if recurse:
            for m in self.children():
                m._apply(fn)
        for p in self._parameters.values():
            if p is None:
                continue
            with no_grad():
                p._array = fn(p)._array
                if p._grad is not None:
                    p._grad._array = fn(p._grad)._array
        for key, b in self._buffers.items():
            if b is not None:
                self._buffers[key] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers; returns self.

        Accepts ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` and the
        keywords ``device``, ``dtype``, ``non_blocking``, ``memory_format``. Only floating
        point and complex tensors change dtype, as in torch.

        Example:
            >>> torch.nn.Linear(2, 2).to(torch.float64).weight.dtype
            torch.float64
        """
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments - got "
                            f"unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, bool) or a is None:
                continue  # the positional non_blocking flag
            else:
                device = a
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        device = as_device(device) if device is not None else None

        def convert(t):
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(device=device, dtype=dtype)
            return t.to(device=device) if device is not None else t

        return self._apply(convert)

    def cpu(self):
        """Move every parameter and buffer to the CPU; returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Move every parameter and buffer to a CUDA device (needs CuPy and a GPU)."""
        return self._apply(lambda t: t.cuda(device))

    def float(self):
        """Cast floating point parameters and buffers to float32; returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating point parameters and buffers to float64; returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating point parameters and buffers to float16; returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type):
        """Cast every parameter and buffer (integers too) to ``dst_type``; returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse=True):
        """Move to ``device`` with fresh uninitialised storage of the same shapes."""
        from ..._creation import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        """Move the storage of parameters and buffers to shared memory; returns self."""
        # Tensor.share_memory_ comes with numtorch.multiprocessing; without it a tensor is only
        # ever used by this process, where its memory is already shared by all threads
        return self._apply(lambda t: t.share_memory_() if hasattr(t, "share_memory_") else t)

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
