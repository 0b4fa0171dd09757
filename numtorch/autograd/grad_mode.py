"""Grad mode: whether ops record a graph. Thread-local, as in torch.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` work both as context
managers and as decorators.
"""

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _State(threading.local):
    enabled = True
    inference = False


_state = _State()


def is_grad_enabled():
    """Return True if operations currently record the autograd graph."""
    return _state.enabled


def is_inference_mode_enabled():
    """Return True inside an ``inference_mode()`` block."""
    return _state.inference


class _Mode:
    """Base for grad-mode switches: a context manager that also decorates functions."""

    def _target(self):
        raise NotImplementedError  # each subclass says which mode it sets

    def __enter__(self):
        self._prev = (_state.enabled, _state.inference)
        _state.enabled, _state.inference = self._target()
        return None

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self._prev
        return False

    def clone(self):
        return self.__class__()

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} can decorate functions, not classes")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as e:  # forward throw() under the mode
                            with self.clone():
                                response = gen.throw(e)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class no_grad(_Mode):
    """Disable graph recording inside the block or decorated function.

    Example:
        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __init__(self, orig_func=None):
        if orig_func is not None and callable(orig_func):  # used as @no_grad without ()
            self._func = orig_func

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        if orig_func is not None and callable(orig_func):
            return _Mode.__call__(self, orig_func)
        return self

    def _target(self):
        return False, _state.inference


class enable_grad(_Mode):
    """Enable graph recording inside the block (undoes an enclosing ``no_grad``)."""

    def _target(self):
        return True, False


class set_grad_enabled(_Mode):
    """Set grad mode to ``mode``; works as a function call, context manager or decorator.

    Args:
        mode (bool): whether to record the graph.
    """

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): expected a bool, but got {type(mode).__name__}")
        self.mode = mode
        self._prev = (_state.enabled, _state.inference)
        _state.enabled = mode  # takes effect at once, as torch's function form does

    def __enter__(self):
        if "_prev" not in self.__dict__:  # a clone made for a decorated call
            self._prev = (_state.enabled, _state.inference)
        _state.enabled = self.mode
        return None

    def clone(self):
        obj = object.__new__(set_grad_enabled)
        obj.mode = self.mode
        return obj

    def __call__(self, func):
        _state.enabled = self._prev[0]  # as a decorator, do not change the mode now
        return _Mode.__call__(self, func)

    def _target(self):
        return self.mode, _state.inference


class inference_mode(_Mode):
    """Like ``no_grad`` (tensors made inside never record a graph); ``mode=False`` is a no-op.

    Note:
        numtorch does not forbid using inference tensors in autograd afterwards, which torch
        does; numerically the two behave the same.
    """

    def __init__(self, mode=True):
        self.mode = mode

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode) and not isinstance(mode, bool):
            self.mode = True
            return _Mode.__call__(self, mode)
        return self

    def clone(self):
        return inference_mode(self.mode)

    def _target(self):
        if not self.mode:
            return _state.enabled, _state.inference
        return False, True
