"""``torch._dynamo.config``: the flags programs set before compiling. numtorch compiles
nothing, so they are recorded and have no effect."""

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


class ConfigPatch:
    """What :func:`patch` returns: sets the flags for a ``with`` block or a decorated call,
    then puts the old values back."""

    def __init__(self, changes):
        self.changes = changes
        self.saved = []

    def __enter__(self):
        import sys

        module = sys.modules[__name__]
        for name in self.changes:
            if not hasattr(module, name) or name.startswith("_") or name in _NOT_FLAGS:
                raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        self.saved.append({name: getattr(module, name) for name in self.changes})
        for name, value in self.changes.items():
            setattr(module, name, value)
        return self

    def __exit__(self, *exc):
        import sys

        module = sys.modules[__name__]
        for name, value in self.saved.pop().items():
            setattr(module, name, value)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def patched(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return patched


def patch(arg1=None, arg2=None, **kwargs):
    """Change flags temporarily: ``patch(name, value)``, ``patch({name: value})`` or
    ``patch(name=value)``, as a context manager or a decorator."""
    changes = {}
    if isinstance(arg1, str):
        changes[arg1] = arg2
    elif isinstance(arg1, dict):
        changes.update(arg1)
    changes.update(kwargs)
    return ConfigPatch(changes)


_NOT_FLAGS = frozenset(("ConfigPatch", "patch"))
