"""``torch.nn.intrinsic.qat.modules.linear_fused``: the old import path of :mod:`numtorch.ao.nn.intrinsic.qat.modules.linear_fused` (same objects)."""

from numtorch.ao.nn.intrinsic.qat.modules.linear_fused import *  # noqa: F401,F403
