"""``rpc.functions.async_execution``: functions that answer an RPC through a Future."""

import functools

__all__ = ["async_execution"]


def async_execution(fn):
    """Mark ``fn`` as returning a Future whose value is the RPC's answer.

    The worker that runs ``fn`` for an RPC does not block a thread until the Future
    completes: it sends the reply from the Future's completion. Called directly, ``fn``
    behaves as it is written (it returns the Future).
    """
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper._wrapped_async_rpc_function = fn
    return wrapper


def is_async(fn):
    """True when ``fn`` (or the function a bound method wraps) is marked async."""
    fn = getattr(fn, "__func__", fn)
    return hasattr(fn, "_wrapped_async_rpc_function")
