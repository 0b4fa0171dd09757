"""``torch.ops.profiler``: the operator form of ``record_function`` ranges.

Programs that emit profiler ranges into traced code (an fx graph calling
``torch.ops.profiler._record_function_enter``) open a range with one call and close it by
passing the returned handle to the other.
"""

__all__ = ["_record_function_enter", "_record_function_enter_new", "_record_function_exit"]


def _record_function_enter(name, args=None):
    """Open a ``record_function`` range named ``name``; returns the handle to close it with.

    Note:
        torch returns an opaque tensor as the handle; here it is the open range itself.
    """
    from ..profiler import record_function

    handle = record_function(name, args)
    handle.__enter__()
    return handle


_record_function_enter_new = _record_function_enter


def _record_function_exit(handle):
    """Close the range opened by :func:`_record_function_enter`."""
    handle.__exit__(None, None, None)
