"""``torch.quantization.fuser_method_mappings``: the old import path of :mod:`numtorch.ao.quantization.fuser_method_mappings` (same objects)."""

from numtorch.ao.quantization.fuser_method_mappings import *  # noqa: F401,F403
