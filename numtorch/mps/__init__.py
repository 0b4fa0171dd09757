"""``torch.mps``: Apple GPUs. numtorch has no MPS backend, so this module answers as torch
does on a machine without one: no devices, ``manual_seed`` does nothing, and calls that need
the device raise torch's RuntimeError."""

__all__ = ["is_available", "device_count", "manual_seed", "seed", "synchronize",
           "empty_cache", "get_rng_state", "set_rng_state", "current_allocated_memory",
           "driver_allocated_memory", "recommended_max_memory",
           "set_per_process_memory_fraction"]


def _needs(what):
    def fn(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")

    fn.__doc__ = f"Raise: numtorch has no MPS backend to run ``{what}`` on."
    return fn


def is_available():
    """False: numtorch has no MPS backend."""
    return False


def device_count():
    """0: numtorch sees no MPS devices."""
    return 0


def manual_seed(seed):
    """Seed the MPS generator: nothing to seed without a device."""


synchronize = _needs("deviceSynchronize")
empty_cache = _needs("emptyCache")
get_rng_state = set_rng_state = seed = _needs("getDefaultGenerator")
current_allocated_memory = _needs("getCurrentAllocatedMemory")
driver_allocated_memory = _needs("getDriverAllocatedMemory")
recommended_max_memory = _needs("getRecommendedMaxMemory")
set_per_process_memory_fraction = _needs("setMemoryFraction")
