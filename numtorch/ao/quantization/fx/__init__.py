"""FX graph mode quantization internals: trace (:mod:`.tracer`), fuse (:mod:`.fuse`), insert
observers (:mod:`.prepare`) and lower to quantized modules and ops (:mod:`.convert`).

The public entry points are in :mod:`numtorch.ao.quantization.quantize_fx`.
"""

from .tracer import QuantizationTracer, Scope, ScopeContextManager  # noqa: F401
