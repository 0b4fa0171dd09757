"""``torch.nn.qat.modules.linear``: the old import path of :mod:`numtorch.ao.nn.qat.modules.linear` (same objects)."""

from numtorch.ao.nn.qat.modules.linear import *  # noqa: F401,F403
