"""``torch.ao.nn.quantized.reference``: reference quantized modules, float modules whose
weight goes through quantize/dequantize with stored parameters before the float op (what
``convert_to_reference_fx`` builds)."""

from .modules import *

__all__ = ["Conv1d", "Conv2d", "Conv3d", "Linear"]
