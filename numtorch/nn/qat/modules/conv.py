"""``torch.nn.qat.modules.conv``: the old import path of :mod:`numtorch.ao.nn.qat.modules.conv` (same objects)."""

from numtorch.ao.nn.qat.modules.conv import *  # noqa: F401,F403
