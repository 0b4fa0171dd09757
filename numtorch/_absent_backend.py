"""What ``torch.xpu``, ``torch.mps`` and ``torch.mtia`` share in numtorch, which has none of
these backends: each module answers as torch built (or run) without its device."""


def is_available():
    """False: numtorch has no such backend."""
    return False


def device_count():
    """0: numtorch sees no such devices."""
    return 0


def is_initialized():
    """False: there is no device state to initialise."""
    return False


def nothing(*args, **kwargs):
    """Nothing to do without the device (as torch without one)."""


def zero(*args, **kwargs):
    """0 bytes: no device memory is in use."""
    return 0


def needs_backend(call, backend):
    """A function raising torch's error for ``call()`` made without ``backend``."""

    def fail(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {call}() without {backend} backend.")

    fail.__doc__ = f"Raise torch's error: {call}() needs the {backend} backend, which numtorch lacks."
    return fail
