"""Dynamic QAT modules."""

from .linear import Linear  # noqa: F401

__all__ = ["Linear"]
