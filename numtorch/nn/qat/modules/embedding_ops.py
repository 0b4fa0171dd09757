"""``torch.nn.qat.modules.embedding_ops``: the old import path of :mod:`numtorch.ao.nn.qat.modules.embedding_ops` (same objects)."""

from numtorch.ao.nn.qat.modules.embedding_ops import *  # noqa: F401,F403
