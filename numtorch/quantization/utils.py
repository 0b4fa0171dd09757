"""``torch.quantization.utils``: the old import path of :mod:`numtorch.ao.quantization.utils` (same objects)."""

from numtorch.ao.quantization.utils import *  # noqa: F401,F403
from numtorch.ao.quantization.utils import _parent_name  # noqa: F401
