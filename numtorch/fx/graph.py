"""``Graph``: the fx intermediate representation, a list of ``Node`` s (``torch.fx.graph``).

Nodes sit in a doubly linked ring around a sentinel ``root`` node, so inserting and erasing are
O(1) and iteration may erase the node it is on. New nodes go to the current insert point (the
end of the graph unless ``inserting_before``/``inserting_after`` says otherwise).
"""

import inspect

from . import _codegen, _patching
from ._names import Namespace, target_to_str
from .node import Node, map_arg

__all__ = ["Graph", "PythonCode"]

PythonCode = _codegen.PythonCode


class _node_list:
    """A live view of a graph's nodes (``reversed`` walks it backwards)."""

    def __init__(self, graph, direction="_next"):
        self.graph = graph
        self.direction = direction

    def __len__(self):
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        node = getattr(root, self.direction)
        while node is not root:
            nxt = getattr(node, self.direction)  # read first: ``node`` may be erased meanwhile
            if not node._erased:
                yield node
            node = nxt

    def __reversed__(self):
        return _node_list(self.graph, "_prev" if self.direction == "_next" else "_next")


class _InsertPoint:
    """Sets where new nodes go; as a context manager it restores the old point on exit."""

    def __init__(self, graph, insert):
        self.graph = graph
        self.orig, graph._insert = graph._insert, insert

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.graph._insert = self.orig


class Graph:
    """A list of nodes: the inputs (``placeholder``), the operations, and one ``output``.

    Args:
        owning_module (Module, optional): the module whose attributes ``get_attr`` and
            ``call_module`` nodes name (set by ``GraphModule``).
        tracer_cls: the tracer class that produced the graph (kept for pickling).
        tracer_extras (dict, optional): extra tracer arguments (kept for pickling).

    Example::

        >>> g = torch.fx.Graph()
        >>> x = g.placeholder("x")
        >>> g.output(g.call_function(torch.relu, (x,)))
        >>> print(g.python_code("self").src)  # doctest: +SKIP
    """

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        """A live view of the nodes in order; ``len`` and ``reversed`` work on it."""
        return _node_list(self)

    def find_nodes(self, *, op, target=None, sort=True):
        """The nodes with opcode ``op`` (and ``target`` if given), in graph order."""
        return [n for n in self.nodes
                if n.op == op and (target is None or n.target == target)]

    # ---- creating nodes -------------------------------------------------------------------
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Insert a new node at the insert point and return it.

        Args:
            op (str): the opcode.
            target: what the node calls or reads.
            args (tuple, optional): positional operands.
            kwargs (dict, optional): keyword operands.
            name (str, optional): a name hint; the name given is unique in the graph.
            type_expr: an optional type annotation.
        """
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        if op == "call_function":
            # a function read from a torch namespace while proxies are about is the
            # proxy-recording wrapper; the graph keeps the function itself
            target = _patching.original_of(target)
        candidate = name if name is not None else target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        node = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, node)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """An input of the graph (a parameter of the generated ``forward``)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """Read attribute ``qualified_name`` (a dotted path) of the owning module."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        """Call the submodule at path ``module_name`` of the owning module."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        """Call method ``method_name`` of ``args[0]``."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        """Call a free function (``torch.relu``, ``operator.add``, ...)."""
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The value the graph returns."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copy ``node`` (from any graph) into this one, mapping its input nodes through
        ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        new = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        new.meta = dict(node.meta)
        return new

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy every node of graph ``g`` into this one; ``val_map`` maps old to new nodes.

        Returns:
            The copied output value (or the output node with ``return_output_node``).
        """
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                value = map_arg(node.args[0], lambda n: val_map[n])
                return node if return_output_node else value
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = {} if memo is None else memo
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        if output_vals is not None:
            old_out = output_vals
            new_out = g.output(map_arg(old_out.args[0], lambda n: memo[n]), old_out.type)
            new_out.meta = dict(old_out.meta)
        return g

    # ---- editing --------------------------------------------------------------------------
    def inserting_before(self, n=None):
        """Insert new nodes just before ``n`` (at the start of the graph if None)."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """Insert new nodes just after ``n`` (at the end of the graph if None)."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase):
        """Remove a node that has no users; ``RuntimeError`` if something still uses it."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            import warnings

            warnings.warn(f"erase_node({to_erase}) on an already erased node")
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        # drop it from the users of its inputs
        to_erase._update_args_kwargs((), {})

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase every node whose value is unused and that has no side effect.

        Returns:
            bool: whether anything was erased.
        """
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Check the graph's invariants; raise ``RuntimeError`` naming the first broken one."""
        seen = set()
        names = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            names.add(node.name)
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong "
                                       "to this Graph, but was used as an argument! If you "
                                       "are copying nodes from another graph, make sure to "
                                       "use ``arg_transform`` on node_copy() to remap values"
                                       f"\n{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the "
                                       "graph are topologically ordered\n" + str(self))
            seen.add(node)
        root = self._owning_module
        if root is None:
            return
        for node in self.nodes:
            if node.op not in ("get_attr", "call_module"):
                continue
            obj = root
            walked = []
            for atom in node.target.split("."):
                if not hasattr(obj, atom):
                    path = ".".join(walked)
                    raise RuntimeError(f"Node {node} target {node.target} references "
                                       f"nonexistent attribute {atom} of {path or 'root'}")
                obj = getattr(obj, atom)
                walked.append(atom)
            if node.op == "call_module":
                import numtorch

                if not isinstance(obj, numtorch.nn.Module):
                    raise RuntimeError(f"Node {node} target {node.target} {atom} is not a "
                                       "Module")

    # ---- output ---------------------------------------------------------------------------
    def python_code(self, root_module, *, verbose=False, include_stride=False,
                    include_device=False, colored=False):
        """The generated ``forward`` source and its globals (:class:`PythonCode`)."""
        return _codegen.generate(self, root_module)

    def __str__(self):
        lines = ["    " + node.format_node() for node in self.nodes]
        return "graph():\n" + "\n".join(lines) if lines else "graph():"

    def print_tabular(self):
        """Print the nodes as a table (opcode, name, target, args, kwargs), as torch does with
        the optional ``tabulate`` package."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be "
                  "found on this machine. Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))
