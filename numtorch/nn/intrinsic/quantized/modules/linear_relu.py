"""``torch.nn.intrinsic.quantized.modules.linear_relu``: the old import path of :mod:`numtorch.ao.nn.intrinsic.quantized.modules.linear_relu` (same objects)."""

from numtorch.ao.nn.intrinsic.quantized.modules.linear_relu import *  # noqa: F401,F403
