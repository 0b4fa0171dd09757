"""``torch.nn.qat.dynamic``: the old import path of :mod:`numtorch.ao.nn.qat.dynamic` (same objects)."""

from numtorch.ao.nn.qat.dynamic import *  # noqa: F401,F403

from . import modules  # noqa: F401,E402
