"""``torch.nn.quantized.modules.batchnorm``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.batchnorm` (same objects)."""

from numtorch.ao.nn.quantized.modules.batchnorm import *  # noqa: F401,F403
