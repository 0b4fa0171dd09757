"""``torch.ao.nn.quantized.dynamic``: layers with quantized weights whose activations are
quantized on the fly from each input's range (float in, float out)."""

from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
