"""``torch._dynamo``: what programs reach for around ``torch.compile``.

numtorch has no compiler, so nothing here traces or generates code: ``OptimizedModule`` is the
wrapper ``torch.compile`` returns for a module (programs read ``_orig_mod`` and its state-dict
keys carry the ``_orig_mod.`` prefix, as torch's), ``config`` holds the flags programs set, and
``reset``/``disable`` are accepted.
"""

from . import config, eval_frame, exc
from .eval_frame import OptimizedModule

__all__ = ["OptimizedModule", "config", "disable", "eval_frame", "exc", "reset"]


def reset():
    """Forget compiled code; numtorch keeps none, so there is nothing to forget."""


def disable(fn=None, recursive=True):
    """Mark ``fn`` as never compiled (the default here); usable as a decorator."""
    if fn is None:
        return lambda f: f
    return fn
