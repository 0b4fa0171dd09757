"""``backends.cudnn``: flags accepted for compatibility; numtorch has no cuDNN kernels."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """numtorch never uses cuDNN (GPU work goes through CuPy)."""
    return False


def version():
    return None


class flags:
    """Context manager that sets the cudnn flags inside the block."""

    def __init__(self, enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
        self.values = dict(enabled=enabled, benchmark=benchmark, deterministic=deterministic,
                           allow_tf32=allow_tf32)

    def __enter__(self):
        g = globals()
        self.prev = {k: g[k] for k in self.values}
        g.update(self.values)

    def __exit__(self, *exc):
        globals().update(self.prev)
        return False
