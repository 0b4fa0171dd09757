"""``torch.quantization.observer``: the old import path of :mod:`numtorch.ao.quantization.observer` (same objects)."""

from numtorch.ao.quantization.observer import *  # noqa: F401,F403
from numtorch.ao.quantization.observer import _PartialWrapper, _with_args, _with_callable_args  # noqa: F401
