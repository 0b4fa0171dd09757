"""``torch.nn.intrinsic``: the old import path of :mod:`numtorch.ao.nn.intrinsic` (same objects)."""

from numtorch.ao.nn.intrinsic import *  # noqa: F401,F403
from numtorch.ao.nn.intrinsic import _FusedModule  # noqa: F401

from . import modules, qat, quantized  # noqa: F401,E402
