"""``torch.nn.intrinsic.modules``: the old import path of :mod:`numtorch.ao.nn.intrinsic.modules` (same objects)."""

from numtorch.ao.nn.intrinsic.modules import *  # noqa: F401,F403
from numtorch.ao.nn.intrinsic.modules import _FusedModule  # noqa: F401

from . import fused  # noqa: F401,E402
