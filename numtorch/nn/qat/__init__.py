"""``torch.nn.qat``: the old import path of :mod:`numtorch.ao.nn.qat` (same objects)."""

from numtorch.ao.nn.qat import *  # noqa: F401,F403

from . import dynamic, modules  # noqa: F401,E402
