"""``torch.quantization.quant_type``: the old import path of :mod:`numtorch.ao.quantization.quant_type` (same objects)."""

from numtorch.ao.quantization.quant_type import *  # noqa: F401,F403
