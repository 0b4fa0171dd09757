"""``backends.mkl``: numtorch has no MKL kernels (NumPy's BLAS does the products), so
``is_available()`` is False and ``verbose`` (MKL's call log) logs nothing."""

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    return False


class verbose:
    """Context manager for MKL's verbose log level (``VERBOSE_ON``/``VERBOSE_OFF``): accepted
    and ignored, as torch ignores it in a build without MKL's verbose support."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
