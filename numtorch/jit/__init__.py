"""``numtorch.jit``: TorchScript does not exist here; ``script`` and ``trace`` return what
they are given, so code that scripts a model for speed still runs (eagerly)."""

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing",
           "ScriptModule", "save", "load", "Final", "annotate", "fork", "wait"]

from .._fork import fork, wait  # noqa: E402  (eager: run now, return a completed future)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Return ``obj`` unchanged (numtorch runs everything eagerly)."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """Return ``func`` unchanged (numtorch runs everything eagerly)."""
    return func


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


class ScriptModule:
    """Placeholder type so isinstance checks against it work (nothing is ever scripted)."""


class _Final:
    def __getitem__(self, item):
        return item


Final = _Final()


def save(m, f, **kwargs):
    raise RuntimeError("numtorch.jit.save: TorchScript archives are not supported; save a "
                       "state_dict with numtorch.save instead")


def load(f, map_location=None, **kwargs):
    raise RuntimeError("numtorch.jit.load: TorchScript archives are not supported; load a "
                       "state_dict with numtorch.load instead")
