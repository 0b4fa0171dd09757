"""``torch.nn.qat.modules``: the old import path of :mod:`numtorch.ao.nn.qat.modules` (same objects)."""

from numtorch.ao.nn.qat.modules import *  # noqa: F401,F403

from . import conv, embedding_ops, linear  # noqa: F401,E402
