"""torch's errors for arrays too large to allocate, in place of NumPy's.

NumPy raises ``MemoryError("Unable to allocate ...")`` when the memory is not there and
``ValueError("array is too big; ...")`` when the byte count does not fit its index type; torch
raises RuntimeErrors worded after its CPU allocator and its storage-size check. Callers wrap
the allocation in ``try``/``except`` (free when nothing is raised) and re-raise
:func:`alloc_error`.
"""


def alloc_error(exc, shape=None):
    """The exception torch raises where NumPy raised ``exc`` allocating an array of ``shape``
    (``exc`` itself when it is not an allocation failure)."""
    if isinstance(exc, MemoryError):
        nbytes = getattr(exc, "_total_size", None)
        if nbytes is None:
            return exc
        return RuntimeError(_cpu_alloc_message(nbytes))
    msg = str(exc)
    if shape is not None and isinstance(exc, ValueError) and msg.startswith(
            ("array is too big", "Maximum allowed dimension")):
        return RuntimeError(f"Storage size calculation overflowed with sizes="
                            f"[{', '.join(str(int(d)) for d in shape)}]")
    return exc


def _cpu_alloc_message(nbytes):
    return (f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
            f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate "
            f"memory)")


def result_alloc_error(exc, shape, itemsize):
    """Like :func:`alloc_error`, for a result of ``shape`` whose NumPy computation may have
    failed on an intermediate array of another dtype or shape: the error names the bytes of
    the result itself (``itemsize`` each), as torch allocates only that.

    Args:
        exc (Exception): what NumPy raised.
        shape (tuple of int): the result's shape.
        itemsize (int): bytes per element of the result's dtype.
    """
    if not isinstance(exc, MemoryError) and not (isinstance(exc, ValueError) and str(
            exc).startswith(("array is too big", "Maximum allowed dimension"))):
        return exc
    nbytes = itemsize
    for d in shape:
        nbytes *= int(d)
    if nbytes >= 1 << 63:  # torch's storage size is an int64 count of bytes
        return RuntimeError(f"Storage size calculation overflowed with sizes="
                            f"[{', '.join(str(int(d)) for d in shape)}]")
    return RuntimeError(_cpu_alloc_message(nbytes))
