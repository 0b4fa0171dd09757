"""``torch.compiler``: the compiler's public switches. numtorch runs every program eagerly
(``numtorch.compile`` returns the model as written), so nothing is ever being compiled; while
``torch.export`` runs a program to record it, ``is_compiling`` and ``is_exporting`` answer True
as in torch. The decorators give back the function they wrap."""

import contextlib
import dataclasses

from .._compat import compile

__all__ = ["compile", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "allow_in_graph", "assume_constant_result", "reset", "list_backends",
           "cudagraph_mark_step_begin", "set_stance", "wrap_numpy", "nested_compile_region",
           "NestedCompileRegionOptions"]


_exporting = [0]  # torch.export runs in progress (export runs the program to record it)


def is_compiling():
    """True while ``torch.export`` records a program (as in torch's non-strict export);
    numtorch's ``compile`` runs eagerly, so otherwise False."""
    return _exporting[0] > 0


def is_dynamo_compiling():
    """False: numtorch never traces a program."""
    return False


def is_exporting():
    """True while ``torch.export`` records a program."""
    return _exporting[0] > 0


def disable(fn=None, recursive=True, *, reason=None):
    """Keep ``fn`` out of compilation: numtorch compiles nothing, so ``fn`` itself comes back
    (usable as ``@disable`` or ``@disable(recursive=False)``)."""
    if fn is None:
        return lambda f: f
    return fn


@dataclasses.dataclass
class NestedCompileRegionOptions:
    """How a region marked by :func:`nested_compile_region` would be compiled (its forward and
    backward compilers, partitioner and decompositions); experimental in torch."""

    fw_compiler: object = None
    bw_compiler: object = None
    partitioner: object = None
    decompositions: object = None


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    """Mark ``fn`` as a region torch.compile may compile once and reuse at each call (as for
    the repeated layers of a model). numtorch compiles nothing: the returned function calls
    ``fn`` as it is, as torch's does outside compilation. ``@nested_compile_region`` and
    ``@nested_compile_region()`` both work. ``options`` is refused unless
    ``_dynamo.config.enable_invoke_subgraph_regional_compile`` is set, as in torch."""
    if options is not None:
        from .._dynamo import config

        if not getattr(config, "enable_invoke_subgraph_regional_compile", False):
            raise RuntimeError(
                "nested_compile_region config is an experimental feature for testing only.")

    def mark(func):
        func.__marked_compile_region_config__ = options  # (AttributeError for an int, too)

        def inner(*args, **kwargs):
            return func(*args, **kwargs)

        inner.__marked_compile_region_fn__ = func
        return inner

    return mark if fn is None else mark(fn)


def allow_in_graph(fn):
    """Let the compiler put ``fn`` into its graph as a call; returns ``fn``."""
    return fn


def assume_constant_result(fn):
    """Let the compiler treat ``fn``'s result as a constant; returns ``fn``."""
    return fn


def wrap_numpy(fn):
    """Let ``fn`` written on NumPy arrays take and return tensors: tensors are passed in as
    arrays (``.numpy()``) and arrays in the result come back as tensors."""
    import numpy as np

    import numtorch

    def convert(x, to_array):
        if to_array and isinstance(x, numtorch.Tensor):
            return x.numpy()
        if not to_array and isinstance(x, np.ndarray):
            return numtorch.from_numpy(x)
        if isinstance(x, (list, tuple)):
            return type(x)(convert(v, to_array) for v in x)
        if isinstance(x, dict):
            return {k: convert(v, to_array) for k, v in x.items()}
        return x

    def wrapped(*args, **kwargs):
        out = fn(*convert(args, True), **convert(kwargs, True))
        return convert(out, False)

    wrapped.__name__ = getattr(fn, "__name__", "wrapped")
    wrapped.__doc__ = fn.__doc__
    return wrapped


def reset():
    """Clear the compiler's caches: there are none."""


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names ``numtorch.compile`` accepts, as torch lists them (each runs
    eagerly here)."""
    from .._dynamo import list_backends as _list

    return _list(exclude_tags)


def cudagraph_mark_step_begin():
    """Mark the start of a CUDA-graph step: numtorch records no CUDA graphs."""


class _Stance(contextlib.ContextDecorator):
    """What :func:`set_stance` returns: a context manager and decorator that changes
    nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """Set how compiled functions behave (``"default"``, ``"force_eager"``, ...); usable as
    a context manager or decorator. Every stance runs eagerly in numtorch."""
    return _Stance()
