"""``torch.nn.quantized.dynamic.modules.conv``: the old import path of :mod:`numtorch.ao.nn.quantized.dynamic.modules.conv` (same objects)."""

from numtorch.ao.nn.quantized.dynamic.modules.conv import *  # noqa: F401,F403
