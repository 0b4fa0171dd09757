"""Fused float modules."""

from .fused import *  # noqa: F401,F403
from .fused import _FusedModule, __all__  # noqa: F401
