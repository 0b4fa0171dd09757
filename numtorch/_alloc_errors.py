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
        return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
                            f"can't allocate memory: you tried to allocate {nbytes} bytes. Error "
                            f"code 12 (Cannot allocate memory)")
    msg = str(exc)
    if shape is not None and isinstance(exc, ValueError) and msg.startswith(
            ("array is too big", "Maximum allowed dimension")):
        return RuntimeError(f"Storage size calculation overflowed with sizes="
                            f"[{', '.join(str(int(d)) for d in shape)}]")
    return exc
