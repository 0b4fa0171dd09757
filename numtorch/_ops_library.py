"""``torch.library.Library``, ``define`` and ``impl``: operators declared by a schema string
and given kernels per dispatch key, reachable as ``torch.ops.<ns>.<op>[.<overload>]``.

A defined operator runs the kernel of its inputs' device (``CPU``/``CUDA`` keys), else a
composite kernel. Without a registered autograd formula the kernel runs with autograd on, so
its own tensor ops are recorded (what torch's fallthrough to a composite or backend kernel
gives); with one (``torch.library.register_autograd``) the call is one autograd node.
"""

import sys
import weakref

from . import _ops_tree
from ._ops_schema import FunctionSchema
from ._tensor import Tensor
from .autograd.function import Function
from .autograd.grad_mode import is_grad_enabled, no_grad

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEF_NAMESPACES = {}  # namespace -> where its "DEF" library was made
_COMPOSITE = ("compositeimplicitautograd", "compositeexplicitautograd", "default", "")
_MISSING = object()


def _caller():
    """``file:line`` of the user code that registers (torch's "registered at")."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(
            "numtorch."):
        frame = frame.f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _tensors(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


class DefinedOp:
    """The kernels, fake implementation and autograd formula of one defined overload."""

    def __init__(self, schema):
        self.schema = schema
        self.kernels = {}  # "cpu" / "cuda" / "composite" / "meta" -> function
        self.backward = self.setup_context = None
        self._function = None

    def set_kernel(self, key, fn):
        """Register ``fn`` for a dispatch key (``"CPU"``, ``"cuda"``, ``"Meta"``,
        ``"CompositeImplicitAutograd"``, ...)."""
        key = key.lower()
        self.kernels["composite" if key in _COMPOSITE else key] = fn

    def _kernel(self, values):
        device = next((t.device.type for t in _tensors(values)), "cpu")
        fn = self.kernels.get(device) or self.kernels.get("composite")
        if fn is None:
            raise NotImplementedError(
                f"Could not run '{self.schema.name}' with arguments from the "
                f"'{device.upper()}' backend. This could be because the operator doesn't "
                f"exist for this backend, or was omitted during the selective/custom build "
                f"process (if using custom build). If you are a Facebook employee using "
                f"PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
                f"resolutions. '{self.schema.name}' is only available for these backends: "
                f"[{', '.join(k.capitalize() for k in sorted(self.kernels))}].")
        return fn

    def _call_kernel(self, given):
        """The kernel called as the dispatcher calls a Python kernel: positional parameters
        up to the last one given, keyword-only ones by name, omitted ones left out."""
        args = self.schema.arguments
        positional = [a for a in args if not a.kwarg_only]
        last = max((i for i, a in enumerate(positional) if a.name in given), default=-1)
        pos = [given.get(a.name, _MISSING) for a in positional[:last + 1]]
        if _MISSING in pos:  # a gap: the schema's default fills it
            from ._ops_aten import _default

            pos = [_default(a.default) if v is _MISSING else v
                   for a, v in zip(positional, pos)]
        kws = {a.name: given[a.name] for a in args if a.kwarg_only and a.name in given}
        return self._kernel(list(given.values()))(*pos, **kws)

    def run(self, schema, given):
        """Run the operator on the bound values ``given``."""
        if self.backward is None or not is_grad_enabled() or not any(
                t.requires_grad for t in _tensors(given.values())):
            return self._call_kernel(given)
        names = list(given)
        return self._autograd_function().apply(names, *given.values())

    def _autograd_function(self):
        if self._function is None:
            op = self

            def forward(ctx, names, *values):
                given = dict(zip(names, values))
                with no_grad():
                    out = op._call_kernel(given)
                if op.setup_context is not None:
                    op.setup_context(ctx, tuple(values), out)
                return out

            def backward(ctx, *grads):
                got = op.backward(ctx, *grads)
                return (None,) + (got if isinstance(got, tuple) else (got,))

            ns, _, name = self.schema.name.partition("::")
            overload = self.schema.overload_name or "default"
            self._function = type(f"GeneratedBackwardFor_{ns}_{name}_{overload}",
                                  (Function,), {"forward": staticmethod(forward),
                                                "backward": staticmethod(backward)})
        return self._function


_DEFINED = {}  # "ns::op.overload" (overload "default" for "") -> DefinedOp
_PENDING = {}  # kernels registered before their operator is defined


def _key(qualname):
    name, _, overload = qualname.partition(".")
    return f"{name}.{overload or 'default'}"


def defined(qualname):
    """The DefinedOp of ``"ns::op[.overload]"``, or None."""
    return _DEFINED.get(_key(qualname))


class Library:
    """A set of operator registrations in one namespace.

    Args:
        ns (str): the namespace (``torch.ops.<ns>``).
        kind (str): ``"DEF"`` (the one library that defines the namespace), ``"FRAGMENT"``
            (more definitions for it) or ``"IMPL"`` (kernels only).
        dispatch_key (str): the default key of :meth:`impl`.

    Its registrations are removed when it is garbage collected or :meth:`_destroy` ed.
    """

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        where = _caller() if kind == "DEF" else None
        if kind == "DEF":
            if ns in _DEF_NAMESPACES:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    f"please put all of your definitions in a single TORCH_LIBRARY block.  If "
                    f"you were trying to specify implementations, consider using "
                    f"TORCH_LIBRARY_IMPL (which can be duplicated).  If you really intended to "
                    f"define operators for a single namespace in a distributed way, you can "
                    f"use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous "
                    f"registration of TORCH_LIBRARY was registered at {_DEF_NAMESPACES[ns]}; "
                    f"latest registration was registered at {where}")
            _DEF_NAMESPACES[ns] = where
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._op_defs = []
        self._kernels = []
        weakref.finalize(self, _unregister, ns, kind == "DEF", self._op_defs, self._kernels)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declare an operator from ``schema`` (``"name[.overload](...) -> ..."``); returns
        its name."""
        parsed = FunctionSchema.parse(schema, self.ns)
        key = _key(f"{parsed.name}.{parsed.overload_name}")
        if key in _DEFINED:
            raise RuntimeError(
                f"Tried to register an operator ({parsed}) with the same name and overload "
                f"name multiple times. Each overload's schema should only be registered with "
                f"a single call to def(). Duplicate registration: registered at {_caller()}. "
                f"Original registration: registered at {_DEFINED[key].where}")
        op = DefinedOp(parsed)
        op.where = _caller()
        _DEFINED[key] = op
        for dispatch_key, fn in _PENDING.pop(key, ()):
            op.set_kernel(dispatch_key, fn)
        opname = parsed.name.partition("::")[2]
        _ops_tree.namespace(parsed.name.partition("::")[0])._packet(opname)._add(parsed, op.run)
        self._op_defs.append(key)
        return opname

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Register ``fn`` as the kernel of ``op_name`` (``"op[.overload]"`` in this
        namespace, or an OpOverload) for ``dispatch_key``."""
        if not isinstance(op_name, str):
            op_name = op_name.name() if hasattr(op_name, "name") else op_name._qualified_op_name
        qualname = op_name if "::" in op_name else f"{self.ns}::{op_name}"
        key = _key(qualname)
        dispatch_key = dispatch_key or self.dispatch_key
        op = _DEFINED.get(key)
        if op is None:
            _PENDING.setdefault(key, []).append((dispatch_key, fn))
        else:
            op.set_kernel(dispatch_key, fn)
        self._kernels.append((key, dispatch_key))

    def _destroy(self):
        _unregister(self.ns, self.kind == "DEF", self._op_defs, self._kernels)


def _unregister(ns, was_def, op_defs, kernels):
    for key in op_defs:
        op = _DEFINED.pop(key, None)
        if op is not None:
            name, _, overload = key.partition(".")
            space = _ops_tree.namespace(ns)
            packet = space._packets.get(name.partition("::")[2])
            if packet is not None:
                packet._overloads.pop(overload, None)
                if not packet._overloads:
                    del space._packets[packet.__name__]
    for key, _ in kernels:
        _PENDING.pop(key, None)
    op_defs.clear()
    if was_def:
        _DEF_NAMESPACES.pop(ns, None)


_LIBRARIES = []  # the libraries define() and impl() make, kept alive as torch keeps them


def _split_qualname(qualname):
    if "::" not in qualname:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got '
                         f'{qualname}. The qualname passed to the torch.library APIs must '
                         f'consist of a namespace and a name, e.g. aten::sin')
    return qualname.split("::", 1)


def define(qualname, schema, *, lib=None, tags=()):
    """Declare the operator ``qualname`` (``"ns::op"``) with ``schema``
    (``"(Tensor x) -> Tensor"``)."""
    ns, name = _split_qualname(qualname)
    if not schema.lstrip().startswith("("):
        raise ValueError(f'define(qualname, schema, ...): expected schema to look like e.g. '
                         f'"(Tensor x) -> Tensor" but got "{schema}"')
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _LIBRARIES.append(lib)
    lib.define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Register ``func`` as the kernel of ``qualname`` for the device ``types`` (a string or
    a sequence; ``"default"`` for all); usable as a decorator. The older form
    ``impl(lib, name, dispatch_key)`` registers through the Library ``lib``."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func or ""

        def register_on(f):
            library.impl(name, f, key)
            return f

        return register_on
    ns, name = _split_qualname(qualname)
    keys = [types] if isinstance(types, str) else list(types)

    def register(f):
        target = lib
        if target is None:
            target = Library(ns, "FRAGMENT")
            _LIBRARIES.append(target)
        for key in keys:
            target.impl(name, f, "CompositeExplicitAutograd" if key == "default" else key)
        return f

    return register if func is None else register(func)
