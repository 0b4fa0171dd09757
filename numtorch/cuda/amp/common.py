"""``amp_definitely_not_available``: true when no CUDA device can run autocast."""

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available():
    from ... import cuda

    return not cuda.is_available()
