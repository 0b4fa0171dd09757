"""``torch.nn.intrinsic.quantized.modules.bn_relu``: the old import path of :mod:`numtorch.ao.nn.intrinsic.quantized.modules.bn_relu` (same objects)."""

from numtorch.ao.nn.intrinsic.quantized.modules.bn_relu import *  # noqa: F401,F403
