"""``numtorch.utils``: data loading (``utils.data``) and helpers."""

from . import data  # noqa: F401
