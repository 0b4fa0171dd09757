"""``torch.nn.quantized.modules.functional_modules``: the old import path of :mod:`numtorch.ao.nn.quantized.modules.functional_modules` (same objects)."""

from numtorch.ao.nn.quantized.modules.functional_modules import *  # noqa: F401,F403
