"""CuPy's side of ``torch.cuda``'s allocator API: raw allocations, the pool limit, the totals
torch's ``memory_stats`` keeps, page-locked host memory counts, and the private pools CUDA
graphs capture into (as torch's graphs use a pool of their own, so memory a graph replays into
is never handed to other tensors).
"""

import weakref

from . import _cupy

_RAW = {}  # address -> MemoryPointer of caching_allocator_alloc (freed by _delete)
_HOST = {"current": 0, "peak": 0, "allocated": 0, "allocations": 0, "live": 0}


def allocated_total(index):
    """Bytes asked of ``index``'s pool since start or :func:`reset_accumulated`."""
    return _cupy.counts(index)[0]


_BASE = {}  # index -> bytes in use when the running totals were last reset


def allocated_base(index):
    """Bytes in use on ``index`` at the last :func:`reset_accumulated` (0 before any)."""
    return _BASE.get(index, 0)


def reset_accumulated(index, in_use=0):
    """Restart the running totals; ``in_use`` bytes are live now (their later frees count)."""
    _cupy.counts(index)[0] = 0
    _BASE[index] = in_use


def memory_fraction(index):
    """The share of GPU ``index``'s memory the pool may take (1.0 when unlimited)."""
    cp = _cupy.cp
    with cp.cuda.Device(index):
        limit = cp.get_default_memory_pool().get_limit()
    if not limit:
        return 1.0
    return limit / _cupy.mem_get_info(index)[1]


def raw_alloc(size, index, stream=None):
    """``size`` bytes of GPU ``index``'s memory from the pool, as an address."""
    cp = _cupy.cp
    with cp.cuda.Device(index):
        if stream is None:
            mem = cp.cuda.alloc(size)
        else:
            with stream:
                mem = cp.cuda.alloc(size)
    _RAW[mem.ptr] = mem
    return mem.ptr


def raw_delete(ptr):
    """Give memory from :func:`raw_alloc` back to the pool."""
    if _RAW.pop(int(ptr), None) is None:
        raise RuntimeError(f"invalid device pointer: {int(ptr):#x}")


def _host_freed(nbytes):
    _HOST["current"] -= nbytes
    _HOST["live"] -= 1


def count_pinned(array):
    """Note page-locked ``array`` in the host allocation counters until it is freed."""
    n = array.nbytes
    _HOST["current"] += n
    _HOST["allocated"] += n
    _HOST["allocations"] += 1
    _HOST["live"] += 1
    _HOST["peak"] = max(_HOST["peak"], _HOST["current"])
    weakref.finalize(array, _host_freed, n)


def host_stats():
    """The page-locked host memory counters (bytes and allocation counts)."""
    return dict(_HOST)


def reset_host(what):
    """``what``: "peak" starts the peak over from now; "accumulated" zeroes the totals."""
    if what == "peak":
        _HOST["peak"] = _HOST["current"]
    else:
        _HOST["allocated"] = _HOST["allocations"] = 0


def route_allocations(pool):
    """Take every allocation from ``pool`` (a ``cupy.cuda.MemoryPool``) until called with
    None."""
    _cupy._ROUTE_POOL[0] = pool


# -- CUDA graphs ----------------------------------------------------------------------------------
def new_private_pool():
    """A memory pool of its own for what a graph capture allocates."""
    return _cupy.cp.cuda.MemoryPool()


def begin_capture(stream, pool):
    """Start recording the work queued on CuPy stream ``stream``; allocations meanwhile come
    from ``pool``."""
    if _cupy._ROUTE_POOL[0] is not None:
        raise RuntimeError("CUDA graph capture is already under way")
    stream.begin_capture()
    _cupy._ROUTE_POOL[0] = pool
    _CAPTURING[0] = stream


def end_capture(stream):
    """Stop recording; returns CuPy's instantiated graph."""
    _cupy._ROUTE_POOL[0] = None
    _CAPTURING[0] = None
    return stream.end_capture()


_CAPTURING = [None]  # the CuPy stream being captured


def is_capturing():
    """True while a graph capture is under way on the current stream."""
    s = _CAPTURING[0]
    return s is not None and _cupy.cp.cuda.get_current_stream().ptr == s.ptr
