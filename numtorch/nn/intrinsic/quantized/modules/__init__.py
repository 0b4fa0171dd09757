"""``torch.nn.intrinsic.quantized.modules``: the old import path of :mod:`numtorch.ao.nn.intrinsic.quantized.modules` (same objects)."""

from numtorch.ao.nn.intrinsic.quantized.modules import *  # noqa: F401,F403

from . import bn_relu, conv_relu, linear_relu  # noqa: F401,E402
