"""``torch.nn.intrinsic.modules.fused``: the old import path of :mod:`numtorch.ao.nn.intrinsic.modules.fused` (same objects)."""

from numtorch.ao.nn.intrinsic.modules.fused import *  # noqa: F401,F403
from numtorch.ao.nn.intrinsic.modules.fused import _FusedModule  # noqa: F401
