"""``torch.fx``: capture a module's ``forward`` as a graph, edit it and run it as code.

``symbolic_trace`` runs ``forward`` on :class:`Proxy` objects and records each operation as a
:class:`Node` of a :class:`Graph`; a :class:`GraphModule` turns a graph back into an
``nn.Module`` with generated Python code. :class:`Interpreter` and :class:`Transformer` run or
rewrite graphs node by node, and ``replace_pattern`` rewrites matching subgraphs.
"""

from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .subgraph_rewriter import replace_pattern
from . import immutable_collections, passes  # noqa: F401
from . import _patching

_patching.install_aliases()

__all__ = [
    "symbolic_trace", "Tracer", "Graph", "GraphModule", "Node", "Proxy", "wrap", "PH",
    "Interpreter", "Transformer", "replace_pattern", "map_arg", "has_side_effect",
]

