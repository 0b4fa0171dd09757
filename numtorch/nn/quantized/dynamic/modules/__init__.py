"""``torch.nn.quantized.dynamic.modules``: the old import path of :mod:`numtorch.ao.nn.quantized.dynamic.modules` (same objects)."""

from numtorch.ao.nn.quantized.dynamic.modules import *  # noqa: F401,F403

from . import conv, linear, rnn  # noqa: F401,E402
