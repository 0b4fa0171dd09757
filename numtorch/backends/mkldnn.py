"""``backends.mkldnn``: accepted for compatibility (NumPy's BLAS does the work)."""

enabled = True


def is_available():
    return False


deterministic = False
allow_tf32 = True
fp32_precision = "none"


class flags:
    """Context manager that sets the mkldnn flags inside the block (``enabled`` also picks
    the name an LSTM layer's graph node takes, as torch's layer picks its kernel)."""

    def __init__(self, enabled=False, deterministic=False, allow_tf32=True,
                 fp32_precision="none"):
        self.values = dict(enabled=enabled, deterministic=deterministic, allow_tf32=allow_tf32,
                           fp32_precision=fp32_precision)

    def __enter__(self):
        g = globals()
        self.prev = {k: g[k] for k in self.values}
        g.update(self.values)

    def __exit__(self, *exc):
        globals().update(self.prev)
        return False
