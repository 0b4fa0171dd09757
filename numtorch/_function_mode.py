"""``torch.overrides.TorchFunctionMode``: a context in which every public function and Tensor
method call (of plain tensors too) is handed to the mode's ``__torch_function__`` first.

The modes form a per-thread stack. While a mode handles a call it is taken off the stack, so
calling ``func`` again inside the handler runs the next mode down, or the function itself
(and subclasses' ``__torch_function__`` after the modes, as torch orders them).

Plain tensors pay nothing for this outside a mode: entering the first mode puts dispatching
wrappers on the Tensor class and the public functions (the same wrappers Tensor subclasses
get, see ``_torch_function.py``), and leaving the last one takes them off again.
"""

import contextlib
import threading
import warnings

__all__ = ["TorchFunctionMode", "BaseTorchFunctionMode"]

_tls = threading.local()


def stack():
    """This thread's active modes, innermost last."""
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


def any_active():
    s = getattr(_tls, "stack", None)
    return bool(s)


_entered = [0]  # modes entered in all threads: the wrappers stay while any is active


def _push(mode):
    from . import _torch_function

    if _entered[0] == 0:
        _torch_function.install_for_modes()
    _entered[0] += 1
    stack().append(mode)


def _pop():
    from . import _torch_function

    mode = stack().pop()
    _entered[0] -= 1
    if _entered[0] == 0:
        _torch_function.uninstall_for_modes()
    return mode


class TorchFunctionMode:
    """Subclass it and define ``__torch_function__(self, func, types, args=(), kwargs=None)``;
    inside ``with MyMode():`` every numtorch function and Tensor method call goes through it.

    Example:
        >>> class Log(torch.overrides.TorchFunctionMode):
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         print(func.__name__)
        ...         return func(*args, **(kwargs or {}))
        >>> with Log():
        ...     torch.ones(2).sum()
    """

    inner = None

    def __init__(self, inner=None):
        if inner is not None:
            self.inner = inner

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every call unchanged (a base for modes that handle a few)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def dispatch(public, kinds, args, kwargs, rest):
    """Hand the call to the innermost mode (taken off the stack meanwhile); ``rest()`` runs
    the call past the modes when the mode declines with NotImplemented."""
    s = stack()
    mode = s.pop()
    try:
        result = mode.__torch_function__(public, kinds, args, kwargs)
        if result is NotImplemented:
            result = rest()
        return result
    finally:
        s.append(mode)


def _get_current_function_mode():
    s = getattr(_tls, "stack", None)
    return s[-1] if s else None


def _get_current_function_mode_stack():
    return list(stack())


def _len_torch_function_stack():
    return len(stack())


def _is_torch_function_mode_enabled():
    from ._torch_function import _all_disabled

    return any_active() and not _all_disabled()


def _push_mode(mode):
    _push(mode)


def _pop_mode():
    return _pop()


@contextlib.contextmanager
def _pop_mode_temporarily():
    """Take the innermost mode off the stack for the block (yields it)."""
    s = stack()
    mode = s.pop()
    try:
        yield mode
    finally:
        s.append(mode)
