"""``patch`` of the compile-time config modules (``torch._dynamo.config``,
``torch._inductor.config``): flags set for a ``with`` block or a decorated call, the old values
put back afterwards. numtorch compiles nothing, so the flags are only recorded."""

import functools


def changes_of(arg1, arg2, kwargs):
    """The ``{name: value}`` of ``patch(name, value)``, ``patch({name: value})`` or
    ``patch(name=value)``."""
    changes = {}
    if isinstance(arg1, str):
        changes[arg1] = arg2
    elif isinstance(arg1, dict):
        changes.update(arg1)
    changes.update(kwargs)
    return changes


class ConfigPatch:
    """What ``patch`` returns. ``resolve(name)`` gives the ``(owner, attribute)`` a flag name
    stands for, or raises AttributeError for a name the module does not have (before any
    flag changes)."""

    def __init__(self, changes, resolve):
        self.changes, self.resolve = changes, resolve
        self.saved = []

    def __enter__(self):
        places = {name: self.resolve(name) for name in self.changes}
        self.saved.append({name: getattr(*places[name]) for name in self.changes})
        for name, value in self.changes.items():
            setattr(*places[name], value)
        return self

    def __exit__(self, *exc):
        for name, value in self.saved.pop().items():
            setattr(*self.resolve(name), value)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def patched(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return patched
