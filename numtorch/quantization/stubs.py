"""``torch.quantization.stubs``: the old import path of :mod:`numtorch.ao.quantization.stubs` (same objects)."""

from numtorch.ao.quantization.stubs import *  # noqa: F401,F403
