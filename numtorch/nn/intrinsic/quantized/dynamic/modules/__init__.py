"""``torch.nn.intrinsic.quantized.dynamic.modules``: the old import path of :mod:`numtorch.ao.nn.intrinsic.quantized.dynamic.modules` (same objects)."""

from numtorch.ao.nn.intrinsic.quantized.dynamic.modules import *  # noqa: F401,F403

from . import linear_relu  # noqa: F401,E402
