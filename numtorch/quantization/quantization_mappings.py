"""``torch.quantization.quantization_mappings``: the old import path of :mod:`numtorch.ao.quantization.quantization_mappings` (same objects)."""

from numtorch.ao.quantization.quantization_mappings import *  # noqa: F401,F403
