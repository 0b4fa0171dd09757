"""The ``torch.ops`` tree: ``torch.ops.<namespace>.<op>[.<overload>](...)``.

Why the tree lives on the ``numtorch.ops`` package itself: numtorch's primitives are the
package ``numtorch.ops``, which its own code reaches both by import (``from .ops import x``)
and by attribute (``numtorch.ops.add``, ``from .. import ops``, on hot paths). Replacing the
attribute would break or slow those; a second name would break ``torch.ops`` in user code.
So :func:`install` gives the package a module subclass whose ``__getattr__`` (consulted only
for names the package does not define) answers namespaces as torch does: a registered or
builtin namespace (``aten``, ``mylib``, ...) or, for any other name, a new empty one.
Namespaces that numtorch already implements as modules (``quantized``, ``profiler``) are the
package's own submodules and keep working as before.
"""

import importlib
import importlib.util
import types

_NAMESPACES = {}  # "ns" -> _OpNamespace


class OpOverload:
    """One overload of an operator (``torch.ops.aten.add.Tensor``): a schema and the
    callable that runs it.

    Attributes:
        _schema (FunctionSchema); overloadpacket (OpOverloadPacket); namespace (str);
        _overloadname (str): ``"default"`` for the overload without a name.
    """

    def __init__(self, packet, schema, run, numbers_as_tensors=False):
        self.overloadpacket, self._schema, self._run = packet, schema, run
        self._overloadpacket = packet  # (the name dispatch modes read)
        self._numbers_as_tensors = numbers_as_tensors
        self._overloadname = schema.overload_name or "default"
        self.namespace = packet._namespace
        self.__name__ = f"{packet.__name__}.{self._overloadname}"
        self.__qualname__ = self._overloadname
        self.__module__ = f"torch._ops.{self.namespace}"

    def name(self):
        """``"ns::op.overload"`` (``"ns::op"`` for the default overload)."""
        s = self._schema
        return f"{s.name}.{s.overload_name}" if s.overload_name else s.name

    @property
    def op(self):
        return self

    def __repr__(self):
        return (f"<OpOverload(op='{self.namespace}.{self.overloadpacket.__name__}', "
                f"overload='{self._overloadname}')>")

    def __str__(self):
        return f"{self.namespace}.{self.__name__}"

    def __hash__(self):
        return id(self)

    def __deepcopy__(self, memo):
        return self  # one object per operator (dicts keyed by operators survive copies)

    def __call__(self, /, *args, **kwargs):
        given = self._schema.bind(args, kwargs, self._numbers_as_tensors)
        return self._run(self._schema, given)


class OpOverloadPacket:
    """All overloads of one operator (``torch.ops.aten.add``); calling it runs the first
    overload whose schema accepts the arguments."""

    def __init__(self, namespace, name):
        self._namespace, self.__name__ = namespace, name
        self._qualified_op_name = f"{namespace}::{name}"
        self._overloads = {}  # overload name ("default" for "") -> OpOverload
        self.__module__ = f"torch._ops.{namespace}"

    def _add(self, schema, run, numbers_as_tensors=False):
        overload = OpOverload(self, schema, run, numbers_as_tensors)
        self._overloads[overload._overloadname] = overload
        return overload

    def overloads(self):
        """The overload names, ``"default"`` for the unnamed one."""
        return list(self._overloads)

    @property
    def op(self):
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._overloads[name]
        except KeyError:
            raise AttributeError(f"The underlying op of '{self._namespace}.{self.__name__}' "
                                 f"has no overload name '{name}'") from None

    def __dir__(self):
        return list(super().__dir__()) + list(self._overloads)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self.__name__}')>"

    def __str__(self):
        return f"{self._namespace}.{self.__name__}"

    def __hash__(self):
        return id(self)

    def __deepcopy__(self, memo):
        return self  # one object per operator (dicts keyed by operators survive copies)

    def __call__(self, /, *args, **kwargs):
        overloads = list(self._overloads.values())
        if len(overloads) == 1:
            return overloads[0](*args, **kwargs)
        errors = []
        for overload in overloads:
            try:
                given = overload._schema.bind(args, kwargs, overload._numbers_as_tensors)
            except RuntimeError as e:
                errors.append(str(e))
                continue
            return overload._run(overload._schema, given)
        raise RuntimeError("Overloaded torch operator invoked from Python failed to match any "
                           "schema:\n" + "".join(e + "\n\n" for e in errors))


class _OpNamespace(types.ModuleType):
    """``torch.ops.<ns>``: its operators as attributes."""

    def __init__(self, name):
        super().__init__(f"torch.ops.{name}")
        self.name = name
        self._packets = {}
        self.__file__ = "torch.ops"

    def _packet(self, opname):
        packet = self._packets.get(opname)
        if packet is None:
            packet = self._packets[opname] = OpOverloadPacket(self.name, opname)
        return packet

    def __getattr__(self, opname):
        if opname.startswith("__"):
            raise AttributeError(opname)
        try:
            return self._packets[opname]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{opname}'") from None

    def __iter__(self):
        return iter(self._packets)

    def __dir__(self):
        return list(super().__dir__()) + list(self._packets)


def namespace(name):
    """The namespace ``name``, made empty on first use (as ``torch.ops.<any name>`` does)."""
    ns = _NAMESPACES.get(name)
    if ns is None:
        ns = _NAMESPACES[name] = _OpNamespace(name)
        if name == "aten":
            from . import _ops_aten

            _ops_aten.populate(ns)
    return ns


def find(qualname):
    """The OpOverload of ``"ns::op"`` or ``"ns::op.overload"``, or None."""
    ns, _, rest = qualname.partition("::")
    op, _, overload = rest.partition(".")
    space = _NAMESPACES.get(ns)
    packet = space._packets.get(op) if space is not None else None
    if packet is None:
        return None
    return packet._overloads.get(overload or "default")


class _OpsPackage(types.ModuleType):
    """The class of the ``numtorch.ops`` package: names it lacks are operator namespaces."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(f"module 'torch.ops' has no attribute '{name}'")
        # a submodule not imported yet stays a submodule (``numtorch.ops._intraop`` reached
        # by attribute, as monkeypatch and ``import a.b.c as d`` do)
        import importlib.util

        if name not in _NAMESPACES and importlib.util.find_spec(
                f"{self.__name__}.{name}") is not None:
            return importlib.import_module(f"{self.__name__}.{name}")
        return namespace(name)


def load_library(path):
    """``torch.ops.load_library``: load the shared library at ``path`` into the process
    (its static initialisers run, as torch's do; C++ operators written against libtorch
    cannot register with numtorch, so they fail to load or stay absent from the tree)."""
    import ctypes
    import os

    path = os.path.realpath(path)
    try:
        ctypes.CDLL(path)
    except OSError as e:
        raise OSError(f"Could not load this library: {path}") from e
    _LOADED.add(path)


def import_module(module):
    """``torch.ops.import_module``: import the Python module that registers operators
    (returns None, as torch's does)."""
    importlib.import_module(module)


_LOADED = set()


def install(package):
    """Make ``package`` (numtorch.ops) answer ``torch.ops.<namespace>``, with torch.ops's
    ``load_library``, ``import_module`` and ``loaded_libraries``."""
    package.__class__ = _OpsPackage
    package.load_library, package.import_module = load_library, import_module
    package.loaded_libraries = _LOADED
