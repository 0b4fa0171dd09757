"""``nn.Module``'s walks over the module tree: parameters, buffers, children and descendants by
name (each shared object once unless asked otherwise, as torch), dotted-path lookups
(``get_submodule``/``set_submodule``/``get_parameter``/``get_buffer``) and ``apply``.

A base class of ``Module`` (module.py), which owns the ``_parameters``/``_buffers``/``_modules``
tables these methods read.
"""

from ..parameter import Parameter


class _TreeMixin:
    """Traversal methods of ``nn.Module`` (only ``Module`` derives from this class, so
    ``isinstance(x, _TreeMixin)`` is ``isinstance(x, Module)`` here without importing it)."""

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

    def modules(self, remove_duplicate=True):
        """Yield this module and all descendants (a module reachable by several paths once,
        unless ``remove_duplicate`` is False)."""
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def _walk(self, target):
        mod = self
        for item in target.split(".") if target else ():
            if item not in mod._modules:
                if not hasattr(mod, item):
                    raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
                raise AttributeError(f"`{item}` is not an nn.Module")
            mod = mod._modules[item]
            if not isinstance(mod, _TreeMixin):
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
        if not isinstance(module, _TreeMixin):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self._walk(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), _TreeMixin):
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
