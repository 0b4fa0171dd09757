"""Quantized fused modules (``torch.ao.nn.intrinsic.quantized``)."""

from . import dynamic  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
