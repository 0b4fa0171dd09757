"""``torch.quantization``: the old import path of :mod:`numtorch.ao.quantization` (same
objects)."""

from . import (fake_quantize, fuse_modules, fuser_method_mappings, observer,  # noqa: F401
               qconfig, quant_type, quantization_mappings, quantize, stubs, utils)
from numtorch.ao.quantization import *  # noqa: F401,F403
from numtorch.ao.quantization.fake_quantize import *  # noqa: F401,F403
from numtorch.ao.quantization.fuse_modules import *  # noqa: F401,F403
from numtorch.ao.quantization.fuser_method_mappings import *  # noqa: F401,F403
from numtorch.ao.quantization.observer import *  # noqa: F401,F403
from numtorch.ao.quantization.qconfig import *  # noqa: F401,F403
from numtorch.ao.quantization.quant_type import *  # noqa: F401,F403
from numtorch.ao.quantization.quantization_mappings import *  # noqa: F401,F403
from numtorch.ao.quantization.quantize import *  # noqa: F401,F403
from numtorch.ao.quantization.stubs import *  # noqa: F401,F403
