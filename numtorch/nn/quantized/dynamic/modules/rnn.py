"""``torch.nn.quantized.dynamic.modules.rnn``: the old import path of :mod:`numtorch.ao.nn.quantized.dynamic.modules.rnn` (same objects)."""

from numtorch.ao.nn.quantized.dynamic.modules.rnn import *  # noqa: F401,F403
