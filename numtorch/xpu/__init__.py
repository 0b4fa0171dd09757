"""``torch.xpu``: Intel GPUs. numtorch has no XPU backend, so this module answers as a torch
built without one: nothing is available, queries of a device raise, and the seeding and
cache calls that torch makes safe without a device do nothing."""

from .._absent_backend import device_count, is_available, is_initialized, nothing, zero

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device",
           "set_device", "get_device_name", "get_device_properties", "synchronize",
           "current_stream", "get_rng_state", "set_rng_state", "empty_cache", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "memory_allocated", "max_memory_allocated",
           "memory_reserved"]


def _absent(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


init = current_device = set_device = get_device_name = get_device_properties = _absent
synchronize = current_stream = get_rng_state = set_rng_state = _absent
empty_cache = manual_seed = manual_seed_all = seed = seed_all = nothing
memory_allocated = max_memory_allocated = memory_reserved = zero
_absent.__doc__ = "Raise: numtorch has no XPU device (torch's error when built without one)."
