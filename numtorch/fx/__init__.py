"""``torch.fx``: capture a module's ``forward`` as a graph, edit it and run it as code.

``symbolic_trace`` runs ``forward`` on :class:`Proxy` objects and records each operation as a
:class:`Node` of a :class:`Graph`; a :class:`GraphModule` turns a graph back into an
``nn.Module`` with generated Python code. :class:`Interpreter` and :class:`Transformer` run or
rewrite graphs node by node, and ``replace_pattern`` rewrites matching subgraphs.
"""

import numtorch as _numtorch

from . import _patching, _pytree, immutable_collections, passes  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap
from .graph import Graph
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_arg
from .proxy import Proxy
from .subgraph_rewriter import replace_pattern

_patching.install_aliases()
has_side_effect(_numtorch._assert)  # dead-code elimination keeps asserts, as torch's does
del _numtorch

__all__ = [
    "PH",
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "Proxy",
    "Tracer",
    "Transformer",
    "has_side_effect",
    "map_arg",
    "replace_pattern",
    "symbolic_trace",
    "wrap",
]

