"""``torch._dynamo.config``: the flags programs set before compiling. numtorch compiles
nothing, so they are recorded and have no effect."""

from .._config_patch import ConfigPatch, changes_of

suppress_errors = False
verbose = False
cache_size_limit = 8
accumulated_cache_size_limit = 256
recompile_limit = 8  # (torch's newer names of the two above)
accumulated_recompile_limit = 256
optimize_ddp = True
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
enable_invoke_subgraph_regional_compile = False  # compiler.nested_compile_region(options=)


def _resolve(name):
    import sys

    module = sys.modules[__name__]
    if not hasattr(module, name) or name.startswith("_") or name in _NOT_FLAGS:
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")
    return module, name


def patch(arg1=None, arg2=None, **kwargs):
    """Change flags temporarily: ``patch(name, value)``, ``patch({name: value})`` or
    ``patch(name=value)``, as a context manager or a decorator."""
    return ConfigPatch(changes_of(arg1, arg2, kwargs), _resolve)


_NOT_FLAGS = frozenset(("ConfigPatch", "changes_of", "patch"))
