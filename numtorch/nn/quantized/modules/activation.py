"""``torch.nn.quantized.modules.activation``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.activation` (same objects)."""

from numtorch.ao.nn.quantized.modules.activation import *  # noqa: F401,F403
