"""``torch.cuda``'s allocator API over CuPy's memory pool: the full statistics, the summary
table, raw allocations, memory pools of one's own, page-locked host memory counts.

Without CuPy or a GPU each name does what torch's CPU-only build does: the statistics are
empty, and the calls that reach torch's CUDA extension raise its errors.
"""

import collections
import contextlib

from .. import backend
from .memory import _index, memory_stats

__all__ = ["memory_summary", "memory_stats_as_nested_dict", "reset_accumulated_memory_stats",
           "host_memory_stats", "host_memory_stats_as_nested_dict",
           "reset_peak_host_memory_stats", "reset_accumulated_host_memory_stats",
           "get_per_process_memory_fraction", "caching_allocator_alloc",
           "caching_allocator_delete", "caching_allocator_enable", "caching_allocator_disabled",
           "get_allocator_backend", "memory_snapshot", "MemPool", "use_mem_pool",
           "CUDAPluggableAllocator", "change_current_allocator"]


def _no_extension(name):
    """torch's error where its CPU-only build lacks the CUDA function ``name``."""
    return AttributeError(f"module 'torch._C' has no attribute '{name}'")


def _memory():
    """``backend/_cupy_memory.py`` (CuPy present), or torch's error without CUDA."""
    if backend.cupy_or_none() is None:
        raise backend.cuda_unavailable()
    from ..backend import _cupy_memory

    return _cupy_memory


def _nested(flat):
    """torch's nested form of a flat ``a.b.c: value`` statistics dict."""
    out = {}
    for key, value in flat.items():
        node = out
        *path, last = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def memory_stats_as_nested_dict(device=None):
    """:func:`memory_stats` as nested dicts (``stats["allocated_bytes"]["all"]["peak"]``)."""
    return _nested(memory_stats(device))


def reset_accumulated_memory_stats(device=None):
    """Zero the running totals (bytes allocated and freed since start) of ``device``."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_resetAccumulatedMemoryStats")
    from .memory import memory_allocated

    _memory().reset_accumulated(_index(device), memory_allocated(device))


def _format(n):
    for unit in ("B ", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:6d} {unit}" if unit == "B " else f"{n:6.0f} {unit}"
        n /= 1024
    return str(n)


def memory_summary(device=None, abbreviated=False):
    """A table of ``device``'s memory: current and peak use, and the running totals of bytes
    allocated and freed, for the allocated, active and reserved kinds."""
    stats = memory_stats(device)
    rows = [("Allocated memory", "allocated_bytes"), ("Active memory", "active_bytes"),
            ("GPU reserved memory", "reserved_bytes")]
    first = stats["allocated_bytes.all.current"]  # torch's KeyError without CUDA  # noqa: F841
    line = "|" + "=" * 75 + "|"
    thin = "|" + "-" * 75 + "|"
    out = [line, "|{:^75}|".format("PyTorch CUDA memory summary, device ID "
                                   f"{_index(device)}"), thin,
           "|{:^75}|".format("CuPy memory pool, the 'all' pool only (no small/large split)"),
           line, "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |",
           thin]
    for title, key in rows:
        cells = [stats[f"{key}.all.{k}"] for k in ("current", "peak", "allocated", "freed")]
        out.append(f"| {title:<22}| " + " | ".join(_format(c) for c in cells) + " |")
        if not abbreviated:
            out.append(thin)
    out.append(line)
    return "\n".join(out) + "\n"


def host_memory_stats():
    """Page-locked host memory numtorch has pinned: current and peak bytes, running totals
    (empty without CUDA, as in torch)."""
    if backend.cupy_or_none() is None:
        return collections.OrderedDict()
    h = _memory().host_stats()
    return collections.OrderedDict([
        ("allocated_bytes.current", h["current"]), ("allocated_bytes.peak", h["peak"]),
        ("allocated_bytes.allocated", h["allocated"]),
        ("allocated_bytes.freed", h["allocated"] - h["current"]),
        ("allocations.current", h["live"]), ("allocations.allocated", h["allocations"])])


def host_memory_stats_as_nested_dict():
    """:func:`host_memory_stats` as nested dicts."""
    return _nested(host_memory_stats())


def reset_peak_host_memory_stats():
    """Start the page-locked memory peak over from the current use."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_resetPeakHostMemoryStats")
    _memory().reset_host("peak")


