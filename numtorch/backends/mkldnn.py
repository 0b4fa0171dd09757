"""``backends.mkldnn``: accepted for compatibility (NumPy's BLAS does the work)."""

enabled = True


def is_available():
    return False
