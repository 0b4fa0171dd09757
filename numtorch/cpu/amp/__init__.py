"""``torch.cpu.amp``: the CPU-flavoured (deprecated) spellings of ``torch.amp``."""

from .autocast_mode import autocast  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler"]
