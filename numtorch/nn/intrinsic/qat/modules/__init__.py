"""``torch.nn.intrinsic.qat.modules``: the old import path of :mod:`numtorch.ao.nn.intrinsic.qat.modules` (same objects)."""

from numtorch.ao.nn.intrinsic.qat.modules import *  # noqa: F401,F403

from . import conv_fused, linear_fused, linear_relu  # noqa: F401,E402
