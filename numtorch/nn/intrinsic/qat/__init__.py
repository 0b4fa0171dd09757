"""``torch.nn.intrinsic.qat``: the old import path of :mod:`numtorch.ao.nn.intrinsic.qat` (same objects)."""

from numtorch.ao.nn.intrinsic.qat import *  # noqa: F401,F403

from . import modules  # noqa: F401,E402
