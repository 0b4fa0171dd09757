"""Python source for a ``Graph``: the ``forward`` that ``GraphModule.code`` shows and runs.

The text reads as torch's generated code (``torch.relu(x)``, ``x + y``, ``self.layer1.conv``,
``;  x = None`` after a value's last use). Names of torch functions are printed as torch prints
them, and the ``torch`` global the code runs with resolves those dotted names to numtorch's
functions, including torch's private paths such as ``torch._C._nn.linear``.
"""

import builtins
import enum
import keyword
import math
import operator
import types
import typing

from ._names import Namespace, qualified_name, snake_case, torch_name_of
from .node import Node, _type_repr, magic_methods, unary_methods

__all__ = ["PythonCode", "generate"]

# functions that fx.wrap() made into graph leaves: their call lines re-register them on exec
wrapped_functions = {}  # id(fn) -> fn


class PythonCode:
    """Generated source (``src``) and the globals it must be executed with (``globals``)."""

    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_


class _TorchNames:
    """The ``torch`` global of generated code: ``torch.a.b`` resolves torch's printed names."""

    def __init__(self, path="torch"):
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        path = f"{self._path}.{name}"
        value = _resolve(path)
        if value is None:
            value = _TorchNames(path)
        object.__setattr__(self, name, value)  # later lookups are plain attribute hits
        return value

    def __repr__(self):
        return f"<torch names {self._path}>"


_by_torch_name = None


def _resolve(path):
    global _by_torch_name
    import numtorch

    from . import _names

    if _by_torch_name is None:
        _names.torch_name_of(None)  # builds the table
        # generated code calls the originals, not the proxy-recording wrappers
        _by_torch_name = {name: fn for name, fn in _names._table.values()
                          if not hasattr(fn, "__fx_original__")}
    if path in _by_torch_name:
        return _by_torch_name[path]
    if any(name.startswith(path + ".") for name in _by_torch_name):
        return None  # a prefix of printed names (torch._C._nn): resolved a level further down
    value = numtorch
    for part in path.split(".")[1:]:
        try:
            value = getattr(value, part)
        except AttributeError:
            return None
    return value


def _is_identifier(s):
    return s.isidentifier() and not keyword.iskeyword(s)


# a typing form's origin named by its typing alias, as torch's generated code names it
_TYPING_ORIGINS = {list: typing.List, dict: typing.Dict, tuple: typing.Tuple,  # noqa: UP006
                   set: typing.Set, frozenset: typing.FrozenSet}  # noqa: UP006


