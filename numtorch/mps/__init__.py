"""``torch.mps``: Apple GPUs. numtorch has no MPS backend, so this module answers as torch
does on a machine without one: no devices, ``manual_seed`` does nothing, and calls that need
the device raise torch's RuntimeError."""

from .._absent_backend import needs_backend

__all__ = ["is_available", "device_count", "manual_seed", "seed", "synchronize",
           "empty_cache", "get_rng_state", "set_rng_state", "current_allocated_memory",
           "driver_allocated_memory", "recommended_max_memory",
           "set_per_process_memory_fraction"]


def is_available():
    """False: numtorch has no MPS backend."""
    return False


def device_count():
    """0: numtorch sees no MPS devices."""
    return 0


def manual_seed(seed):
    """Seed the MPS generator: nothing to seed without a device."""


synchronize = needs_backend("deviceSynchronize", "MPS")
empty_cache = needs_backend("emptyCache", "MPS")
get_rng_state = set_rng_state = seed = needs_backend("getDefaultGenerator", "MPS")
current_allocated_memory = needs_backend("getCurrentAllocatedMemory", "MPS")
driver_allocated_memory = needs_backend("getDriverAllocatedMemory", "MPS")
recommended_max_memory = needs_backend("getRecommendedMaxMemory", "MPS")
set_per_process_memory_fraction = needs_backend("setMemoryFraction", "MPS")
