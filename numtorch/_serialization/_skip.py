"""``torch.serialization.skip_data``: saves that leave each storage's bytes blank and loads
that do not read them, for a first pass over a checkpoint whose data is filled in another
way (as torch's does, the setting belongs to the thread that entered the context)."""

import threading

import numpy as np

_STATE = threading.local()
_BLANK_CHUNK = 1 << 20  # zero bytes written at a time for a skipped storage


def skipping():
    """Whether this thread is inside a ``skip_data`` context."""
    return getattr(_STATE, "skip", False)


class skip_data:  # torch's name (a class used as a context manager)
    """Context manager: inside it, ``save`` writes every storage record as blank space of
    its size (zero bytes, CRC-32 0, so bytes written there later still load) and ``load``
    builds tensors with the checkpoint's geometry without reading their bytes (they read as
    zeros). The legacy format cannot be written this way.

    Args:
        materialize_fake_tensors (bool): kept for torch's signature (numtorch has no fake
            tensors to save).
    """

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._outer = (skipping(), getattr(_STATE, "materialize", False))
        _STATE.skip, _STATE.materialize = True, self.materialize_fake_tensors

    def __exit__(self, *exc):
        _STATE.skip, _STATE.materialize = self._outer


class Blank:
    """``nbytes`` zero bytes, written in chunks instead of held in memory."""

    def __init__(self, nbytes):
        self.nbytes = nbytes

    def write_to(self, write):
        chunk = memoryview(bytes(min(self.nbytes, _BLANK_CHUNK)))
        left = self.nbytes
        while left:
            n = min(left, len(chunk))
            write(chunk[:n])
            left -= n


def unread(numel, dtype):
    """A storage that is not read from the file: zeros (the pages are only mapped when
    something touches them)."""
    return np.zeros(numel, dtype=dtype)