def reset_accumulated_host_memory_stats():
    """Zero the page-locked memory running totals."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_resetAccumulatedHostMemoryStats")
    _memory().reset_host("accumulated")


def get_per_process_memory_fraction(device=None):
    """The share of ``device``'s memory this process may take (1.0 unless
    ``set_per_process_memory_fraction`` capped it)."""
    return _memory().memory_fraction(_index(device))


def caching_allocator_alloc(size, device=None, stream=None):
    """``size`` bytes of ``device``'s memory from the pool, as an address (free it with
    :func:`caching_allocator_delete`)."""
    mem = _memory()
    return mem.raw_alloc(int(size), _index(device), None if stream is None else stream._stream)


def caching_allocator_delete(mem_ptr):
    """Give memory from :func:`caching_allocator_alloc` back to the pool."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_cudaCachingAllocator_raw_delete")
    _memory().raw_delete(mem_ptr)


_ENABLED = [True]


def caching_allocator_enable(value=True):
    """Turn the caching pool on (default) or off: off, the blocks freed tensors left in the
    pool go back to the driver before each allocation. Nothing happens without CUDA, as in
    torch."""
    if backend.cupy_or_none() is None:
        return
    _ENABLED[0] = bool(value)
    backend.helpers_for(backend.cupy_or_none()).CACHE_BLOCKS[0] = bool(value)


@contextlib.contextmanager
def caching_allocator_disabled():
    """A block in which the caching pool is off (see :func:`caching_allocator_enable`)."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_cudaCachingAllocator_is_enabled")
    before = _ENABLED[0]
    caching_allocator_enable(False)
    try:
        yield
    finally:
        caching_allocator_enable(before)


def get_allocator_backend():
    """The allocator in use: "native" (CuPy's memory pool caches blocks as torch's native
    allocator does)."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_getAllocatorBackend")
    return "native"


def memory_snapshot(mempool_id=None, include_traces=True):
    """torch's per-segment allocator snapshot: CuPy's pool keeps no segment records, so with
    CUDA this raises RuntimeError (without CUDA, torch's error)."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_memorySnapshot")
    raise RuntimeError("memory_snapshot: CuPy's memory pool keeps no per-segment records; use "
                       "memory_stats() or memory_summary()")


class MemPool:
    """A memory pool of its own: tensors made inside ``with use_mem_pool(pool):`` take their
    memory from it (a ``cupy.cuda.MemoryPool``), and it goes back to the driver with the pool.

    Args:
        allocator: must be None (CuPy's pool allocates with cudaMalloc).
    """

    _next_id = [0]

    def __init__(self, allocator=None, use_on_oom=False, no_split=False):
        if backend.cupy_or_none() is None:
            raise RuntimeError("Tried to instantiate dummy base class MemPool")
        if allocator is not None:
            raise RuntimeError("MemPool: numtorch's pools allocate through CuPy; a custom "
                               "allocator is not supported")
        self._pool = _memory().new_private_pool()
        MemPool._next_id[0] += 1
        self._id = (0, MemPool._next_id[0])
        self._users = 0

    @property
    def id(self):
        """The pool's id, a pair of ints (as torch's)."""
        return self._id

    @property
    def allocator(self):
        return None

    def use_count(self):
        """How many ``use_mem_pool`` blocks hold this pool now, plus the reference the pool
        object itself is."""
        return 1 + self._users

    def snapshot(self):
        """torch's per-segment view of the pool (see :func:`memory_snapshot`)."""
        return memory_snapshot()


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    """A block in which ``device``'s allocations come from ``pool`` (a :class:`MemPool`)."""
    mem = _memory()
    pool._users += 1
    mem.route_allocations(pool._pool)
    try:
        yield
    finally:
        mem.route_allocations(None)
        pool._users -= 1


class CUDAPluggableAllocator:
    """An allocator in a shared library (``path_to_so_file``), named by its allocation and
    free functions. The library is loaded (``OSError`` when it cannot be); numtorch's memory
    comes from CuPy's pool, so :func:`change_current_allocator` refuses it on a GPU."""

    def __init__(self, path_to_so_file, alloc_fn_name, free_fn_name):
        import ctypes

        lib = ctypes.CDLL(path_to_so_file)
        self._alloc = getattr(lib, alloc_fn_name)
        self._free = getattr(lib, free_fn_name)

    def allocator(self):
        return self


def change_current_allocator(allocator):
    """Swap the CUDA allocator: refused on a GPU (numtorch allocates through CuPy's pool);
    torch's error without CUDA."""
    if backend.cupy_or_none() is None:
        raise _no_extension("_cuda_changeCurrentAllocator")
    raise RuntimeError("change_current_allocator: numtorch allocates GPU memory through CuPy's "
                       "memory pool, which cannot be swapped for a torch allocator")
