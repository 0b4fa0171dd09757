"""``torch.nn.quantized.functional``: the old import path of :mod:`numtorch.ao.nn.quantized.functional` (same objects)."""

from numtorch.ao.nn.quantized.functional import *  # noqa: F401,F403
