"""Dynamic QAT modules."""

from .modules import Linear  # noqa: F401

__all__ = ["Linear"]
