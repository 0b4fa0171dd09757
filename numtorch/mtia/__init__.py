"""``torch.mtia``: Meta's MTIA accelerators. numtorch has none, so this module answers as a
torch built without the backend: nothing is available, calls that need a device raise torch's
errors, and the seeding and memory queries torch answers without one answer the same."""

from .._absent_backend import (device_count, is_available, is_initialized, needs_backend,
                               nothing, zero)
from .._tensor_extras import _MTIA_MISSING

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device",
           "set_device", "synchronize", "empty_cache", "get_device_capability",
           "get_device_properties", "current_stream", "default_stream", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "initial_seed", "seed", "seed_all",
           "manual_seed", "manual_seed_all", "memory_allocated", "max_memory_allocated",
           "memory_stats", "reset_peak_memory_stats", "record_memory_history", "snapshot",
           "is_bf16_supported"]


def _not_compiled(*args, **kwargs):
    """Raise torch's error for a build without MTIA."""
    raise AssertionError(_MTIA_MISSING)


def is_bf16_supported(including_emulation=True):
    """True, as torch answers without a device."""
    return True


def memory_stats(device=None):
    """No statistics without a device: an empty dict."""
    return {}


def get_rng_state_all():
    """One state per device: none."""
    return []


def manual_seed(seed):
    """Nothing to seed without an MTIA device."""


def manual_seed_all(seed):
    """Nothing to seed without an MTIA device."""


init = get_rng_state = initial_seed = _not_compiled
current_device = get_device_capability = get_device_properties = needs_backend(
    "getCurrentDevice", "MTIA")
current_stream = default_stream = synchronize = set_rng_state = current_device
set_device = needs_backend("setCurrentDevice", "MTIA")
empty_cache = needs_backend("emptyCache", "MTIA")
snapshot = needs_backend("memorySnapshot", "MTIA")
seed = seed_all = reset_peak_memory_stats = record_memory_history = nothing
memory_allocated = max_memory_allocated = zero
