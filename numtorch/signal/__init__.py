"""``torch.signal``: signal-processing helpers (the window functions in ``windows``)."""

from . import windows  # noqa: F401

__all__ = ["windows"]
