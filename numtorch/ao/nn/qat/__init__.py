"""``torch.ao.nn.qat``: float layers that fake-quantize their weights during training."""

from . import dynamic  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__  # noqa: F401
