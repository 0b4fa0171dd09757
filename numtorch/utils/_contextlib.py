"""``torch.utils._contextlib``: context managers that also decorate functions (the base of
``no_grad``-style managers; libraries subclass ``_DecoratorContextManager`` for their own).

A decorated function runs inside a fresh manager (``clone()``) per call; a decorated
generator function has the manager entered around each of its resumptions only, so code
between ``yield``s in the caller runs outside it.
"""

import functools
import inspect
import sys

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager", "context_decorator"]


def _wrap_generator(ctx_factory, func):
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:  # noqa: BLE001 - passed into the generator
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator_context


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

    def __enter__(self):
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback):
        raise NotImplementedError

    def clone(self):
        # override this method if your children class takes __init__ parameters
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A ``_DecoratorContextManager`` that also decorates without parentheses
    (``@manager`` as well as ``@manager()``)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)
