"""``torch._dynamo``: what programs reach for around ``torch.compile``.

numtorch has no compiler, so nothing here traces or generates code: ``OptimizedModule`` is the
wrapper ``torch.compile`` returns for a module (programs read ``_orig_mod`` and its state-dict
keys carry the ``_orig_mod.`` prefix, as torch's), ``config`` holds the flags programs set, and
``reset``/``disable`` and the decorators and dimension markers (``decorators.py``) are
accepted.
"""

from . import config, decorators, eval_frame, exc, utils
from .decorators import (  # noqa: F401
    allow_in_graph, assume_constant_result, disallow_in_graph, forbid_in_graph, graph_break,
    mark_dynamic, mark_static, mark_static_address, maybe_mark_dynamic, nonstrict_trace,
    set_stance, substitute_in_graph,
)
from .eval_frame import OptimizedModule

__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "config",
           "decorators", "disable", "disallow_in_graph", "eval_frame", "exc", "forbid_in_graph",
           "graph_break", "is_compiling", "list_backends", "mark_dynamic", "mark_static",
           "mark_static_address", "maybe_mark_dynamic", "nonstrict_trace", "optimize", "reset",
           "set_stance",
           "substitute_in_graph", "utils"]


def is_compiling():
    """``torch.compiler.is_compiling()``: True only while ``torch.export`` records a program
    (numtorch's compile runs eagerly)."""
    from ..compiler import is_compiling as _is_compiling

    return _is_compiling()


_BACKENDS = {  # name -> torch's tags for it; numtorch accepts each and runs eagerly
    **{name: () for name in ("cudagraphs", "inductor", "openxla", "tvm")},
    "openxla_eval": ("experimental",),
    **{name: ("debug",) for name in (
        "aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
        "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts",
        "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug",
        "eager_noexcept", "invoke_subgraph", "non_leaf_compile_error_TESTING_ONLY",
        "pre_dispatch_eager", "relu_accuracy_error_TESTING_ONLY",
        "relu_compile_error_TESTING_ONLY", "relu_runtime_error_TESTING_ONLY", "ts")},
}


def list_backends(exclude_tags=("debug", "experimental")):
    """The ``torch.compile`` backend names torch lists, less those with a tag in
    ``exclude_tags``, sorted; numtorch accepts each and runs eagerly."""
    skip = set(exclude_tags or ())
    return sorted(name for name, tags in _BACKENDS.items() if not skip.intersection(tags))


def reset():
    """Forget compiled code; numtorch keeps none, so there is nothing to forget."""


def disable(fn=None, recursive=True):
    """Mark ``fn`` as never compiled (the default here); usable as a decorator."""
    if fn is None:
        return lambda f: f
    return fn


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None,
             guard_filter_fn=None, disable=False, dynamic=None, **kwargs):
    """The older spelling of ``torch.compile``: a decorator compiling what it is given with
    ``backend`` (``nopython`` is ``fullgraph``); ``disable=True`` leaves it untouched."""
    from .._compat import compile as _compile

    if disable:
        return lambda fn: fn
    return lambda fn: _compile(fn, backend=backend, fullgraph=nopython, dynamic=dynamic)
