"""``torch.nn.intrinsic.quantized``: the old import path of :mod:`numtorch.ao.nn.intrinsic.quantized` (same objects)."""

from numtorch.ao.nn.intrinsic.quantized import *  # noqa: F401,F403

from . import dynamic, modules  # noqa: F401,E402
