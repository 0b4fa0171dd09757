"""``torch.nn.intrinsic.quantized.modules.conv_relu``: the old import path of :mod:`numtorch.ao.nn.intrinsic.quantized.modules.conv_relu` (same objects)."""

from numtorch.ao.nn.intrinsic.quantized.modules.conv_relu import *  # noqa: F401,F403
