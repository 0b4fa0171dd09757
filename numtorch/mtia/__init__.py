"""``torch.mtia``: Meta's MTIA accelerators. numtorch has none, so this module answers as a
torch built without the backend: nothing is available, calls that need a device raise torch's
errors, and the seeding and memory queries torch answers without one answer the same."""

from .._tensor_extras import _MTIA_MISSING

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device",
           "set_device", "synchronize", "empty_cache", "get_device_capability",
           "get_device_properties", "current_stream", "default_stream", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "initial_seed", "seed", "seed_all",
           "manual_seed", "manual_seed_all", "memory_allocated", "max_memory_allocated",
           "memory_stats", "reset_peak_memory_stats", "record_memory_history", "snapshot",
           "is_bf16_supported"]


def _needs_backend(call):
    def fail(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {call}() without MTIA backend.")

    fail.__doc__ = f"Raise torch's error: {call}() needs the MTIA backend, which numtorch lacks."
    return fail


def _not_compiled(*args, **kwargs):
    """Raise torch's error for a build without MTIA."""
    raise AssertionError(_MTIA_MISSING)


def is_available():
    """False: numtorch has no MTIA backend."""
    return False


def device_count():
    """0: numtorch sees no MTIA devices."""
    return 0


def is_initialized():
    """False: there is no MTIA state to initialise."""
    return False


def is_bf16_supported(including_emulation=True):
    """True, as torch answers without a device."""
    return True


def memory_stats(device=None):
    """No statistics without a device: an empty dict."""
    return {}


def get_rng_state_all():
    """One state per device: none."""
    return []


def _nothing(*args, **kwargs):
    """Nothing to do without an MTIA device (as torch without one)."""


def _zero(*args, **kwargs):
    """0 bytes: no MTIA memory is in use."""
    return 0


def manual_seed(seed):
    """Nothing to seed without an MTIA device."""


def manual_seed_all(seed):
    """Nothing to seed without an MTIA device."""


init = get_rng_state = initial_seed = _not_compiled
current_device = get_device_capability = get_device_properties = _needs_backend(
    "getCurrentDevice")
current_stream = default_stream = synchronize = set_rng_state = current_device
set_device = _needs_backend("setCurrentDevice")
empty_cache = _needs_backend("emptyCache")
snapshot = _needs_backend("memorySnapshot")
seed = seed_all = reset_peak_memory_stats = record_memory_history = _nothing
memory_allocated = max_memory_allocated = _zero
