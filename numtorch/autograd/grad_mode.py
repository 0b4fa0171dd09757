"""Grad mode: whether ops record a graph. Thread-local, as in torch.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` work both as context
managers and as decorators.

Two switches combine: grad mode (``is_grad_enabled``) and inference mode. Ops record only when
grad mode is on and inference mode is off; ``_state.enabled`` holds that combination because
every op reads it. Tensors made in inference mode are inference tensors: their version counter
is an ``InferenceVersion``, which refuses in-place updates outside inference mode, and autograd
refuses to save them for backward.
"""

import functools
import inspect
import warnings

from .._class_repr import TorchNamed, object_repr as _object_repr

# the state every op reads lives in a leaf module (Tensor's constructor reads it too)
from .._grad_state import INFERENCE_ACTIVE, InferenceVersion, _state, new_version  # noqa: F401

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "is_inference", "set_multithreading_enabled",
           "is_multithreading_enabled"]


def _set(grad, inference):
    _state.grad, _state.inference = grad, inference
    _state.enabled = grad and not inference


def is_grad_enabled():
    """Return True if grad mode is on (inside ``inference_mode`` ops still do not record)."""
    return _state.grad


def is_inference_mode_enabled():
    """Return True inside an ``inference_mode()`` block."""
    return _state.inference


def is_inference(input):
    """Return True if ``input`` is an inference tensor (see :meth:`Tensor.is_inference`)."""
    from .._tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_inference()


class _Mode(metaclass=TorchNamed):  # <class 'torch.autograd.grad_mode.no_grad'>
    """Base for grad-mode switches: a context manager that also decorates functions."""

    __repr__ = _object_repr  # torch's name in the default object repr

    def _target(self):
        raise NotImplementedError  # each subclass says which mode it sets

    def __enter__(self):
        self._prev = (_state.grad, _state.inference)
        _set(*self._target())
        return None

    def __exit__(self, *exc):
        _set(*self._prev)
        return False

    def clone(self):
        return self.__class__()

    def __call__(self, func):
        if inspect.isclass(func):
            # torch still accepts a class (deprecated): constructing it runs under the mode
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To preserve "
                          "the current behavior of class decoration, you can directly decorate "
                          "the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            mode = self

            def construct(*args, **kwargs):
                with mode.clone():
                    return func(*args, **kwargs)
            return construct
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
    """Enable graph recording inside the block (undoes an enclosing ``no_grad``; inside
    ``inference_mode`` grad mode turns on but ops still record nothing, as in torch)."""

    def _target(self):
        return True, _state.inference


class set_grad_enabled(_Mode):
    """Set grad mode to ``mode``; works as a function call, context manager or decorator.

    Args:
        mode (bool): whether to record the graph.
    """

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.mode = mode
        self._prev = (_state.grad, _state.inference)
        _set(mode, _state.inference)  # takes effect at once, as torch's function form does

    def __enter__(self):
        if "_prev" not in self.__dict__:  # a clone made for a decorated call
            self._prev = (_state.grad, _state.inference)
        _set(self.mode, _state.inference)
        return None

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        obj = object.__new__(set_grad_enabled)
        obj.mode = self.mode
        return obj

    def __call__(self, func):
        _set(*self._prev)  # as a decorator, do not change the mode now
        return _Mode.__call__(self, func)

    def _target(self):
        return self.mode, _state.inference


class inference_mode(_Mode):
    """Turn inference mode on: no op records a graph (even under ``enable_grad``), and tensors
    made inside are inference tensors (see :meth:`Tensor.is_inference`).

    Inference tensors cannot be saved for backward or updated in place outside inference
    mode. ``inference_mode(False)`` turns inference mode off and grad mode on inside its block,
    also within an enclosing ``inference_mode()`` or ``no_grad()``, as torch does.

    Args:
        mode (bool): True to enter inference mode, False to leave it. Default: True.
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

    def __enter__(self):
        super().__enter__()
        if self.mode:
            INFERENCE_ACTIVE[0] += 1

    def __exit__(self, *exc):
        if self.mode:
            INFERENCE_ACTIVE[0] -= 1
        return super().__exit__(*exc)

    def _target(self):
        if not self.mode:
            return True, False
        return False, True


_multithreading = [True]


def is_multithreading_enabled():
    """Whether backward may use worker threads (torch's switch; numtorch's engine runs every
    backward on the calling thread either way)."""
    return _multithreading[0]


class set_multithreading_enabled(_Mode):
    """Set the multithreaded-backward switch (see :func:`is_multithreading_enabled`); takes
    effect at once and, used as a context manager, is undone on exit.

    Args:
        mode (bool): the new setting.
    """

    def __init__(self, mode):
        self.mode = mode
        self._prev_mt = _multithreading[0]
        _multithreading[0] = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _multithreading[0] = self._prev_mt
        return False

    def clone(self):
        return set_multithreading_enabled(self.mode)

    def __call__(self, func):
        _multithreading[0] = self._prev_mt  # as a decorator, do not change the setting now
        return _Mode.__call__(self, func)
