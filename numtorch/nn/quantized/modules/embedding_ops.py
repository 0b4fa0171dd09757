"""``torch.nn.quantized.modules.embedding_ops``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.embedding_ops` (same objects)."""

from numtorch.ao.nn.quantized.modules.embedding_ops import *  # noqa: F401,F403
