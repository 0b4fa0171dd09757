"""``backends.cudnn``: flags accepted for compatibility; numtorch has no cuDNN kernels."""

from ._flag_context import FlagContext

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """numtorch never uses cuDNN (GPU work goes through CuPy)."""
    return False


def version():
    return None


class flags(FlagContext):
    """Context manager that sets the cudnn flags inside the block."""

    def __init__(self, enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
        super().__init__(globals(), dict(enabled=enabled, benchmark=benchmark,
                                         deterministic=deterministic, allow_tf32=allow_tf32))
