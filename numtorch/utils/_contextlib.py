"""``torch.utils._contextlib``: context managers that also decorate functions (the base of
``no_grad``-style managers; libraries subclass ``_DecoratorContextManager`` for their own).

A decorated function runs inside a fresh manager (``clone()``) per call; a decorated
generator function has the manager entered around each of its resumptions only, so code
between ``yield``s in the caller runs outside it.
"""

import functools
import inspect

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager", "context_decorator"]


def _wrap_generator(ctx_factory, func):
    """A generator function like ``func`` whose generator is resumed (its first step, each
    value sent or exception thrown into it, its closing) inside a fresh ``ctx_factory()``;
    between resumptions the caller runs outside the manager."""

    @functools.wraps(func)
    def resumed_inside(*args, **kwargs):
        inner = func(*args, **kwargs)
        resume, arg = inner.send, None
        while True:
            try:
                with ctx_factory():
                    out = resume(arg)
            except StopIteration as finished:
                return finished.value
            try:
                arg, resume = (yield out), inner.send
            except GeneratorExit:
                with ctx_factory():
                    inner.close()
                raise
            except BaseException as exc:  # noqa: BLE001 - handed on into the generator
                arg, resume = exc, inner.throw

    return resumed_inside


def context_decorator(ctx, func):
    """``func`` wrapped to run inside ``ctx()`` (a factory of context managers, or one manager
    object to reuse) on every call."""
    if callable(ctx) and hasattr(ctx, "__enter__"):
        raise AssertionError(f"context_decorator: {ctx!r} is both a callable and a context "
                             f"manager; pass a factory of managers or a manager, not both")
    if not callable(ctx):
        manager = ctx

        def ctx():
            return manager
    if inspect.isclass(func):
        raise RuntimeError("context_decorator cannot decorate a class: decorate its methods "
                           "one by one")
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """A context manager that can also decorate a function (subclasses give ``__enter__``
    and ``__exit__``; ``clone`` makes the manager each decorated call uses)."""

    def __call__(self, orig_func):
        if inspect.isclass(orig_func):
            import warnings

            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To "
                          "preserve the current behavior of class decoration, you can "
                          "directly decorate the `__init__` method and nothing else.",
                          FutureWarning, stacklevel=2)
            func = orig_func

            def orig_func(*args, **kwargs):
                return func(*args, **kwargs)
        return context_decorator(self.clone, orig_func)

    # an abstract base, as torch's: a subclass that leaves these out fails when entered
    def __enter__(self):
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback):
        raise NotImplementedError

    def clone(self):
        """A new manager for one decorated call (a subclass with constructor arguments
        gives its own)."""
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A ``_DecoratorContextManager`` that also decorates without parentheses
    (``@manager`` as well as ``@manager()``)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)