class _Emitter:
    def __init__(self, graph):
        self.graph = graph
        self.namespace = Namespace()
        for node in graph.nodes:
            self.namespace.create_name(node.name, None)
        self.globals = {"inf": math.inf, "nan": math.nan, "NoneType": type(None)}
        self.wrap_stmts = []

    def add_global(self, hint, obj):
        """A name by which generated code reaches ``obj``."""
        if obj is torch_module():
            self.globals["torch"] = _TorchNames()
            return "torch"
        torch_name = torch_name_of(obj)
        if torch_name is not None:
            self.globals["torch"] = _TorchNames()
            return torch_name
        hint_name = _hint_of(obj)
        resolved = _resolve(hint_name) if hint_name.startswith("torch.") else None
        if resolved is not None and getattr(resolved, "__fx_original__", resolved) is obj:
            self.globals["torch"] = _TorchNames()
            return hint_name
        if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
            return obj.__name__
        for name, value in self.globals.items():
            if value is obj:
                return name
        name = self.namespace.create_name(snake_case(hint) if hint[:1].isupper() else hint, obj)
        self.globals[name] = obj
        return name

    def type_repr(self, t):
        if isinstance(t, type) and t.__module__.startswith("numtorch"):
            self.globals["torch"] = _TorchNames()
        if t is type(None) or t is None:
            return "NoneType"
        if isinstance(t, types.UnionType):  # X | Y
            return "|".join(self.type_repr(a) for a in t.__args__)
        origin = getattr(t, "__origin__", None)
        if origin is not None:
            args = [self.type_repr(a) for a in getattr(t, "__args__", ())]
            if isinstance(t, types.GenericAlias):  # list[int]: the builtin's own name
                head = _type_repr(origin)
            else:  # typing.List[int] or typing.Optional[X]: a global for the typing name
                origin = _TYPING_ORIGINS.get(origin, origin)
                head = self.add_global(_type_repr(origin).replace(".", "_"), origin)
            return f"{head}[{','.join(args)}]" if args else head
        if getattr(t, "__module__", None) == "typing":
            return self.add_global(_type_repr(t).replace(".", "_"), t)  # typing.Any
        return _type_repr(t)

    def repr_of(self, arg):
        if isinstance(arg, Node):
            return arg.name
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            cls = self.add_global(_hint_of(type(arg)), type(arg))
            return f"{cls}({', '.join(self.repr_of(a) for a in arg)})"
        if isinstance(arg, tuple):
            inner = ", ".join(self.repr_of(a) for a in arg)
            return f"({inner},)" if len(arg) == 1 else f"({inner})"
        if isinstance(arg, list):
            return "[" + ", ".join(self.repr_of(a) for a in arg) + "]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{self.repr_of(k)}: {self.repr_of(v)}"
                                   for k, v in arg.items()) + "}"
        if isinstance(arg, slice):
            return (f"slice({self.repr_of(arg.start)}, {self.repr_of(arg.stop)}, "
                    f"{self.repr_of(arg.step)})")
        if isinstance(arg, float) and (math.isinf(arg) or math.isnan(arg)):
            return repr(arg)
        if isinstance(arg, (bool, int, float, complex, str, bytes)) or arg is None \
                or arg is Ellipsis:
            return repr(arg)
        import numtorch

        if isinstance(arg, (numtorch.dtype, numtorch.Size)):
            self.globals["torch"] = _TorchNames()
            return repr(arg)
        if isinstance(arg, numtorch.device):
            self.globals["device"] = numtorch.device
            return repr(arg)
        if isinstance(arg, enum.Enum):
            cls = self.add_global(_hint_of(type(arg)), type(arg))
            return f"{cls}.{arg.name}"
        if isinstance(arg, type) or callable(arg):
            return self.add_global(_hint_of(arg), arg)
        return repr(arg)

    def format_args(self, args, kwargs):
        parts = [self.repr_of(a) for a in args]
        parts += [f"{k} = {self.repr_of(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def expression(self, node, root):
        op, target, args, kwargs = node.op, node.target, node.args, node.kwargs
        if op == "get_attr":
            return _attr_path(root, target)
        if op == "call_module":
            return f"{_attr_path(root, target)}({self.format_args(args, kwargs)})"
        if op == "call_method":
            return (f"{self.repr_of(args[0])}.{target}"
                    f"({self.format_args(args[1:], kwargs)})")
        if op == "call_function":
            name = getattr(target, "__name__", None)
            if getattr(operator, name or "", None) is target and not kwargs:
                if name in magic_methods and len(args) == 2:
                    return magic_methods[name].format(*(self.repr_of(a) for a in args))
                if name in unary_methods and len(args) == 1:
                    return unary_methods[name].format(self.repr_of(args[0]))
            if target is builtins.getattr and len(args) == 2 and not kwargs \
                    and isinstance(args[1], str) and _is_identifier(args[1]):
                return f"{self.repr_of(args[0])}.{args[1]}"
            if id(target) in wrapped_functions:
                fn_name = self.add_global(_hint_of(target), target)
                stmt = f'torch.fx._symbolic_trace.wrap("{fn_name}")'
                if stmt not in self.wrap_stmts:
                    self.wrap_stmts.append(stmt)
                self.globals["torch"] = _TorchNames()
                return f"{fn_name}({self.format_args(args, kwargs)})"
            fn_name = self.add_global(_hint_of(target), target)
            return f"{fn_name}({self.format_args(args, kwargs)})"
        raise NotImplementedError(f"node: {op} {target}")


def torch_module():
    import numtorch

    return numtorch


def _hint_of(obj):
    try:
        return qualified_name(obj)
    except RuntimeError:
        return getattr(obj, "__name__", type(obj).__name__)


def _attr_path(root, target):
    expr = root
    for atom in target.split("."):
        expr = f"{expr}.{atom}" if _is_identifier(atom) else f'getattr({expr}, "{atom}")'
    return expr


def generate(graph, root_module="self"):
    """Generate the ``forward`` source of ``graph`` (see :class:`PythonCode`)."""
    em = _Emitter(graph)
    nodes = list(graph.nodes)
    # a value is deleted right after its last use, as torch's generated code does
    last_use = {}
    to_delete = {}
    for node in reversed(nodes):
        def note(n, user=node):
            if n not in last_use:
                last_use[n] = user
                to_delete.setdefault(user, []).append(n)
        from .node import map_arg

        map_arg(node.args, note)
        map_arg(node.kwargs, note)

    free_vars = []
    body = []
    return_type = ""
    for node in nodes:
        if node.op == "placeholder":
            sig = node.target
            if node.type is not None:
                sig += f" : {em.type_repr(node.type)}"
            if node.args:
                sig += f" = {em.repr_of(node.args[0])}"
            free_vars.append(sig)
            raw = node.target.lstrip("*")
            if node.name != raw:
                body.append(f"{node.name} = {raw}")
            continue
        if node.op == "output":
            if node.type is not None:
                return_type = f" -> {em.type_repr(node.type)}"
            body.append(f"return {em.repr_of(node.args[0])}")
            continue
        line = f"{node.name} = {em.expression(node, root_module)}"
        dead = list(to_delete.get(node, []))
        if not node.users:
            dead = dead + [node]
        if dead:
            line += ";  " + " = ".join(n.name for n in dead) + " = None"
        body.append(line)
    if not body:
        body.append("pass")
    params = ", ".join([root_module] + free_vars)
    prologue = "\n".join(em.wrap_stmts)
    src = (f"\n{prologue}\n\ndef forward({params}){return_type}:\n"
           + "".join(f"    {line}\n" for line in body) + "    ")
    return PythonCode(src, em.globals)
