"""``torch.nn.quantized``: the old import path of :mod:`numtorch.ao.nn.quantized` (same objects)."""

from numtorch.ao.nn.quantized import *  # noqa: F401,F403

from . import dynamic, functional, modules  # noqa: F401,E402
