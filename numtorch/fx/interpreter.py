"""``Interpreter`` and ``Transformer``: run or rewrite a ``GraphModule`` node by node
(``torch.fx.interpreter``).

An ``Interpreter`` calls one method per opcode (``placeholder``, ``get_attr``,
``call_function``, ``call_method``, ``call_module``, ``output``) with the node's target and
evaluated operands; subclasses override them to observe or change execution. A
``Transformer`` runs the same protocol on proxies, so the result is a new graph.
"""

from . import _patching
from ._symbolic_trace import Tracer
from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Execute a ``GraphModule`` one node at a time.

    Args:
        module (Module): the module whose graph (and attributes) to run.
        garbage_collect_values (bool): drop each value after its last use. Default: True.
        graph (Graph, optional): run this graph instead of ``module.graph``.

    Example::

        >>> gm = torch.fx.symbolic_trace(torch.nn.ReLU())
        >>> torch.fx.Interpreter(gm).run(torch.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses = {}
        if garbage_collect_values:
            seen = set()
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on ``args`` and return its output.

        Args:
            *args: the inputs, in placeholder order.
            initial_env (dict, optional): node values known in advance (those nodes are not
                run).
            enable_io_processing (bool): kept for torch's signature.
        """
        self.env = dict(initial_env) if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as exc:
                if self.extra_traceback and exc.args and isinstance(exc.args[0], str):
                    # torch appends where in the graph the error happened to the message
                    note = (f"\n\nWhile executing {node.format_node()}\nOriginal traceback:"
                            f"\n{node.stack_trace}\nUse tlparse to see full graph. "
                            "(https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-"
                            "parse-structured-pt2-logs)")
                    exc.args = (exc.args[0] + note,) + exc.args[1:]
                raise
            if self.garbage_collect_values:
                for dead in self.user_to_last_uses.get(node, []):
                    self.env.pop(dead, None)
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        """``run`` on a list of inputs that is emptied (so the caller's references go)."""
        args_iter = iter(args_list)
        env = {}
        for node in self.graph.nodes:
            if node.op == "placeholder":
                env[node] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n):
        """Evaluate node ``n`` by calling the method named after its opcode."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise AssertionError("args must be a tuple and kwargs a dict")
        return getattr(self, n.op)(n.target, args, kwargs)

    # ---- one method per opcode ------------------------------------------------------------
    def placeholder(self, target, args, kwargs):
        """The next input (all remaining ones for ``*args``; the default if none is left)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from si

    def get_attr(self, target, args, kwargs):
        """The module attribute at path ``target``."""
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        """``target(*args, **kwargs)``."""
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        """``args[0].target(*args[1:], **kwargs)``."""
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        """Call the submodule at path ``target``."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args, kwargs):
        """The graph's result."""
        return args[0]

    # ---- helpers --------------------------------------------------------------------------
    def fetch_attr(self, target):
        """Walk the dotted path ``target`` from the module; ``RuntimeError`` if it breaks."""
        attr_itr = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target "
                                   f"{'.'.join(atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n):
        """``n``'s args and kwargs with each input node replaced by its value."""
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n):
        """Replace the nodes in ``args`` by their values in ``self.env``."""
        def load(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[n_arg]

        return map_arg(args, load)


class _TransformerProxy(Proxy):
    def __init__(self, node, tracer):
        self.tracer = tracer
        self.node = node


class _TransformerTracer(Tracer):
    def __init__(self, graph):
        super().__init__()
        self.graph = graph

    def is_leaf_module(self, m, qualname):
        return True

    def proxy(self, node):
        return _TransformerProxy(node, self)


class Transformer(Interpreter):
    """Rewrite a ``GraphModule``: the opcode methods return proxies, building a new graph.

    Override ``call_function`` & co. to emit something else; ``transform()`` returns the new
    ``GraphModule``.
    """

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target, args, kwargs):
        default = args[0] if args else _EMPTY
        if default is _EMPTY:
            node = self.new_graph.placeholder(target)
        else:
            node = self.new_graph.placeholder(target, default_value=default)
        return _TransformerProxy(node, self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        """Run the transformation and return the new ``GraphModule``."""
        # overrides may call torch functions on the proxies (``return torch.neg(*args)``);
        # the installed wrappers compare equal to the functions (``target == torch.sigmoid``)
        _patching.activate()
        try:
            result = super().run(enable_io_processing=False)
        finally:
            _patching.deactivate()
        if result is not None:
            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a

            self.new_graph.output(map_aggregate(result, strip_proxy))
        return GraphModule(self.module, self.new_graph)


import inspect as _inspect

_EMPTY = _inspect.Signature.empty
del Node
