"""``torch.nn.quantized.modules.conv``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.conv` (same objects)."""

from numtorch.ao.nn.quantized.modules.conv import *  # noqa: F401,F403
