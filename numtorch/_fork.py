"""``torch.fork`` / ``torch.wait`` (also ``torch.jit.fork`` / ``torch.jit.wait``) and the
symbolic number types ``SymInt``, ``SymFloat`` and ``SymBool``.

Outside TorchScript, torch runs a forked function at once and hands back a completed
future; numtorch does the same, with :class:`numtorch.futures.Future`. Symbolic numbers
only exist while a compiler traces shapes; numtorch never traces, so no value is ever an
instance of them (``isinstance(n, torch.SymInt)`` checks in library code stay False).
"""

from ._class_repr import TorchNamed
from .futures import Future

__all__ = ["fork", "wait", "Future", "SymInt", "SymFloat", "SymBool"]


def fork(func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` and return a completed :class:`Future` of its result
    (an exception from ``func`` propagates at once, as in torch's eager mode)."""
    fut = Future()
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """The value of ``future`` (a future made by :func:`fork`), waiting for it if needed."""
    if not isinstance(future, Future):
        raise TypeError(f"wait(): incompatible function arguments: expected a Future, got "
                        f"{type(future).__name__}")
    return future.wait()


class SymInt(metaclass=TorchNamed):
    """A symbolic integer (a size traced by a compiler). numtorch never makes one."""


class SymFloat(metaclass=TorchNamed):
    """A symbolic float (traced by a compiler). numtorch never makes one."""


class SymBool(metaclass=TorchNamed):
    """A symbolic bool (traced by a compiler). numtorch never makes one."""


for _cls in (SymInt, SymFloat, SymBool):
    _cls.__module__ = "numtorch"
del _cls
