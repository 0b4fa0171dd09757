"""``backends.nnpack``: the NNPACK convolution flag, stored (numtorch has no NNPACK kernels,
so ``is_available()`` is False and the flag changes nothing)."""

import contextlib

enabled = True


def is_available():
    return False


def set_flags(_enabled):
    """Set ``enabled``; returns the previous setting as a one-element tuple (torch's form)."""
    global enabled
    orig = (enabled,)
    enabled = bool(_enabled)
    return orig


@contextlib.contextmanager
def flags(enabled=False):
    """Set the flag inside a ``with`` block and restore it after."""
    orig = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(orig[0])
