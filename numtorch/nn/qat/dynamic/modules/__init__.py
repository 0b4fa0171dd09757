"""``torch.nn.qat.dynamic.modules``: the old import path of :mod:`numtorch.ao.nn.qat.dynamic.modules` (same objects)."""

from numtorch.ao.nn.qat.dynamic.modules import *  # noqa: F401,F403

from . import linear  # noqa: F401,E402
