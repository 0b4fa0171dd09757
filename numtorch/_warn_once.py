"""Warnings torch gives once per process (its C++ warn-once): the first call warns, whatever
the warnings filters say, and later calls stay silent."""

import warnings

__all__ = ["warn_once"]

_DONE = set()


def warn_once(key, message, category=UserWarning, stacklevel=2):
    """Warn ``message`` unless a warning under ``key`` was already given in this process;
    ``stacklevel`` counts from the caller of ``warn_once``."""
    if key in _DONE:
        return
    _DONE.add(key)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
