"""``torch.nn.quantized.modules.normalization``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.normalization` (same objects)."""

from numtorch.ao.nn.quantized.modules.normalization import *  # noqa: F401,F403
