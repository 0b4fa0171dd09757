"""``backends.mkldnn``: accepted for compatibility (NumPy's BLAS does the work)."""

from ._flag_context import FlagContext

enabled = True


def is_available():
    return False


deterministic = False
allow_tf32 = True
fp32_precision = "none"


class flags(FlagContext):
    """Context manager that sets the mkldnn flags inside the block (``enabled`` also picks
    the name an LSTM layer's graph node takes, as torch's layer picks its kernel)."""

    def __init__(self, enabled=False, deterministic=False, allow_tf32=True,
                 fp32_precision="none"):
        super().__init__(globals(), dict(enabled=enabled, deterministic=deterministic,
                                         allow_tf32=allow_tf32, fp32_precision=fp32_precision))
