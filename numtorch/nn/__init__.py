"""``numtorch.nn``: modules, parameters, containers, ``functional`` and ``init``."""

from .parameter import (  # noqa: F401
    Buffer, Parameter, UninitializedBuffer, UninitializedParameter,
)
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import functional  # noqa: F401
from . import init  # noqa: F401
import importlib as _importlib  # noqa: E402

# nn.utils itself: the star import above brought nn.modules.utils in under this name
utils = _importlib.import_module(".utils", __name__)
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
# The 1.4 docs' examples spell it torch.nn.DistributedDataParallel; torch 2.x dropped that
# name, numtorch keeps it as the same class (seed API, thin shim).
from .parallel import DistributedDataParallel  # noqa: F401,E402
from . import attention, common_types, grad  # noqa: F401,E402  (torch.nn.attention, ...)
from ._factory_kwargs import factory_kwargs  # noqa: F401,E402
from .modules.loss import LinearCrossEntropyLoss  # noqa: F401,E402
from .modules.linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: F401,E402


def __getattr__(name):
    # torch.nn.quantized / intrinsic / qat (old paths of torch.ao.nn's modules) load on first
    # use, keeping `import numtorch` fast
    if name in ("quantized", "intrinsic", "qat"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
