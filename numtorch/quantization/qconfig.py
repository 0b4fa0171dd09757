"""``torch.quantization.qconfig``: the old import path of :mod:`numtorch.ao.quantization.qconfig` (same objects)."""

from numtorch.ao.quantization.qconfig import *  # noqa: F401,F403
