"""``torch.nn.quantized.modules.utils``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.utils` (same objects)."""

from numtorch.ao.nn.quantized.modules.utils import *  # noqa: F401,F403
