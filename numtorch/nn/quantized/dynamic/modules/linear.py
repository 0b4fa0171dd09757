"""``torch.nn.quantized.dynamic.modules.linear``: the old import path of :mod:`numtorch.ao.nn.quantized.dynamic.modules.linear` (same objects)."""

from numtorch.ao.nn.quantized.dynamic.modules.linear import *  # noqa: F401,F403
