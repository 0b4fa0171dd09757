"""``torch.nn.quantized.modules.dropout``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.dropout` (same objects)."""

from numtorch.ao.nn.quantized.modules.dropout import *  # noqa: F401,F403
