"""``torch.nn.intrinsic.qat.modules.conv_fused``: the old import path of :mod:`numtorch.ao.nn.intrinsic.qat.modules.conv_fused` (same objects)."""

from numtorch.ao.nn.intrinsic.qat.modules.conv_fused import *  # noqa: F401,F403
