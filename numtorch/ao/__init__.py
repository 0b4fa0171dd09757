"""``torch.ao``: architecture optimisation; numtorch has its quantization half
(:mod:`numtorch.ao.quantization` and the quantized modules in :mod:`numtorch.ao.nn`)."""

import importlib

__all__ = ["nn", "quantization"]


def __getattr__(name):
    # loaded on first use, as torch does
    if name in __all__:
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
