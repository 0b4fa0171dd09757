"""``torch._dynamo``: what programs reach for around ``torch.compile``.

numtorch has no compiler, so nothing here traces or generates code: ``OptimizedModule`` is the
wrapper ``torch.compile`` returns for a module (programs read ``_orig_mod`` and its state-dict
keys carry the ``_orig_mod.`` prefix, as torch's), ``config`` holds the flags programs set, and
``reset``/``disable`` and the decorators and dimension markers (``decorators.py``) are
accepted.
"""

from . import config, decorators, eval_frame, exc
from .decorators import (  # noqa: F401
    allow_in_graph, assume_constant_result, disallow_in_graph, forbid_in_graph, graph_break,
    mark_dynamic, mark_static, mark_static_address, maybe_mark_dynamic, nonstrict_trace,
    set_stance, substitute_in_graph,
)
from .eval_frame import OptimizedModule

__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "config",
           "decorators", "disable", "disallow_in_graph", "eval_frame", "exc", "forbid_in_graph",
           "graph_break", "is_compiling", "list_backends", "mark_dynamic", "mark_static",
           "mark_static_address", "maybe_mark_dynamic", "nonstrict_trace", "reset", "set_stance",
           "substitute_in_graph"]


def is_compiling():
    """False: numtorch never traces (``torch.compiler.is_compiling`` too)."""
    return False


def list_backends(exclude_tags=("debug", "experimental")):
    """The ``torch.compile`` backends torch lists; numtorch accepts each and runs eagerly."""
    return ["cudagraphs", "inductor", "openxla", "tvm"]


def reset():
    """Forget compiled code; numtorch keeps none, so there is nothing to forget."""


def disable(fn=None, recursive=True):
    """Mark ``fn`` as never compiled (the default here); usable as a decorator."""
    if fn is None:
        return lambda f: f
    return fn
