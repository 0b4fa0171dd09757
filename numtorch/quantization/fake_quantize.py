"""``torch.quantization.fake_quantize``: the old import path of :mod:`numtorch.ao.quantization.fake_quantize` (same objects)."""

from numtorch.ao.quantization.fake_quantize import *  # noqa: F401,F403
from numtorch.ao.quantization.fake_quantize import _is_per_channel, _is_per_tensor, _is_symmetric_quant  # noqa: F401
