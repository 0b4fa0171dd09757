"""``torch.quantization.quantize``: the old import path of :mod:`numtorch.ao.quantization.quantize` (same objects)."""

from numtorch.ao.quantization.quantize import *  # noqa: F401,F403
from numtorch.ao.quantization.quantize import _convert, _observer_forward_hook, _remove_qconfig, _add_observer_, _propagate_qconfig_helper, is_activation_post_process  # noqa: F401
