"""``torch.cuda.memory``: what CuPy's memory pools hold, in torch's terms.

numtorch's CUDA tensors are allocated from CuPy's default pool, which plays the part of torch's
caching allocator: ``memory_allocated`` is what live arrays use (``used_bytes``),
``memory_reserved`` what the pool holds from the driver (``total_bytes``), and the peaks are
recorded by numtorch's allocator hook (``backend/_cupy.py``). Without CUDA the counters read 0,
as torch's do.
"""

import collections
import warnings

from .. import backend

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
           "reset_max_memory_cached", "empty_cache", "mem_get_info", "memory_stats",
           "memory_cached", "max_memory_cached", "set_per_process_memory_fraction"]


def _index(device):
    from .random import _index as index_of

    return index_of("cuda" if device is None else device)


def _stats(device):
    """``(allocated, peak allocated, reserved, peak reserved)``; zeros without CUDA."""
    if backend.cupy_or_none() is None:
        return 0, 0, 0, 0
    return backend.helpers_for(backend.cupy_or_none()).memory_stats(_index(device))


def memory_allocated(device=None):
    """Bytes held by live tensors on ``device`` (default: the current GPU)."""
    return _stats(device)[0]


def max_memory_allocated(device=None):
    """The peak of :func:`memory_allocated` since start or :func:`reset_peak_memory_stats`."""
    return _stats(device)[1]


def memory_reserved(device=None):
    """Bytes the memory pool holds from the driver on ``device`` (used or cached)."""
    return _stats(device)[2]


def max_memory_reserved(device=None):
    """The peak of :func:`memory_reserved`."""
    return _stats(device)[3]


def memory_cached(device=None):
    """Deprecated name of :func:`memory_reserved`."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None):
    """Deprecated name of :func:`max_memory_reserved`."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None):
    """Start the peaks over from the current use."""
    cp = backend.cupy_or_none()
    if cp is None:  # torch's CPU-only build lacks the function it calls
        raise AttributeError("module 'torch._C' has no attribute '_cuda_resetPeakMemoryStats'")
    backend.helpers_for(cp).reset_peak(_index(device))


def reset_max_memory_allocated(device=None):
    """Deprecated: resets every peak, as :func:`reset_peak_memory_stats`."""
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device=None):
    """Deprecated: resets every peak, as :func:`reset_peak_memory_stats`."""
    warnings.warn("torch.cuda.reset_max_memory_cached now calls "
                  "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
                  FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def empty_cache():
    """Give the pools' cached blocks (device and pinned host memory) back to the driver; live
    tensors keep theirs. Nothing happens without CUDA."""
    cp = backend.cupy_or_none()
    if cp is not None:
        backend.helpers_for(cp).empty_cache()


def mem_get_info(device=None):
    """``(free, total)`` bytes of the GPU, as the driver reports them."""
    cp = backend.cupy_or_none()
    if cp is None:
        raise backend.cuda_unavailable()
    return backend.helpers_for(cp).mem_get_info(_index(device))


def set_per_process_memory_fraction(fraction, device=None):
    """Limit the memory pool of ``device`` to ``fraction`` of its memory (CuPy's pool limit)."""
    cp = backend.cupy_or_none()
    if cp is None:
        raise backend.cuda_unavailable()
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    backend.helpers_for(cp).set_memory_fraction(fraction, _index(device))


def memory_stats(device=None):
    """The counters above under torch's ``memory_stats`` keys (the ``all`` pool: CuPy keeps
    no small/large split); empty without CUDA."""
    if backend.cupy_or_none() is None:
        return collections.OrderedDict()
    alloc, peak, reserved, peak_reserved = _stats(device)
    from ..backend import _cupy_memory

    total = _cupy_memory.allocated_total(_index(device))
    base = _cupy_memory.allocated_base(_index(device))
    out = collections.OrderedDict()
    for name, cur, top in (("allocated_bytes", alloc, peak), ("reserved_bytes", reserved,
                                                               peak_reserved),
                           ("active_bytes", alloc, peak)):
        out[f"{name}.all.current"] = cur
        out[f"{name}.all.peak"] = top
        # running totals: bytes handed out since start (or reset_accumulated_memory_stats)
        # and bytes given back since then (also of memory in use at the reset: ``base``);
        # the pool's reserve is counted as it grows
        if name == "reserved_bytes":
            got = max(peak_reserved, reserved)
            out[f"{name}.all.allocated"] = max(got, cur)
            out[f"{name}.all.freed"] = max(got, cur) - cur
        else:
            out[f"{name}.all.allocated"] = max(total, cur - base)
            out[f"{name}.all.freed"] = max(total + base - cur, 0)
    return out


# torch.cuda.memory also holds the allocator API (defined in _allocator.py / _runtime.py)
from ._allocator import (  # noqa: E402,F401
    CUDAPluggableAllocator, MemPool, caching_allocator_alloc, caching_allocator_delete,
    caching_allocator_disabled, caching_allocator_enable, change_current_allocator,
    get_allocator_backend, get_per_process_memory_fraction, host_memory_stats,
    host_memory_stats_as_nested_dict, memory_snapshot, memory_stats_as_nested_dict,
    memory_summary, reset_accumulated_host_memory_stats, reset_accumulated_memory_stats,
    reset_peak_host_memory_stats, use_mem_pool,
)
from ._runtime import list_gpu_processes  # noqa: E402,F401


def is_initialized():
    """True once CUDA is usable (CuPy found a GPU)."""
    return backend.cupy_or_none() is not None
