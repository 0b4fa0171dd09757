"""``torch.nn.quantized.dynamic``: the old import path of :mod:`numtorch.ao.nn.quantized.dynamic` (same objects)."""

from numtorch.ao.nn.quantized.dynamic import *  # noqa: F401,F403

from . import modules  # noqa: F401,E402
