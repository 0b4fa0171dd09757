"""Reference quantized Linear and Conv1d/2d/3d."""

from .conv import Conv1d, Conv2d, Conv3d
from .linear import Linear

__all__ = ["Conv1d", "Conv2d", "Conv3d", "Linear"]
