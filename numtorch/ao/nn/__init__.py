"""``torch.ao.nn``: quantized (``quantized``, ``quantized.dynamic``), fused (``intrinsic``)
and quantization-aware-training (``qat``) modules."""

import importlib

__all__ = ["intrinsic", "qat", "quantizable", "quantized", "sparse"]


def __getattr__(name):
    if name in ("intrinsic", "qat", "quantized"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
