"""``torch.nn.quantized.modules.linear``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.linear` (same objects)."""

from numtorch.ao.nn.quantized.modules.linear import *  # noqa: F401,F403
