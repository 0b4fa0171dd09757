"""``torch.ao.nn.intrinsic``: fused modules (conv/linear with batch norm and activations),
their QAT (``qat``) and quantized (``quantized``) forms."""

import importlib

from .modules import *  # noqa: F401,F403
from .modules import _FusedModule, __all__  # noqa: F401


def __getattr__(name):
    if name in ("qat", "quantized"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
