"""``Node``: one operation in an fx ``Graph`` (``torch.fx.node``).

A node is an instruction: its ``op`` says what kind (``placeholder``, ``get_attr``,
``call_function``, ``call_method``, ``call_module``, ``output``), ``target`` what is called or
read, and ``args``/``kwargs`` its operands, in which other nodes stand for their values. Nodes
keep their users up to date whenever their arguments change, which is what graph surgery
(``replace_all_uses_with``, dead-code elimination) relies on.
"""

import builtins
import operator
import re
import types

from ._names import qualified_name
from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Argument", "Node", "Target", "has_side_effect", "map_aggregate", "map_arg"]

Target = object
Argument = object

_OPCODES = (
    "placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root",
)
# Calls that must stay even when their result is unused.
_side_effectful_functions = {builtins.print}


def has_side_effect(fn):
    """Mark ``fn`` so that dead-code elimination never removes calls to it; returns ``fn``."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a, fn):
    """Apply ``fn`` to every leaf of the nested tuples/lists/dicts/slices ``a``."""
    if isinstance(a, tuple):
        items = tuple(map_aggregate(x, fn) for x in a)
        return type(a)(*items) if hasattr(a, "_fields") else items
    if isinstance(a, list):
        return immutable_list(map_aggregate(x, fn) for x in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply ``fn`` to every ``Node`` inside the (nested) argument ``a``."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _format_arg(arg, max_list_len=float("inf")):
    if isinstance(arg, Node):
        return "%" + str(arg)
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items}{',' if len(arg) == 1 else ''})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return str(arg)


class Node:
    """One operation in a ``Graph``.

    Args:
        graph (Graph): the graph that owns the node.
        name (str): its unique name, also the variable it is assigned to in generated code.
        op (str): the opcode (see the module docstring).
        target: the callable, method name, module path or attribute path.
        args (tuple): positional operands; nodes inside stand for their values.
        kwargs (dict): keyword operands.
        return_type: an optional annotation for generated code.
    """

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPCODES:
            raise AssertionError(f"Unknown opcode {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a Callable is expected")
        if op in ("call_method", "call_module", "get_attr", "placeholder", "output") \
                and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta = {}
        self._args = ()
        self._kwargs = {}
        self._update_args_kwargs(args, kwargs)

    # ---- linked-list position -------------------------------------------------------------
    @property
    def next(self):
        """The node after this one in the graph."""
        return self._next

    @property
    def prev(self):
        """The node before this one in the graph."""
        return self._prev

    def prepend(self, x):
        """Move (or insert) node ``x`` to just before this node."""
        if x is self:
            raise AssertionError("Cannot prepend self")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Move (or insert) node ``x`` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # ---- arguments and users --------------------------------------------------------------
    @property
    def args(self):
        """The positional operands (a tuple); assigning updates the users of the nodes in it."""
        return self._args

    @args.setter
    def args(self, a):
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        """The keyword operands (a dict); assigning updates the users of the nodes in it."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        """Every node this node reads, in order of first appearance in ``args`` then ``kwargs``."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        """Set ``args[idx]`` to ``arg``."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        """Set ``kwargs[key]`` to ``arg``."""
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        collect = self._collect_input
        self._args = map_aggregate(tuple(new_args) if new_args is not None else (), collect)
        self._kwargs = map_aggregate(dict(new_kwargs) if new_kwargs is not None else {}, collect)
        for node in self._input_nodes:
            node.users.setdefault(self, None)

    def _collect_input(self, x):
        if isinstance(x, Node):
            if x.graph is not self.graph and getattr(x, "graph", None) is not None \
                    and self.graph is not None:
                raise AssertionError(f"Argument '{x}' of Node '{self}' was used before it has "
                                     "been defined! Please check that Nodes in the graph are "
                                     "topologically ordered\n" + str(self.graph))
            self._input_nodes.setdefault(x, None)
        return x

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *,
                              propagate_meta=False):
        """Make every user of this node use ``replace_with`` instead.

        Args:
            replace_with (Node): the node to use instead.
            delete_user_cb (callable): users for which it returns False keep this node.
            propagate_meta (bool): copy this node's ``meta`` into ``replace_with``'s.

        Returns:
            list[Node]: the users that were changed.
        """
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, "
                                     "propagate_meta=True), but replace_with already has "
                                     "something in its meta field!")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if not delete_user_cb(user):
                continue
            user._replace_input(self, replace_with)
            changed.append(user)
        return changed

    def replace_input_with(self, old_input, new_input):
        """Make this node read ``new_input`` wherever it read ``old_input``."""
        self._replace_input(old_input, new_input)

    def _replace_input(self, old, new):
        swap = lambda n: new if n is old else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self, impure_random=True):
        """True for nodes dead-code elimination must keep (inputs, output, side effects)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        if self.op == "call_module":
            root = self.graph.owning_module
            if root is not None:
                try:
                    module = root.get_submodule(self.target)
                except AttributeError:
                    return False
                return bool(getattr(module, "_is_impure", False))
        return False

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    # ---- printing -------------------------------------------------------------------------
    def _pretty_target(self):
        if isinstance(self.target, str):
            return self.target
        return qualified_name(self.target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """One line describing the node as ``print(graph)`` shows it.

        For ``output`` it is ``return <value>``; a placeholder's name goes into
        ``placeholder_names`` (then None is returned) when that list is given.
        """
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            type_str = f"{_type_repr(self.type)} " if self.type is not None else ""
            return (f"%{self.name} : {type_str}[num_users={len(self.users)}] = "
                    f"placeholder[target={self.target}]{default}")
        if self.op == "output":
            if self.type is not None and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        type_str = f"{_type_repr(self.type)} " if self.type is not None else ""
        if self.op == "get_attr":
            return (f"%{self.name} : {type_str}[num_users={len(self.users)}] = "
                    f"get_attr[target={self._pretty_target()}]")
        return (f"%{self.name} : {type_str}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_target()}](args = {_format_arg(self.args)}, "
                f"kwargs = {_format_arg(self.kwargs)})")

    def __repr__(self):
        return self.name


def _type_repr(obj):
    if isinstance(obj, type):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        module = obj.__module__
        if module.startswith("numtorch"):
            module = "torch" if obj.__qualname__ == "Tensor" else "torch" + module[8:]
        return f"{module}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    if getattr(obj, "__origin__", None) is not None:  # typing.Optional[Tensor], list[int]
        return re.sub(r"\bnumtorch\.(?:_tensor\.)?", "torch.", repr(obj))
    return repr(obj)


# operator functions that print as Python operators in generated code
magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}",
    "truediv": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}",
    "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}", "or_": "{} | {}",
    "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
}
comparison_methods = {
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}",
    "ge": "{} >= {}",
}
unary_methods = {"neg": "-{}", "pos": "+{}", "invert": "~{}"}
magic_methods.update(comparison_methods)
_operator_targets = {
    getattr(operator, name) for name in list(magic_methods) + list(unary_methods)
}
