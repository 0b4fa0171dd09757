"""``torch.nn.quantized.modules``: the old import path of :mod:`numtorch.ao.nn.quantized.modules` (same objects)."""

from numtorch.ao.nn.quantized.modules import *  # noqa: F401,F403

from . import activation, batchnorm, conv, dropout, embedding_ops, functional_modules, linear, normalization, utils  # noqa: F401,E402
